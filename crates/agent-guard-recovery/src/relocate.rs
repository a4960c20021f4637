//! Relocate: move the targets into the quarantine before the command deletes them.
//!
//! The quarantine does the work (write-ahead intent, one `rename` or a verified cross-device
//! copy, verification, outcome record); this module maps a plan onto it and its report onto
//! the typed outcome. Relocated files are restored by the quarantine itself.

use agent_guard_quarantine::TxMeta;
use agent_guard_quarantine::{RelocateItem, RelocationReport, SkipKind, Skipped};
use agent_guard_types::{CompensationStatus, PathSpec, Plan, Strategy};

use crate::compensation::{Applied, Compensation, Failure, FailureKind, Job, relative};

/// The relocate compensation (`RELOCATE_PATHS`, `RELOCATE_TREE`, `RELOCATE_NARROW`).
#[derive(Debug, Clone, Copy)]
pub struct Relocate;

impl Compensation for Relocate {
    fn strategy(&self) -> Strategy {
        Strategy::Relocate
    }

    fn apply(&self, job: &Job<'_>, plan: &Plan) -> Applied {
        let Plan::Relocate(specs) = plan else {
            return job.wrong_plan(Strategy::Relocate, "not a relocation plan");
        };
        relocate_items(job, Strategy::Relocate, &items(specs))
    }
}

/// The items a relocation plan moves: each spec's physical path, with the caller's
/// spelling kept for the journal. Specs without a physical path (absent) move nothing.
pub fn items(specs: &[PathSpec]) -> Vec<RelocateItem> {
    specs
        .iter()
        .filter_map(|s| {
            s.physical.clone().map(|origin| RelocateItem {
                origin,
                raw: s.raw.clone(),
            })
        })
        .collect()
}

/// Relocates `items` in `job`'s transaction and reports it as `strategy`.
pub(crate) fn relocate_items(job: &Job<'_>, strategy: Strategy, items: &[RelocateItem]) -> Applied {
    let meta = if strategy == Strategy::Relocate {
        TxMeta::of(job.origin.clone())
    } else {
        job.meta(strategy)
    };
    match job.store.relocate(items, &job.txid, meta, job.progress) {
        Ok(report) => outcome(strategy, &report, job),
        Err(error) => Applied::failed(
            strategy,
            &job.txid,
            Failure::because(FailureKind::Failed, &error),
        ),
    }
}

/// The status of a quarantine transaction and its failure, from its report: a storage
/// failure, everything kept (`complete`), or partial (`skipped`: what was not kept and was
/// there).
pub(crate) fn status_of(
    storage_failure: bool,
    complete: bool,
    skipped: &[&Skipped],
) -> (CompensationStatus, Option<Failure>) {
    if storage_failure {
        (
            CompensationStatus::StorageFailed,
            Some(Failure {
                kind: FailureKind::Storage,
                detail: skipped.first().map(|s| s.reason.clone()),
            }),
        )
    } else if complete {
        (CompensationStatus::Complete, None)
    } else {
        (
            CompensationStatus::Partial,
            Some(Failure {
                kind: FailureKind::Partial,
                detail: skipped.first().map(|s| format!("{}: {}", s.raw, s.reason)),
            }),
        )
    }
}

/// Maps a relocation report onto the typed outcome.
pub(crate) fn outcome(strategy: Strategy, report: &RelocationReport, job: &Job<'_>) -> Applied {
    let skipped: Vec<_> = report
        .skipped
        .iter()
        .filter(|s| s.kind != SkipKind::Absent)
        .collect();
    let (status, failure) = status_of(report.storage_failure, report.complete(), &skipped);
    let workspace = job.store.workspace();
    Applied {
        moved: report.moved.len(),
        skipped: skipped.len(),
        paths: report
            .moved
            .iter()
            .map(|m| relative(m.origin.path(), workspace))
            .collect(),
        failure,
        txid: report.txid.clone(),
        relocation: Some(report.clone()),
        ..Applied::new(strategy, &job.txid, status)
    }
}
