//! Snapshot: the work tree's tracked changes as commits under a private ref, before a
//! command discards them (`git reset --hard`, `git checkout -- p`, `git restore p`, …).

use std::path::Path;

use serde::Serialize;

use agent_guard_git::{GitItem, PreparedSnapshot, Subject, WorkTree};
use agent_guard_quarantine::TxMeta;
use agent_guard_quarantine::{
    MANIFEST_SCHEMA, OtherOutcome, OtherRequest, Quarantine, Record, Snapshot as SnapshotRecord,
    SnapshotItem, StoredPath, Transaction,
};
use agent_guard_types::{Plan, Strategy, TxId};

use crate::RecoveryError;
use crate::compensation::{Applied, Compensation, Job};

/// What a work-tree snapshot produced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GitSnapshot {
    /// The work-tree commit, `None` when the tree was clean.
    pub sha: Option<String>,
    /// The private ref that keeps it, `None` when the tree was clean.
    pub refname: Option<String>,
}

/// The snapshot compensation (`SNAPSHOT_GIT_STASH`).
#[derive(Debug, Clone, Copy)]
pub struct Snapshot;

impl Compensation for Snapshot {
    fn strategy(&self) -> Strategy {
        Strategy::Snapshot
    }

    fn apply(&self, job: &Job<'_>, plan: &Plan) -> Applied {
        let Plan::Snapshot {
            cwd, reset_target, ..
        } = plan
        else {
            return job.wrong_plan(Strategy::Snapshot, "not a snapshot plan");
        };
        let mut meta = job.meta(Strategy::Snapshot);
        meta.snapshot.writes_revision.clone_from(reset_target);
        let result = snapshot_worktree(job.store, cwd, &job.txid, meta);
        Applied::settled(Strategy::Snapshot, &job.txid, result, |snapshot, base| {
            Applied {
                moved: usize::from(snapshot.sha.is_some()),
                sha: Some(snapshot.sha),
                ..base
            }
        })
    }

    fn restore(
        &self,
        store: &Quarantine,
        tx: &Transaction,
        request: &mut OtherRequest<'_>,
        out: &mut OtherOutcome,
    ) {
        if !request.paths.is_empty() {
            return;
        }
        restore_subjects(store, tx, &[Subject::Worktree], out);
    }

    fn release(&self, store: &Quarantine, tx: &Transaction) -> usize {
        release_subjects(store, tx, &[Subject::Worktree])
    }
}

/// Snapshots the tracked changes (index and work tree) of the repository whose work tree
/// contains `cwd`, as commits stored under `refs/agent-guard/snapshots/<txid>`, and appends
/// a `snapshot` record (subject `worktree`). `meta.writes_revision`, when set, names the
/// revision the command writes into the work tree; its commit is recorded as
/// `meta.writes_commit`.
///
/// A clean tree records `sha: null` with the note "working tree clean; nothing to snapshot"
/// and succeeds.
///
/// # Errors
/// The repository cannot be opened, `HEAD` is unborn, the index has unmerged entries, a file
/// cannot be read, the ref exists with another commit, or the record cannot be appended (the
/// ref is then removed again). Takes the writers' lock.
pub fn snapshot_worktree(
    store: &Quarantine,
    cwd: &Path,
    txid: &TxId,
    meta: TxMeta,
) -> Result<GitSnapshot, RecoveryError> {
    let tree = WorkTree::discover(cwd, store.git_user_dir())?;
    let writes = meta.snapshot.writes_revision.as_deref();
    let prepared = PreparedSnapshot::capture(&tree, txid, writes)?;
    let mut meta = meta;
    meta.snapshot
        .writes_commit
        .clone_from(&prepared.writes_commit);
    let record = SnapshotRecord {
        txid: txid.to_string(),
        sha: prepared.sha.clone(),
        stored: prepared.sha.is_some(),
        refname: prepared.refname.clone(),
        subject: Some(Subject::Worktree.as_str().to_owned()),
        name: None,
        repository: Some(StoredPath::new(tree.root())),
        note: prepared
            .sha
            .is_none()
            .then(|| agent_guard_git::CLEAN_NOTE.to_owned()),
        error: None,
        meta,
        ts: store.now(),
        schema: MANIFEST_SCHEMA,
    };
    let _lock = store.lock()?;
    let created = prepared.store(&tree, txid)?;
    if let Err(error) = store.append(&[Record::Snapshot(record)]) {
        if created {
            agent_guard_git::delete_refs(&tree, prepared.refname.as_slice());
        }
        return Err(error.into());
    }
    Ok(GitSnapshot {
        sha: prepared.sha,
        refname: prepared.refname,
    })
}

/// The kept commits of `tx` of one of `subjects`, as the git layer restores them.
pub(crate) fn git_items(
    store: &Quarantine,
    tx: &Transaction,
    subjects: &[Subject],
) -> Vec<GitItem> {
    tx.snapshots
        .iter()
        .filter_map(|item| git_item(store, item))
        .filter(|item| subjects.contains(&item.subject))
        .collect()
}

fn git_item(store: &Quarantine, item: &SnapshotItem) -> Option<GitItem> {
    Some(GitItem {
        subject: Subject::parse(item.subject.as_deref())?,
        sha: item.sha.clone()?,
        refname: item.refname.clone(),
        name: item.name.clone(),
        repository: item
            .repository
            .clone()
            .unwrap_or_else(|| store.workspace().to_path_buf()),
        note: item.note.clone(),
        writes_commit: item.writes_commit.clone(),
    })
}

/// Restores the kept commits of `tx` of one of `subjects`.
pub(crate) fn restore_subjects(
    store: &Quarantine,
    tx: &Transaction,
    subjects: &[Subject],
    out: &mut OtherOutcome,
) {
    // A subject no compensation knows is reported once, by the work-tree snapshot.
    if subjects.contains(&Subject::Worktree) {
        for item in &tx.snapshots {
            let known = Subject::parse(item.subject.as_deref()).is_some()
                || item.subject.as_deref() == Some(crate::checkpoint::SUBJECT);
            if let (Some(sha), false) = (&item.sha, known) {
                out.errors.push(format!(
                    "{sha}: unknown snapshot subject `{}`",
                    item.subject.as_deref().unwrap_or_default()
                ));
            }
        }
    }
    let items = git_items(store, tx, subjects);
    if items.is_empty() {
        return;
    }
    let restored = agent_guard_git::restore_items(&items, store.git_user_dir());
    out.restored.extend(restored.restored);
    out.conflicts.extend(restored.conflicts);
    out.errors.extend(restored.errors);
}

/// Deletes the private refs of `tx`'s kept commits of one of `subjects`.
pub(crate) fn release_subjects(
    store: &Quarantine,
    tx: &Transaction,
    subjects: &[Subject],
) -> usize {
    let items = git_items(store, tx, subjects);
    agent_guard_git::drop_private_refs(&items, store.git_user_dir()).unwrap_or(0)
}
