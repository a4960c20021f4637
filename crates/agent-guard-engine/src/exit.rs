//! Exit codes: the one place where an engine outcome becomes a process exit code.
//!
//! The front ends (the CLI's commands and hook mode, the MCP server) ask a report for its
//! [`Exit::exit_code`] and print [`Reported`], which adds it as the `exit` field of the JSON
//! contract. No report stores an exit code of its own.

use serde::Serialize;

use agent_guard_audit::ChainState;
use agent_guard_recovery::RestoreReport;
use agent_guard_types::{Decision, ExitCode};

use crate::{AuditVerifyReport, CheckReport, GcReport, SafeDeleteReport};

/// A report that knows the exit code of the command that produced it.
pub trait Exit: Serialize {
    /// The exit code.
    fn exit_code(&self) -> ExitCode;

    /// The report with its `exit` field, as `--json` prints it.
    fn reported(&self) -> Reported<'_, Self>
    where
        Self: Sized,
    {
        Reported {
            report: self,
            exit: self.exit_code(),
        }
    }
}

/// A report with its exit code: the `--json` form.
#[derive(Debug, Clone, Copy, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Reported<'a, T> {
    /// The report's own fields.
    #[serde(flatten)]
    pub report: &'a T,
    /// Its exit code.
    pub exit: ExitCode,
}

impl Exit for CheckReport {
    /// Advisory: 0 whatever the decision. Enforced: 2 refused, 3 ask, else 0 (proceed).
    fn exit_code(&self) -> ExitCode {
        if !self.enforced {
            return ExitCode::Success;
        }
        match self.decision {
            Decision::Block => ExitCode::Blocked,
            Decision::Ask => ExitCode::Ask,
            _ => ExitCode::Success,
        }
    }
}

impl Exit for SafeDeleteReport {
    /// 2 when refused, else 0.
    fn exit_code(&self) -> ExitCode {
        if self.outcome.is_refusal() {
            ExitCode::Blocked
        } else {
            ExitCode::Success
        }
    }
}

impl Exit for RestoreReport {
    /// 1 with errors, 3 with conflicts only, else 0.
    fn exit_code(&self) -> ExitCode {
        if !self.errors.is_empty() {
            ExitCode::InternalError
        } else if !self.conflicts.is_empty() {
            ExitCode::Ask
        } else {
            ExitCode::Success
        }
    }
}

impl Exit for crate::RestoreOutcome {
    /// As its report.
    fn exit_code(&self) -> ExitCode {
        self.report.exit_code()
    }
}

impl Exit for GcReport {
    /// 1 when nothing could be purged as asked, or a purge failed, else 0.
    fn exit_code(&self) -> ExitCode {
        let failed = self.refusal.is_some()
            || self
                .outcome
                .as_ref()
                .is_some_and(|outcome| !outcome.errors.is_empty());
        if failed {
            ExitCode::InternalError
        } else {
            ExitCode::Success
        }
    }
}

impl Exit for AuditVerifyReport {
    /// 0 intact, unchained or empty; 4 a torn tail (repaired or pending), nothing tampered;
    /// 5 tampered.
    fn exit_code(&self) -> ExitCode {
        match self.chain.state {
            ChainState::Repaired | ChainState::TornTail => ExitCode::TornTail,
            ChainState::Tampered => ExitCode::Tampered,
            _ => ExitCode::Success,
        }
    }
}
