//! Relocation: move items into a new transaction, write-ahead and verified.
//!
//! Per item: a durable `relocate-intent` → one `rename` (O(1) whatever the tree size) → the
//! source is gone and the destination has the source's dev and inode → directories synced →
//! a durable `relocate` record. On `EXDEV` the item is copied into a temporary sibling of its
//! destination, verified by content digest, renamed into place, recorded as `copy-verified`,
//! and only then is the source removed. A crash at any point leaves a state that
//! [`Quarantine::reconcile`] resolves without losing the item.

use std::os::unix::fs::DirBuilderExt as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Component, Path, PathBuf};

use crate::tx_meta::TxMeta;
use serde::Serialize;

use agent_guard_types::TxId;

use crate::copy::{Progress, copy_verified, remove_copied_source};
use crate::error::QuarantineError;
use crate::faults::FaultPoint;
use crate::records::{
    CopyVerified, Failed, Intent, ItemKind, MANIFEST_SCHEMA, Method, Record, Relocated, TxStart,
};
use crate::store::Quarantine;
use crate::stored_path::StoredPath;
use agent_guard_fsops as fsops;

/// Prefix of the temporary name a cross-device copy is written under before it is renamed
/// into place; anything with it is an interrupted copy and may be removed.
pub(crate) const PARTIAL_PREFIX: &str = ".agent-guard-partial-";

/// One path to relocate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelocateItem {
    /// The absolute physical path (parent chain resolved, final component as spelled).
    pub origin: PathBuf,
    /// The caller's spelling, for messages and the journal.
    pub raw: String,
}

/// An item now in the quarantine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Moved {
    /// Where it was.
    pub origin: StoredPath,
    /// Where it is.
    pub trash: StoredPath,
    /// What it is.
    pub kind: Option<ItemKind>,
    /// How it got there.
    pub method: Method,
}

/// Why an item was not (fully) relocated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SkipKind {
    /// Nothing was there any more: nothing to protect.
    Absent,
    /// The quarantine is full; the item stayed where it was.
    Storage,
    /// Relocation failed or is incomplete; what moved stays restorable.
    Failed,
    /// The file would have to be copied byte by byte and is over the copy cap: not kept.
    TooLarge,
}

/// An item that was not (fully) relocated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// The caller's spelling.
    pub raw: String,
    /// The origin.
    pub origin: StoredPath,
    /// What kind of skip.
    pub kind: SkipKind,
    /// Why.
    pub reason: String,
}

/// The outcome of one relocation transaction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RelocationReport {
    /// The transaction id.
    pub txid: String,
    /// Items now in the quarantine.
    pub moved: Vec<Moved>,
    /// Items not relocated, or relocated incompletely.
    pub skipped: Vec<Skipped>,
    /// A storage failure stopped the transaction.
    pub storage_failure: bool,
}

impl RelocationReport {
    /// Returns `true` unless some item failed or could not be stored (absent items are fine).
    pub fn complete(&self) -> bool {
        complete(self.storage_failure, &self.skipped)
    }
}

/// Whether a transaction kept everything: no storage failure, and every skipped item was
/// absent.
pub(crate) fn complete(storage_failure: bool, skipped: &[Skipped]) -> bool {
    !storage_failure && skipped.iter().all(|s| s.kind == SkipKind::Absent)
}

impl Quarantine {
    /// Relocates `items` into the new transaction `txid`. Takes the writers' lock and
    /// reconciles interrupted transactions first.
    ///
    /// # Errors
    /// Only when nothing was moved: the lock, the reconciliation or the `tx-start` record
    /// failed, or the transaction directory already exists. A transaction in which no item
    /// existed writes nothing at all.
    pub fn relocate(
        &self,
        items: &[RelocateItem],
        txid: &TxId,
        meta: TxMeta,
        progress: &dyn Progress,
    ) -> Result<RelocationReport, QuarantineError> {
        self.under_writers_lock(|q| q.relocate_journaled(items, txid, meta, progress))
    }

    /// Runs a transaction `run` under the writers' lock after reconciling interrupted ones;
    /// when `run` says it appended a durable record, the manifest's checkpoint moves past
    /// the transactions the reconciliation closed (the intent's durable append covered
    /// every record the checkpoint relies on).
    pub(crate) fn under_writers_lock<R>(
        &self,
        run: impl FnOnce(&Self) -> Result<(R, bool), QuarantineError>,
    ) -> Result<R, QuarantineError> {
        let _lock = self.lock()?;
        let (_, closed) = self.reconcile_closing()?;
        let (report, journaled) = run(self)?;
        if journaled {
            self.manifest().store_checkpoint(closed);
        }
        Ok(report)
    }

    /// [`Quarantine::relocate`] for a caller that already holds the writers' lock (a
    /// compensation's restore, which runs under the restore's lock), without reconciling.
    ///
    /// # Errors
    /// As [`Quarantine::relocate`].
    pub fn relocate_locked(
        &self,
        items: &[RelocateItem],
        txid: &TxId,
        meta: TxMeta,
        progress: &dyn Progress,
    ) -> Result<RelocationReport, QuarantineError> {
        self.relocate_journaled(items, txid, meta, progress)
            .map(|(report, _)| report)
    }

    /// [`Quarantine::relocate_locked`], also telling whether a durable record was appended.
    fn relocate_journaled(
        &self,
        items: &[RelocateItem],
        txid: &TxId,
        meta: TxMeta,
        progress: &dyn Progress,
    ) -> Result<(RelocationReport, bool), QuarantineError> {
        let tx_dir = self.tx_dir(txid);
        if tx_dir.symlink_metadata().is_ok() {
            return Err(QuarantineError::TxExists {
                txid: txid.to_string(),
            });
        }
        let start = Record::TxStart(TxStart {
            txid: txid.to_string(),
            strategy: "relocate".to_owned(),
            meta,
            workspace: Some(StoredPath::new(self.workspace())),
            ts: self.now(),
            schema: MANIFEST_SCHEMA,
        });
        // The `tx-start` goes out with the first intent, in the same durable write.
        let mut pending_start = Some(start);
        let mut report = RelocationReport {
            txid: txid.to_string(),
            moved: Vec::new(),
            skipped: Vec::new(),
            storage_failure: false,
        };
        // Ancestors first, so a nested target is found already moved with its parent.
        let mut ordered: Vec<&RelocateItem> = items.iter().collect();
        ordered.sort_by_key(|item| item.origin.components().count());
        ordered.dedup_by(|a, b| a.origin == b.origin);
        for item in ordered {
            match self.relocate_one(item, txid, &tx_dir, &mut pending_start, progress) {
                Ok(Some(moved)) => report.moved.push(moved),
                Ok(None) => report
                    .skipped
                    .push(skip(item, SkipKind::Absent, "already absent")),
                Err(stop) if stop.before_start => {
                    return Err(QuarantineError::TxStartNotJournaled {
                        txid: txid.to_string(),
                        reason: stop.reason,
                    });
                }
                Err(Stop {
                    kind,
                    reason,
                    moved,
                    ..
                }) => {
                    report.moved.extend(moved);
                    report.skipped.push(skip(item, kind, &reason));
                    if kind == SkipKind::Storage {
                        report.storage_failure = true;
                    }
                    // Stop at the first failure: the command will be refused, and the fewer
                    // moves a refused command leaves behind, the better.
                    break;
                }
            }
        }
        // The `tx-start` is taken only by the first append; an append that failed there
        // returned above, so a taken one was made durable.
        Ok((report, pending_start.is_none()))
    }

    /// Relocates one item; `Ok(None)` when it is absent.
    pub(crate) fn relocate_one(
        &self,
        item: &RelocateItem,
        txid: &TxId,
        tx_dir: &Path,
        pending_start: &mut Option<Record>,
        progress: &dyn Progress,
    ) -> Result<Option<Moved>, Stop> {
        let Ok(before) = item.origin.symlink_metadata() else {
            return Ok(None);
        };
        let dest = destination(self.workspace(), tx_dir, &item.origin).ok_or_else(|| {
            Stop::failed("uncontained destination: the item is not inside the workspace")
        })?;
        let kind = item_kind(&before);
        let origin = StoredPath::new(&item.origin);
        let trash = StoredPath::new(&dest);
        let intent = Record::RelocateIntent(Intent {
            txid: txid.to_string(),
            origin_path: origin.clone(),
            trash_path: trash.clone(),
            raw: Some(item.raw.clone()),
            kind,
            ts: self.now(),
            schema: MANIFEST_SCHEMA,
        });
        let first = pending_start.is_some();
        let batch: Vec<Record> = pending_start.take().into_iter().chain([intent]).collect();
        if let Err(error) = self.append(&batch) {
            return Err(Stop {
                before_start: first,
                ..Stop::failed(&format!("intent could not be journaled: {error}"))
            });
        }
        self.faults().hit(FaultPoint::AfterIntent);
        if let Err(reason) = self.wait_before_effect() {
            return Err(self.fail(txid, &origin, &trash, &std::io::Error::other(reason)));
        }

        let parent = dest.parent().unwrap_or(tx_dir);
        if let Err(error) = create_dirs(parent, tx_dir) {
            return Err(self.fail(txid, &origin, &trash, &error));
        }
        let (method, digest) = match fsops::rename_noreplace(&item.origin, &dest) {
            Ok(()) => (Method::Rename, None),
            Err(error)
                if error.kind() == std::io::ErrorKind::NotFound
                    && item.origin.symlink_metadata().is_err() =>
            {
                self.record_failed(txid, &origin, &trash, "already absent when moved");
                return Ok(None);
            }
            Err(error) if fsops::is_cross_device(&error) => {
                let digest = self.copy_across(txid, &origin, &trash, &dest, progress)?;
                (Method::Copy, Some(digest))
            }
            Err(error) => return Err(self.fail(txid, &origin, &trash, &error)),
        };
        self.faults().hit(FaultPoint::AfterMove);

        // No fsync after the move: the intent is durable, and whichever state a crash leaves
        // (renamed or not, outcome recorded or not) reconciliation resolves without loss.
        let verified = verify(&item.origin, &dest, &before, method);
        self.faults().hit(FaultPoint::BeforeDone);
        let record = Record::Relocate(Relocated {
            txid: txid.to_string(),
            origin_path: origin.clone(),
            trash_path: trash.clone(),
            kind,
            size: (kind != Some(ItemKind::Dir)).then_some(before.len()),
            mode: Some(before.mode() & 0o7777),
            mtime: Some(before.mtime()),
            method: Some(method),
            digest,
            recovered_from_intent: false,
            origin_leftovers: false,
            ts: self.now(),
            schema: MANIFEST_SCHEMA,
        });
        let moved = Moved {
            origin,
            trash,
            kind,
            method,
        };
        if let Err(error) = self.append_relaxed(&[record]) {
            // The item is in the quarantine and its intent is journaled: the next command
            // reconciles it. This command must not run.
            return Err(Stop {
                kind: SkipKind::Failed,
                reason: format!("completion could not be journaled: {error}"),
                moved: vec![moved],
                before_start: false,
            });
        }
        match verified {
            Ok(()) => Ok(Some(moved)),
            Err(reason) => Err(Stop {
                kind: SkipKind::Failed,
                reason,
                moved: vec![moved],
                before_start: false,
            }),
        }
    }

    /// The cross-device path: verified copy under a temporary name, rename into place,
    /// journal `copy-verified`, then remove the source.
    fn copy_across(
        &self,
        txid: &TxId,
        origin: &StoredPath,
        trash: &StoredPath,
        dest: &Path,
        progress: &dyn Progress,
    ) -> Result<String, Stop> {
        let partial = partial_sibling(dest);
        let outcome = match copy_verified(origin.path(), &partial, progress, self.faults()) {
            Ok(outcome) => outcome,
            Err(error) => {
                let kind = if error.is_storage() {
                    SkipKind::Storage
                } else {
                    SkipKind::Failed
                };
                let reason = if kind == SkipKind::Storage {
                    "storage unavailable".to_owned()
                } else {
                    error.to_string()
                };
                self.record_failed(txid, origin, trash, &reason);
                return Err(Stop {
                    kind,
                    reason,
                    moved: Vec::new(),
                    before_start: false,
                });
            }
        };
        if let Err(error) = fsops::rename_noreplace(&partial, dest) {
            return Err(self.fail(txid, origin, trash, &error));
        }
        self.append(&[Record::CopyVerified(CopyVerified {
            txid: txid.to_string(),
            origin_path: origin.clone(),
            trash_path: trash.clone(),
            digest: outcome.digest.clone(),
            ts: self.now(),
            schema: MANIFEST_SCHEMA,
        })])
        .map_err(|e| Stop::failed(&format!("verified copy could not be journaled: {e}")))?;
        if let Err(error) = remove_copied_source(origin.path(), dest, self.faults()) {
            // Never delete the quarantine copy: both halves stay, and the item is reported.
            let record = Record::Relocate(Relocated {
                txid: txid.to_string(),
                origin_path: origin.clone(),
                trash_path: trash.clone(),
                kind: None,
                size: None,
                mode: None,
                mtime: None,
                method: Some(Method::Copy),
                digest: Some(outcome.digest),
                recovered_from_intent: false,
                origin_leftovers: true,
                ts: self.now(),
                schema: MANIFEST_SCHEMA,
            });
            let _ = self.append(&[record]);
            return Err(Stop {
                kind: SkipKind::Failed,
                reason: format!("source removal failed, both halves kept: {error}"),
                moved: vec![Moved {
                    origin: origin.clone(),
                    trash: trash.clone(),
                    kind: None,
                    method: Method::Copy,
                }],
                before_start: false,
            });
        }
        Ok(outcome.digest)
    }

    fn fail(
        &self,
        txid: &TxId,
        origin: &StoredPath,
        trash: &StoredPath,
        error: &std::io::Error,
    ) -> Stop {
        if fsops::is_storage_full(error) {
            self.record_failed(txid, origin, trash, "storage unavailable");
            Stop {
                kind: SkipKind::Storage,
                reason: "storage unavailable".to_owned(),
                moved: Vec::new(),
                before_start: false,
            }
        } else {
            let reason = error.to_string();
            self.record_failed(txid, origin, trash, &reason);
            Stop {
                kind: SkipKind::Failed,
                reason,
                moved: Vec::new(),
                before_start: false,
            }
        }
    }

    fn record_failed(&self, txid: &TxId, origin: &StoredPath, trash: &StoredPath, reason: &str) {
        let _ = self.append(&[Record::RelocateFailed(Failed {
            txid: txid.to_string(),
            origin_path: origin.clone(),
            trash_path: trash.clone(),
            reason: reason.to_owned(),
            recovered_from_intent: false,
            ts: self.now(),
            schema: MANIFEST_SCHEMA,
        })]);
    }
}

/// Why an item stopped the transaction, with anything that did reach the quarantine.
pub(crate) struct Stop {
    pub(crate) kind: SkipKind,
    pub(crate) reason: String,
    pub(crate) moved: Vec<Moved>,
    /// The transaction's `tx-start` could not be journaled: nothing at all happened.
    pub(crate) before_start: bool,
}

impl Stop {
    pub(crate) fn failed(reason: &str) -> Stop {
        Stop {
            kind: SkipKind::Failed,
            reason: reason.to_owned(),
            moved: Vec::new(),
            before_start: false,
        }
    }
}

pub(crate) fn skip(item: &RelocateItem, kind: SkipKind, reason: &str) -> Skipped {
    Skipped {
        raw: item.raw.clone(),
        origin: StoredPath::new(&item.origin),
        kind,
        reason: reason.to_owned(),
    }
}

/// The item's place in the transaction: `<tx_dir>/<workspace-relative path>`, strictly
/// inside the transaction directory. `None` for anything else.
pub(crate) fn destination(workspace: &Path, tx_dir: &Path, origin: &Path) -> Option<PathBuf> {
    let relative = origin.strip_prefix(workspace).ok()?;
    let clean = relative
        .components()
        .all(|c| matches!(c, Component::Normal(_)));
    (clean && relative.components().next().is_some()).then(|| tx_dir.join(relative))
}

/// The temporary name a cross-device copy is written under.
pub(crate) fn partial_sibling(dest: &Path) -> PathBuf {
    let mut name = std::ffi::OsString::from(PARTIAL_PREFIX);
    name.push(dest.file_name().unwrap_or_default());
    dest.with_file_name(name)
}

/// The item kind of some metadata (`None` for FIFOs, sockets and devices).
pub(crate) fn item_kind(metadata: &std::fs::Metadata) -> Option<ItemKind> {
    let file_type = metadata.file_type();
    if file_type.is_symlink() {
        Some(ItemKind::Symlink)
    } else if file_type.is_dir() {
        Some(ItemKind::Dir)
    } else if file_type.is_file() {
        Some(ItemKind::File)
    } else {
        None
    }
}

/// Creates `dir` and its missing parents below `tx_dir`.
pub(crate) fn create_dirs(dir: &Path, tx_dir: &Path) -> std::io::Result<()> {
    let mut missing = Vec::new();
    let mut current = dir;
    while current.symlink_metadata().is_err() {
        missing.push(current.to_owned());
        match current.parent() {
            Some(parent) if current != tx_dir => current = parent,
            _ => break,
        }
    }
    for path in missing.iter().rev() {
        match std::fs::DirBuilder::new().mode(0o700).create(path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// A relocation counts only if the source is gone and the destination exists — with the
/// source's dev and inode after a rename (the copy path verified content already).
fn verify(
    origin: &Path,
    dest: &Path,
    before: &std::fs::Metadata,
    method: Method,
) -> Result<(), String> {
    match origin.symlink_metadata() {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Ok(_) => return Err("verification failed: the source still exists".to_owned()),
        Err(e) => return Err(format!("verification failed: {e}")),
    }
    let after = dest
        .symlink_metadata()
        .map_err(|e| format!("verification failed: {e}"))?;
    if method == Method::Rename && (after.dev() != before.dev() || after.ino() != before.ino()) {
        return Err("verification failed: the destination is not the moved item".to_owned());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn destinations_stay_inside_the_transaction() {
        let ws = Path::new("/ws");
        let tx = Path::new("/ws/.agent-trash/t");
        assert_eq!(
            destination(ws, tx, Path::new("/ws/build")),
            Some(PathBuf::from("/ws/.agent-trash/t/build"))
        );
        assert_eq!(
            destination(ws, tx, Path::new("/ws/a/b")),
            Some(PathBuf::from("/ws/.agent-trash/t/a/b"))
        );
        assert_eq!(destination(ws, tx, Path::new("/ws")), None);
        assert_eq!(destination(ws, tx, Path::new("/etc/x")), None);
        assert_eq!(destination(ws, tx, Path::new("/ws/../etc")), None);
    }

    #[test]
    fn partial_names_are_siblings() {
        assert_eq!(
            partial_sibling(Path::new("/t/x/build")),
            PathBuf::from("/t/x/.agent-guard-partial-build")
        );
    }
}
