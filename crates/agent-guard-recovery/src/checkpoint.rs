//! Checkpoint: the whole workspace as a private commit in the quarantine's own object store,
//! before a command whose effects the guard cannot see into (a script, a build tool, an
//! unknown program, a delete whose targets only the shell knows).
//!
//! Journal order: the objects are written (content addressed, shared between
//! checkpoints), then the ref `refs/checkpoints/<txid>` that keeps them, then the durable
//! `snapshot` record (subject `checkpoint`); a record that cannot be journaled removes the
//! ref again, and a crash before the record leaves an orphan ref that the next purge
//! prunes. Everything happens under the writers' lock, so gc never prunes a checkpoint
//! being taken.
//!
//! Restore compares the workspace with the checkpoint and puts every changed path back:
//! deleted files are written back, modified and created ones are first moved into a new
//! transaction (never deleted), then the checkpoint's version is written where there is
//! one. A crash at any step leaves the checkpoint intact, and running the restore again
//! finishes it.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};

use agent_guard_checkpoint::watch::{Ended, Watched};
use agent_guard_checkpoint::{
    ChangeKind, CheckpointDiff, CheckpointStore, Selection, WatcherState, WriteBack,
};
use agent_guard_fsops as fsops;
use agent_guard_quarantine::{
    CHECKPOINTS_DIR_NAME, FaultPoint, MANIFEST_SCHEMA, NoProgress, OtherOutcome, OtherRequest,
    Quarantine, Record, RelocateItem, Snapshot as SnapshotRecord, SnapshotItem, StoredPath,
    Transaction,
};
use agent_guard_quarantine::{CheckpointFacts, NotKeptFile, Origin, Repaired, TxMeta};
use agent_guard_types::{CheckpointPlan, Plan, Strategy, TxId};

use crate::RecoveryError;
use crate::compensation::{Applied, Compensation, Job};

/// The `subject` of a checkpoint's `snapshot` record.
pub const SUBJECT: &str = "checkpoint";

/// The checkpoint compensation (`SNAPSHOT_CHECKPOINT`, `SNAPSHOT_CHECKPOINT_DELETE`).
#[derive(Debug, Clone, Copy)]
pub struct Checkpoint;

/// The checkpoint store of `store`'s workspace.
pub fn store_dir(store: &Quarantine) -> PathBuf {
    store.trash().join(CHECKPOINTS_DIR_NAME)
}

impl Compensation for Checkpoint {
    fn strategy(&self) -> Strategy {
        Strategy::Checkpoint
    }

    fn apply(&self, job: &Job<'_>, plan: &Plan) -> Applied {
        let Plan::Checkpoint(plan) = plan else {
            return job.wrong_plan(Strategy::Checkpoint, "not a checkpoint plan");
        };
        let result = take(job.store, plan, &job.txid, job.origin.clone());
        Applied::settled(Strategy::Checkpoint, &job.txid, result, |taken, base| {
            Applied {
                moved: usize::try_from(taken.files).unwrap_or(usize::MAX),
                skipped: taken.not_kept.len(),
                sha: Some(Some(taken.commit)),
                start_watcher: (taken.watcher == WatcherState::Absent).then(|| plan.clone()),
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
        for item in tx.snapshots.iter().filter(|s| is_checkpoint(s)) {
            let Some(sha) = &item.sha else { continue };
            restore_one(store, tx, sha, request, out);
        }
    }

    fn release(&self, store: &Quarantine, tx: &Transaction) -> usize {
        if !tx.snapshots.iter().any(is_checkpoint) {
            return 0;
        }
        CheckpointStore::open_existing(&store_dir(store))
            .is_some_and(|cp| cp.delete_ref(&tx.txid))
            .into()
    }
}

/// Whether a snapshot record is a checkpoint's.
pub(crate) fn is_checkpoint(item: &SnapshotItem) -> bool {
    item.subject.as_deref() == Some(SUBJECT)
}

fn io_error(action: &'static str, path: &Path, source: std::io::Error) -> RecoveryError {
    agent_guard_git::GitError::GitWorktree {
        action,
        path: path.to_path_buf(),
        source,
    }
    .into()
}

/// What a checkpoint of `store`'s workspace keeps under `plan`.
fn selection(store: &Quarantine, plan: &CheckpointPlan) -> Result<Selection, RecoveryError> {
    let workspace = fs_err::canonicalize(store.workspace())
        .map_err(|source| io_error("resolve", store.workspace(), source))?;
    let trash = fs_err::canonicalize(store.trash()).unwrap_or_else(|_| store.trash().to_path_buf());
    Ok(Selection {
        workspace,
        skip: vec![trash],
        artifacts: plan.artifacts.clone(),
        skip_regenerable: plan.skip_regenerable,
        max_file_bytes: plan.max_file_bytes,
        git_user_dir: store.git_user_dir().map(Path::to_path_buf),
    })
}

/// Runs the watcher of `store`'s checkpoint store ([`agent_guard_checkpoint::watch`]) until it
/// ends: inotify watches on the workspace (but for what checkpoints taken with `plan` leave
/// out), answering the next checkpoints.
///
/// # Errors
/// The workspace cannot be resolved, or the watcher's lock or socket cannot be created.
pub fn watch(
    store: &Quarantine,
    plan: &CheckpointPlan,
    idle: std::time::Duration,
) -> Result<Ended, RecoveryError> {
    let selection = selection(store, plan)?;
    let dir = agent_guard_checkpoint::watch::dir_of(&store_dir(store));
    let rules = agent_guard_checkpoint::watch::rule_dirs(&selection.workspace);
    let watched = Watched {
        selection,
        rules,
        idle,
    };
    Ok(agent_guard_checkpoint::watch::serve(&dir, &watched)?)
}

/// The plan a checkpoint was taken with, as its record keeps it.
fn recorded_plan(tx: &Transaction) -> CheckpointPlan {
    let facts = tx.meta.checkpoint.clone().unwrap_or_default();
    CheckpointPlan {
        artifacts: facts.artifacts,
        skip_regenerable: facts.skip_regenerable,
        max_file_bytes: facts.max_file_bytes,
    }
}

/// Takes a checkpoint of `store`'s workspace for transaction `txid` and journals it. Takes
/// the writers' lock.
///
/// # Errors
/// The store cannot be opened, a file cannot be stored, the ref exists, or the record cannot
/// be appended (the ref is then removed again).
pub fn take(
    store: &Quarantine,
    plan: &CheckpointPlan,
    txid: &TxId,
    origin: Origin,
) -> Result<agent_guard_checkpoint::Taken, RecoveryError> {
    fs_err::create_dir_all(store.trash())
        .map_err(|source| io_error("create", store.trash(), source))?;
    let _lock = store.lock()?;
    let selection = selection(store, plan)?;
    let checkpoints = CheckpointStore::open(&store_dir(store))?;
    // The new packs flush while the ref and the record are written; the record's own flush
    // then shares the disk's commit with them, and both are waited for before the command
    // may run.
    let (mut taken, flushing) = checkpoints.take_in_flight(&selection)?;
    // The repository's objects are mirrored (hard links where the store shares the
    // filesystem) while the packs flush: a program that deletes `.git` is undone with them.
    let objects = match checkpoints.keep_git_objects(&selection.workspace, plan.max_file_bytes) {
        Ok(objects) => objects,
        Err(error) => {
            let _ = flushing.wait();
            return Err(error.into());
        }
    };
    taken.not_kept.extend(objects.not_kept.iter().cloned());
    store.faults().hit(FaultPoint::CheckpointAfterObjects);
    let refname = checkpoints.store_ref(txid.as_str(), &taken.commit)?;
    store.faults().hit(FaultPoint::CheckpointAfterRef);
    let facts = CheckpointFacts {
        artifacts: plan.artifacts.clone(),
        skip_regenerable: plan.skip_regenerable,
        max_file_bytes: plan.max_file_bytes,
        files: taken.files,
        bytes: taken.bytes,
        hashed: taken.hashed,
        new_objects: taken.new_objects,
        new_bytes: taken.new_bytes,
        git_objects_added: objects.added,
        repaired: taken
            .repaired
            .iter()
            .map(|d| Repaired {
                pack: d.pack.clone(),
                problem: d.problem.clone(),
            })
            .collect(),
        not_kept: taken
            .not_kept
            .iter()
            .map(|n| NotKeptFile {
                path: StoredPath::new(Path::new(OsStr::from_bytes(&n.path))),
                size: n.size,
                reason: n.reason.as_str().to_owned(),
            })
            .collect(),
    };
    let meta = TxMeta {
        checkpoint: Some(facts),
        ..TxMeta::of(origin).with_strategy(Strategy::Checkpoint.as_str())
    };
    let record = SnapshotRecord {
        txid: txid.to_string(),
        sha: Some(taken.commit.clone()),
        stored: true,
        refname: Some(refname),
        subject: Some(SUBJECT.to_owned()),
        name: None,
        repository: Some(StoredPath::new(store.workspace())),
        note: None,
        error: None,
        meta,
        ts: store.now(),
        schema: MANIFEST_SCHEMA,
    };
    if let Err(error) = store.append(&[Record::Snapshot(record)]) {
        checkpoints.delete_ref(txid.as_str());
        // Not journaled: nothing depends on the new objects any more.
        let _ = flushing.wait();
        return Err(error.into());
    }
    if let Err(why) = flushing.wait() {
        // Journaled, but its objects may not survive a crash: the command must not run.
        // The record stays (the journal is append-only), and gc frees the objects with its
        // transaction.
        return Err(io_error(
            "flush the checkpoint's objects",
            &store_dir(store),
            std::io::Error::other(why),
        ));
    }
    Ok(taken)
}

/// What changed in `store`'s workspace since the checkpoint of `tx` (`show`'s diffstat).
///
/// # Errors
/// The store or the checkpoint cannot be read.
pub fn changes(
    store: &Quarantine,
    tx: &Transaction,
) -> Result<Option<(CheckpointStore, CheckpointDiff)>, RecoveryError> {
    let Some(sha) = tx
        .snapshots
        .iter()
        .filter(|s| is_checkpoint(s))
        .find_map(|s| s.sha.clone())
    else {
        return Ok(None);
    };
    let Some(checkpoints) = CheckpointStore::open_existing(&store_dir(store)) else {
        return Ok(None);
    };
    let selection = selection(store, &recorded_plan(tx))?;
    let diff = checkpoints.diff(&sha, &selection, &[])?;
    Ok(Some((checkpoints, diff)))
}

/// `--path` arguments as workspace-relative `/`-separated bytes.
fn scope(store: &Quarantine, workspace: &Path, paths: &[PathBuf]) -> Vec<Vec<u8>> {
    paths
        .iter()
        .map(|p| {
            let relative = p
                .strip_prefix(workspace)
                .or_else(|_| p.strip_prefix(store.workspace()))
                .unwrap_or(p);
            let text = relative.as_os_str().as_bytes();
            let mut text = text.strip_prefix(b"./").unwrap_or(text).to_vec();
            while text.last() == Some(&b'/') {
                text.pop();
            }
            text
        })
        .collect()
}

/// Restores the workspace to checkpoint `sha` of `tx` (within `request.paths`).
fn restore_one(
    store: &Quarantine,
    tx: &Transaction,
    sha: &str,
    request: &mut OtherRequest<'_>,
    out: &mut OtherOutcome,
) {
    let failed = |out: &mut OtherOutcome, error: &dyn std::error::Error| {
        out.errors.push(format!(
            "checkpoint {sha}: {}",
            agent_guard_types::error_chain(error)
        ));
    };
    let Some(checkpoints) = CheckpointStore::open_existing(&store_dir(store)) else {
        out.errors
            .push(format!("checkpoint {sha}: the checkpoint store is gone"));
        return;
    };
    if !checkpoints.intact(sha) {
        out.errors.push(format!(
            "checkpoint {sha}: its objects are no longer in the store"
        ));
        return;
    }
    let selection = match selection(store, &recorded_plan(tx)) {
        Ok(selection) => selection,
        Err(error) => return failed(out, &error),
    };
    let workspace = selection.workspace.clone();
    let scope = scope(store, &workspace, request.paths);
    let mut diff = match checkpoints.diff(sha, &selection, &scope) {
        Ok(diff) => diff,
        Err(error) => return failed(out, &error),
    };
    // The guard's own refs belong to their own transactions: one that is gone comes back,
    // one that is there stays as it is.
    diff.changes.retain(|c| {
        c.kind == ChangeKind::Deleted || !agent_guard_checkpoint::is_guards_own(&c.path)
    });
    checkpoints.clear_staging();
    // An interrupted restore's files staged beside their targets are finished, not kept.
    checkpoints.clear_staged_beside(&workspace, &mut diff);
    // 1. What is there now and differs is kept in a new transaction first: never deleted.
    let current: Vec<&agent_guard_checkpoint::CheckpointChange> = diff
        .changes
        .iter()
        .filter(|c| matches!(c.kind, ChangeKind::Modified | ChangeKind::Created))
        .collect();
    if !current.is_empty() {
        match keep_current(store, tx, request, &workspace, &current, out) {
            Ok(true) => {}
            Ok(false) => return,
            Err(error) => return failed(out, &error),
        }
    }
    // Directories created since that hold nothing now (moving the created files away
    // emptied them, or the command made them empty) go; they hold nothing to keep.
    remove_created_dirs(&workspace, &diff, &current);
    // 2. The checkpoint's versions of deleted and modified paths are written back.
    let mut first = true;
    for change in diff
        .changes
        .iter()
        .filter(|c| c.kind != ChangeKind::Created)
    {
        let target = workspace.join(change.relative());
        match checkpoints.write_back(&workspace, change) {
            Ok(WriteBack::Written) => out.restored.push(target.display().to_string()),
            Ok(WriteBack::Occupied) => out.conflicts.push(target.display().to_string()),
            Err(error) => failed(out, &error),
        }
        if first {
            first = false;
            store
                .faults()
                .hit(FaultPoint::CheckpointRestoreAfterFirstWrite);
        }
    }
    // The repository's objects the workspace lost come back from the mirror (after its
    // state, so that a loose object a pack holds is not written again).
    let git_in_scope = scope.is_empty()
        || scope
            .iter()
            .any(|s| s == b".git" || s.starts_with(b".git/"));
    if git_in_scope {
        match checkpoints.restore_git_objects(&workspace) {
            Ok(0) => {}
            Ok(count) => out.restored.push(format!(
                "{} ({count} objects)",
                workspace.join(".git").display()
            )),
            Err(error) => failed(out, &error),
        }
    }
    for dir in &diff.missing_dirs {
        let target = workspace.join(OsStr::from_bytes(dir));
        match checkpoints.make_dir(&workspace, dir) {
            Ok(true) => out.restored.push(target.display().to_string()),
            Ok(false) => out.conflicts.push(target.display().to_string()),
            Err(error) => failed(out, &error),
        }
    }
    // 3. Directories get their bits back, deepest first (a private parent last), once
    //    everything below them is written.
    restore_dir_modes(&checkpoints, &workspace, &diff.dir_modes, out, &failed);
    checkpoints.clear_staging();
    if request.paths.is_empty() && out.errors.is_empty() && out.conflicts.is_empty() {
        out.restored.push(format!("{SUBJECT}:{sha}"));
    }
}

/// Step 1 of a checkpoint restore: keeps what is there now and differs (`current`) in a new
/// backup transaction. `Ok(false)` when the restore must stop (`out` says why).
fn keep_current(
    store: &Quarantine,
    tx: &Transaction,
    request: &mut OtherRequest<'_>,
    workspace: &Path,
    current: &[&agent_guard_checkpoint::CheckpointChange],
    out: &mut OtherOutcome,
) -> Result<bool, agent_guard_quarantine::QuarantineError> {
    let backup = (request.new_txid)();
    if store.tx_dir(&backup).symlink_metadata().is_ok() {
        out.errors.push(format!(
            "backup transaction {backup} already exists; nothing was restored"
        ));
        return Ok(false);
    }
    let items: Vec<RelocateItem> = current
        .iter()
        .map(|c| RelocateItem {
            origin: workspace.join(c.relative()),
            raw: c.relative().display().to_string(),
        })
        .collect();
    let meta = TxMeta::of(Origin::restoring(&tx.txid));
    match store.relocate_locked(&items, &backup, meta, &NoProgress) {
        Ok(report) if report.complete() => {}
        Ok(report) => {
            out.backup_txids.push(backup.to_string());
            for skipped in &report.skipped {
                out.errors.push(format!(
                    "could not keep the current {}: {}",
                    skipped.raw, skipped.reason
                ));
            }
            return Ok(false);
        }
        Err(error) => return Err(error),
    }
    out.backup_txids.push(backup.to_string());
    store.faults().hit(FaultPoint::CheckpointRestoreAfterBackup);
    Ok(true)
}

/// Step 3 of a checkpoint restore: gives the directories of `modes` their bits back, in
/// order; `failed` records an error.
fn restore_dir_modes(
    checkpoints: &CheckpointStore,
    workspace: &Path,
    modes: &[agent_guard_checkpoint::DirMode],
    out: &mut OtherOutcome,
    failed: &dyn Fn(&mut OtherOutcome, &dyn std::error::Error),
) {
    for mode in modes {
        let target = workspace.join(OsStr::from_bytes(&mode.path));
        match checkpoints.restore_dir_mode(workspace, mode) {
            Ok(true) => {
                let shown = target.display().to_string();
                if !out.restored.contains(&shown) {
                    out.restored.push(shown);
                }
            }
            // Missing and not recreated (nothing of it was in scope): nothing to give bits.
            Ok(false) if mode.now.is_none() => {}
            Ok(false) => out.conflicts.push(target.display().to_string()),
            Err(error) => failed(out, &error),
        }
    }
}

/// Removes the directories created since the checkpoint that moving the created files away
/// left empty (deepest first; a directory that still holds something stays).
fn remove_created_dirs(
    workspace: &Path,
    diff: &CheckpointDiff,
    created: &[&agent_guard_checkpoint::CheckpointChange],
) {
    let mut dirs: HashSet<Vec<u8>> = HashSet::new();
    let paths = created
        .iter()
        .map(|c| c.path.clone())
        .chain(diff.created_dirs.iter().map(|d| {
            let mut inside = d.clone();
            inside.extend_from_slice(b"/.");
            inside
        }));
    for path in paths {
        let path = &path;
        let mut end = path.len();
        while let Some(slash) = path[..end].iter().rposition(|b| *b == b'/') {
            let dir = &path[..slash];
            if diff.had_directory(dir) {
                break;
            }
            dirs.insert(dir.to_vec());
            end = slash;
        }
    }
    let mut dirs: Vec<Vec<u8>> = dirs.into_iter().collect();
    dirs.sort_by_key(|d| std::cmp::Reverse(d.len()));
    for dir in dirs {
        let _ = fsops::remove_dir(&workspace.join(OsStr::from_bytes(&dir)));
    }
}
