//! `restore`, `undo`, `list` and `show`: the quarantine's history for humans and agents.

use std::path::{Path, PathBuf};

use serde::Serialize;

use agent_guard_audit::{AuditRecord, Event, Tool};
use agent_guard_config::EnvSnapshot;
use agent_guard_recovery::{
    Progress, RestoreOptions, RestoreRefusal, RestoreReport, Transaction, TxState,
};
use agent_guard_types::is_generated_id;

use crate::check::audit_log;
use crate::enforce::new_txid;
use crate::error::Result;
use crate::list::{TxSummary, physical_target, summary, workspace_transactions};
use crate::runtime::Runtime;
use crate::store::quarantine;
use crate::txref::{is_backup, undoable};
use crate::workspace::Workspace;

/// Which transaction a restore takes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum RestoreTarget {
    /// The newest transaction `undo` takes (see [`crate::undoable`]).
    #[default]
    Undo,
    /// The newest backup a restore made (what the last `undo` replaced).
    Redo,
    /// An id, a unique prefix or suffix, `@`/`@-N`, or else a path: the newest restorable
    /// transaction holding it, restoring only that path.
    Reference(String),
}

/// What to restore.
#[derive(Debug, Clone, Default)]
pub struct RestoreRequest {
    /// Which transaction.
    pub target: RestoreTarget,
    /// Preserve occupants in a new transaction, then restore over them.
    pub force: bool,
    /// Restore into this directory instead of the workspace.
    pub to: Option<PathBuf>,
    /// Restore only these paths (relative to `cwd`), or parts of quarantined trees.
    pub paths: Vec<PathBuf>,
    /// The working directory.
    pub cwd: PathBuf,
    /// The environment.
    pub env: EnvSnapshot,
}

/// The result of a restore: the recovery report, and what the transaction held.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RestoreOutcome {
    /// The recovery report.
    #[serde(flatten)]
    pub report: RestoreReport,
    /// The transaction restored, as `list` describes it (before the restore).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transaction: Option<TxSummary>,
    /// `undo`: the other transactions of the same command, undone with it (newest first):
    /// one command, one undo.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub with: Vec<String>,
}

/// Restores a transaction: the one `request.target` names, the newest undoable one, or the
/// newest backup (redo).
pub fn restore(request: &RestoreRequest, progress: &dyn Progress) -> Result<RestoreOutcome> {
    let workspace = Workspace::open(&request.cwd, &request.env)?;
    let runtime = Runtime::from_env(&request.env)?;
    let store = quarantine(&workspace, &runtime, &request.env);
    let mut paths = request.paths.clone();
    let mut force = request.force;
    let (txid, summary, with) = {
        let _lock = store.lock_shared()?;
        let txs = workspace_transactions(&store, &workspace.root)?;
        let mut with = Vec::new();
        let chosen = match &request.target {
            RestoreTarget::Undo => {
                let (newest, others) = undo_of_last_command(&txs);
                with = others;
                newest
            }
            RestoreTarget::Redo => txs
                .iter()
                .rev()
                .find(|t| is_backup(t) && t.state() == TxState::Restorable)
                .cloned(),
            RestoreTarget::Reference(text) => match crate::txref::resolve(text, &txs) {
                Ok(Some(id)) => txs.iter().find(|t| t.txid == id).cloned(),
                Ok(None) => {
                    // Not a transaction: a path held by one.
                    let wanted = physical_target(&request.cwd.join(text));
                    let found = newest_holding(&txs, &wanted);
                    if found.is_none() {
                        return Ok(refused(text, RestoreRefusal::NotHeld(text.clone())));
                    }
                    paths.push(PathBuf::from(text));
                    found
                }
                Err(error) => {
                    return Ok(refused(text, RestoreRefusal::Unsafe(error.to_string())));
                }
            },
        };
        let Some(tx) = chosen else {
            return Ok(nothing_to_restore(&request.target));
        };
        // Redoing a checkpoint's undo puts the command's versions back over what the undo
        // wrote, which the checkpoint still holds: the occupants are expected, and (as with
        // `--force`) kept in a new transaction rather than reported as conflicts.
        if matches!(request.target, RestoreTarget::Redo) && undid_a_checkpoint(&tx, &txs) {
            force = true;
        }
        let summary = summary(&tx, &workspace.root);
        (tx.txid.clone(), summary, with)
    };
    let options = RestoreOptions {
        force,
        to: request.to.as_ref().map(|to| request.cwd.join(to)),
        paths: workspace_relative(&paths, &request.cwd, &workspace.root),
    };
    let mut report = agent_guard_recovery::restore(
        &store,
        &txid,
        &options,
        &mut || new_txid(&runtime),
        progress,
    );
    for other in &with {
        let more = agent_guard_recovery::restore(
            &store,
            other,
            &options,
            &mut || new_txid(&runtime),
            progress,
        );
        merge_reports(&mut report, more);
    }
    let record = restore_record(&txid, request.force, &report);
    // A refusal never creates the quarantine just to audit itself.
    let log = if store.trash().is_dir() {
        audit_log(&workspace, &runtime).ok()
    } else {
        None
    };
    if let Some(log) = log
        && log.append(&record).is_err()
    {
        report
            .errors
            .push("restore audit record could not be stored".to_owned());
        report.ok = false;
    }
    Ok(RestoreOutcome {
        report,
        transaction: Some(summary),
        with,
    })
}

/// The newest restorable transaction of `txs` that holds `wanted` (or a tree above it).
fn newest_holding(txs: &[Transaction], wanted: &Path) -> Option<Transaction> {
    txs.iter()
        .rev()
        .filter(|t| t.state() == TxState::Restorable)
        .find(|t| {
            t.items
                .iter()
                .any(|i| i.restorable() && wanted.starts_with(&i.origin))
        })
        .cloned()
}

/// `paths` (relative to `cwd`) relative to the workspace `root`, when they are inside it.
fn workspace_relative(paths: &[PathBuf], cwd: &Path, root: &Path) -> Vec<PathBuf> {
    paths
        .iter()
        .map(|p| {
            let absolute = cwd.join(p);
            absolute
                .strip_prefix(root)
                .map(Path::to_path_buf)
                .unwrap_or(p.clone())
        })
        .collect()
}

/// The transaction `undo` takes (the newest undoable one) and, newest first, the others
/// the same command made: one command, one undo.
fn undo_of_last_command(txs: &[Transaction]) -> (Option<Transaction>, Vec<String>) {
    let mut with = Vec::new();
    let queue = undoable(txs);
    // One command, one undo: the newest transaction and the others its command
    // made (its check id), newest first.
    if let Some(first) = queue.first()
        && let Some(check) = check_id(first)
    {
        with = queue[1..]
            .iter()
            .filter(|t| check_id(t) == Some(check))
            .map(|t| t.txid.clone())
            .collect();
    }
    (queue.first().map(|t| (*t).clone()), with)
}

/// The refusal of a restore of `target` when there is nothing to undo or redo.
fn nothing_to_restore(target: &RestoreTarget) -> RestoreOutcome {
    let refusal = match target {
        RestoreTarget::Redo => RestoreRefusal::Unsafe(
            "nothing to redo: no restore kept anything it replaced".to_owned(),
        ),
        _ => RestoreRefusal::NothingToUndo,
    };
    let mut outcome = refused("", refusal);
    outcome.report.errors = vec![match target {
        RestoreTarget::Redo => "nothing to redo".to_owned(),
        _ => "nothing to undo".to_owned(),
    }];
    outcome
}

/// Adds to `report` what restoring one more transaction of the same command did.
fn merge_reports(report: &mut RestoreReport, more: RestoreReport) {
    report.ok &= more.ok;
    report.already_restored &= more.already_restored;
    report.restored.extend(more.restored);
    report.conflicts.extend(more.conflicts);
    report.errors.extend(more.errors);
    report.backup_txids.extend(more.backup_txids);
    report.previously_restored.extend(more.previously_restored);
    report.left_outside.extend(more.left_outside);
}

/// The audit record of the restore of `txid` (with `--force` if `force`) that `report`
/// describes.
fn restore_record(txid: &str, force: bool, report: &RestoreReport) -> AuditRecord {
    let (txid_field, txid_sha256) = if is_generated_id(txid) {
        (Some(txid.to_owned()), None)
    } else {
        (None, Some(agent_guard_audit::sha256_hex(txid)))
    };
    AuditRecord {
        force: Some(force),
        ok: Some(report.ok),
        restored_count: Some(report.restored.len()),
        conflict_count: Some(report.conflicts.len()),
        error_count: Some(report.errors.len()),
        backup_txids: Some(report.backup_txids.clone()),
        txid: txid_field,
        txid_sha256,
        ..AuditRecord::new(Event::Restore, Tool::Restore)
    }
}

/// The check id of the command that made `tx`, if recorded.
fn check_id(tx: &Transaction) -> Option<&str> {
    tx.meta
        .origin
        .check_id
        .as_deref()
        .filter(|id| !id.is_empty())
}

fn refused(txid: &str, refusal: RestoreRefusal) -> RestoreOutcome {
    RestoreOutcome {
        report: RestoreReport::refused(txid, refusal),
        transaction: None,
        with: Vec::new(),
    }
}

/// Whether backup `tx` was made by the undo of a workspace checkpoint.
fn undid_a_checkpoint(tx: &Transaction, txs: &[Transaction]) -> bool {
    let Some(undone) = tx.meta.origin.restoring_txid.as_deref() else {
        return false;
    };
    txs.iter().filter(|t| t.txid == undone).any(|t| {
        t.snapshots
            .iter()
            .any(|s| s.subject.as_deref() == Some(agent_guard_recovery::CHECKPOINT_SUBJECT))
    })
}
