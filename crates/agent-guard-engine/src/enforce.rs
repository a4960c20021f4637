//! `check --enforce`: compensate, then say whether the command may run (reference §5.8).
//!
//! ASK stores a durable `ask` record and exits 3; BLOCK exits 2. Otherwise a durable
//! `enforce-intent` precedes every compensation, each compensation is reported with its txid,
//! and only full success turns the decision into ALLOW (the code is kept) with exit 0. Any
//! failure refuses the command (exit 2) with what was already moved still restorable.

use serde_json::{Value, json};

use agent_guard_recovery::{Progress, Quarantine, RelocationReport};
use agent_guard_types::{Decision, PathSpec, Plan, ReasonCode, TxId};

use crate::check::{CheckRequest, Judged, audit_fields, audit_log, error_chain};
use crate::git_compensation;
use crate::report::{CheckReport, Compensation};
use crate::store::quarantine;

/// Codes whose execution needs a durable intent record first.
const COMPENSATING: &[ReasonCode] = &[
    ReasonCode::AllowRegenerable,
    ReasonCode::AllowTrashGc,
    ReasonCode::RelocatePaths,
    ReasonCode::RelocateTree,
    ReasonCode::RelocateNarrow,
    ReasonCode::RelocateViaCleanEnumerate,
    ReasonCode::SnapshotGitStash,
    ReasonCode::SnapshotGitRefs,
];

/// Runs the enforced arm of `check`.
pub(crate) fn enforce(
    judged: Judged,
    request: &CheckRequest,
    progress: &dyn Progress,
) -> CheckReport {
    let Judged {
        mut report,
        ops,
        workspace,
        runtime,
    } = judged;
    report.compensations = Some(Vec::new());
    let Some(workspace) =
        workspace.filter(|_| !ops.is_empty() || report.code != ReasonCode::AllowNoop)
    else {
        // The no-op path: nothing destructive, nothing written.
        report.exit = exit_for(report.decision);
        return report;
    };
    let log = audit_log(&workspace, &runtime);
    let durable = |report: &CheckReport, event: &str, extra: Value| -> bool {
        let mut record = audit_fields(report, event);
        if let Value::Object(extra) = extra {
            record.extend(extra);
        }
        log.as_ref().is_ok_and(|log| log.append(&record).is_ok())
    };
    match report.decision {
        Decision::Ask => {
            if durable(&report, "ask", json!({"phase": "intent", "reasons": []})) {
                report.exit = 3;
            } else {
                refuse(
                    &mut report,
                    ReasonCode::CompensationFailed,
                    "durable ASK audit intent unavailable",
                );
            }
            return report;
        }
        Decision::Block => {
            if !durable(&report, "enforce-block", json!({"reasons": []})) {
                report
                    .warnings
                    .push("audit unavailable: record could not be stored".to_owned());
            }
            report.exit = 2;
            return report;
        }
        _ => {}
    }
    let needs_intent = report
        .verdicts
        .iter()
        .any(|v| COMPENSATING.contains(&v.code));
    if needs_intent && !durable(&report, "enforce-intent", json!({})) {
        refuse(
            &mut report,
            ReasonCode::CompensationFailed,
            "durable execution audit intent unavailable",
        );
        return report;
    }
    let store = quarantine(&workspace, &runtime, &request.env);
    let mut compensations = Vec::new();
    let verdicts = report.verdicts.clone();
    for verdict in &verdicts {
        let outcome = match &verdict.plan {
            Plan::Relocate(specs) => relocate(&store, specs, &runtime, &report.check_id, progress),
            Plan::Nothing | Plan::Direct(_) => continue,
            plan => {
                git_compensation::compensate(&store, plan, &runtime, &report.check_id, progress)
            }
        };
        let failure = outcome.failure;
        compensations.push(outcome.compensation);
        if let Some((code, reason)) = failure {
            report.compensations = Some(compensations);
            refuse(&mut report, code, reason);
            let _ = durable(
                &report,
                "enforce-error",
                json!({"error": "compensation failed"}),
            );
            return report;
        }
    }
    report.message = message(&compensations);
    report.compensations = Some(compensations);
    report.set_verdict(Decision::Allow, report.code);
    report.exit = 0;
    let proceed = json!({"compensations": report.compensations});
    if !durable(&report, "enforce-proceed", proceed) {
        if needs_intent {
            refuse(
                &mut report,
                ReasonCode::CompensationFailed,
                "durable execution audit unavailable after compensation",
            );
        } else {
            report
                .warnings
                .push("audit unavailable: record could not be stored".to_owned());
        }
    }
    report
}

/// The result of one compensation.
pub(crate) struct Outcome {
    pub compensation: Compensation,
    pub failure: Option<(ReasonCode, &'static str)>,
}

fn relocate(
    store: &Quarantine,
    specs: &[PathSpec],
    runtime: &crate::Runtime,
    check_id: &str,
    progress: &dyn Progress,
) -> Outcome {
    let txid = new_txid(runtime);
    let items = crate::store::relocate_items(specs);
    let meta = json!({"tool": "check --enforce", "check_id": check_id, "command": "<redacted>"});
    let meta = meta.as_object().cloned().unwrap_or_default();
    match store.relocate(&items, &txid, meta, progress) {
        Ok(result) => relocation_outcome(&result, store),
        Err(error) => Outcome {
            compensation: started("relocate", &txid, "failed", &error_chain(&error)),
            failure: Some((ReasonCode::CompensationFailed, "compensation failed")),
        },
    }
}

/// Maps a relocation report onto a compensation and its failure arm.
pub(crate) fn relocation_outcome(result: &RelocationReport, store: &Quarantine) -> Outcome {
    let (status, failure) = if result.storage_failure {
        (
            "storage-failed",
            Some((
                ReasonCode::RelocateFailedStorage,
                "quarantine storage unavailable",
            )),
        )
    } else if result.complete() {
        ("complete", None)
    } else {
        (
            "partial",
            Some((ReasonCode::CompensationFailed, "compensation failed")),
        )
    };
    let failed = result
        .skipped
        .iter()
        .filter(|s| s.kind != agent_guard_recovery::SkipKind::Absent)
        .count();
    Outcome {
        compensation: Compensation {
            strategy: "relocate",
            txid: result.txid.clone(),
            status,
            moved: result.moved.len(),
            skipped: failed,
            enumerated: None,
            sha: None,
            paths: result
                .moved
                .iter()
                .map(|m| {
                    m.origin
                        .path()
                        .strip_prefix(store.workspace())
                        .unwrap_or(m.origin.path())
                        .display()
                        .to_string()
                })
                .collect(),
        },
        failure,
    }
}

/// A compensation record for an attempt that failed before reporting anything.
pub(crate) fn started(
    strategy: &'static str,
    txid: &TxId,
    status: &'static str,
    _why: &str,
) -> Compensation {
    Compensation {
        strategy,
        txid: txid.to_string(),
        status,
        moved: 0,
        skipped: 0,
        enumerated: None,
        sha: None,
        paths: Vec::new(),
    }
}

/// A fresh transaction id.
pub(crate) fn new_txid(runtime: &crate::Runtime) -> TxId {
    TxId::parse(&runtime.new_id()).unwrap_or_else(|_| {
        // The runtime always produces the generated shape; this keeps the type honest.
        TxId::parse("tx").expect("a constant literal id is valid")
    })
}

fn refuse(report: &mut CheckReport, code: ReasonCode, reason: &str) {
    report.set_verdict(Decision::Block, code);
    report.reasons = vec![reason.to_owned()];
    report.exit = 2;
}

const fn exit_for(decision: Decision) -> i32 {
    match decision {
        Decision::Block => 2,
        Decision::Ask => 3,
        _ => 0,
    }
}

/// What the agent is told after a compensated line.
fn message(compensations: &[Compensation]) -> Option<String> {
    let lines: Vec<String> = compensations
        .iter()
        .filter(|c| c.moved > 0 || c.sha.as_ref().is_some_and(Option::is_some))
        .map(|c| {
            let what = match c.strategy {
                "snapshot" => "snapshotted uncommitted changes".to_owned(),
                "preserve-refs" => format!("kept {} ref(s) under refs/agent-guard", c.moved),
                _ => {
                    let list = c
                        .paths
                        .iter()
                        .take(5)
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", ");
                    let more = c.paths.len().saturating_sub(5);
                    let more = if more > 0 {
                        format!(" and {more} more")
                    } else {
                        String::new()
                    };
                    format!("moved {} item(s) to the quarantine ({list}{more})", c.moved)
                }
            };
            format!(
                "agent-guard: {what}; txid {}. Undo with: agent-guard restore {}",
                c.txid, c.txid
            )
        })
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}
