//! Git compensations under `--enforce`: clean-enumerate, worktree snapshots, kept refs.

use serde_json::json;

use agent_guard_recovery::{Progress, Quarantine, RefSubject, RelocateItem};
use agent_guard_types::{Plan, ReasonCode};

use crate::enforce::{Outcome, new_txid, relocation_outcome, started};
use crate::report::Compensation;
use crate::runtime::Runtime;

/// Performs the compensation a git plan asks for.
pub(crate) fn compensate(
    store: &Quarantine,
    plan: &Plan,
    runtime: &Runtime,
    check_id: &str,
    progress: &dyn Progress,
) -> Outcome {
    let txid = new_txid(runtime);
    let meta = |strategy: &str| {
        json!({"tool": "check --enforce", "check_id": check_id, "command": "<redacted>", "strategy": strategy})
            .as_object()
            .cloned()
            .unwrap_or_default()
    };
    match plan {
        Plan::CleanEnumerate {
            cwd,
            flags,
            pathspecs,
        } => {
            // Nothing is attempted when the target set is unknown (F14): that is an
            // undeterminable effect, not a failed compensation.
            let Ok(paths) = store.enumerate_clean(cwd, flags, pathspecs) else {
                return Outcome {
                    compensation: started("clean-enumerate", &txid, "failed", "enumeration failed"),
                    failure: Some((
                        ReasonCode::BlockUndeterminableEffect,
                        "git clean enumeration failed",
                    )),
                };
            };
            let enumerated = paths.len();
            if enumerated == 0 {
                let mut compensation = started("clean-enumerate", &txid, "complete", "");
                compensation.enumerated = Some(0);
                return Outcome {
                    compensation,
                    failure: None,
                };
            }
            let items: Vec<RelocateItem> = paths
                .into_iter()
                .map(|origin| RelocateItem {
                    raw: origin.display().to_string(),
                    origin,
                })
                .collect();
            match store.relocate(&items, &txid, meta("clean-enumerate"), progress) {
                Ok(report) => {
                    let mut outcome = relocation_outcome(&report, store);
                    outcome.compensation.strategy = "clean-enumerate";
                    outcome.compensation.enumerated = Some(enumerated);
                    if outcome.failure.is_none() && report.moved.len() != enumerated {
                        outcome.compensation.status = "partial";
                        outcome.failure =
                            Some((ReasonCode::CompensationFailed, "compensation failed"));
                    }
                    outcome
                }
                Err(_) => failed("clean-enumerate", &txid),
            }
        }
        Plan::Snapshot {
            cwd, reset_target, ..
        } => {
            let mut meta = meta("snapshot");
            if let Some(revision) = reset_target {
                meta.insert(
                    "writes_revision".to_owned(),
                    serde_json::Value::from(revision.clone()),
                );
            }
            match store.snapshot_worktree(cwd, &txid, meta) {
                Ok(snapshot) => Outcome {
                    compensation: Compensation {
                        moved: usize::from(snapshot.sha.is_some()),
                        sha: Some(snapshot.sha),
                        ..started("snapshot", &txid, "complete", "")
                    },
                    failure: None,
                },
                Err(_) => failed("snapshot", &txid),
            }
        }
        Plan::PreserveRefs { cwd, refs, stash } => {
            let subject = match (stash, refs.is_empty()) {
                (true, true) => RefSubject::AllStashEntries,
                (true, false) => RefSubject::StashEntries(refs.clone()),
                (false, _) => RefSubject::Branches(refs.clone()),
            };
            match store.preserve_refs(cwd, &txid, &subject, meta("preserve-refs")) {
                Ok(kept) => Outcome {
                    compensation: Compensation {
                        moved: kept.len(),
                        ..started("preserve-refs", &txid, "complete", "")
                    },
                    failure: None,
                },
                Err(_) => failed("preserve-refs", &txid),
            }
        }
        _ => failed("relocate", &txid),
    }
}

fn failed(strategy: &'static str, txid: &agent_guard_types::TxId) -> Outcome {
    Outcome {
        compensation: started(strategy, txid, "failed", "compensation failed"),
        failure: Some((ReasonCode::CompensationFailed, "compensation failed")),
    }
}
