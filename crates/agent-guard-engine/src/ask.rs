//! `check --enforce` on an ASK: keep what can be kept without taking anything away, then ask
//! (issue 34, point 3).
//!
//! A harness with a native ask runs the command when its person approves, and the guard never
//! hears of it; so the policy's [`AskPlan`](agent_guard_policy::AskPlan) is carried out
//! before the answer, and the question says what approving means: what was kept (txids, so
//! that `agent-guard undo` brings it back) and what cannot be restored. Nothing in the plan
//! moves or deletes, so a person who says no finds the workspace as it was.

use agent_guard_audit::{AuditRecord, Event, Phase};
use agent_guard_recovery::{Applied, Progress};
use agent_guard_types::{Strategy, Unkept, UnkeptWhy};

use crate::check::{CheckRequest, audit_record};
use crate::enforce::{compensations_record, kept_what, origin};
use crate::pipeline::{Applier, Audit, Carried};
use crate::report::CheckReport;
use crate::runtime::Runtime;
use crate::store::quarantine;
use crate::workspace::Workspace;

/// What an ASK under `--enforce` needs besides the report.
pub(crate) struct Asking<'a> {
    pub request: &'a CheckRequest,
    pub workspace: &'a Workspace,
    pub runtime: &'a Runtime,
    pub audit: &'a Audit,
    pub edit: &'a agent_guard_recovery::Origin,
    pub progress: &'a dyn Progress,
}

/// Carries out the ASK plan, says what approving means, and stores the durable `ask` record
/// (with the compensations). Returns `false` when the record could not be stored.
pub(crate) fn keep_then_ask(report: &mut CheckReport, asking: &Asking<'_>) -> bool {
    let plan = report.ask.take().unwrap_or_default();
    let mut unkept = plan.unkept;
    let mut compensations: Vec<Applied> = report.compensations.take().unwrap_or_default();
    let store = quarantine(asking.workspace, asking.runtime, &asking.request.env);
    let keeper = Applier {
        store: &store,
        runtime: asking.runtime,
        origin: origin(&report.check_id, asking.edit),
        progress: asking.progress,
    };
    for verdict in &plan.keep {
        match keeper.apply(&verdict.plan) {
            Carried::NothingToDo => {}
            Carried::Unregistered(strategy) => unkept.push(Unkept::new(
                format!("what the {strategy} compensation would have kept"),
                UnkeptWhy::NotKept,
            )),
            Carried::Ran(applied) => {
                unkept.extend(shortfall(&applied));
                compensations.push(*applied);
            }
        }
    }
    settle(report, compensations, unkept);
    asking.audit.durable(&ask_record(report))
}

/// The durable `ask` record of a question: its intent, with what was kept before it.
pub(crate) fn ask_record(report: &CheckReport) -> AuditRecord {
    AuditRecord {
        phase: Some(Phase::Intent),
        reasons: Some([]),
        compensations: Some(compensations_record(
            report.compensations.as_deref().unwrap_or_default(),
        )),
        ..audit_record(report, Event::Ask)
    }
}

/// Puts what was kept and what was not into the report, and the question's sentence.
pub(crate) fn settle(report: &mut CheckReport, compensations: Vec<Applied>, unkept: Vec<Unkept>) {
    report.if_approved = Some(if_approved(&compensations, &unkept));
    report.not_kept = unkept;
    report.compensations = Some(compensations);
}

/// What a compensation that ran did not keep: a failure, files over the checkpoint cap.
pub(crate) fn shortfall(applied: &Applied) -> Vec<Unkept> {
    let mut unkept = Vec::new();
    if let Some(failure) = &applied.failure {
        let what = match (&failure.kind, &failure.detail) {
            (agent_guard_recovery::FailureKind::TooLarge, Some(detail)) => detail.clone(),
            _ if applied.strategy == Strategy::DatabaseDump => format!(
                "{} (its dump failed: {})",
                applied.paths.first().map_or("the database", String::as_str),
                failure.detail.as_deref().unwrap_or("no reason given")
            ),
            _ => format!("what the {} compensation could not keep", applied.strategy),
        };
        let why = match failure.kind {
            agent_guard_recovery::FailureKind::TooLarge => UnkeptWhy::OverPreserveCap,
            _ => UnkeptWhy::NotKept,
        };
        unkept.push(Unkept::new(what, why));
    }
    if applied.strategy == Strategy::Checkpoint && applied.skipped > 0 {
        unkept.push(Unkept::new(
            format!(
                "{} file(s) over the checkpoint cap (`[checkpoint] max_file_bytes`)",
                applied.skipped
            ),
            UnkeptWhy::OverCheckpointCap,
        ));
    }
    unkept
}

/// The sentence the question carries: what approving means.
pub(crate) fn if_approved(compensations: &[Applied], unkept: &[Unkept]) -> String {
    let kept: Vec<String> = compensations
        .iter()
        .filter(|c| c.moved > 0 || c.sha.as_ref().is_some_and(Option::is_some))
        .map(|c| format!("{}, txid {}", kept_what(c), c.txid))
        .collect();
    let lost = unkept
        .iter()
        .map(Unkept::phrase)
        .collect::<Vec<_>>()
        .join(", ");
    let kept_text = kept.join("; ");
    match (kept.is_empty(), unkept.is_empty()) {
        (false, true) => format!(
            "If you approve, everything it changes can be restored with `agent-guard undo`: \
             kept first: {kept_text}. Nothing was moved, so saying no changes nothing"
        ),
        (false, false) => format!(
            "If you approve, {lost} cannot be restored; the rest can, with `agent-guard undo`: \
             kept first: {kept_text}. Nothing was moved, so saying no changes nothing"
        ),
        (true, false) => {
            format!("If you approve, {lost} cannot be restored; nothing could be kept first")
        }
        (true, true) => "If you approve, nothing it changes needs keeping: what it deletes \
                         does not exist before it runs"
            .to_owned(),
    }
}
