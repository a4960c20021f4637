//! `show`: one transaction's items, sizes, files and diffstat.

use std::path::Path;

use serde::Serialize;

use agent_guard_config::EnvSnapshot;
use agent_guard_recovery::{ItemKind, Transaction, TxMeta, TxState};

use crate::error::Result;
use crate::runtime::Runtime;
use crate::store::quarantine;
use crate::workspace::Workspace;

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
    /// A directory's files, relative to it (at most [`SHOWN_FILES`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub listing: Vec<String>,
}

/// How many files of a directory item `show` lists.
pub const SHOWN_FILES: usize = 20;
/// How many files of a snapshot's diffstat `show` lists.
pub const SHOWN_STATS: usize = 50;

/// A git snapshot or kept ref in `show`.
#[derive(Debug, Clone, Serialize)]
pub struct SnapshotReport {
    /// `worktree`, `stash`, `branch`, `ref` or `reflog`.
    pub subject: Option<String>,
    /// The stash position or branch name.
    pub name: Option<String>,
    /// The kept commit (`null` for a clean tree).
    pub sha: Option<String>,
    /// The private ref.
    #[serde(rename = "ref")]
    pub refname: Option<String>,
    /// What a work-tree snapshot keeps: the files it changed (at most [`SHOWN_STATS`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub diffstat: Vec<agent_guard_git::FileStat>,
    /// How many files the snapshot changed in all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed_files: Option<usize>,
    /// A checkpoint: how each path of its diffstat changed since (`deleted`, `modified`,
    /// `created`), in the diffstat's order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<agent_guard_recovery::ChangeKind>,
    /// A checkpoint: the files it lists without their content (over the size cap, special
    /// files, unreadable ones).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_kept: Vec<NotKeptReport>,
    /// A checkpoint: directories that differ besides their files (empty ones deleted or
    /// created, permission bits changed).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub directories: Vec<DirChangeReport>,
}

/// A directory that differs from a checkpoint, in `show`: what a restore does to it besides
/// its files.
#[derive(Debug, Clone, Serialize)]
pub struct DirChangeReport {
    /// Workspace-relative.
    pub path: String,
    /// `deleted` (an empty directory of the checkpoint is gone), `created` (an empty
    /// directory not in the checkpoint) or `mode` (its permission bits differ).
    pub change: &'static str,
    /// Its permission bits in the checkpoint, octal (`mode` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// Its permission bits now, octal (`mode` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub now: Option<String>,
}

/// A path a checkpoint lists without its content, in `show`.
#[derive(Debug, Clone, Serialize)]
pub struct NotKeptReport {
    /// Workspace-relative.
    pub path: String,
    /// Its size when the checkpoint was taken.
    pub size: u64,
    /// `too-large`, `special` or `unreadable`.
    pub reason: agent_guard_recovery::NotKeptReason,
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
    /// Who created it, and what its compensation recorded.
    pub meta: TxMeta,
    /// Relocated items.
    pub items: Vec<ItemReport>,
    /// Git snapshots and kept refs.
    pub snapshots: Vec<SnapshotReport>,
    /// Items that could not be quarantined, and why.
    pub failures: Vec<FailureReport>,
    /// The restore command.
    pub restore_command: String,
    /// What to do with it next, given its state.
    pub hint: String,
}

/// Shows one transaction's items, sizes and original paths. `reference` is an id, a unique
/// prefix or suffix, or `@`, `@-`, `@-N`; `None` when it names nothing.
///
/// # Errors
/// The workspace or the quarantine cannot be read, or the reference is ambiguous.
pub fn show(cwd: &Path, env: &EnvSnapshot, reference: &str) -> Result<Option<ShowReport>> {
    let workspace = Workspace::open(cwd, env)?;
    let runtime = Runtime::from_env(env)?;
    let store = quarantine(&workspace, &runtime, env);
    let _lock = store.lock_shared()?;
    let txs = crate::list::workspace_transactions(&store, &workspace.root)?;
    let Some(txid) = crate::txref::resolve(reference, &txs)? else {
        return Ok(None);
    };
    let Some(tx) = txs.into_iter().find(|t| t.txid == txid) else {
        return Ok(None);
    };
    let items = tx
        .items
        .iter()
        .map(|item| {
            let (files, bytes) = item.size();
            let listing = if item.kind == Some(ItemKind::Dir) && item.restorable() {
                agent_guard_recovery::list_files(&item.trash, SHOWN_FILES)
                    .0
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect()
            } else {
                Vec::new()
            };
            ItemReport {
                origin: item.origin.display().to_string(),
                trash: item.trash.display().to_string(),
                kind: item.kind,
                bytes,
                files,
                restorable: item.restorable(),
                listing,
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
            .map(|s| {
                if s.subject.as_deref() == Some(agent_guard_recovery::CHECKPOINT_SUBJECT) {
                    return checkpoint_report(&store, &tx, s);
                }
                let worktree = s.subject.as_deref().is_none_or(|x| x == "worktree");
                let stats = s.sha.as_deref().filter(|_| worktree).and_then(|sha| {
                    let repository = s.repository.as_deref().unwrap_or(&workspace.root);
                    agent_guard_git::diffstat(repository, sha, store.git_user_dir(), SHOWN_STATS)
                        .ok()
                });
                SnapshotReport {
                    subject: s.subject.clone(),
                    name: s.name.clone(),
                    sha: s.sha.clone(),
                    refname: s.refname.clone(),
                    changed_files: stats.as_ref().map(|(_, total)| *total),
                    diffstat: stats.map(|(stats, _)| stats).unwrap_or_default(),
                    changes: Vec::new(),
                    not_kept: Vec::new(),
                    directories: Vec::new(),
                }
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
        hint: hint(&tx),
    }))
}

/// A checkpoint in `show`: what changed in the workspace since it was taken (what a restore
/// would put back), and what it does not keep.
fn checkpoint_report(
    store: &agent_guard_recovery::Quarantine,
    tx: &Transaction,
    snapshot: &agent_guard_recovery::SnapshotItem,
) -> SnapshotReport {
    let mut report = SnapshotReport {
        subject: snapshot.subject.clone(),
        name: None,
        sha: snapshot.sha.clone(),
        refname: snapshot.refname.clone(),
        diffstat: Vec::new(),
        changed_files: None,
        changes: Vec::new(),
        not_kept: Vec::new(),
        directories: Vec::new(),
    };
    let Ok(Some((checkpoints, diff))) = agent_guard_recovery::checkpoint_changes(store, tx) else {
        return report;
    };
    let workspace =
        fs_err::canonicalize(store.workspace()).unwrap_or_else(|_| store.workspace().to_path_buf());
    report.changed_files = Some(diff.changes.len());
    for change in diff.changes.iter().take(SHOWN_STATS) {
        report
            .diffstat
            .push(checkpoints.line_stats(&workspace, change));
        report.changes.push(change.kind);
    }
    report.not_kept = diff
        .not_kept
        .iter()
        .map(|n| NotKeptReport {
            path: String::from_utf8_lossy(&n.path).into_owned(),
            size: n.size,
            reason: n.reason,
        })
        .collect();
    let text = |path: &[u8]| String::from_utf8_lossy(path).into_owned();
    let plain = |path: &Vec<u8>, change| DirChangeReport {
        path: text(path),
        change,
        mode: None,
        now: None,
    };
    report.directories = diff
        .missing_dirs
        .iter()
        .map(|d| plain(d, "deleted"))
        .chain(diff.created_dirs.iter().map(|d| plain(d, "created")))
        // A missing directory shows as its files' (or its own) deletion.
        .chain(diff.dir_modes.iter().filter(|m| m.now.is_some()).map(|m| DirChangeReport {
            path: text(&m.path),
            change: "mode",
            mode: Some(format!("{:04o}", m.bits)),
            now: m.now.map(|bits| format!("{bits:04o}")),
        }))
        .collect();
    report
}

/// What to do with a transaction in its state.
fn hint(tx: &Transaction) -> String {
    match tx.state() {
        TxState::Restorable if crate::txref::is_parked(tx) => format!(
            "its last restore hit conflicts: `agent-guard restore {} --force` keeps what is \
             there now in a new transaction and restores over it",
            tx.txid
        ),
        TxState::Restorable => format!("restore with `agent-guard restore {}`", tx.txid),
        TxState::Restored => "already restored; nothing left in the quarantine".to_owned(),
        TxState::Purged => "purged by gc; nothing is left to restore".to_owned(),
        TxState::Failed => {
            "nothing was quarantined: the compensation failed before it moved anything".to_owned()
        }
        TxState::Empty => "nothing to restore".to_owned(),
    }
}
