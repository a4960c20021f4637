//! `gc`: plan by default; purge only with `--execute` and an explicit selection.

use std::path::Path;

use serde::Serialize;

use agent_guard_audit::{Action, AuditRecord, Event, Tool};
use agent_guard_config::EnvSnapshot;
use agent_guard_recovery::{GcOutcome, GcPlan, GcPolicy, GcSelection};
use agent_guard_types::is_generated_id;

use crate::check::{audit_log, error_chain};
use crate::error::Result;
use crate::runtime::Runtime;
use crate::store::quarantine;
use crate::workspace::Workspace;

/// What to collect.
#[derive(Debug, Clone, Default)]
pub struct GcRequest {
    /// Purge instead of planning.
    pub execute: bool,
    /// Purge these transactions.
    pub txids: Vec<String>,
    /// Purge everything eligible.
    pub all_eligible: bool,
}

/// Why `gc --execute` purged nothing.
///
/// It serialises as its message (the `error` field of `gc --json`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum GcRefusal {
    /// `--execute` without `--txid` or `--all-eligible`.
    NothingSelected,
    /// The durable intent record could not be written, so nothing was purged.
    IntentNotAudited,
    /// The purge was refused (an unmanaged or symlinked id, the grace window, the lock).
    Purge(String),
}

impl std::fmt::Display for GcRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GcRefusal::NothingSelected => f.write_str(
                "nothing selected: --execute needs --txid ID (repeatable) or --all-eligible; \
                 run `agent-guard gc` first to see the plan",
            ),
            GcRefusal::IntentNotAudited => f.write_str("the gc intent could not be audited"),
            GcRefusal::Purge(why) => f.write_str(why),
        }
    }
}

impl Serialize for GcRefusal {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// The result of `gc`.
#[derive(Debug, Clone, Serialize)]
pub struct GcReport {
    /// The plan (always computed).
    pub plan: GcPlan,
    /// What was purged, when executing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<GcOutcome>,
    /// Why nothing was purged.
    #[serde(rename = "error", skip_serializing_if = "Option::is_none")]
    pub refusal: Option<GcRefusal>,
}

/// The retention policy of `workspace` (from `.agent-guard.toml` or the environment) at
/// `runtime`'s now.
pub(crate) fn gc_policy(workspace: &Workspace, runtime: &Runtime) -> GcPolicy {
    GcPolicy {
        retention_days: workspace.settings.retention_days,
        max_bytes: workspace.settings.retention_max_bytes,
        grace_minutes: workspace.settings.grace_minutes,
        now: runtime.now(),
    }
}

/// Plans, or executes, garbage collection of the quarantine.
pub fn gc(cwd: &Path, env: &EnvSnapshot, request: &GcRequest) -> Result<GcReport> {
    let workspace = Workspace::open(cwd, env)?;
    let runtime = Runtime::from_env(env)?;
    let store = quarantine(&workspace, &runtime, env);
    let policy = gc_policy(&workspace, &runtime);
    let plan = store.gc_plan(&policy)?;
    if !request.execute {
        return Ok(GcReport {
            plan,
            outcome: None,
            refusal: None,
        });
    }
    let selection = if request.all_eligible {
        GcSelection::AllEligible
    } else if request.txids.is_empty() {
        return Ok(GcReport {
            plan,
            outcome: None,
            refusal: Some(GcRefusal::NothingSelected),
        });
    } else {
        GcSelection::Ids(request.txids.clone())
    };
    // The intent is durable before anything is purged; without it nothing is.
    let targets: Vec<String> = match &selection {
        GcSelection::Ids(ids) => ids.clone(),
        GcSelection::AllEligible => plan.eligible.iter().map(|e| e.txid.clone()).collect(),
    };
    let intent = AuditRecord {
        target_count: Some(targets.len()),
        txids: Some(
            targets
                .iter()
                .filter(|t| is_generated_id(t))
                .cloned()
                .collect(),
        ),
        ..AuditRecord::new(Event::GcIntent, Tool::Gc)
    };
    let stored = audit_log(&workspace, &runtime).is_ok_and(|log| log.append(&intent).is_ok());
    if !stored {
        return Ok(GcReport {
            plan,
            outcome: None,
            refusal: Some(GcRefusal::IntentNotAudited),
        });
    }
    match agent_guard_recovery::purge(&store, &policy, &selection) {
        Ok(outcome) => {
            let record = AuditRecord {
                action: Some(Action::Purged),
                purged: Some(outcome.purged.clone()),
                missing_count: Some(outcome.missing.len()),
                ..AuditRecord::new(Event::Gc, Tool::Gc)
            };
            if let Ok(log) = audit_log(&workspace, &runtime) {
                let _ = log.append(&record);
            }
            Ok(GcReport {
                plan,
                outcome: Some(outcome),
                refusal: None,
            })
        }
        Err(error) => Ok(GcReport {
            plan,
            outcome: None,
            refusal: Some(GcRefusal::Purge(error_chain(&error))),
        }),
    }
}
