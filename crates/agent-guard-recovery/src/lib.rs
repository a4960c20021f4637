//! agent-guard's compensations behind one interface, and restore and gc over them.
//!
//! In the pipeline this is the *effects* stage: after the policy produced a verdict and a
//! plan, the engine asks this crate to compensate before the command runs, and later to
//! restore or purge.
//!
//! ```text
//! … → policy → Verdict { plan } → recovery (this crate) → audit → hook renders
//!                                   │
//!                                   ├── agent-guard-quarantine (store, journal, relocation)
//!                                   └── agent-guard-git        (snapshots, refs, git clean)
//! ```
//!
//! Every compensation is a [`Compensation`]: plan → durable intent → effect → verified
//! outcome ([`Applied`]) → restore → release. [`COMPENSATIONS`] lists them; the engine's
//! `--enforce` loops over a line's plans and calls [`for_plan`]. Adding a compensation is one
//! module plus one registry entry (`docs/compensations.md`).
//!
//! What it must not do: decide. It never judges a command and never reads the environment;
//! paths, session ids and clocks arrive as arguments.
//!
//! ```
//! use agent_guard_recovery::{COMPENSATIONS, for_plan};
//! use agent_guard_types::{Plan, Strategy};
//!
//! assert_eq!(for_plan(&Plan::Relocate(Vec::new())).unwrap().strategy(), Strategy::Relocate);
//! assert!(for_plan(&Plan::Nothing).is_none());
//! assert_eq!(COMPENSATIONS.len(), Strategy::ALL.len());
//! ```

#![warn(missing_docs)]

mod checkpoint;
mod clean_enumerate;
mod compensation;
mod database_dump;
mod error;
mod moves;
mod preserve;
mod preserve_refs;
mod relocate;
mod restore;
mod snapshot;

pub use checkpoint::{
    Checkpoint, SUBJECT as CHECKPOINT_SUBJECT, changes as checkpoint_changes,
    store_dir as checkpoint_store_dir, take as take_checkpoint, watch as watch_checkpoints,
};
pub use clean_enumerate::{CleanEnumerate, enumerate_clean};
pub use compensation::{
    Applied, COMPENSATIONS, Compensation, Failure, FailureKind, Job, Registered, compensation,
    for_plan,
};
pub use database_dump::{DatabaseDump, SUBJECT as DATABASE_SUBJECT};
pub use error::RecoveryError;
pub use moves::{Move, recording as move_recording};
pub use preserve::{Preserve, items as preserve_items};
pub use preserve_refs::{PreserveRefs, preserve_refs};
pub use relocate::{Relocate, items as relocate_items};
pub use restore::{prune_checkpoints, purge, restore};
pub use snapshot::{GitSnapshot, Snapshot, snapshot_worktree};

pub use agent_guard_checkpoint::{
    ChangeKind, CheckpointChange, CheckpointDiff, CheckpointStore, NotKeptReason, Pruned,
};
pub use agent_guard_git::{KeptRef, RefSubject, Subject};
// What the engine and the CLI use of the store, by name (issue 36): the store and its
// journal, restore, gc, reconciliation and the crash-test fault points.
pub use agent_guard_quarantine::{
    CheckpointFacts, DirectOutcome, EditedFile, FaultPoint, Faults, GcEntry, GcOutcome, GcPlan,
    GcPolicy, GcReason, GcSelection, ItemKind, Migration, NoProgress, Origin, OtherItems,
    OtherOutcome, OtherRequest, Progress, Quarantine, QuarantineError, Reconciled, Record,
    RestoreOptions, RestoreRefusal, RestoreReport, SkipKind, SnapshotItem, Transaction, TxMeta,
    TxState, Usage, ensure_layout, list_files, migrate_store, path_size, transactions,
};
