//! [`restore_items`]: putting snapshots and kept refs back, never overwriting anything that
//! changed since.

use std::collections::{BTreeSet, HashMap};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};

use agent_guard_types::error_chain;
use git2::{DiffOptions, ObjectType, Oid, Tree};

use crate::error::GitError;
use crate::refs::{restore_branch, restore_stash_entry};
use crate::tree_write::{Change, Outcome, apply_change};
use crate::{GitItem, GitRestore, Subject, WorkTree};

/// Puts kept commits back: work-tree snapshots, kept stash entries and kept branches.
///
/// A work-tree snapshot is applied as `git stash apply` (without `--index`) would, but never
/// destructively: each path where the snapshot differs from the `HEAD` it was taken on (or
/// from its index commit) gets the snapshot's version (content, mode, symlink) if the path
/// now holds nothing, that base version or the index version (which `git checkout -- <path>`
/// puts there); a path that already holds the snapshot's version is left as is; anything
/// else is a conflict, reported and left untouched. Deletions delete only what still equals
/// one of those versions. Applying twice changes nothing the second time. The private ref
/// stays (gc drops it).
///
/// A kept stash entry goes back into the stash list at its old position unless an entry
/// with that commit is listed already. A kept branch is recreated if absent; at the same
/// commit it counts as restored; at another commit it is a conflict.
pub fn restore_items(items: &[GitItem], user_dir: Option<&Path>) -> GitRestore {
    let mut out = GitRestore::default();
    let mut items: Vec<&GitItem> = items.iter().collect();
    // Stash entries in ascending position, so each lands where it was.
    items.sort_by_key(|item| match item.subject {
        Subject::Stash => (
            1,
            item.name
                .as_deref()
                .and_then(crate::stash_list::parse_selector)
                .unwrap_or(0),
        ),
        Subject::Branch | Subject::Ref => (2, 0),
        // After the refs a symbolic ref names are back, before the reflogs.
        Subject::Symbolic => (2, 1),
        Subject::Reflog => (3, 0),
        Subject::Worktree => (0, 0),
    });
    let mut trees: HashMap<PathBuf, WorkTree> = HashMap::new();
    for item in items {
        let root = item.repository.clone();
        if !trees.contains_key(&root) {
            match WorkTree::discover(&root, user_dir) {
                Ok(tree) => {
                    trees.insert(root.clone(), tree);
                }
                Err(error) => {
                    out.errors
                        .push(format!("{}: {}", item.sha, error_chain(&error)));
                    continue;
                }
            }
        }
        let Some(tree) = trees.get(&root) else {
            continue;
        };
        match item.subject {
            Subject::Worktree => {
                apply_snapshot(tree, &item.sha, item.writes_commit.as_deref(), &mut out);
            }
            Subject::Stash => restore_stash_entry(tree, item, &mut out),
            Subject::Branch | Subject::Ref => restore_branch(tree, item, &mut out),
            Subject::Reflog => crate::reflog::restore_reflog(tree, item, &mut out),
            Subject::Symbolic => crate::symbolic::restore_symbolic(tree, item, &mut out),
        }
    }
    out
}

/// Applies the work-tree commit `sha` onto the work tree.
fn apply_snapshot(tree: &WorkTree, sha: &str, writes: Option<&str>, out: &mut GitRestore) {
    let label = format!("stash:{sha}");
    let changes = match changes(tree, sha, writes) {
        Ok(changes) => changes,
        Err(error) => {
            out.errors.push(format!("{label}: {}", error_chain(&error)));
            return;
        }
    };
    let filemode = tree
        .repo
        .config()
        .ok()
        .and_then(|c| c.get_bool("core.filemode").ok())
        .unwrap_or(true);
    let mut clean = true;
    for change in &changes {
        match apply_change(tree, change, filemode) {
            Ok(Outcome::Written | Outcome::AlreadyThere) => {}
            Ok(Outcome::Conflict) => {
                clean = false;
                out.conflicts
                    .push(tree.path_of(&change.path).to_string_lossy().into_owned());
            }
            Err(error) => {
                clean = false;
                out.errors.push(format!("{label}: {}", error_chain(&error)));
            }
        }
    }
    // A partly applied snapshot stays restorable: running restore again after resolving
    // the conflicts applies the rest.
    if clean {
        out.restored.push(label);
    }
}

/// The paths where the snapshot differs from its base (its first parent, `HEAD` when it
/// was taken) or from its index commit (its second parent): deletions first, then
/// additions and modifications, each in path order.
fn changes(tree: &WorkTree, sha: &str, writes: Option<&str>) -> Result<Vec<Change>, GitError> {
    let repo = &tree.repo;
    let id = Oid::from_str(sha).map_err(tree.error("parse the snapshot id"))?;
    let commit = repo
        .find_commit(id)
        .map_err(tree.error("find the snapshot commit"))?;
    let base = commit
        .parent(0)
        .and_then(|c| c.tree())
        .map_err(tree.error("read the snapshot's base"))?;
    let target = commit.tree().map_err(tree.error("read the snapshot"))?;
    // A snapshot without an index commit (not made by `git stash`) compares with its base.
    let index = match commit.parent(1) {
        Ok(parent) => Some(
            parent
                .tree()
                .map_err(tree.error("read the snapshot's index"))?,
        ),
        Err(_) => None,
    };
    let mut paths = BTreeSet::new();
    for other in std::iter::once(&base).chain(index.as_ref()) {
        let mut options = DiffOptions::new();
        options.include_typechange(true);
        let diff = repo
            .diff_tree_to_tree(Some(other), Some(&target), Some(&mut options))
            .map_err(tree.error("compare the snapshot with its parents"))?;
        for delta in diff.deltas() {
            if let Some(path) = delta
                .new_file()
                .path_bytes()
                .or_else(|| delta.old_file().path_bytes())
            {
                paths.insert(path.to_vec());
            }
        }
    }
    let entry = |tree: &Tree<'_>, path: &[u8]| {
        let found = tree.get_path(Path::new(OsStr::from_bytes(path))).ok()?;
        (found.kind() == Some(ObjectType::Blob) || found.filemode() == 0o160_000)
            .then(|| (u32::try_from(found.filemode()).unwrap_or(0), found.id()))
    };
    // Versions git keeps, so overwriting them loses nothing: the current HEAD and index
    // entries, and the revision the command wrote.
    let head = repo.head().and_then(|h| h.peel_to_tree()).ok();
    let written = writes
        .and_then(|id| Oid::from_str(id).ok())
        .and_then(|id| repo.find_commit(id).ok())
        .and_then(|commit| commit.tree().ok());
    let current_index = repo.index().ok();
    let mut changes: Vec<Change> = paths
        .into_iter()
        .map(|path| {
            let mut also: Vec<(u32, Oid)> = [head.as_ref(), written.as_ref()]
                .into_iter()
                .flatten()
                .filter_map(|tree| entry(tree, &path))
                .collect();
            if let Some(found) = current_index
                .as_ref()
                .and_then(|i| i.get_path(Path::new(OsStr::from_bytes(&path)), 0))
            {
                also.push((found.mode, found.id));
            }
            Change {
                base: entry(&base, &path),
                index: index.as_ref().and_then(|index| entry(index, &path)),
                target: entry(&target, &path),
                also,
                path,
            }
        })
        .collect();
    changes.sort_by(|a, b| (a.target.is_some(), &a.path).cmp(&(b.target.is_some(), &b.path)));
    Ok(changes)
}
