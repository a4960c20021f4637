//! What a kept commit changed: the diffstat `show` prints for a snapshot.

use std::path::Path;

use git2::{DiffOptions, Oid, Patch};
use serde::Serialize;

use crate::{GitError, WorkTree};

/// One file a snapshot changed relative to the commit it was taken on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FileStat {
    /// The repository-relative path (lossy for names that are not UTF-8).
    pub path: String,
    /// Lines added (0 for binary files).
    pub added: usize,
    /// Lines removed (0 for binary files).
    pub removed: usize,
    /// The file is binary.
    pub binary: bool,
}

/// The diffstat of commit `sha` against its first parent (for a work-tree snapshot: the
/// uncommitted changes it keeps), at most `limit` files, and how many files in all.
///
/// # Errors
/// The repository or the commit cannot be read.
pub fn diffstat(
    repository: &Path,
    sha: &str,
    user_dir: Option<&Path>,
    limit: usize,
) -> Result<(Vec<FileStat>, usize), GitError> {
    let tree = WorkTree::discover(repository, user_dir)?;
    let repo = &tree.repo;
    let id = Oid::from_str(sha).map_err(tree.error("parse a kept commit id"))?;
    let commit = repo
        .find_commit(id)
        .map_err(tree.error("find a kept commit"))?;
    let new = commit.tree().map_err(tree.error("read a kept commit"))?;
    let old = commit.parent(0).and_then(|p| p.tree()).ok();
    let mut options = DiffOptions::new();
    options.include_typechange(true);
    let diff = repo
        .diff_tree_to_tree(old.as_ref(), Some(&new), Some(&mut options))
        .map_err(tree.error("compare a kept commit with its parent"))?;
    let total = diff.deltas().len();
    let mut stats = Vec::new();
    for index in 0..total.min(limit) {
        let Some(delta) = diff.get_delta(index) else {
            continue;
        };
        let path = delta
            .new_file()
            .path()
            .or_else(|| delta.old_file().path())
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
        let binary = delta.new_file().is_binary() || delta.old_file().is_binary();
        let (added, removed) = match Patch::from_diff(&diff, index) {
            Ok(Some(file_patch)) => file_patch
                .line_stats()
                .map(|(_, added, removed)| (added, removed))
                .unwrap_or_default(),
            _ => (0, 0),
        };
        stats.push(FileStat {
            path,
            added,
            removed,
            binary,
        });
    }
    Ok((stats, total))
}
