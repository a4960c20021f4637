//! `gc`: plan by default; purge only with `--execute` and an explicit selection.

use std::path::Path;

use serde::Serialize;
use serde_json::{Value, json};

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

/// The result of `gc`, with its exit code (0 ok, 1 nothing selected or refused).
#[derive(Debug, Clone, Serialize)]
pub struct GcReport {
    /// The plan (always computed).
    pub plan: GcPlan,
    /// What was purged, when executing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<GcOutcome>,
    /// Why nothing was purged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The exit code.
    pub exit: i32,
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
            error: None,
            exit: 0,
        });
    }
    let selection = if request.all_eligible {
        GcSelection::AllEligible
    } else if request.txids.is_empty() {
        return Ok(GcReport {
            plan,
            outcome: None,
            error: Some(
                "nothing selected: --execute needs --txid ID (repeatable) or --all-eligible; \
                 run `agent-guard gc` first to see the plan"
                    .to_owned(),
            ),
            exit: 1,
        });
    } else {
        GcSelection::Ids(request.txids.clone())
    };
    // The intent is durable before anything is purged; without it nothing is.
    let targets: Vec<String> = match &selection {
        GcSelection::Ids(ids) => ids.clone(),
        GcSelection::AllEligible => plan.eligible.iter().map(|e| e.txid.clone()).collect(),
    };
    let known: Vec<&String> = targets.iter().filter(|t| is_generated_id(t)).collect();
    let intent =
        json!({"event": "gc-intent", "tool": "gc", "target_count": targets.len(), "txids": known});
    let stored = audit_log(&workspace, &runtime)
        .ok()
        .zip(intent.as_object().cloned())
        .is_some_and(|(log, record)| log.append(&record).is_ok());
    if !stored {
        return Ok(GcReport {
            plan,
            outcome: None,
            error: Some("the gc intent could not be audited".to_owned()),
            exit: 1,
        });
    }
    match agent_guard_recovery::purge(&store, &policy, &selection) {
        Ok(outcome) => {
            let record = json!({"event": "gc", "tool": "gc", "action": "PURGED", "purged": outcome.purged, "missing_count": outcome.missing.len()});
            if let (Ok(log), Value::Object(record)) = (audit_log(&workspace, &runtime), record) {
                let _ = log.append(&record);
            }
            let exit = i32::from(!outcome.errors.is_empty());
            Ok(GcReport {
                plan,
                outcome: Some(outcome),
                error: None,
                exit,
            })
        }
        Err(error) => Ok(GcReport {
            plan,
            outcome: None,
            error: Some(error_chain(&error)),
            exit: 1,
        }),
    }
}
