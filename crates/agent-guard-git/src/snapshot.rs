//! Work-tree snapshots: the tracked changes as commits under a private ref.

use agent_guard_types::TxId;
use git2::{Commit, ErrorCode, Oid};

use crate::error::GitError;
use crate::worktree::capture;
use crate::{WorkTree, snapshot_ref};

/// The note of a clean tree's record.
pub const CLEAN_NOTE: &str = "working tree clean; nothing to snapshot";

/// A work-tree snapshot whose commits are written, before its private ref is stored.
///
/// The commits have the shape `git stash create` gives them: an index commit (the index's
/// tree, parent `HEAD`) and a work-tree commit (the tracked files as they are in the work
/// tree, parents `HEAD` and the index commit). Untracked files are not part of it. The
/// user's index file, `refs/stash` and the work tree are not touched; unreferenced commits
/// are harmless objects until [`PreparedSnapshot::store`] names them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreparedSnapshot {
    /// The work-tree commit, `None` when the tree is clean (nothing to keep).
    pub sha: Option<String>,
    /// The private ref that will keep it, `refs/agent-guard/snapshots/<txid>`.
    pub refname: Option<String>,
    /// The commit `writes_revision` resolved to, if it resolves.
    pub writes_commit: Option<String>,
}

impl PreparedSnapshot {
    /// Captures the tracked changes (index and work tree) of `tree` for transaction `txid`.
    /// `writes_revision` is the revision the command is about to write into the work tree
    /// (`reset --hard REV`, `restore --source=REV`, …), resolved now: a restore may
    /// overwrite its content without loss.
    ///
    /// # Errors
    /// `HEAD` is unborn (there is nothing to reset to, so the caller refuses), the index has
    /// unmerged entries, a file cannot be read, or a commit cannot be written.
    pub fn capture(
        tree: &WorkTree,
        txid: &TxId,
        writes_revision: Option<&str>,
    ) -> Result<PreparedSnapshot, GitError> {
        let head = head_commit(tree)?;
        let head_tree = head.tree().map_err(tree.error("read HEAD's tree"))?;
        let captured = capture(tree, &head_tree)?;
        let writes_commit = writes_revision
            .and_then(|rev| tree.repo.revparse_single(rev).ok())
            .and_then(|object| object.peel_to_commit().ok())
            .map(|commit| commit.id().to_string());
        if captured.index_tree == head_tree.id() && captured.worktree_tree == head_tree.id() {
            return Ok(PreparedSnapshot {
                sha: None,
                refname: None,
                writes_commit,
            });
        }
        let sha = commit_snapshot(
            tree,
            &head,
            captured.index_tree,
            captured.worktree_tree,
            txid,
        )?;
        Ok(PreparedSnapshot {
            sha: Some(sha.to_string()),
            refname: Some(snapshot_ref(txid.as_str())),
            writes_commit,
        })
    }

    /// Stores the private ref. Returns `false` when there is nothing to store (a clean tree)
    /// or it already pointed there (a retried call).
    ///
    /// # Errors
    /// The ref exists with another commit, or cannot be written.
    pub fn store(&self, tree: &WorkTree, txid: &TxId) -> Result<bool, GitError> {
        let (Some(sha), Some(refname)) = (&self.sha, &self.refname) else {
            return Ok(false);
        };
        let target = Oid::from_str(sha).map_err(tree.error("parse the snapshot id"))?;
        create_private_ref(
            tree,
            refname,
            target,
            &format!("agent-guard: snapshot {txid}"),
        )
    }
}

/// The commit `HEAD` points to; an unborn branch is [`GitError::UnbornHead`].
fn head_commit(tree: &WorkTree) -> Result<Commit<'_>, GitError> {
    match tree.repo.head() {
        Ok(head) => head.peel_to_commit().map_err(tree.error("resolve HEAD")),
        Err(error) if matches!(error.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => {
            Err(GitError::UnbornHead {
                path: tree.root.clone(),
            })
        }
        Err(source) => Err(GitError::Git {
            action: "resolve HEAD",
            path: tree.root.clone(),
            source,
        }),
    }
}

/// Writes the index commit and the work-tree commit; returns the latter.
fn commit_snapshot(
    tree: &WorkTree,
    head: &Commit<'_>,
    index_tree: Oid,
    worktree_tree: Oid,
    txid: &TxId,
) -> Result<Oid, GitError> {
    let repo = &tree.repo;
    let signature = tree.signature();
    let branch = branch_label(tree);
    let short = head
        .as_object()
        .short_id()
        .ok()
        .and_then(|buf| buf.as_str().map(str::to_owned))
        .unwrap_or_else(|| head.id().to_string());
    let subject = head.summary().unwrap_or_default();
    let index_tree = repo
        .find_tree(index_tree)
        .map_err(tree.error("read the index tree"))?;
    let worktree_tree = repo
        .find_tree(worktree_tree)
        .map_err(tree.error("read the work-tree tree"))?;
    let index_commit_id = repo
        .commit(
            None,
            &signature,
            &signature,
            &format!("index on {branch}: {short} {subject}"),
            &index_tree,
            &[head],
        )
        .map_err(tree.error("write the index commit"))?;
    let index_commit = repo
        .find_commit(index_commit_id)
        .map_err(tree.error("read the index commit"))?;
    repo.commit(
        None,
        &signature,
        &signature,
        &format!("On {branch}: agent-guard:{txid}"),
        &worktree_tree,
        &[head, &index_commit],
    )
    .map_err(tree.error("write the snapshot commit"))
}

/// The branch name as `git stash` prints it, `(no branch)` when detached.
fn branch_label(tree: &WorkTree) -> String {
    match tree.repo.head() {
        Ok(head) if head.is_branch() => head.shorthand().unwrap_or("(no branch)").to_owned(),
        _ => "(no branch)".to_owned(),
    }
}

/// Creates `refname` at `target`. Returns `false` if it already pointed there (a retried
/// call), and [`GitError::RefExists`] if it points elsewhere.
pub(crate) fn create_private_ref(
    tree: &WorkTree,
    refname: &str,
    target: Oid,
    message: &str,
) -> Result<bool, GitError> {
    match tree.repo.find_reference(refname) {
        Ok(existing) if existing.target() == Some(target) => return Ok(false),
        Ok(_) => {
            return Err(GitError::RefExists {
                refname: refname.to_owned(),
                path: tree.root.clone(),
            });
        }
        Err(error) if error.code() == ErrorCode::NotFound => {}
        Err(source) => {
            return Err(GitError::Git {
                action: "look up a private ref",
                path: tree.root.clone(),
                source,
            });
        }
    }
    tree.repo
        .reference(refname, target, false, message)
        .map_err(tree.error("create a private ref"))?;
    Ok(true)
}

/// Deletes private refs, best effort (rolling back after a failed record).
pub fn delete_refs(tree: &WorkTree, refnames: &[String]) {
    for refname in refnames {
        if let Ok(mut reference) = tree.repo.find_reference(refname) {
            let _ = reference.delete();
        }
    }
}
