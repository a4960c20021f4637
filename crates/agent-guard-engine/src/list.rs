//! `list` and the `undo` queue: this workspace's transactions, described for people.

use std::path::{Path, PathBuf};

use serde::Serialize;

use agent_guard_config::EnvSnapshot;
use agent_guard_recovery::{Quarantine, Transaction, TxState, Usage};
use agent_guard_types::Strategy;

use crate::error::Result;
use crate::runtime::Runtime;
use crate::store::quarantine;
use crate::txref;
use crate::workspace::Workspace;

/// One transaction in `list`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TxSummary {
    /// The id.
    pub txid: String,
    /// When it started (UTC, `YYYY-MM-DDTHH:MM:SSZ`).
    pub ts: Option<String>,
    /// Its state.
    pub state: TxState,
    /// Items quarantined (and snapshots kept).
    pub items: usize,
    /// Items still restorable.
    pub restorable_items: usize,
    /// `relocate`, `preserve`, `snapshot`.
    pub strategies: Vec<Strategy>,
    /// Who created it (`check --enforce`, `safe_delete`, `restore`).
    pub tool: Option<String>,
    /// The first origin, workspace-relative, for humans.
    pub first: Option<String>,
    /// What it holds, in words: `build/ and 2 more`, `git branch feature/x`, `git snapshot`.
    pub what: String,
    /// The size of what it keeps in the quarantine, in bytes.
    pub bytes: u64,
    /// A restore made it to keep what it replaced (`redo` takes these).
    pub backup: bool,
    /// Its last restore hit conflicts: `undo` steps past it (`restore --force` decides).
    pub parked: bool,
}

/// What `list` shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListOptions {
    /// Every transaction, not only the restorable ones.
    pub all: bool,
    /// At most this many (0: no limit).
    pub limit: usize,
}

impl Default for ListOptions {
    fn default() -> ListOptions {
        ListOptions {
            all: false,
            limit: 20,
        }
    }
}

/// The result of `list`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ListReport {
    /// The quarantine root.
    pub trash_root: String,
    /// Quarantine usage.
    pub usage: Usage,
    /// The workspace's transactions, newest first: the restorable ones unless `--all`, at
    /// most `limit`.
    pub transactions: Vec<TxSummary>,
    /// How many transactions the filter selects (before `limit`).
    pub total: usize,
    /// How many were left out because they are not restorable (restored, purged, failed,
    /// empty); `--all` shows them.
    pub hidden: usize,
}

/// Lists this workspace's transactions, newest first.
pub fn list(cwd: &Path, env: &EnvSnapshot, options: ListOptions) -> Result<ListReport> {
    let workspace = Workspace::open(cwd, env)?;
    let runtime = Runtime::from_env(env)?;
    let store = quarantine(&workspace, &runtime, env);
    let _lock = store.lock_shared()?;
    let usage = if store.trash().is_dir() {
        store.usage()?
    } else {
        Usage::default()
    };
    let txs = workspace_transactions(&store, &workspace.root)?;
    let selected: Vec<&Transaction> = txs
        .iter()
        .rev()
        .filter(|t| options.all || t.state() == TxState::Restorable)
        .collect();
    let total = selected.len();
    let hidden = txs.len() - total;
    let limit = if options.limit == 0 {
        usize::MAX
    } else {
        options.limit
    };
    let transactions = selected
        .into_iter()
        .take(limit)
        .map(|t| summary(t, &workspace.root))
        .collect();
    Ok(ListReport {
        trash_root: store.trash().display().to_string(),
        usage,
        transactions,
        total,
        hidden,
    })
}

/// What `undo` would take, in order (newest first).
pub fn undo_queue(cwd: &Path, env: &EnvSnapshot) -> Result<Vec<TxSummary>> {
    let workspace = Workspace::open(cwd, env)?;
    let runtime = Runtime::from_env(env)?;
    let store = quarantine(&workspace, &runtime, env);
    let _lock = store.lock_shared()?;
    let txs = workspace_transactions(&store, &workspace.root)?;
    Ok(txref::undoable(&txs)
        .into_iter()
        .map(|t| summary(t, &workspace.root))
        .collect())
}

/// The restorable transactions of this workspace that hold `path` (relative to `cwd`, or
/// absolute), newest first: an item at it, or a quarantined tree that contains it.
pub fn holding(cwd: &Path, env: &EnvSnapshot, path: &Path) -> Result<Vec<TxSummary>> {
    let workspace = Workspace::open(cwd, env)?;
    let runtime = Runtime::from_env(env)?;
    let store = quarantine(&workspace, &runtime, env);
    let _lock = store.lock_shared()?;
    let wanted = physical_target(&cwd.join(path));
    let txs = workspace_transactions(&store, &workspace.root)?;
    Ok(txs
        .iter()
        .rev()
        .filter(|t| t.state() == TxState::Restorable)
        .filter(|t| {
            t.items
                .iter()
                .any(|i| i.restorable() && (wanted.starts_with(&i.origin) || i.origin == wanted))
        })
        .map(|t| summary(t, &workspace.root))
        .collect())
}

/// `path` with its existing parent resolved (the target itself may be gone).
pub(crate) fn physical_target(path: &Path) -> PathBuf {
    let lexical = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut folded = PathBuf::new();
    for component in lexical.components() {
        match component {
            std::path::Component::ParentDir => {
                folded.pop();
            }
            std::path::Component::CurDir => {}
            other => folded.push(other.as_os_str()),
        }
    }
    match (folded.parent(), folded.file_name()) {
        (Some(parent), Some(name)) => parent
            .canonicalize()
            .map_or_else(|_| folded.clone(), |p| p.join(name)),
        _ => folded,
    }
}

/// This workspace's transactions, oldest first.
pub(crate) fn workspace_transactions(store: &Quarantine, root: &Path) -> Result<Vec<Transaction>> {
    Ok(store
        .transactions()?
        .into_iter()
        .filter(|t| t.belongs_to(root))
        .collect())
}

/// A transaction, summarised.
pub(crate) fn summary(tx: &Transaction, root: &Path) -> TxSummary {
    let relative = |p: &Path| p.strip_prefix(root).unwrap_or(p).display().to_string();
    let first = tx
        .moves
        .first()
        .map(|m| relative(m.origin_path.path()))
        .or_else(|| tx.items.first().map(|i| relative(&i.origin)))
        .or_else(|| {
            tx.snapshots
                .first()
                .map(|s| format!("git {}", s.subject.as_deref().unwrap_or("snapshot")))
        });
    let bytes = tx
        .items
        .iter()
        .filter(|i| i.restorable())
        .map(|i| i.size().1)
        .sum::<u64>()
        + if tx.purged { 0 } else { tx.stored_bytes() };
    TxSummary {
        txid: tx.txid.clone(),
        ts: tx.ts.clone(),
        state: tx.state(),
        items: tx.moves.len()
            + tx.items.len()
            + tx.snapshots.iter().filter(|s| s.sha.is_some()).count(),
        restorable_items: tx.restorable_items(),
        strategies: tx.strategies(),
        tool: tx.meta.origin.tool.clone(),
        first,
        what: what(tx, root),
        bytes,
        backup: txref::is_backup(tx),
        parked: txref::is_parked(tx),
    }
}

/// What a transaction holds, in a few words.
fn what(tx: &Transaction, root: &Path) -> String {
    let relative = |p: &Path| p.strip_prefix(root).unwrap_or(p).display().to_string();
    // A move reads as what moved: `mv a.txt (+1 kept)`.
    let mut names: Vec<String> = tx
        .moves
        .iter()
        .map(|m| {
            let mut name = format!("moved {}", relative(m.origin_path.path()));
            if m.kind == agent_guard_recovery::ItemKind::Dir {
                name.push('/');
            }
            name
        })
        .collect();
    names.extend(tx.items.iter().map(|i| {
        let mut name = i
            .origin
            .strip_prefix(root)
            .unwrap_or(&i.origin)
            .display()
            .to_string();
        if i.kind == Some(agent_guard_recovery::ItemKind::Dir) {
            name.push('/');
        }
        name
    }));
    if let Some(facts) = &tx.meta.database {
        names.push(format!(
            "{} database `{}` (dump)",
            facts.database.engine.display(),
            facts.database.connection.database.as_deref().unwrap_or("?")
        ));
    }
    for snapshot in tx.snapshots.iter().filter(|s| s.sha.is_some()) {
        names.push(
            match (snapshot.subject.as_deref(), snapshot.name.as_deref()) {
                (Some("branch"), Some(name)) => format!("git branch {name}"),
                (Some("ref"), Some(name)) => match name.strip_prefix("refs/tags/") {
                    Some(tag) => format!("git tag {tag}"),
                    None => format!("git ref {name}"),
                },
                (Some("stash"), Some(name)) => format!("git {name}"),
                (Some("reflog"), Some(name)) => format!("git reflog {name}"),
                _ => "git work-tree changes".to_owned(),
            },
        );
    }
    if names.is_empty() && !tx.snapshots.is_empty() {
        return "git work tree (was clean)".to_owned();
    }
    match names.as_slice() {
        [] => "nothing".to_owned(),
        [one] => one.clone(),
        [first, rest @ ..] => format!("{first} and {} more", rest.len()),
    }
}
