//! agent-guard's commands as library functions.
//!
//! The engine orchestrates the pipeline — lex, classify, world, policy, recovery, audit — for
//! each command (`check`, and later `safe_delete`, `restore`, `status`, `gc`). It reads the
//! environment and the clock once (through [`Runtime`]) and injects them everywhere else. The
//! CLI and the harness adapters are thin layers over these functions.

#![warn(missing_docs)]

mod check;
mod error;
mod mode;
mod report;
mod runtime;
mod workspace;

pub use check::{CheckRequest, check};
pub use error::{EngineError, Result};
pub use mode::{ModeReport, change_mode, show_mode};
pub use report::{CheckReport, Compensation, OpReport};
pub use runtime::Runtime;
pub use workspace::Workspace;
