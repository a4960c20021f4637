//! `restore`, `undo`, `list` and `show`: the quarantine's history for humans and agents.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value};

use agent_guard_audit::{AuditRecord, Event, Tool};
use agent_guard_config::EnvSnapshot;
use agent_guard_recovery::{
    ItemKind, Progress, RestoreOptions, RestoreRefusal, RestoreReport, Transaction, TxState, Usage,
};
use agent_guard_types::{Strategy, TxId, is_generated_id};

use crate::check::audit_log;
use crate::enforce::new_txid;
use crate::error::Result;
use crate::runtime::Runtime;
use crate::store::quarantine;
use crate::workspace::Workspace;

/// What to restore.
#[derive(Debug, Clone, Default)]
pub struct RestoreRequest {
    /// The transaction; `None` means the newest restorable one of this workspace (`undo`).
    pub txid: Option<String>,
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

/// Restores a transaction (or, with no txid, the newest restorable one of this workspace).
pub fn restore(request: &RestoreRequest, progress: &dyn Progress) -> Result<RestoreReport> {
    let workspace = Workspace::open(&request.cwd, &request.env)?;
    let runtime = Runtime::from_env(&request.env)?;
    let store = quarantine(&workspace, &runtime, &request.env);
    let newest = if request.txid.is_none() {
        store.newest_restorable()?
    } else {
        None
    };
    let Some(txid) = request.txid.clone().or(newest) else {
        let mut report = RestoreReport::refused("", RestoreRefusal::NothingToUndo);
        report.errors = vec!["nothing to undo".to_owned()];
        return Ok(report);
    };
    let options = RestoreOptions {
        force: request.force,
        to: request.to.as_ref().map(|to| request.cwd.join(to)),
        paths: request
            .paths
            .iter()
            .map(|p| {
                let absolute = request.cwd.join(p);
                absolute
                    .strip_prefix(&workspace.root)
                    .map(Path::to_path_buf)
                    .unwrap_or(p.clone())
            })
            .collect(),
    };
    let report = agent_guard_recovery::restore(
        &store,
        &txid,
        &options,
        &mut || new_txid(&runtime),
        progress,
    );
    let (txid_field, txid_sha256) = if is_generated_id(&txid) {
        (Some(txid.clone()), None)
    } else {
        (None, Some(agent_guard_audit::sha256_hex(&txid)))
    };
    let record = AuditRecord {
        force: Some(request.force),
        ok: Some(report.ok),
        restored_count: Some(report.restored.len()),
        conflict_count: Some(report.conflicts.len()),
        error_count: Some(report.errors.len()),
        backup_txids: Some(report.backup_txids.clone()),
        txid: txid_field,
        txid_sha256,
        ..AuditRecord::new(Event::Restore, Tool::Restore)
    };
    let mut report = report;
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
    Ok(report)
}

/// One transaction in `list`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TxSummary {
    /// The id.
    pub txid: String,
    /// When it started.
    pub ts: Option<String>,
    /// Its state.
    pub state: TxState,
    /// Items quarantined (and snapshots kept).
    pub items: usize,
    /// Items still restorable.
    pub restorable_items: usize,
    /// `relocate`, `snapshot`.
    pub strategies: Vec<Strategy>,
    /// Who created it (`check --enforce`, `safe_delete`, `restore`).
    pub tool: Option<String>,
    /// The first origin, workspace-relative, for humans.
    pub first: Option<String>,
}

/// The result of `list`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ListReport {
    /// The quarantine root.
    pub trash_root: String,
    /// Quarantine usage.
    pub usage: Usage,
    /// The workspace's transactions, newest first.
    pub transactions: Vec<TxSummary>,
}

/// Lists this workspace's transactions, newest first.
pub fn list(cwd: &Path, env: &EnvSnapshot) -> Result<ListReport> {
    let workspace = Workspace::open(cwd, env)?;
    let runtime = Runtime::from_env(env)?;
    let store = quarantine(&workspace, &runtime, env);
    let _lock = store.lock_shared()?;
    let usage = if store.trash().is_dir() {
        store.usage()?
    } else {
        Usage::default()
    };
    let transactions = store
        .transactions()?
        .iter()
        .rev()
        .filter(|t| t.belongs_to(&workspace.root))
        .map(|t| summary(t, &workspace.root))
        .collect();
    Ok(ListReport {
        trash_root: store.trash().display().to_string(),
        usage,
        transactions,
    })
}

fn summary(tx: &Transaction, root: &Path) -> TxSummary {
    TxSummary {
        txid: tx.txid.clone(),
        ts: tx.ts.clone(),
        state: tx.state(),
        items: tx.items.len() + tx.snapshots.iter().filter(|s| s.sha.is_some()).count(),
        restorable_items: tx.restorable_items(),
        strategies: tx.strategies(),
        tool: tx
            .meta
            .get("tool")
            .and_then(Value::as_str)
            .map(str::to_owned),
        first: tx
            .items
            .first()
            .map(|i| {
                i.origin
                    .strip_prefix(root)
                    .unwrap_or(&i.origin)
                    .display()
                    .to_string()
            })
            .or_else(|| {
                tx.snapshots
                    .first()
                    .map(|s| format!("git {}", s.subject.as_deref().unwrap_or("snapshot")))
            }),
    }
}

/// One item in `show`.
#[derive(Debug, Clone, Serialize)]
pub struct ItemReport {
    /// Where it came from.
    pub origin: String,
    /// Where it is in the quarantine.
    pub trash: String,
    /// `file`, `dir` or `symlink`.
    pub kind: Option<ItemKind>,
    /// Total bytes (files below a directory summed).
    pub bytes: u64,
    /// Files (a directory counts its files).
    pub files: u64,
    /// The quarantine copy is still there.
    pub restorable: bool,
}

/// A git snapshot or kept ref in `show`.
#[derive(Debug, Clone, Serialize)]
pub struct SnapshotReport {
    /// `worktree`, `stash` or `branch`.
    pub subject: Option<String>,
    /// The stash position or branch name.
    pub name: Option<String>,
    /// The kept commit (`null` for a clean tree).
    pub sha: Option<String>,
    /// The private ref.
    #[serde(rename = "ref")]
    pub refname: Option<String>,
}

/// An item that could not be quarantined, in `show`.
#[derive(Debug, Clone, Serialize)]
pub struct FailureReport {
    /// Where it is.
    pub origin: String,
    /// Why it was not moved.
    pub reason: String,
}

/// The result of `show`.
#[derive(Debug, Clone, Serialize)]
pub struct ShowReport {
    /// The id.
    pub txid: String,
    /// When it started.
    pub ts: Option<String>,
    /// Its state.
    pub state: TxState,
    /// Who created it.
    pub meta: Map<String, Value>,
    /// Relocated items.
    pub items: Vec<ItemReport>,
    /// Git snapshots and kept refs.
    pub snapshots: Vec<SnapshotReport>,
    /// Items that could not be quarantined, and why.
    pub failures: Vec<FailureReport>,
    /// The restore command.
    pub restore_command: String,
}

/// Shows one transaction's items, sizes and original paths.
pub fn show(cwd: &Path, env: &EnvSnapshot, txid: &str) -> Result<Option<ShowReport>> {
    let workspace = Workspace::open(cwd, env)?;
    let runtime = Runtime::from_env(env)?;
    let store = quarantine(&workspace, &runtime, env);
    let Ok(id) = TxId::parse(txid) else {
        return Ok(None);
    };
    let _lock = store.lock_shared()?;
    let Some(tx) = store.transaction(&id)? else {
        return Ok(None);
    };
    let items = tx
        .items
        .iter()
        .map(|item| {
            let (files, bytes) = item.size();
            ItemReport {
                origin: item.origin.display().to_string(),
                trash: item.trash.display().to_string(),
                kind: item.kind,
                bytes,
                files,
                restorable: item.restorable(),
            }
        })
        .collect();
    Ok(Some(ShowReport {
        txid: tx.txid.clone(),
        ts: tx.ts.clone(),
        state: tx.state(),
        meta: tx.meta.clone(),
        items,
        snapshots: tx
            .snapshots
            .iter()
            .map(|s| SnapshotReport {
                subject: s.subject.clone(),
                name: s.name.clone(),
                sha: s.sha.clone(),
                refname: s.refname.clone(),
            })
            .collect(),
        failures: tx
            .failures
            .iter()
            .map(|(origin, reason)| FailureReport {
                origin: origin.display().to_string(),
                reason: reason.clone(),
            })
            .collect(),
        restore_command: format!("agent-guard restore {}", tx.txid),
    }))
}
