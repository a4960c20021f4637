//! Kept refs: stash entries and branches preserved before a command drops them, put back on
//! restore, and deleted with their transaction.

use std::collections::BTreeSet;
use std::path::Path;

use agent_guard_types::TxId;
use git2::{ErrorCode, Oid};
use serde_json::{Map, Value};

use crate::error::RecoveryError;
use crate::git::snapshot::{create_private_ref, delete_ref};
use crate::git::{
    GitRestore, KeptRef, REF_NAMESPACE, RefSubject, WorkTree, branch_ref, stash_list, stash_ref,
};
use crate::records::{MANIFEST_SCHEMA, Record, Snapshot};
use crate::store::Quarantine;
use crate::stored_path::StoredPath;
use crate::transactions::{SnapshotItem, Transaction};

/// The message of a restored stash entry whose original message is unknown.
const RESTORE_MESSAGE: &str = "agent-guard restore";

/// A ref about to be kept, with the stash message to remember.
struct Keep {
    kept: KeptRef,
    note: Option<String>,
}

impl Quarantine {
    /// Keeps the commits a ref-dropping command would lose, under
    /// `refs/agent-guard/stash/<txid>/<n>` or `refs/agent-guard/branches/<txid>/<name>`, and
    /// appends one `snapshot` record per kept ref (subject `stash` or `branch`, its name, sha
    /// and ref; a stash entry's message goes into `note`).
    ///
    /// Stash selectors are resolved against the current stash list; two selectors naming
    /// the same entry keep it once. `git stash clear` on an empty list keeps nothing.
    ///
    /// # Errors
    /// A selector or branch that does not resolve (git would drop nothing, but we cannot
    /// know what was meant), a private ref that exists with another commit, or a failed
    /// record (the refs created are removed again). Takes the writers' lock.
    #[expect(
        clippy::needless_pass_by_value,
        reason = "the engine's calling convention, as for snapshot_worktree"
    )]
    pub fn preserve_refs(
        &self,
        cwd: &Path,
        txid: &TxId,
        subject: &RefSubject,
        meta: Map<String, Value>,
    ) -> Result<Vec<KeptRef>, RecoveryError> {
        let tree = WorkTree::discover(cwd, self.git_user_dir())?;
        let keeps = match subject {
            RefSubject::StashEntries(selectors) => stash_keeps(&tree, txid, Some(selectors))?,
            RefSubject::AllStashEntries => stash_keeps(&tree, txid, None)?,
            RefSubject::Branches(names) => branch_keeps(&tree, txid, names)?,
        };
        let _lock = self.lock()?;
        let mut created = Vec::new();
        let rollback = |created: &[String]| {
            for refname in created {
                delete_ref(&tree, refname);
            }
        };
        for keep in &keeps {
            let target =
                Oid::from_str(&keep.kept.sha).map_err(tree.error("parse a kept commit id"))?;
            let message = format!("agent-guard: keep {} {}", keep.kept.subject, keep.kept.name);
            match create_private_ref(&tree, &keep.kept.refname, target, &message) {
                Ok(true) => created.push(keep.kept.refname.clone()),
                Ok(false) => {}
                Err(error) => {
                    rollback(&created);
                    return Err(error);
                }
            }
        }
        let ts = self.now();
        let records: Vec<Record> = keeps
            .iter()
            .map(|keep| {
                Record::Snapshot(Snapshot {
                    txid: txid.to_string(),
                    sha: Some(keep.kept.sha.clone()),
                    stored: true,
                    refname: Some(keep.kept.refname.clone()),
                    subject: Some(keep.kept.subject.to_owned()),
                    name: Some(keep.kept.name.clone()),
                    repository: Some(StoredPath::new(&tree.root)),
                    note: keep.note.clone(),
                    error: None,
                    meta: meta.clone(),
                    ts: ts.clone(),
                    schema: MANIFEST_SCHEMA,
                })
            })
            .collect();
        if let Err(error) = self.append(&records) {
            rollback(&created);
            return Err(error);
        }
        Ok(keeps.into_iter().map(|keep| keep.kept).collect())
    }

    /// Deletes the private refs (`refs/agent-guard/…`) of a purged transaction whose
    /// repositories still exist; returns how many were deleted. A ref that was moved to
    /// another commit since is left alone.
    ///
    /// # Errors
    /// An existing repository that cannot be opened, or a ref that cannot be deleted.
    pub fn drop_git_refs(&self, tx: &Transaction) -> Result<usize, RecoveryError> {
        let mut dropped = 0;
        for item in &tx.snapshots {
            let (Some(refname), Some(sha)) = (&item.refname, &item.sha) else {
                continue;
            };
            if !refname.starts_with(REF_NAMESPACE) {
                continue;
            }
            let root = item.repository.as_deref().unwrap_or(self.workspace());
            if root.symlink_metadata().is_err() {
                continue;
            }
            let tree = WorkTree::discover(root, self.git_user_dir())?;
            let mut reference = match tree.repo.find_reference(refname) {
                Ok(reference) => reference,
                Err(error) if error.code() == ErrorCode::NotFound => continue,
                Err(source) => {
                    return Err(RecoveryError::Git {
                        action: "look up a private ref",
                        path: tree.root.clone(),
                        source,
                    });
                }
            };
            if reference.target().map(|id| id.to_string()).as_deref() != Some(sha.as_str()) {
                continue;
            }
            reference
                .delete()
                .map_err(tree.error("delete a private ref"))?;
            dropped += 1;
        }
        Ok(dropped)
    }
}

/// The stash entries to keep: the selected positions, or all of them.
fn stash_keeps(
    tree: &WorkTree,
    txid: &TxId,
    selectors: Option<&Vec<String>>,
) -> Result<Vec<Keep>, RecoveryError> {
    let entries = stash_list::read(tree)?;
    let positions: BTreeSet<usize> = match selectors {
        None => (0..entries.len()).collect(),
        Some(selectors) if selectors.is_empty() => {
            resolve_selector(tree, &entries, "stash@{0}").map(|p| BTreeSet::from([p]))?
        }
        Some(selectors) => selectors
            .iter()
            .map(|s| resolve_selector(tree, &entries, s))
            .collect::<Result<_, _>>()?,
    };
    Ok(positions
        .into_iter()
        .map(|position| Keep {
            kept: KeptRef {
                subject: "stash",
                name: format!("stash@{{{position}}}"),
                sha: entries[position].id.to_string(),
                refname: stash_ref(txid.as_str(), position),
            },
            note: entries[position].message.clone(),
        })
        .collect())
}

fn resolve_selector(
    tree: &WorkTree,
    entries: &[stash_list::StashEntry],
    selector: &str,
) -> Result<usize, RecoveryError> {
    stash_list::parse_selector(selector)
        .filter(|p| *p < entries.len())
        .ok_or_else(|| RecoveryError::UnknownRef {
            selector: selector.to_owned(),
            subject: "stash entry",
            path: tree.root.clone(),
        })
}

/// The branches to keep, each resolved to its commit.
fn branch_keeps(
    tree: &WorkTree,
    txid: &TxId,
    names: &[String],
) -> Result<Vec<Keep>, RecoveryError> {
    let mut seen = BTreeSet::new();
    let mut keeps = Vec::new();
    for name in names {
        let short = name.strip_prefix("refs/heads/").unwrap_or(name);
        if !seen.insert(short.to_owned()) {
            continue;
        }
        let unknown = || RecoveryError::UnknownRef {
            selector: name.clone(),
            subject: "branch",
            path: tree.root.clone(),
        };
        let full = format!("refs/heads/{short}");
        if !git2::Reference::is_valid_name(&full) {
            return Err(unknown());
        }
        let target = match tree.repo.find_reference(&full).and_then(|r| r.resolve()) {
            Ok(reference) => reference.target().ok_or_else(unknown)?,
            Err(error) if error.code() == ErrorCode::NotFound => return Err(unknown()),
            Err(source) => {
                return Err(RecoveryError::Git {
                    action: "resolve a branch",
                    path: tree.root.clone(),
                    source,
                });
            }
        };
        keeps.push(Keep {
            kept: KeptRef {
                subject: "branch",
                name: short.to_owned(),
                sha: target.to_string(),
                refname: branch_ref(txid.as_str(), short),
            },
            note: None,
        });
    }
    Ok(keeps)
}

/// Puts a kept stash entry back into the stash list at its old position, unless an entry
/// with that commit is already listed.
pub(crate) fn restore_stash_entry(
    tree: &WorkTree,
    item: &SnapshotItem,
    sha: &str,
    note: Option<&str>,
    out: &mut GitRestore,
) {
    let label = format!("stash:{sha}");
    let result = (|| {
        let id = Oid::from_str(sha).map_err(tree.error("parse a kept commit id"))?;
        if stash_list::read(tree)?.iter().any(|entry| entry.id == id) {
            return Ok(());
        }
        let commit = tree
            .repo
            .find_commit(id)
            .map_err(tree.error("find a kept stash entry"))?;
        let message = note
            .map(str::to_owned)
            .or_else(|| commit.summary().map(str::to_owned))
            .unwrap_or_else(|| RESTORE_MESSAGE.to_owned());
        let position = item
            .name
            .as_deref()
            .and_then(stash_list::parse_selector)
            .unwrap_or(0);
        stash_list::insert(tree, position, id, &message)
    })();
    match result {
        Ok(()) => out.restored.push(label),
        Err(error) => out
            .errors
            .push(format!("{label}: {}", crate::git::apply::chain(&error))),
    }
}

/// Recreates a kept branch if it is absent; one that exists at another commit is a
/// conflict.
pub(crate) fn restore_branch(
    tree: &WorkTree,
    item: &SnapshotItem,
    sha: &str,
    out: &mut GitRestore,
) {
    let Some(name) = item.name.as_deref() else {
        out.errors.push(format!("kept branch {sha} has no name"));
        return;
    };
    let full = format!("refs/heads/{name}");
    let result = (|| {
        let id = Oid::from_str(sha).map_err(tree.error("parse a kept commit id"))?;
        match tree.repo.find_reference(&full) {
            Ok(existing) => return Ok(existing.target() == Some(id)),
            Err(error) if error.code() == ErrorCode::NotFound => {}
            Err(source) => {
                return Err(RecoveryError::Git {
                    action: "look up a branch",
                    path: tree.root.clone(),
                    source,
                });
            }
        }
        tree.repo
            .reference(
                &full,
                id,
                false,
                &format!("agent-guard: restore branch {name}"),
            )
            .map_err(tree.error("recreate a branch"))?;
        Ok(true)
    })();
    match result {
        Ok(true) => out.restored.push(format!("ref:{name}")),
        Ok(false) => out.conflicts.push(full),
        Err(error) => out
            .errors
            .push(format!("ref:{name}: {}", crate::git::apply::chain(&error))),
    }
}
