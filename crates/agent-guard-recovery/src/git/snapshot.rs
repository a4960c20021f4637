//! [`Quarantine::snapshot_worktree`]: the tracked changes as commits under a private ref.

use std::path::Path;

use agent_guard_types::TxId;
use git2::{Commit, ErrorCode, Oid};
use serde_json::{Map, Value};

use crate::error::RecoveryError;
use crate::git::worktree::capture;
use crate::git::{GitSnapshot, WorkTree, snapshot_ref};
use crate::records::{MANIFEST_SCHEMA, Record, Snapshot};
use crate::store::Quarantine;
use crate::stored_path::StoredPath;

/// The note of a clean tree's record.
pub(crate) const CLEAN_NOTE: &str = "working tree clean; nothing to snapshot";

impl Quarantine {
    /// Snapshots the tracked changes (index and work tree) of the repository whose work tree
    /// contains `cwd`, as commits stored under `refs/agent-guard/snapshots/<txid>`, and
    /// appends a `snapshot` record (subject `worktree`).
    ///
    /// The commits have the shape `git stash create` gives them: an index commit (the
    /// index's tree, parent `HEAD`) and a work-tree commit (the tracked files as they are in
    /// the work tree, parents `HEAD` and the index commit). Untracked files are not part of
    /// it. The user's index file, `refs/stash` and the work tree are not touched.
    ///
    /// A clean tree records `sha: null` with the note "working tree clean; nothing to
    /// snapshot" and succeeds.
    ///
    /// # Errors
    /// The repository cannot be opened, `HEAD` is unborn (there is nothing to reset to, so
    /// the caller refuses), the index has unmerged entries, a file cannot be read, the ref
    /// exists with another commit, or the record cannot be appended (the ref is then
    /// removed again). Takes the writers' lock.
    pub fn snapshot_worktree(
        &self,
        cwd: &Path,
        txid: &TxId,
        meta: Map<String, Value>,
    ) -> Result<GitSnapshot, RecoveryError> {
        let tree = WorkTree::discover(cwd, self.git_user_dir())?;
        let head = head_commit(&tree)?;
        let head_tree = head.tree().map_err(tree.error("read HEAD's tree"))?;
        let captured = capture(&tree, &head_tree)?;
        let mut meta = meta;
        // The revision the command is about to write into the work tree (`reset --hard REV`,
        // `restore --source=REV`, …), resolved now: its content may be overwritten on restore.
        if let Some(commit) = meta
            .get("writes_revision")
            .and_then(Value::as_str)
            .and_then(|rev| tree.repo.revparse_single(rev).ok())
            .and_then(|object| object.peel_to_commit().ok())
        {
            meta.insert(
                "writes_commit".to_owned(),
                Value::from(commit.id().to_string()),
            );
        }
        let mut record = Snapshot {
            txid: txid.to_string(),
            sha: None,
            stored: false,
            refname: None,
            subject: Some("worktree".to_owned()),
            name: None,
            repository: Some(StoredPath::new(&tree.root)),
            note: None,
            error: None,
            meta,
            ts: self.now(),
            schema: MANIFEST_SCHEMA,
        };
        if captured.index_tree == head_tree.id() && captured.worktree_tree == head_tree.id() {
            record.note = Some(CLEAN_NOTE.to_owned());
            let _lock = self.lock()?;
            self.append(&[Record::Snapshot(record)])?;
            return Ok(GitSnapshot {
                sha: None,
                refname: None,
            });
        }

        let sha = commit_snapshot(
            &tree,
            &head,
            captured.index_tree,
            captured.worktree_tree,
            txid,
        )?;
        let refname = snapshot_ref(txid.as_str());
        let _lock = self.lock()?;
        let created = create_private_ref(
            &tree,
            &refname,
            sha,
            &format!("agent-guard: snapshot {txid}"),
        )?;
        record.sha = Some(sha.to_string());
        record.stored = true;
        record.refname = Some(refname.clone());
        if let Err(error) = self.append(&[Record::Snapshot(record)]) {
            if created {
                delete_ref(&tree, &refname);
            }
            return Err(error);
        }
        Ok(GitSnapshot {
            sha: Some(sha.to_string()),
            refname: Some(refname),
        })
    }
}

/// The commit `HEAD` points to; an unborn branch is [`RecoveryError::UnbornHead`].
fn head_commit(tree: &WorkTree) -> Result<Commit<'_>, RecoveryError> {
    match tree.repo.head() {
        Ok(head) => head.peel_to_commit().map_err(tree.error("resolve HEAD")),
        Err(error) if matches!(error.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => {
            Err(RecoveryError::UnbornHead {
                path: tree.root.clone(),
            })
        }
        Err(source) => Err(RecoveryError::Git {
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
) -> Result<Oid, RecoveryError> {
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
/// call), and [`RecoveryError::RefExists`] if it points elsewhere.
pub(crate) fn create_private_ref(
    tree: &WorkTree,
    refname: &str,
    target: Oid,
    message: &str,
) -> Result<bool, RecoveryError> {
    match tree.repo.find_reference(refname) {
        Ok(existing) if existing.target() == Some(target) => return Ok(false),
        Ok(_) => {
            return Err(RecoveryError::RefExists {
                refname: refname.to_owned(),
                path: tree.root.clone(),
            });
        }
        Err(error) if error.code() == ErrorCode::NotFound => {}
        Err(source) => {
            return Err(RecoveryError::Git {
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

/// Deletes a private ref, best effort (rolling back after a failed record).
pub(crate) fn delete_ref(tree: &WorkTree, refname: &str) {
    if let Ok(mut reference) = tree.repo.find_reference(refname) {
        let _ = reference.delete();
    }
}
