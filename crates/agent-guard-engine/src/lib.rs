//! agent-guard's commands as library functions.
//!
//! The engine orchestrates the pipeline — lex, classify, world, policy, recovery, audit — for
//! each command (`check`, and later `safe_delete`, `restore`, `status`, `gc`). It reads the
//! environment and the clock once (through [`Runtime`]) and injects them everywhere else. The
//! CLI and the harness adapters are thin layers over these functions.

#![warn(missing_docs)]

mod check;
mod enforce;
mod error;
mod gc;
mod history;
mod mode;
mod report;
mod runtime;
mod safe_delete;
mod status;
mod store;
mod workspace;

pub use check::{CheckRequest, check, check_with};
pub use error::{EngineError, Result};
pub use gc::{GcReport, GcRequest, gc};
pub use history::{
    ItemReport, ListReport, RestoreRequest, RestoreResult, ShowReport, TxSummary, list, restore,
    show,
};
pub use mode::{ModeReport, change_mode, show_mode};
pub use report::{CheckReport, Compensation, OpReport};
pub use runtime::Runtime;
pub use safe_delete::{
    MovedPath, SafeDeleteReport, SafeDeleteRequest, SkippedPath, VerdictReport, safe_delete,
};
pub use status::{Retention, StatusReport, status};
pub use workspace::Workspace;
