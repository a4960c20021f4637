//! Move: record where the paths a line moves are, and keep what their destinations hold,
//! before it runs (`SNAPSHOT_MOVE`). Nothing is taken away.
//!
//! The quarantine does the work (see `agent_guard_quarantine::Quarantine::record_moves`):
//! each source's identity (a rename keeps it), a copy of a source that may leave the
//! workspace, each destination's state, and the kept version of each file a destination
//! replaces (as [`crate::Preserve`] keeps it). Undo, the quarantine's restore of a move
//! transaction, renames every source back and puts each destination back as it was.

use agent_guard_quarantine::{Landing, MoveItem, MoveRecording, MoveReport, SkipKind};
use agent_guard_types::{CompensationStatus, MovePlan, Plan, Strategy};

use crate::compensation::{Applied, Compensation, Failure, FailureKind, Job, relative};
use crate::preserve::items as kept_items;

/// The move compensation (`SNAPSHOT_MOVE`).
#[derive(Debug, Clone, Copy)]
pub struct Move;

impl Compensation for Move {
    fn strategy(&self) -> Strategy {
        Strategy::Move
    }

    fn apply(&self, job: &Job<'_>, plan: &Plan) -> Applied {
        let Plan::Move(plan) = plan else {
            return job.wrong_plan(Strategy::Move, "not a move plan");
        };
        match job.store.record_moves(
            &recording(plan),
            &job.txid,
            job.meta(Strategy::Move),
            job.progress,
        ) {
            Ok(report) => outcome(&report, job),
            Err(error) => Applied::failed(
                Strategy::Move,
                &job.txid,
                Failure::because(FailureKind::Failed, &error),
            ),
        }
    }
}

/// What the quarantine records for `plan`.
pub fn recording(plan: &MovePlan) -> MoveRecording {
    MoveRecording {
        sources: plan
            .sources
            .iter()
            .filter_map(|source| {
                source.spec.physical.clone().map(|origin| MoveItem {
                    origin,
                    raw: source.spec.raw.clone(),
                    copy: source.copy,
                    max_copy: source.max_copy,
                    landings: source.landings.clone(),
                })
            })
            .collect(),
        landings: plan
            .destinations
            .iter()
            .filter_map(|spec| {
                spec.physical.clone().map(|path| Landing {
                    path,
                    inside: spec.inside_workspace,
                })
            })
            .collect(),
        kept: kept_items(&plan.kept),
        index: plan.index,
    }
}

fn outcome(report: &MoveReport, job: &Job<'_>) -> Applied {
    let failed: Vec<_> = report
        .skipped
        .iter()
        .chain(&report.kept.skipped)
        .filter(|s| s.kind != SkipKind::Absent)
        .collect();
    let failure = failed.first().map(|first| Failure {
        kind: match first.kind {
            SkipKind::TooLarge => FailureKind::TooLarge,
            SkipKind::Storage => FailureKind::Storage,
            _ => FailureKind::Partial,
        },
        detail: Some(if first.raw.is_empty() {
            first.reason.clone()
        } else {
            format!("{}: {}", first.raw, first.reason)
        }),
    });
    let status = match &failure {
        None => CompensationStatus::Complete,
        Some(f) if f.kind == FailureKind::Storage => CompensationStatus::StorageFailed,
        Some(_) => CompensationStatus::Partial,
    };
    let workspace = job.store.workspace();
    Applied {
        moved: report.sources.len() + report.kept.kept.len(),
        skipped: failed.len(),
        paths: report
            .sources
            .iter()
            .map(|p| relative(p.path(), workspace))
            .collect(),
        failure,
        ..Applied::new(Strategy::Move, &job.txid, status)
    }
}
