//! The one pipeline `check --enforce`, an edit tool's check and `safe-delete` go through
//! (issue 36): one place builds the policy's context from the workspace, one applies a plan
//! through the compensation registry, one writes the audit records.
//!
//! Each entry point still says what it judges (a command line, an edit, a list of paths) and
//! how it answers; what a judgement needs from the workspace, how a plan is carried out and
//! how a record reaches the log is decided here once.

use std::path::Path;

use agent_guard_audit::{AuditLog, AuditRecord, SyncInFlight};
use agent_guard_policy::PolicyContext;
use agent_guard_recovery::{Applied, Job, Origin, Progress, Quarantine, compensation};
use agent_guard_session::read_mode;
use agent_guard_types::{Plan, Strategy};

use crate::check::audit_log;
use crate::enforce::new_txid;
use crate::runtime::Runtime;
use crate::workspace::Workspace;

/// The policy's context for a judgement made in `cwd` of `workspace`: its settings and the
/// session's mode.
pub(crate) fn policy_context(workspace: &Workspace, cwd: &Path) -> PolicyContext {
    let settings = &workspace.settings;
    PolicyContext {
        cwd: cwd.to_path_buf(),
        mode: read_mode(workspace.trash(), settings.session.as_deref()).mode,
        allow_regenerable: settings.allow_regenerable,
        artifacts: settings.artifacts.clone(),
        preserve_max_bytes: settings.preserve_max_bytes,
        checkpoint: settings.checkpoint,
        checkpoint_max_file_bytes: settings.checkpoint_max_file_bytes,
        follow_cd: true,
        git_ignores_known: !settings.git_config_unseen,
    }
}

/// Carries out plans through the compensation registry, each in a new transaction made by
/// one origin.
pub(crate) struct Applier<'a> {
    /// The quarantine the transactions go into.
    pub store: &'a Quarantine,
    /// Where new transaction ids come from.
    pub runtime: &'a Runtime,
    /// Who makes the transactions.
    pub origin: Origin,
    /// Progress of long copies.
    pub progress: &'a dyn Progress,
}

/// What became of one plan.
pub(crate) enum Carried {
    /// The plan compensates nothing (an allow, a direct delete, a refusal).
    NothingToDo,
    /// No registered compensation carries out the plan's strategy.
    Unregistered(Strategy),
    /// The compensation ran: how far it got.
    Ran(Box<Applied>),
}

impl Applier<'_> {
    /// Carries out `plan` in a new transaction.
    pub(crate) fn apply(&self, plan: &Plan) -> Carried {
        let Some(strategy) = Strategy::for_plan(plan) else {
            return Carried::NothingToDo;
        };
        let Some(compensation) = compensation(strategy) else {
            return Carried::Unregistered(strategy);
        };
        let job = Job {
            store: self.store,
            txid: new_txid(self.runtime),
            origin: self.origin.clone(),
            progress: self.progress,
        };
        Carried::Ran(Box::new(compensation.apply(&job, plan)))
    }
}

/// The workspace's audit log, opened once per judgement, and the three ways a record is
/// written to it.
pub(crate) struct Audit {
    log: Result<AuditLog, String>,
}

impl Audit {
    /// The audit log of `workspace` (its layout created first).
    pub(crate) fn open(workspace: &Workspace, runtime: &Runtime) -> Audit {
        Audit {
            log: audit_log(workspace, runtime),
        }
    }

    /// The log, when it could be opened.
    pub(crate) fn log(&self) -> Option<&AuditLog> {
        self.log.as_ref().ok()
    }

    /// Writes `record` and waits for the disk; `false` when it is not stored.
    pub(crate) fn durable(&self, record: &AuditRecord) -> bool {
        self.log().is_some_and(|log| log.append(record).is_ok())
    }

    /// Writes `record` without waiting for the disk; `false` when it is not stored.
    pub(crate) fn relaxed(&self, record: &AuditRecord) -> bool {
        self.log()
            .is_some_and(|log| log.append_relaxed(record).is_ok())
    }

    /// Writes `record` and hands back its flush, to be waited for before the first effect;
    /// the cause when it cannot be written.
    pub(crate) fn in_flight(
        &self,
        record: &AuditRecord,
        cause: impl Fn(&agent_guard_audit::AuditError) -> String,
    ) -> Result<SyncInFlight, String> {
        match &self.log {
            Ok(log) => log
                .append_in_flight(record)
                .map(|(_, sync)| sync)
                .map_err(|e| cause(&e)),
            Err(cause) => Err(cause.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    /// The entry points of a judgement, as they are compiled.
    const ENTRY_POINTS: [(&str, &str); 5] = [
        ("check.rs", include_str!("check.rs")),
        ("edit.rs", include_str!("edit.rs")),
        ("safe_delete.rs", include_str!("safe_delete.rs")),
        ("enforce.rs", include_str!("enforce.rs")),
        ("ask.rs", include_str!("ask.rs")),
    ];

    #[test]
    fn no_entry_point_builds_a_context_applies_a_plan_or_writes_a_record_itself() {
        for (file, text) in ENTRY_POINTS {
            for own in [
                "PolicyContext {",
                "compensation(",
                "Job {",
                ".append(",
                ".append_relaxed(",
                ".append_in_flight(",
                "read_mode(",
            ] {
                assert!(
                    !text.contains(own),
                    "{file} does `{own}` itself: go through crate::pipeline"
                );
            }
        }
    }
}
