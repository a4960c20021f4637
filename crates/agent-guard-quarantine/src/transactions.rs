//! Transactions: the manifest's records grouped by txid, with their state.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::tx_meta::TxMeta;
use serde::Serialize;

use agent_guard_types::Strategy;

use crate::records::{
    ItemKind, Method, MoveDestination, MoveIndex, MoveSource, PreserveMethod, Preserved, Record,
    Relocated, Restored, Snapshot,
};

/// A transaction's lifecycle state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum TxState {
    /// Its payload was purged by gc (a tombstone remains).
    Purged,
    /// At least one item can be restored.
    Restorable,
    /// Everything was restored.
    Restored,
    /// Nothing was quarantined and something failed.
    Failed,
    /// Nothing to restore.
    Empty,
}

impl TxState {
    /// The stable upper-case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            TxState::Purged => "PURGED",
            TxState::Restorable => "RESTORABLE",
            TxState::Restored => "RESTORED",
            TxState::Failed => "FAILED",
            TxState::Empty => "EMPTY",
        }
    }
}

impl std::fmt::Display for TxState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One relocated item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// Where it came from.
    pub origin: PathBuf,
    /// Where it is in the quarantine.
    pub trash: PathBuf,
    /// File, directory or symlink (when recorded).
    pub kind: Option<ItemKind>,
    /// Size in bytes, when recorded.
    pub size: Option<u64>,
    /// Rename or verified copy, when recorded.
    pub method: Option<Method>,
    /// Known only from its intent and the filesystem (the outcome record is missing).
    pub recovered_from_intent: bool,
    /// Parts of the origin remained after an interrupted cross-device move.
    pub origin_leftovers: bool,
    /// A preserved copy (the file stayed where it was): the `(dev, ino)` it had, so that a
    /// restore can put the old bytes back into the same inode. `None` for moved items.
    pub kept_from: Option<Kept>,
}

/// Where a preserved copy came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kept {
    /// The file's device when its version was kept (`None` when unknown).
    pub dev: Option<u64>,
    /// The file's inode when its version was kept (`None` when unknown).
    pub ino: Option<u64>,
    /// The version is the old entry itself (a hard link or a symlink): it goes back by name,
    /// not by writing its bytes into the file now at its path.
    pub by_name: bool,
}

impl Item {
    /// Returns `true` if the quarantined copy is still there.
    pub fn restorable(&self) -> bool {
        self.trash.symlink_metadata().is_ok()
    }

    /// The quarantined copy's `(files, bytes)`: a directory counts every non-directory below
    /// it, a file its length, a symlink one file of no bytes; symlinks are never followed.
    pub fn size(&self) -> (u64, u64) {
        path_size(&self.trash)
    }
}

impl Transaction {
    /// Bytes its snapshots added to the checkpoints' private object store
    /// ([`SnapshotItem::stored_bytes`]).
    pub fn stored_bytes(&self) -> u64 {
        self.snapshots.iter().map(|s| s.stored_bytes).sum()
    }
}

/// `(files, bytes)` at `path`: a directory counts every non-directory below it, a file its
/// length, a symlink one file of no bytes; symlinks are never followed, a missing path is 0.
pub fn path_size(path: &Path) -> (u64, u64) {
    match path.symlink_metadata() {
        Ok(metadata) if metadata.is_dir() => {
            let totals = crate::usage::walk(path, false);
            (totals.files, totals.bytes)
        }
        Ok(metadata) if metadata.is_file() => (1, metadata.len()),
        Ok(_) => (1, 0),
        Err(_) => (0, 0),
    }
}

/// The workspace-relative paths of the files and links below directory `root`, sorted, at
/// most `limit`, and how many there are in all (symlinks are not followed).
pub fn list_files(root: &Path, limit: usize) -> (Vec<PathBuf>, u64) {
    let mut out = Vec::new();
    let mut total = 0;
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = fs_err::read_dir(&dir) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                pending.push(path);
            } else {
                total += 1;
                if let Ok(relative) = path.strip_prefix(root) {
                    out.push(relative.to_path_buf());
                }
            }
        }
    }
    out.sort();
    out.truncate(limit);
    (out, total)
}

/// A git snapshot kept by a transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotItem {
    /// The commit, `None` for a clean tree.
    pub sha: Option<String>,
    /// The private ref.
    pub refname: Option<String>,
    /// `worktree`, `stash` or `branch`.
    pub subject: Option<String>,
    /// The name kept (branch name, stash position).
    pub name: Option<String>,
    /// The repository's work tree.
    pub repository: Option<PathBuf>,
    /// Whether the ref was stored.
    pub stored: bool,
    /// The record's note (a kept stash entry's message).
    pub note: Option<String>,
    /// The commit the destructive command wrote into the work tree.
    pub writes_commit: Option<String>,
    /// Bytes of content this snapshot added to the checkpoints' private object store
    /// (a workspace checkpoint's `new_bytes`; 0 for git snapshots, which live in the
    /// user's repository). Contents are shared, so this is what it added, not all it names.
    pub stored_bytes: u64,
}

/// A transaction, as the manifest tells it.
#[derive(Debug, Clone, PartialEq)]
pub struct Transaction {
    /// The id.
    pub txid: String,
    /// When it started (`tx-start`, or its first snapshot record).
    pub ts: Option<String>,
    /// Who created it, and with which compensation.
    pub meta: TxMeta,
    /// The `tx-start` strategy (`relocate`, `preserve`), when recorded.
    pub strategy: Option<String>,
    /// The workspace it belongs to, when recorded.
    pub workspace: Option<PathBuf>,
    /// Relocated items.
    pub items: Vec<Item>,
    /// Git snapshots.
    pub snapshots: Vec<SnapshotItem>,
    /// Paths a line moved, as they were before it ran.
    pub moves: Vec<MoveSource>,
    /// What the paths its moved sources could land on held before it ran.
    pub destinations: Vec<MoveDestination>,
    /// The git index its `git mv` rewrote, as kept before it ran.
    pub index: Option<MoveIndex>,
    /// Failures (`relocate-failed` reasons), with their origins.
    pub failures: Vec<(PathBuf, String)>,
    /// Intents with no outcome whose quarantine path does not exist (nothing moved).
    pub pending: Vec<PathBuf>,
    /// The last restore attempt.
    pub last_restore: Option<Restored>,
    /// Every path any restore of this transaction reported as put back.
    pub restored_paths: std::collections::BTreeSet<PathBuf>,
    /// Purged by gc.
    pub purged: bool,
}

impl Transaction {
    fn new(txid: &str) -> Transaction {
        Transaction {
            txid: txid.to_owned(),
            ts: None,
            meta: TxMeta::default(),
            strategy: None,
            workspace: None,
            items: Vec::new(),
            snapshots: Vec::new(),
            moves: Vec::new(),
            destinations: Vec::new(),
            index: None,
            failures: Vec::new(),
            pending: Vec::new(),
            last_restore: None,
            restored_paths: std::collections::BTreeSet::new(),
            purged: false,
        }
    }

    /// Items whose quarantined copy exists, stored snapshots with a commit, and moved paths
    /// that are not back at their names (one `lstat` each).
    pub fn restorable_items(&self) -> usize {
        if self.purged {
            return 0;
        }
        let undone = self
            .last_restore
            .as_ref()
            .is_some_and(|r| r.errors.is_empty() && r.conflicts.is_empty());
        let moved_away = if undone {
            0
        } else {
            self.moves.iter().filter(|m| !m.at_origin()).count()
        };
        moved_away
            + self.items.iter().filter(|i| i.restorable()).count()
            + self
                .snapshots
                .iter()
                .filter(|s| {
                    s.stored && (s.sha.is_some() || is_database(s)) && !self.snapshot_restored(s)
                })
                .count()
    }

    /// A snapshot or kept ref counts as restored when the last restore listed it: worktree
    /// snapshots and stash entries as `stash:<sha>`, branches as `ref:<name>`.
    fn snapshot_restored(&self, snapshot: &SnapshotItem) -> bool {
        if is_database(snapshot) {
            let label = format!("database:{}", snapshot.name.as_deref().unwrap_or(""));
            return self.last_restore.as_ref().is_some_and(|r| {
                r.errors.is_empty() && r.restored.iter().any(|p| p.path().to_str() == Some(&label))
            });
        }
        let Some(sha) = &snapshot.sha else {
            return false;
        };
        let stash_label = format!("stash:{sha}");
        let checkpoint_label = format!("checkpoint:{sha}");
        let ref_label = snapshot.name.as_ref().map(|n| format!("ref:{n}"));
        self.last_restore.as_ref().is_some_and(|r| {
            r.errors.is_empty()
                && r.restored.iter().any(|p| {
                    p.path().to_str().is_some_and(|t| {
                        t == stash_label || t == checkpoint_label || Some(t) == ref_label.as_deref()
                    })
                })
        })
    }

    /// The state (one `lstat` per item).
    pub fn state(&self) -> TxState {
        if self.purged {
            TxState::Purged
        } else if self.restorable_items() > 0 {
            TxState::Restorable
        } else if self
            .last_restore
            .as_ref()
            .is_some_and(|r| !r.restored.is_empty() && r.errors.is_empty())
        {
            TxState::Restored
        } else if !self.failures.is_empty() {
            TxState::Failed
        } else {
            TxState::Empty
        }
    }

    /// Whether this transaction kept versions of files a command overwrote or recorded the
    /// paths it moved (its restore puts the old versions back and keeps the current ones in
    /// a new transaction, as `--force` does).
    pub fn is_preserve(&self) -> bool {
        self.strategy.as_deref() == Some(Strategy::Preserve.as_str()) || self.is_move()
    }

    /// Whether this transaction recorded the paths a line moved.
    pub fn is_move(&self) -> bool {
        self.strategy.as_deref() == Some(Strategy::Move.as_str())
    }

    /// The strategies of its items (`relocate`, `preserve`, `snapshot`), sorted. Kept refs
    /// count as `snapshot`, as in the reference tool's listing.
    pub fn strategies(&self) -> Vec<Strategy> {
        let mut out = Vec::new();
        if self.is_move() {
            out.push(Strategy::Move);
        } else if self.is_preserve() {
            out.push(Strategy::Preserve);
        } else if !self.items.is_empty() || !self.failures.is_empty() {
            out.push(Strategy::Relocate);
        }
        let checkpoint = |s: &SnapshotItem| s.subject.as_deref() == Some("checkpoint");
        if self.snapshots.iter().any(checkpoint) {
            out.push(Strategy::Checkpoint);
        }
        if self.snapshots.iter().any(is_database) {
            out.push(Strategy::DatabaseDump);
        }
        if self
            .snapshots
            .iter()
            .any(|s| !checkpoint(s) && !is_database(s))
        {
            out.push(Strategy::Snapshot);
        }
        out
    }

    /// Returns `true` if every item's origin lies inside `workspace`.
    pub fn belongs_to(&self, workspace: &Path) -> bool {
        match &self.workspace {
            Some(recorded) => recorded == workspace,
            None => self.items.iter().all(|i| i.origin.starts_with(workspace)),
        }
    }
}

/// The subject of a database dump's `snapshot` record.
pub const DATABASE_SUBJECT: &str = "database";

/// Whether a snapshot record is a database dump's.
fn is_database(snapshot: &SnapshotItem) -> bool {
    snapshot.subject.as_deref() == Some(DATABASE_SUBJECT)
}

/// Groups records into transactions, in order of first appearance.
///
/// An intent with no outcome record is reconciled in this view: if its quarantine path
/// exists the item counts as relocated (`recovered_from_intent`), otherwise it is pending.
pub fn transactions(records: &[Record]) -> Vec<Transaction> {
    let mut order: Vec<String> = Vec::new();
    let mut by_id: BTreeMap<String, Transaction> = BTreeMap::new();
    let mut open_intents: BTreeMap<(String, PathBuf), crate::records::Intent> = BTreeMap::new();
    let mut open_preserves: BTreeMap<(String, PathBuf), crate::records::PreserveIntent> =
        BTreeMap::new();
    for record in records {
        let txid = record.txid();
        if !by_id.contains_key(txid) {
            order.push(txid.to_owned());
            by_id.insert(txid.to_owned(), Transaction::new(txid));
        }
        let Some(tx) = by_id.get_mut(txid) else {
            continue;
        };
        match record {
            Record::TxStart(r) => {
                tx.ts = Some(r.ts.clone());
                tx.meta.clone_from(&r.meta);
                tx.strategy = Some(r.strategy.clone());
                tx.workspace = r.workspace.as_ref().map(|p| p.0.clone());
            }
            Record::RelocateIntent(r) => {
                open_intents.insert((txid.to_owned(), r.origin_path.0.clone()), r.clone());
            }
            Record::CopyVerified(_) => {}
            Record::Relocate(r) => {
                open_intents.remove(&(txid.to_owned(), r.origin_path.0.clone()));
                tx.items.retain(|i| i.origin != r.origin_path.0);
                tx.items.push(relocated_item(r));
            }
            Record::PreserveIntent(r) => {
                open_preserves.insert((txid.to_owned(), r.origin_path.0.clone()), r.clone());
            }
            Record::Preserve(r) => {
                open_preserves.remove(&(txid.to_owned(), r.origin_path.0.clone()));
                tx.items.retain(|i| i.origin != r.origin_path.0);
                tx.items.push(preserved_item(r));
            }
            Record::PreserveFailed(r) => {
                open_preserves.remove(&(txid.to_owned(), r.origin_path.0.clone()));
                tx.failures
                    .push((r.origin_path.0.clone(), r.reason.clone()));
            }
            Record::RelocateFailed(r) => {
                open_intents.remove(&(txid.to_owned(), r.origin_path.0.clone()));
                tx.failures
                    .push((r.origin_path.0.clone(), r.reason.clone()));
            }
            Record::MoveSource(r) => tx.moves.push(r.clone()),
            Record::MoveDestination(r) => tx.destinations.push(r.clone()),
            Record::MoveIndex(r) => tx.index = Some(r.clone()),
            Record::Snapshot(r) => {
                if tx.ts.is_none() {
                    tx.ts = Some(r.ts.clone());
                    tx.meta.clone_from(&r.meta);
                }
                tx.snapshots.push(snapshot_item(r));
            }
            Record::Restore(r) => {
                tx.restored_paths
                    .extend(r.restored.iter().map(|p| p.path().to_path_buf()));
                tx.last_restore = Some(r.clone());
            }
            Record::Purged(_) => tx.purged = true,
        }
    }
    settle_open_intents(&mut by_id, open_intents, open_preserves);
    order
        .into_iter()
        .filter_map(|id| by_id.remove(&id))
        .collect()
}

/// The item a `relocate` record describes.
fn relocated_item(r: &Relocated) -> Item {
    Item {
        origin: r.origin_path.0.clone(),
        trash: r.trash_path.0.clone(),
        kind: r.kind,
        size: r.size,
        method: r.method,
        recovered_from_intent: r.recovered_from_intent,
        origin_leftovers: r.origin_leftovers,
        kept_from: None,
    }
}

/// The kept version a `preserve` record describes.
fn preserved_item(r: &Preserved) -> Item {
    Item {
        origin: r.origin_path.0.clone(),
        trash: r.trash_path.0.clone(),
        kind: Some(ItemKind::File),
        size: Some(r.size),
        method: None,
        recovered_from_intent: r.recovered_from_intent,
        origin_leftovers: false,
        kept_from: Some(Kept {
            dev: r.dev,
            ino: r.ino,
            by_name: r.by_name || r.method.is_some_and(PreserveMethod::restores_by_name),
        }),
    }
}

/// The git snapshot or checkpoint a `snapshot` record describes.
fn snapshot_item(r: &Snapshot) -> SnapshotItem {
    SnapshotItem {
        sha: r.sha.clone(),
        refname: r.refname.clone(),
        subject: r.subject.clone(),
        name: r.name.clone(),
        repository: r.repository.as_ref().map(|p| p.0.clone()),
        stored: r.stored,
        note: r.note.clone(),
        writes_commit: r.meta.snapshot.writes_commit.clone(),
        stored_bytes: r
            .meta
            .checkpoint
            .as_ref()
            .map(|c| c.new_bytes)
            .or_else(|| r.meta.database.as_ref().map(|d| d.bytes))
            .unwrap_or(0),
    }
}

/// Settles the intents no outcome record closed: an item whose quarantine path exists is
/// counted as kept (`recovered_from_intent`), any other is pending.
fn settle_open_intents(
    by_id: &mut BTreeMap<String, Transaction>,
    open_intents: BTreeMap<(String, PathBuf), crate::records::Intent>,
    open_preserves: BTreeMap<(String, PathBuf), crate::records::PreserveIntent>,
) {
    for ((txid, _), intent) in open_intents {
        let Some(tx) = by_id.get_mut(&txid) else {
            continue;
        };
        if intent.trash_path.0.symlink_metadata().is_ok() {
            tx.items.push(Item {
                origin: intent.origin_path.0.clone(),
                trash: intent.trash_path.0.clone(),
                kind: intent.kind,
                size: None,
                method: None,
                recovered_from_intent: true,
                origin_leftovers: false,
                kept_from: None,
            });
        } else {
            tx.pending.push(intent.origin_path.0.clone());
        }
    }
    for ((txid, _), intent) in open_preserves {
        let Some(tx) = by_id.get_mut(&txid) else {
            continue;
        };
        // A preserved copy is renamed into place only once verified.
        if intent.trash_path.0.symlink_metadata().is_ok() {
            tx.items.push(Item {
                origin: intent.origin_path.0.clone(),
                trash: intent.trash_path.0.clone(),
                kind: Some(ItemKind::File),
                size: Some(intent.size),
                method: None,
                recovered_from_intent: true,
                origin_leftovers: false,
                kept_from: Some(Kept {
                    dev: None,
                    ino: None,
                    // How it was kept is not recorded yet: by name is safe for every way
                    // (writing in place could reach another name of a linked inode).
                    by_name: true,
                }),
            });
        } else {
            tx.pending.push(intent.origin_path.0.clone());
        }
    }
}
