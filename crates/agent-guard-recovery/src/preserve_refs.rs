//! Preserve-refs: keep the commits a ref-dropping command would orphan (`git stash
//! drop|clear`, `git branch -D`) under private refs.

use std::path::Path;

use agent_guard_git::{KeptRef, RefSubject, Subject, WorkTree};
use agent_guard_quarantine::{
    MANIFEST_SCHEMA, OtherOutcome, OtherRequest, Quarantine, Record, Snapshot as SnapshotRecord,
    StoredPath, Transaction,
};
use agent_guard_quarantine::{Origin, TxMeta};
use agent_guard_types::{Plan, Strategy, TxId};

use crate::RecoveryError;
use crate::compensation::{Applied, Compensation, Job};
use crate::snapshot::{release_subjects, restore_subjects};

/// Every kind of git state a ref preservation keeps.
const ALL_SUBJECTS: &[Subject] = &[
    Subject::Stash,
    Subject::Branch,
    Subject::Ref,
    Subject::Symbolic,
    Subject::Reflog,
];

/// The preserve-refs compensation (`SNAPSHOT_GIT_REFS`).
#[derive(Debug, Clone, Copy)]
pub struct PreserveRefs;

impl Compensation for PreserveRefs {
    fn strategy(&self) -> Strategy {
        Strategy::PreserveRefs
    }

    fn apply(&self, job: &Job<'_>, plan: &Plan) -> Applied {
        let Plan::PreserveRefs {
            cwd,
            refs,
            stash,
            reflogs,
            symbolic,
        } = plan
        else {
            return job.wrong_plan(Strategy::PreserveRefs, "not a preserve-refs plan");
        };
        let mut subjects = Vec::new();
        match (stash, refs.is_empty()) {
            (true, true) => subjects.push(RefSubject::AllStashEntries),
            (true, false) => subjects.push(RefSubject::StashEntries(refs.clone())),
            (false, false) => subjects.push(RefSubject::Branches(refs.clone())),
            (false, true) => {}
        }
        if !symbolic.is_empty() {
            subjects.push(RefSubject::Symbolic(symbolic.clone()));
        }
        if *reflogs {
            subjects.push(RefSubject::AllReflogs);
        }
        let meta = job.meta(Strategy::PreserveRefs);
        let result = preserve_refs(job.store, cwd, &job.txid, &subjects, &meta);
        Applied::settled(Strategy::PreserveRefs, &job.txid, result, |kept, base| {
            Applied {
                moved: kept.len(),
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
        let mut kept = OtherOutcome::default();
        restore_subjects(store, tx, ALL_SUBJECTS, &mut kept);
        if request.force {
            force_branches(store, tx, request, &mut kept);
        }
        out.restored.append(&mut kept.restored);
        out.conflicts.append(&mut kept.conflicts);
        out.errors.append(&mut kept.errors);
        out.backup_txids.append(&mut kept.backup_txids);
    }

    fn release(&self, store: &Quarantine, tx: &Transaction) -> usize {
        release_subjects(store, tx, ALL_SUBJECTS)
    }
}

/// `--force` for branches and refs that point elsewhere now (`git branch -M`, `-f`, `tag -f`
/// moved them): the current value is kept in a new transaction, then the ref is reset to the
/// kept one.
fn force_branches(
    store: &Quarantine,
    tx: &Transaction,
    request: &mut OtherRequest<'_>,
    out: &mut OtherOutcome,
) {
    let clashing: Vec<String> = out.conflicts.clone();
    if clashing.is_empty() {
        return;
    }
    let subjects = [Subject::Branch, Subject::Ref, Subject::Symbolic];
    for item in crate::snapshot::git_items(store, tx, &subjects) {
        let Some(name) = item.name.clone() else {
            continue;
        };
        let full = agent_guard_git::kept_ref_name(item.subject, &name);
        if !clashing.contains(&full) {
            continue;
        }
        // What keeps the current value: a branch by its short name, any other ref (a
        // symbolic one included) by its full name.
        let keep = match item.subject {
            Subject::Symbolic => RefSubject::Symbolic(vec![full.clone()]),
            Subject::Ref => RefSubject::Branches(vec![full.clone()]),
            _ => RefSubject::Branches(vec![name.clone()]),
        };
        let result = (|| -> Result<String, RecoveryError> {
            let tree = WorkTree::discover(&item.repository, store.git_user_dir())?;
            let backup = (request.new_txid)();
            if backup.as_str() == tx.txid || store.tx_dir(&backup).symlink_metadata().is_ok() {
                return Err(agent_guard_quarantine::QuarantineError::TxExists {
                    txid: backup.to_string(),
                }
                .into());
            }
            let meta = TxMeta::of(Origin::restoring(&tx.txid))
                .with_strategy(Strategy::PreserveRefs.as_str());
            keep_refs_locked(store, &tree, &backup, &[keep], &meta)?;
            match (item.subject, item.note.as_deref()) {
                (Subject::Symbolic, Some(target)) => {
                    agent_guard_git::set_symbolic(&tree, &full, target)?;
                }
                _ => agent_guard_git::set_ref(&tree, &full, &item.sha)?,
            }
            Ok(backup.to_string())
        })();
        match result {
            Ok(backup) => {
                out.conflicts.retain(|c| *c != full);
                out.restored.push(format!("ref:{name}"));
                out.backup_txids.push(backup);
            }
            Err(error) => out.errors.push(format!(
                "ref:{name}: could not keep the current tip before resetting it: {}",
                agent_guard_types::error_chain(&error)
            )),
        }
    }
}

/// Keeps the commits a ref-dropping command would lose, under
/// `refs/agent-guard/stash/<txid>/<n>` or `refs/agent-guard/branches/<txid>/<name>`, and
/// appends one `snapshot` record per kept ref (subject `stash` or `branch`, its name, sha and
/// ref; a stash entry's message goes into `note`).
///
/// # Errors
/// A selector or branch that does not resolve (git would drop nothing, but we cannot know
/// what was meant), a private ref that exists with another commit, or a failed record (the
/// refs created are removed again). Takes the writers' lock.
pub fn preserve_refs(
    store: &Quarantine,
    cwd: &Path,
    txid: &TxId,
    subjects: &[RefSubject],
    meta: &TxMeta,
) -> Result<Vec<KeptRef>, RecoveryError> {
    let tree = WorkTree::discover(cwd, store.git_user_dir())?;
    let _lock = store.lock()?;
    keep_refs_locked(store, &tree, txid, subjects, meta)
}

/// [`preserve_refs`] for a caller that holds the writers' lock.
fn keep_refs_locked(
    store: &Quarantine,
    tree: &WorkTree,
    txid: &TxId,
    subjects: &[RefSubject],
    meta: &TxMeta,
) -> Result<Vec<KeptRef>, RecoveryError> {
    let mut keeps: Vec<agent_guard_git::Keep> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for subject in subjects {
        for keep in agent_guard_git::resolve_keeps(tree, txid, subject)? {
            // A ref a symbolic one names is kept with it, and again by its own name under a
            // namespace (`refs/`): once is enough.
            if seen.insert((keep.kept.subject.as_str(), keep.kept.name.clone())) {
                keeps.push(keep);
            }
        }
    }
    let created = agent_guard_git::create_kept_refs(tree, &keeps)?;
    let ts = store.now();
    let records: Vec<Record> = keeps
        .iter()
        .map(|keep| {
            Record::Snapshot(SnapshotRecord {
                txid: txid.to_string(),
                sha: Some(keep.kept.sha.clone()),
                stored: true,
                refname: Some(keep.kept.refname.clone()).filter(|name| !name.is_empty()),
                subject: Some(keep.kept.subject.as_str().to_owned()),
                name: Some(keep.kept.name.clone()),
                repository: Some(StoredPath::new(tree.root())),
                note: keep.note.clone(),
                error: None,
                meta: meta.clone(),
                ts: ts.clone(),
                schema: MANIFEST_SCHEMA,
            })
        })
        .collect();
    if let Err(error) = store.append(&records) {
        agent_guard_git::delete_refs(tree, &created);
        return Err(error.into());
    }
    Ok(keeps.into_iter().map(|keep| keep.kept).collect())
}
