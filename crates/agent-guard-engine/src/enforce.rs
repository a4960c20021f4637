//! `check --enforce`: compensate, then say whether the command may run (reference §5.8).
//!
//! ASK stores a durable `ask` record and exits 3; BLOCK exits 2. Otherwise a durable
//! `enforce-intent` precedes every compensation, each compensation is reported with its txid,
//! and only full success turns the decision into ALLOW (the code is kept) with exit 0. Any
//! failure refuses the command (exit 2), with what was already moved into the quarantine
//! put back (`put_back`), or, where it cannot go back, still restorable.

use agent_guard_audit::{AuditRecord, CompensationRecord, ErrorLabel, Event};
use agent_guard_recovery::{Applied, FailureKind, Origin, Progress};
use agent_guard_types::{Decision, ReasonCode, Strategy, TxId, Unkept};

use crate::check::{CheckRequest, Judged, audit_record};
use crate::pipeline::{Applier, Audit, Carried};
use crate::report::CheckReport;
use crate::store::quarantine;

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
        origin: edit_origin,
    } = judged;
    report.compensations = Some(Vec::new());
    let Some(workspace) =
        workspace.filter(|_| crate::check::records(&ops) || report.code != ReasonCode::AllowNoop)
    else {
        // The no-op path: nothing destructive, nothing written.
        return report;
    };
    let audit = Audit::open(&workspace, &runtime);
    if report.decision == Decision::Ask {
        // A person's approval turns the ASK parts into ALLOW_APPROVED, which carry what the
        // policy keeps of them; the rest still runs through the compensations below.
        crate::approval::settle_ask(&mut report, request, &workspace, &runtime);
    }
    match report.decision {
        Decision::Ask => {
            // Kept before the answer, taking nothing away: the person may say no.
            let asking = crate::ask::Asking {
                request,
                workspace: &workspace,
                runtime: &runtime,
                audit: &audit,
                edit: &edit_origin,
                progress,
            };
            if !crate::ask::keep_then_ask(&mut report, &asking) {
                refuse(
                    &mut report,
                    ReasonCode::CompensationFailed,
                    "durable ASK audit intent unavailable",
                );
            }
            return report;
        }
        Decision::Block => {
            record_block(&mut report, &audit);
            return report;
        }
        _ => {}
    }
    let needs_intent = report.verdicts.iter().any(|v| {
        agent_guard_policy::lookup(v.code).is_some_and(agent_guard_policy::Reason::needs_intent)
    });
    // The intent's flush runs beside the compensations' own manifest intent: the quarantine
    // waits for it before it moves or deletes anything, and so does the answer below.
    let intent = if needs_intent {
        match audit.in_flight(&audit_record(&report, Event::EnforceIntent), intent_cause) {
            Ok(sync) => Some(sync),
            Err(cause) => {
                refuse_without_intent(&mut report, &cause);
                return report;
            }
        }
    } else {
        None
    };
    let mut store = quarantine(&workspace, &runtime, &request.env);
    if let Some(sync) = &intent {
        store = store.with_before_effect(sync.clone());
    }
    let keeper = Applier {
        store: &store,
        runtime: &runtime,
        origin: origin(&report.check_id, &edit_origin),
        progress,
    };
    let kept = Kept {
        request,
        workspace: &workspace,
        runtime: &runtime,
        audit: &audit,
    };
    let Some(compensations) = compensate(&mut report, &keeper, &kept) else {
        return report;
    };
    if !seal_before_unseen(&mut report, &workspace, &compensations) {
        report.compensations = Some(compensations);
        return report;
    }
    if let Some(Err(cause)) = intent.as_ref().map(agent_guard_audit::SyncInFlight::wait) {
        // Nothing was destroyed (a move would have waited for it): the command must not run.
        report.compensations = Some(compensations);
        refuse_without_intent(&mut report, &cause);
        return report;
    }
    // Started by the binary once it has answered, not here (issue 36).
    report.watcher = compensations
        .iter()
        .find_map(|c| c.start_watcher.as_ref())
        .map(|plan| crate::WatcherStart::new(&workspace, &request.env, plan));
    report.message = message(&compensations);
    if report.code == ReasonCode::AllowApproved {
        say_what_approval_loses(&mut report, &compensations);
    }
    record_proceed(&mut report, compensations, &audit, needs_intent);
    report
}

/// Before a line the guard checkpoints (a program it cannot see into) runs: seals the
/// guard files ([`crate::seal`]). `false` when that failed and `report` now refuses the
/// line: a change to a guard file could not be undone.
fn seal_before_unseen(
    report: &mut CheckReport,
    workspace: &crate::workspace::Workspace,
    compensations: &[Applied],
) -> bool {
    if !compensations
        .iter()
        .any(|c| c.strategy == Strategy::Checkpoint)
    {
        return true;
    }
    let Err(error) = crate::seal::take(workspace, &report.check_id) else {
        return true;
    };
    refuse(
        report,
        ReasonCode::CompensationFailed,
        "the guard files could not be sealed",
    );
    report.message = Some(format!(
        "agent-guard: the guard's own files could not be recorded before a program it \
         cannot see into: {error}"
    ));
    false
}

/// Runs every plan of the line through its compensation, in order; `None` when one could
/// not keep what it had to, and the report says what happens instead (a question or a
/// refusal, with what was moved away put back).
fn compensate(
    report: &mut CheckReport,
    keeper: &Applier<'_>,
    kept: &Kept<'_>,
) -> Option<Vec<Applied>> {
    let mut compensations: Vec<Applied> = Vec::new();
    let verdicts = report.verdicts.clone();
    for verdict in &verdicts {
        let applied = match keeper.apply(&verdict.plan) {
            Carried::NothingToDo => continue,
            Carried::Ran(applied) => *applied,
            // A plan no registered compensation carries out must not run unprotected.
            Carried::Unregistered(_) => {
                refuse(
                    report,
                    ReasonCode::CompensationFailed,
                    "compensation failed",
                );
                return None;
            }
        };
        let failure = applied.failure.clone();
        compensations.push(applied);
        let put_back = failure.as_ref().map(|_| {
            crate::put_back::put_back(keeper.store, &compensations, kept.runtime, keeper.progress)
        });
        if let Some(failure) = failure.clone().filter(|f| f.kind == FailureKind::TooLarge) {
            ask_too_large(report, compensations, failure, put_back.as_ref(), kept);
            return None;
        }
        if let Some(failure) = failure {
            report.compensations = Some(compensations);
            refuse_failed(report, &failure, put_back.as_ref(), kept.audit);
            return None;
        }
    }
    Some(compensations)
}

/// Stores the `enforce-block` record of a refused line.
fn record_block(report: &mut CheckReport, audit: &Audit) {
    let record = AuditRecord {
        reasons: Some([]),
        ..audit_record(report, Event::EnforceBlock)
    };
    if !audit.durable(&record) {
        report
            .warnings
            .push("audit unavailable: record could not be stored".to_owned());
    }
}

/// Everything is kept: the line may run. Stores the `enforce-proceed` record (not synced:
/// the intent is on disk, and the manifest journals what moved); without it, a line that
/// needed an intent is refused after all.
fn record_proceed(
    report: &mut CheckReport,
    compensations: Vec<Applied>,
    audit: &Audit,
    needs_intent: bool,
) {
    report.set_verdict(Decision::Allow, report.code);
    let proceed = AuditRecord {
        compensations: Some(compensations_record(&compensations)),
        ..audit_record(report, Event::EnforceProceed)
    };
    report.compensations = Some(compensations);
    // Not synced: the intent is on disk, and the manifest journals what moved; a crash that
    // loses this last record leaves a shorter, still valid chain (docs/audit.md).
    let recorded = audit.relaxed(&proceed);
    if !recorded {
        if needs_intent {
            refuse(
                report,
                ReasonCode::CompensationFailed,
                "durable execution audit unavailable after compensation",
            );
        } else {
            report
                .warnings
                .push("audit unavailable: record could not be stored".to_owned());
        }
    }
}

/// What a failed keep needs besides the report: the request, where, and the log.
struct Kept<'a> {
    request: &'a CheckRequest,
    workspace: &'a crate::workspace::Workspace,
    runtime: &'a crate::runtime::Runtime,
    audit: &'a Audit,
}

/// Keeping a file would mean copying more than the cap: a person decides. What was kept so
/// far stays kept, what was moved away is back (`put_back`), and the question names the file.
fn ask_too_large(
    report: &mut CheckReport,
    mut compensations: Vec<Applied>,
    failure: agent_guard_recovery::Failure,
    put_back: Option<&crate::put_back::PutBack>,
    kept: &Kept<'_>,
) {
    report.set_verdict(Decision::Ask, ReasonCode::AskPreserveTooLarge);
    report.reasons = failure.detail.into_iter().collect();
    report
        .reasons
        .extend(put_back.and_then(crate::put_back::PutBack::sentence));
    let unkept = compensations
        .iter()
        .flat_map(crate::ask::shortfall)
        .collect();
    // A relocation put back keeps nothing: the question must not count it as kept.
    if let Some(put_back) = put_back {
        compensations.retain(|c| !put_back.txids.contains(&c.txid));
    }
    crate::ask::settle(report, compensations, unkept);
    crate::approval::settle_ask(report, kept.request, kept.workspace, kept.runtime);
    if !kept.audit.durable(&crate::ask::ask_record(report)) {
        refuse(
            report,
            ReasonCode::CompensationFailed,
            "durable ASK audit intent unavailable",
        );
    }
}

/// A compensation failed: the command is refused, naming the cause (a read-only quarantine,
/// a full disk: the fix depends on it; the audit record keeps only the static reason) and
/// what was put back.
fn refuse_failed(
    report: &mut CheckReport,
    failure: &agent_guard_recovery::Failure,
    put_back: Option<&crate::put_back::PutBack>,
    audit: &Audit,
) {
    let (code, reason) = refusal(failure.kind);
    refuse(report, code, reason);
    if let Some(detail) = &failure.detail {
        report.reasons.push(detail.clone());
        report.message = Some(format!("agent-guard: the cause: {detail}"));
    }
    if let Some(sentence) = put_back.and_then(crate::put_back::PutBack::sentence) {
        report.reasons.push(sentence.clone());
        report.message = Some(match report.message.take() {
            Some(text) => format!("{text}\nagent-guard: {sentence}"),
            None => format!("agent-guard: {sentence}"),
        });
    }
    let _ = audit.durable(&AuditRecord {
        error: Some(ErrorLabel::CompensationFailed),
        ..audit_record(report, Event::EnforceError)
    });
}

/// What the approved parts destroy that nothing kept: said once more, after the fact.
fn say_what_approval_loses(report: &mut CheckReport, compensations: &[Applied]) {
    report.not_kept = report
        .verdicts
        .iter()
        .flat_map(|v| v.unkept.iter().cloned())
        .chain(compensations.iter().flat_map(crate::ask::shortfall))
        .collect();
    if !report.not_kept.is_empty() {
        let lost: Vec<String> = report.not_kept.iter().map(Unkept::phrase).collect();
        let note = format!(
            "agent-guard: approved; not kept, so not restorable: {}",
            lost.join(", ")
        );
        report.message = Some(match report.message.take() {
            Some(text) => format!("{text}\n{note}"),
            None => note,
        });
    }
}

/// Why the audit intent could not be written: the whole error chain, and, when the disk
/// holding the log is full, what to do about it.
fn intent_cause(error: &agent_guard_audit::AuditError) -> String {
    let mut cause = agent_guard_types::error_chain(error);
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(current) = source {
        if current
            .downcast_ref::<std::io::Error>()
            .is_some_and(agent_guard_fsops::is_storage_full)
        {
            cause.push_str(
                " (the disk that holds the guard's store is full: free space on it, or point \
                 AGENT_GUARD_TRASH at a store on another disk, then run the command again)",
            );
            break;
        }
        source = current.source();
    }
    cause
}

/// Refuses the command because its audit intent could not be made durable, naming `cause`.
fn refuse_without_intent(report: &mut CheckReport, cause: &str) {
    refuse(
        report,
        ReasonCode::CompensationFailed,
        "durable execution audit intent unavailable",
    );
    report.reasons.push(cause.to_owned());
    report.message = Some(format!("agent-guard: the cause: {cause}"));
}

/// Who made a transaction of `check --enforce`: the check, with `edit` (an edit tool's
/// label, harness, tool and files) over it. The command itself is only in the audit log.
pub(crate) fn origin(check_id: &str, edit: &Origin) -> Origin {
    Origin {
        tool: Some(
            edit.tool
                .clone()
                .unwrap_or_else(|| "check --enforce".to_owned()),
        ),
        check_id: Some(check_id.to_owned()),
        command: Some(agent_guard_audit::REDACTED.to_owned()),
        ..edit.clone()
    }
}

/// The refusal a failed compensation becomes (reference §1.3's static reasons).
const fn refusal(kind: FailureKind) -> (ReasonCode, &'static str) {
    match kind {
        FailureKind::Storage => (
            ReasonCode::RelocateFailedStorage,
            "quarantine storage unavailable",
        ),
        // Nothing was attempted when the target set is unknown (F14).
        FailureKind::Undeterminable => (
            ReasonCode::BlockUndeterminableEffect,
            "git clean enumeration failed",
        ),
        FailureKind::Partial | FailureKind::Failed | FailureKind::TooLarge => {
            (ReasonCode::CompensationFailed, "compensation failed")
        }
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
}

/// The compensations as the audit log keeps them (no paths).
pub(crate) fn compensations_record(compensations: &[Applied]) -> Vec<CompensationRecord> {
    compensations
        .iter()
        .map(|c| CompensationRecord {
            strategy: c.strategy,
            txid: c.txid.clone(),
            status: c.status,
            moved: c.moved,
            skipped: c.skipped,
            enumerated: c.enumerated,
            sha: c.sha.clone(),
        })
        .collect()
}

/// What the agent is told after a compensated line.
fn message(compensations: &[Applied]) -> Option<String> {
    let lines: Vec<String> = compensations
        .iter()
        .filter(|c| c.moved > 0 || c.sha.as_ref().is_some_and(Option::is_some))
        .map(|c| {
            format!(
                "agent-guard: {}; txid {}. Undo with: agent-guard restore {}",
                kept_what(c),
                c.txid,
                c.txid
            )
        })
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}

/// What one compensation kept, in a few words (`checkpointed the workspace (12 files)`).
pub(crate) fn kept_what(c: &Applied) -> String {
    let list = || {
        let list = c
            .paths
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ");
        match c.paths.len().saturating_sub(5) {
            0 => list,
            more => format!("{list} and {more} more"),
        }
    };
    match c.strategy {
        Strategy::Snapshot => "snapshotted uncommitted changes".to_owned(),
        Strategy::Checkpoint => {
            let not_kept = if c.skipped > 0 {
                format!(", {} over the size cap listed as not kept", c.skipped)
            } else {
                String::new()
            };
            format!("checkpointed the workspace ({} files{not_kept})", c.moved)
        }
        Strategy::Preserve => {
            format!(
                "kept the current version of {} file(s) in the quarantine ({})",
                c.moved,
                list()
            )
        }
        Strategy::Move if c.paths.is_empty() => format!(
            "kept what {} destination(s) of the move held; undo puts it back",
            c.moved
        ),
        Strategy::Move => format!(
            "recorded where {} moved path(s) were and what their destinations held \
             ({}); undo moves them back",
            c.paths.len(),
            list()
        ),
        Strategy::PreserveRefs => {
            format!("kept {} ref(s) under refs/agent-guard", c.moved)
        }
        Strategy::DatabaseDump => format!("dumped {} into the store", list()),
        _ => format!("moved {} item(s) to the quarantine ({})", c.moved, list()),
    }
}
