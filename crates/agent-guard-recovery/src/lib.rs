//! The agent-guard quarantine store. The only crate that moves or deletes files.
//!
//! In the pipeline this is the *effects* stage: after the policy produced a verdict and a
//! plan, the engine asks this crate to compensate (relocate into the quarantine, snapshot git
//! state) before the command runs, and to restore or purge later.
//!
//! ```text
//! … → policy → Verdict { plan } → recovery (this crate) → audit → hook renders
//! ```
//!
//! What it must not do: decide. It never judges a command and never reads the environment;
//! paths, session ids and clocks arrive as arguments. Every rename or removal goes through
//! the small `fsops` module, the only place `clippy.toml` allows them.
//!
//! The quarantine root (`<workspace>/.agent-trash` by default) holds `manifest.jsonl`,
//! `audit.jsonl`, `state.json`, `sessions/<sid>.json`, a nested `.git` that keeps git's own
//! destructive commands away from it, and one directory per transaction.
//!
//! ```
//! use agent_guard_recovery::{ensure_layout, read_mode};
//! use agent_guard_types::SessionMode;
//!
//! let workspace = tempfile::tempdir().unwrap();
//! let trash = workspace.path().join(".agent-trash");
//! let report = ensure_layout(workspace.path(), &trash).unwrap();
//! assert!(report.created);
//! assert_eq!(read_mode(&trash, Some("agent-1")).mode, SessionMode::Normal);
//! ```

#![warn(missing_docs)]

mod checkpoint;
mod copy;
mod direct;
mod error;
mod faults;
mod fsops;
mod gc;
mod git;
mod layout;
mod lock;
mod manifest;
mod manifest_index;
mod reconcile;
mod records;
mod relocate;
mod restore;
mod session;
mod store;
mod stored_path;
mod transactions;
mod usage;

pub use copy::{NoProgress, Progress};
pub use direct::DirectOutcome;
pub use error::RecoveryError;
pub use faults::{FaultPoint, Faults};
pub use gc::{GcEntry, GcOutcome, GcPlan, GcPolicy, GcSelection};
pub use git::{GitRestore, GitSnapshot, KeptRef, RefSubject};
pub use layout::{EXCLUDE_COMMENT, LayoutReport, ensure_layout};
pub use lock::{LOCK_FILE_NAME, StoreLock};
pub use manifest::{MANIFEST_FILE_NAME, Manifest};
pub use reconcile::Reconciled;
pub use records::{
    CopyVerified, Failed, Intent, ItemKind, MANIFEST_SCHEMA, Method, Purged, Record, Relocated,
    Restored, Snapshot, TxStart,
};
pub use relocate::{Moved, RelocateItem, RelocationReport, SkipKind, Skipped};
pub use restore::{RestoreOptions, RestoreReport};
pub use session::{
    ModeChange, ModeState, SESSIONS_DIR_NAME, STATE_FILE_NAME, mode_path, read_mode,
    sanitize_session, set_mode,
};
pub use store::Quarantine;
pub use stored_path::StoredPath;
pub use transactions::{Item, SnapshotItem, Transaction, TxState, transactions};
pub use usage::{Overview, Usage};
