//! agent-guard's commands as library functions.
//!
//! The engine orchestrates the pipeline — lex, classify, world, policy, recovery, audit — for
//! each command (`check`, `safe_delete`, `restore`, `status`, `gc`, `audit verify`). It reads the
//! environment and the clock once (through [`Runtime`]) and injects them everywhere else. The
//! CLI and the harness adapters are thin layers over these functions.

#![warn(missing_docs)]

mod approval;
mod ask;
mod audit;
mod check;
mod config_trust;
mod definitions;
mod demo;
mod edit;
mod enforce;
mod error;
mod exit;
mod explain;
mod gc;
mod git_programs;
mod history;
mod list;
mod location;
mod mode;
mod path_programs;
mod pipeline;
mod put_back;
mod report;
mod runtime;
mod safe_delete;
mod seal;
mod show;
mod status;
mod store;
mod txref;
mod watcher;
mod workspace;

pub use agent_guard_session::approval::Approval;
pub use approval::{ApprovalError, ApprovalReport, approve, find_approval, waiting_approvals};
pub use audit::{AuditChainStatus, AuditVerifyReport, verify_audit};
pub use check::{CheckRequest, check, check_observing, check_with};
pub use config_trust::{TrustReport, trust_config, untrusted_settings};
pub use demo::prepare_demo_workspace;
pub use edit::{EditRequest, check_edit};

/// The next thing to do after a verdict with `code` (the registry's hint; empty when the
/// command simply runs).
pub fn hint(code: agent_guard_types::ReasonCode) -> &'static str {
    agent_guard_policy::lookup(code).map_or("", agent_guard_policy::Reason::hint)
}

// What the front ends need from the layers below, so that they depend on the engine alone.
pub use agent_guard_audit::{
    ChainReport, ChainState, Finding, FindingKind, TornRegion, TornStatus,
};
pub use agent_guard_config::{DEFAULT_DEADLINE_MS, EnvSnapshot, MAX_DEADLINE_MS, env_deadline};
pub use agent_guard_recovery::{
    ChangeKind, CheckpointFacts, DATABASE_SUBJECT, EditedFile, ItemKind, NoProgress, NotKeptReason,
    Origin, Progress, RestoreRefusal, RestoreReport, TxMeta, TxState,
};
pub use error::{EngineError, Result};
pub use exit::{Exit, Reported};
pub use explain::{Explanation, all_codes, explain, parse_code, similar_codes};
pub use gc::{GcRefusal, GcReport, GcRequest, GcTargets, gc};
pub use history::{RestoreOutcome, RestoreRequest, RestoreTarget, restore};
pub use list::{ListOptions, ListReport, TxSummary, holding, list, undo_queue};
pub use location::{StoreKind, StoreLocation, workspace_id};
pub use mode::{ModeReport, change_mode, show_mode};
pub use report::{CheckReport, Compensation, OpReport};
pub use runtime::Runtime;
pub use safe_delete::{
    MovedPath, SafeDeleteReport, SafeDeleteRequest, SkippedPath, VerdictReport, safe_delete,
};
pub use seal::person_changed_guard_files;
pub use show::{
    FailureReport, ItemReport, NotKeptReport, SHOWN_FILES, SHOWN_STATS, ShowReport, SnapshotReport,
    show,
};
pub use status::{
    CheckpointDamage, Retention, StatusReport, WatcherStatus, checkpoint_damage_at, status,
};
pub use txref::{TxRefError, is_backup, is_parked, resolve as resolve_txref, undoable};
pub use watcher::{WATCH_ENTRY, WatcherServer, WatcherStart, serve_watchers, watch};
pub use workspace::Workspace;
