//! [`Quarantine::restore_git_items`]: putting snapshots and kept refs back, never
//! overwriting anything that changed since.

use std::collections::{BTreeSet, HashMap};
use std::error::Error as _;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt as _;
use std::path::Path;

use git2::{DiffOptions, ObjectType, Oid, Tree};

use crate::error::RecoveryError;
use crate::git::refs::{restore_branch, restore_stash_entry};
use crate::git::tree_write::{Change, Outcome, apply_change};
use crate::git::{GitRestore, WorkTree};
use crate::records::Record;
use crate::store::Quarantine;
use crate::transactions::{SnapshotItem, Transaction};

impl Quarantine {
    /// Restores the git items of transaction `tx`: work-tree snapshots, kept stash entries
    /// and kept branches. Used by restore, which holds the writers' lock.
    ///
    /// A work-tree snapshot is applied as `git stash apply` (without `--index`) would, but
    /// never destructively: each path where the snapshot differs from the `HEAD` it was
    /// taken on (or from its index commit) gets the snapshot's version (content, mode,
    /// symlink) if the path now holds nothing, that base version or the index version
    /// (which `git checkout -- <path>` puts there); a path that already holds the
    /// snapshot's version is left as is; anything else is a conflict, reported and left
    /// untouched. Deletions delete only what still equals one of those versions. Applying
    /// twice changes nothing the second time. The private ref stays (gc drops it).
    ///
    /// A kept stash entry goes back into the stash list at its old position unless an entry
    /// with that commit is listed already. A kept branch is recreated if absent; at the same
    /// commit it counts as restored; at another commit it is a conflict.
    pub fn restore_git_items(&self, tx: &Transaction) -> GitRestore {
        let mut out = GitRestore::default();
        let mut items: Vec<&SnapshotItem> =
            tx.snapshots.iter().filter(|s| s.sha.is_some()).collect();
        // Stash entries in ascending position, so each lands where it was.
        items.sort_by_key(|item| match item.subject.as_deref() {
            Some("stash") => (
                1,
                item.name
                    .as_deref()
                    .and_then(crate::git::stash_list::parse_selector)
                    .unwrap_or(0),
            ),
            Some("branch") => (2, 0),
            _ => (0, 0),
        });
        let writes = self.writes_commits(&tx.txid);
        let notes = if items
            .iter()
            .any(|item| item.subject.as_deref() == Some("stash"))
        {
            self.stash_notes(&tx.txid)
        } else {
            HashMap::new()
        };
        let mut trees: HashMap<std::path::PathBuf, WorkTree> = HashMap::new();
        for item in items {
            let Some(sha) = item.sha.as_deref() else {
                continue;
            };
            let root = item
                .repository
                .clone()
                .unwrap_or_else(|| self.workspace().to_path_buf());
            if !trees.contains_key(&root) {
                match WorkTree::discover(&root, self.git_user_dir()) {
                    Ok(tree) => {
                        trees.insert(root.clone(), tree);
                    }
                    Err(error) => {
                        out.errors.push(format!("{sha}: {}", chain(&error)));
                        continue;
                    }
                }
            }
            let Some(tree) = trees.get(&root) else {
                continue;
            };
            match item.subject.as_deref() {
                None | Some("worktree") => {
                    apply_snapshot(tree, sha, writes.get(sha).map(String::as_str), &mut out);
                }
                Some("stash") => {
                    let note = item
                        .refname
                        .as_ref()
                        .and_then(|r| notes.get(r))
                        .map(String::as_str);
                    restore_stash_entry(tree, item, sha, note, &mut out);
                }
                Some("branch") => restore_branch(tree, item, sha, &mut out),
                Some(other) => out
                    .errors
                    .push(format!("{sha}: unknown snapshot subject `{other}`")),
            }
        }
        out
    }

    /// The revision each work-tree snapshot's command wrote (`meta.writes_commit`), by sha.
    fn writes_commits(&self, txid: &str) -> HashMap<String, String> {
        let records = self.manifest().read().unwrap_or_default();
        records
            .into_iter()
            .filter_map(|record| match record {
                Record::Snapshot(s) if s.txid == txid => {
                    let commit = s.meta.get("writes_commit")?.as_str()?.to_owned();
                    Some((s.sha?, commit))
                }
                _ => None,
            })
            .collect()
    }

    /// The original messages of the transaction's kept stash entries, by private ref.
    fn stash_notes(&self, txid: &str) -> HashMap<String, String> {
        let records = self.manifest().read().unwrap_or_default();
        records
            .into_iter()
            .filter_map(|record| match record {
                Record::Snapshot(s) if s.txid == txid && s.subject.as_deref() == Some("stash") => {
                    Some((s.refname?, s.note?))
                }
                _ => None,
            })
            .collect()
    }
}

/// Applies the work-tree commit `sha` onto the work tree.
fn apply_snapshot(tree: &WorkTree, sha: &str, writes: Option<&str>, out: &mut GitRestore) {
    let label = format!("stash:{sha}");
    let changes = match changes(tree, sha, writes) {
        Ok(changes) => changes,
        Err(error) => {
            out.errors.push(format!("{label}: {}", chain(&error)));
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
                out.errors.push(format!("{label}: {}", chain(&error)));
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
fn changes(tree: &WorkTree, sha: &str, writes: Option<&str>) -> Result<Vec<Change>, RecoveryError> {
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

/// An error with its sources, on one line.
pub(crate) fn chain(error: &RecoveryError) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
