//! Direct deletion: provably regenerable artifacts and quarantine housekeeping, which the
//! policy allows to be deleted without quarantining (after a durable intent record).

use std::path::Path;

use serde::Serialize;

use crate::store::Quarantine;
use agent_guard_fsops as fsops;

/// What happened to one directly deleted path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum DirectOutcome {
    /// A file or symlink was removed.
    Deleted,
    /// A directory tree was removed.
    DeletedTree,
    /// Nothing was there.
    Absent,
    /// Removal failed (what remains stays in place).
    Failed,
}

impl Quarantine {
    /// Deletes `path` (a file, a symlink — never followed — or a tree). Only for paths the
    /// policy judged regenerable or quarantine payload.
    pub fn delete_direct(&self, path: &Path) -> DirectOutcome {
        if self.wait_before_effect().is_err() {
            return DirectOutcome::Failed;
        }
        match path.symlink_metadata() {
            Err(_) => DirectOutcome::Absent,
            Ok(metadata) if metadata.is_dir() => {
                if fsops::remove_tree(path).is_ok() {
                    DirectOutcome::DeletedTree
                } else {
                    DirectOutcome::Failed
                }
            }
            Ok(_) => {
                if fsops::remove_file(path).is_ok() {
                    DirectOutcome::Deleted
                } else {
                    DirectOutcome::Failed
                }
            }
        }
    }
}
