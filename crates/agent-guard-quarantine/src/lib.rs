//! The agent-guard quarantine store: layout, journal, relocation, restore of files, gc.
//!
//! In the pipeline this sits under the compensations (`agent-guard-recovery`): relocation,
//! clean-enumerate and restore move files into and out of the quarantine through this crate,
//! and the git compensations journal their snapshots in its manifest.
//!
//! ```text
//! … → policy → Verdict { plan } → recovery → quarantine (this crate) → audit
//! ```
//!
//! What it must not do: decide, or know git's semantics. It never judges a command and
//! never reads the environment; paths, session ids and clocks arrive as arguments. Every
//! rename or removal goes through `agent-guard-fsops`, the only place `clippy.toml` allows
//! them. The only git it touches is its own layout: an exclude rule and a nested repository
//! that keep git's destructive commands away from it.
//!
//! The quarantine root (`<workspace>/.agent-trash` by default) holds `manifest.jsonl`,
//! `audit.jsonl`, `state.json`, `sessions/<sid>.json`, a nested `.git` that keeps git's own
//! destructive commands away from it, and one directory per transaction.
//!
//! ```
//! use agent_guard_quarantine::{Quarantine, ensure_layout};
//!
//! let workspace = tempfile::tempdir().unwrap();
//! let trash = workspace.path().join(".agent-trash");
//! let report = ensure_layout(workspace.path(), &trash).unwrap();
//! assert!(report.created);
//! assert!(Quarantine::new(workspace.path(), &trash).transactions().unwrap().is_empty());
//! ```

#![warn(missing_docs)]

// Verified copies and the fault points are their own crate; the old module paths stay.
pub(crate) use agent_guard_copy as copy;
pub(crate) use agent_guard_copy::faults;
mod direct;
mod error;
mod gc;
mod layout;
mod links;
mod lock;
mod manifest;
mod migrate;
mod moves;
mod preserve;
mod read_from;
mod reconcile;
mod records;
mod relocate;
mod restore;
mod store;
mod stored_path;
mod transactions;
mod tx_lines;
mod tx_meta;
mod usage;

pub use copy::{NoProgress, Progress};
pub use direct::DirectOutcome;
pub use error::QuarantineError;
pub use faults::{FaultPoint, Faults};
pub use gc::{GcEntry, GcOutcome, GcPlan, GcPolicy, GcReason, GcSelection};
pub use layout::{
    CHECKPOINTS_DIR_NAME, EXCLUDE_COMMENT, LayoutReport, SESSIONS_DIR_NAME, STATE_FILE_NAME,
    ensure_layout,
};
pub use links::PENDING_LINKS;
pub use lock::{LOCK_FILE_NAME, StoreLock, check_store};
pub use manifest::{MANIFEST_FILE_NAME, Manifest};
pub use migrate::{MIGRATED_FROM, Migration, migrate_store};
pub use moves::{Landing, MOVE_STRATEGY, MoveItem, MoveRecording, MoveReport};
pub use preserve::{KeptBy, KeptFile, PRESERVE_STRATEGY, PreservationReport, PreserveItem};
pub use reconcile::Reconciled;
pub use records::{
    CopyVerified, Failed, Intent, ItemKind, MANIFEST_SCHEMA, Method, MoveDestination, MoveIndex,
    MoveSource, PreserveIntent, PreserveMethod, Preserved, Purged, Record, Relocated, Restored,
    Snapshot, TxStart, WasThere,
};
pub use relocate::{Moved, RelocateItem, RelocationReport, SkipKind, Skipped};
pub use restore::{
    FilesOnly, OtherItems, OtherOutcome, OtherRequest, RestoreOptions, RestoreRefusal,
    RestoreReport,
};
pub use store::Quarantine;
pub use stored_path::StoredPath;
pub use transactions::{
    DATABASE_SUBJECT, Item, Kept, SnapshotItem, Transaction, TxState, list_files, path_size,
    transactions,
};
pub use tx_meta::{
    CheckpointFacts, DatabaseFacts, EditedFile, NotKeptFile, Origin, RESTORE_TOOL, Repaired,
    SnapshotFacts, TxMeta,
};
pub use usage::{Overview, Usage};
