//! `gc`: plan by default; purge only with `--execute` and an explicit selection.

use std::path::Path;

use serde::Serialize;

use agent_guard_audit::{Action, AuditRecord, Event, Tool};
use agent_guard_config::EnvSnapshot;
use agent_guard_recovery::{GcOutcome, GcPlan, GcPolicy, GcSelection, Quarantine};
use agent_guard_types::is_generated_id;

use crate::check::{audit_log, error_chain};
use crate::error::Result;
use crate::runtime::Runtime;
use crate::store::quarantine;
use crate::workspace::Workspace;

/// Which transactions a purge takes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum GcTargets {
    /// None named (`--execute` alone is refused with [`GcRefusal::NothingSelected`]).
    #[default]
    Unselected,
    /// These references (ids, unique parts, `@-N`).
    Ids(Vec<String>),
    /// Everything the plan marks eligible.
    AllEligible,
    /// Every transaction of this workspace, whatever its age (recent ones only with `now`).
    Everything,
}

/// What to collect.
#[derive(Debug, Clone, Default)]
pub struct GcRequest {
    /// Purge instead of planning.
    pub execute: bool,
    /// What to purge.
    pub targets: GcTargets,
    /// Lift the grace window: recent transactions may be purged too. A person asked for it
    /// (the CLI confirms on a terminal, or needs `--yes`).
    pub now: bool,
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
    let mut policy = gc_policy(&workspace, &runtime);
    if request.execute && request.now {
        policy.grace_minutes = 0;
    }
    let plan = store.gc_plan(&policy)?;
    if !request.execute {
        return Ok(GcReport {
            plan,
            outcome: None,
            refusal: None,
        });
    }
    let Some(selection) = selection(&request.targets, &store, &workspace)? else {
        return Ok(GcReport {
            plan,
            outcome: None,
            refusal: Some(GcRefusal::NothingSelected),
        });
    };
    // The intent is durable before anything is purged; without it nothing is.
    let targets: Vec<String> = match &selection {
        GcSelection::Ids(ids) => ids.clone(),
        GcSelection::AllEligible => plan.eligible.iter().map(|e| e.txid.clone()).collect(),
    };
    if targets.is_empty()
        && matches!(
            request.targets,
            GcTargets::AllEligible | GcTargets::Everything
        )
    {
        // Nothing to do is not a failure (a nightly `gc --execute --all-eligible`).
        return Ok(GcReport {
            plan,
            outcome: Some(GcOutcome::default()),
            refusal: None,
        });
    }
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

/// The transactions `targets` select in `workspace`'s quarantine `store`; `None` when none
/// are named.
fn selection(
    targets: &GcTargets,
    store: &Quarantine,
    workspace: &Workspace,
) -> Result<Option<GcSelection>> {
    Ok(Some(match targets {
        GcTargets::Everything => {
            let txs = crate::list::workspace_transactions(store, &workspace.root)?;
            GcSelection::Ids(
                txs.into_iter()
                    .filter(|t| !t.purged)
                    .map(|t| t.txid)
                    .collect(),
            )
        }
        GcTargets::AllEligible => GcSelection::AllEligible,
        GcTargets::Unselected => return Ok(None),
        GcTargets::Ids(references) => {
            // References (a unique prefix or suffix, `@-N`) name their transaction; anything
            // else is passed on for the quarantine to refuse.
            let txs = crate::list::workspace_transactions(store, &workspace.root)?;
            let mut ids = Vec::new();
            for reference in references {
                ids.push(match crate::txref::resolve(reference, &txs) {
                    Ok(Some(id)) => id,
                    Ok(None) | Err(crate::TxRefError::Unknown(_)) => reference.clone(),
                    Err(error) => return Err(error.into()),
                });
            }
            GcSelection::Ids(ids)
        }
    }))
}
