//! Preserve: keep the current version of files a command overwrites or consumes (`>`,
//! `truncate`, `cp` onto, `mv` onto, `sed -i`, `gzip`, …) before it runs.
//!
//! The quarantine does the work (see `agent_guard_quarantine::Quarantine::preserve`): every
//! file stays where it is; its version is hard-linked when the line only replaces its name,
//! else reflinked or copied (up to the cap: a larger file is a [`FailureKind::TooLarge`], which
//! the engine turns into a question). Restore puts a linked version back by name and writes a
//! copied one back into the file in place, keeping what the command left in a new transaction.

use agent_guard_quarantine::{PreservationReport, PreserveItem, SkipKind};
use agent_guard_types::{CompensationStatus, Plan, Preserved, Strategy};

use crate::compensation::{Applied, Compensation, Failure, FailureKind, Job, relative};

/// The preserve compensation (`SNAPSHOT_OVERWRITE`, `SNAPSHOT_CONSUMED_INPUT`).
#[derive(Debug, Clone, Copy)]
pub struct Preserve;

impl Compensation for Preserve {
    fn strategy(&self) -> Strategy {
        Strategy::Preserve
    }

    fn apply(&self, job: &Job<'_>, plan: &Plan) -> Applied {
        let Plan::Preserve(files) = plan else {
            return job.wrong_plan(Strategy::Preserve, "not a preserve plan");
        };
        match job.store.preserve(
            &items(files),
            &job.txid,
            job.meta(Strategy::Preserve),
            job.progress,
        ) {
            Ok(report) => outcome(&report, job),
            Err(error) => Applied::failed(
                Strategy::Preserve,
                &job.txid,
                Failure::because(FailureKind::Failed, &error),
            ),
        }
    }
}

/// The files a preserve plan keeps: each existing file's physical path, hard-linked where the
/// plan allows, else reflinked or copied up to its cap.
pub fn items(files: &[Preserved]) -> Vec<PreserveItem> {
    files
        .iter()
        .filter_map(|file| {
            file.spec.physical.clone().map(|origin| PreserveItem {
                origin,
                raw: file.spec.raw.clone(),
                link: file.link,
                max_copy: Some(file.max_copy),
                by_name: file.mode.replaces_name_only(),
            })
        })
        .collect()
}

fn outcome(report: &PreservationReport, job: &Job<'_>) -> Applied {
    let skipped: Vec<_> = report
        .skipped
        .iter()
        .filter(|s| s.kind != SkipKind::Absent)
        .collect();
    let too_large = skipped.iter().find(|s| s.kind == SkipKind::TooLarge);
    let (status, failure) = if let Some(big) = too_large {
        (
            CompensationStatus::Partial,
            Some(Failure {
                kind: FailureKind::TooLarge,
                detail: Some(big.reason.clone()),
            }),
        )
    } else {
        crate::relocate::status_of(report.storage_failure, report.complete(), &skipped)
    };
    let workspace = job.store.workspace();
    Applied {
        moved: report.kept.len(),
        skipped: skipped.len(),
        paths: report
            .kept
            .iter()
            .map(|k| relative(k.origin.path(), workspace))
            .collect(),
        failure,
        ..Applied::new(Strategy::Preserve, &job.txid, status)
    }
}
