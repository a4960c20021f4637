//! Clean-enumerate: list exactly what `git clean` would remove, then relocate it.

use std::path::{Path, PathBuf};

use agent_guard_quarantine::{Quarantine, RelocateItem};
use agent_guard_types::{CompensationStatus, Plan, Strategy};

use crate::RecoveryError;
use crate::compensation::{Applied, Compensation, Failure, FailureKind, Job};
use crate::relocate::relocate_items;

/// The clean-enumerate compensation (`RELOCATE_VIA_CLEAN_ENUMERATE`).
#[derive(Debug, Clone, Copy)]
pub struct CleanEnumerate;

impl Compensation for CleanEnumerate {
    fn strategy(&self) -> Strategy {
        Strategy::CleanEnumerate
    }

    fn apply(&self, job: &Job<'_>, plan: &Plan) -> Applied {
        let Plan::CleanEnumerate {
            cwd,
            flags,
            pathspecs,
        } = plan
        else {
            return job.wrong_plan(Strategy::CleanEnumerate, "not a clean-enumerate plan");
        };
        // Nothing is attempted when the target set is unknown (F14): that is an
        // undeterminable effect, not a failed compensation.
        let paths = match enumerate_clean(job.store, cwd, flags, pathspecs) {
            Ok(paths) => paths,
            Err(error) => {
                return Applied::failed(
                    Strategy::CleanEnumerate,
                    &job.txid,
                    Failure::because(FailureKind::Undeterminable, &error),
                );
            }
        };
        let enumerated = paths.len();
        if enumerated == 0 {
            let mut applied = Applied::new(
                Strategy::CleanEnumerate,
                &job.txid,
                CompensationStatus::Complete,
            );
            applied.enumerated = Some(0);
            return applied;
        }
        let items: Vec<RelocateItem> = paths
            .into_iter()
            .map(|origin| RelocateItem {
                raw: origin.display().to_string(),
                origin,
            })
            .collect();
        let mut applied = relocate_items(job, Strategy::CleanEnumerate, &items);
        applied.enumerated = Some(enumerated);
        if applied.succeeded() && applied.moved != enumerated {
            applied.status = CompensationStatus::Partial;
            applied.failure = Some(Failure::with_detail(
                FailureKind::Partial,
                format!("{} of {enumerated} enumerated paths moved", applied.moved),
            ));
        }
        applied
    }
}

/// Returns exactly the paths `git clean -n` would list for `flags` and literal `pathspecs`,
/// run from `cwd`, never the quarantine itself (see [`agent_guard_git::enumerate_clean`]).
///
/// # Errors
/// Unsupported flags or pathspecs, a `cwd` outside any work tree, or an unreadable index.
pub fn enumerate_clean(
    store: &Quarantine,
    cwd: &Path,
    flags: &[String],
    pathspecs: &[String],
) -> Result<Vec<PathBuf>, RecoveryError> {
    Ok(agent_guard_git::enumerate_clean(
        cwd,
        store.git_user_dir(),
        store.trash(),
        flags,
        pathspecs,
    )?)
}
