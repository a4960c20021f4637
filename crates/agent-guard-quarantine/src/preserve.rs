//! Preservation: keep the current version of files a command is about to overwrite or
//! consume, in a new transaction, before it runs.
//!
//! Two ways, per item:
//!
//! - **copy** (the command reads the file or rewrites it in place: `>`, `truncate`, `cp`
//!   onto, `sed -i`, `gzip`): the file stays where it is, untouched, with its inode, mode and
//!   hard links; its bytes are reflinked into the quarantine where the filesystem shares
//!   extents (`FICLONE`), else copied and verified by digest. Write-ahead: the
//!   `preserve-intent` written → the copy, under a temporary name → renamed into place →
//!   one flush of the intent, the copy and its directory (beside the caller's audit intent)
//!   → `preserve`. Nothing the command touches changes before the flush has returned.
//! - **move** (the command replaces the path without reading it: `mv` onto, `ln -f`): the
//!   file is relocated into the transaction exactly as a delete would be (one `rename`,
//!   `relocate-intent` → `relocate`).
//!
//! Crash recovery resolves an open `preserve-intent` like a relocation's (see `reconcile`).
//! The transaction's `tx-start` names the strategy `preserve`: its restore puts the old
//! versions back over whatever the command left, keeping that in a new transaction first.

use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value};

use agent_guard_types::TxId;

use crate::copy::{Cloned, Progress, clone_file};
use crate::error::QuarantineError;
use crate::faults::FaultPoint;
use crate::records::{
    Failed, MANIFEST_SCHEMA, PreserveIntent, PreserveMethod, Preserved, Record, TxStart,
};
use crate::relocate::{
    RelocateItem, SkipKind, Skipped, Stop, create_dirs, destination, partial_sibling, skip,
};
use crate::store::Quarantine;
use crate::stored_path::StoredPath;
use agent_guard_fsops::{self as fsops, SyncInFlight};

/// The `tx-start` strategy of a preservation.
pub const PRESERVE_STRATEGY: &str = "preserve";

/// One file whose current version to keep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreserveItem {
    /// The absolute physical path.
    pub origin: PathBuf,
    /// The caller's spelling, for messages and the journal.
    pub raw: String,
    /// Copy it (the command needs it where it is) rather than move it away.
    pub copy: bool,
}

/// How a kept version got into the quarantine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum KeptBy {
    /// A reflink: the file's extents are shared (O(1)).
    Reflink,
    /// A streamed copy, verified by digest.
    Copy,
    /// The file itself was moved into the quarantine (the command replaces it unread).
    Move,
}

/// One kept version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KeptFile {
    /// The file.
    pub origin: StoredPath,
    /// Its kept version.
    pub trash: StoredPath,
    /// How.
    pub by: KeptBy,
    /// Its size in bytes.
    pub bytes: u64,
}

/// The outcome of one preservation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PreservationReport {
    /// The transaction id.
    pub txid: String,
    /// The versions kept.
    pub kept: Vec<KeptFile>,
    /// Files that were not kept (absent ones are fine).
    pub skipped: Vec<Skipped>,
    /// A storage failure stopped the transaction.
    pub storage_failure: bool,
}

impl PreservationReport {
    /// Returns `true` unless some file could not be kept (absent files are fine).
    pub fn complete(&self) -> bool {
        !self.storage_failure && self.skipped.iter().all(|s| s.kind == SkipKind::Absent)
    }
}

impl Quarantine {
    /// Keeps the current version of `items` in the new transaction `txid`. Takes the
    /// writers' lock and reconciles interrupted transactions first.
    ///
    /// # Errors
    /// Only when nothing was kept: the lock, the reconciliation or the `tx-start` record
    /// failed, or the transaction directory already exists. A transaction in which no item
    /// existed writes nothing at all.
    pub fn preserve(
        &self,
        items: &[PreserveItem],
        txid: &TxId,
        meta: Map<String, Value>,
        progress: &dyn Progress,
    ) -> Result<PreservationReport, QuarantineError> {
        let _lock = self.lock()?;
        let (_, closed) = self.reconcile_closing()?;
        let (report, journaled) = self.preserve_journaled(items, txid, meta, progress)?;
        if journaled {
            self.manifest().store_checkpoint(closed);
        }
        Ok(report)
    }

    /// [`Quarantine::preserve`] for a caller that already holds the writers' lock.
    pub(crate) fn preserve_locked(
        &self,
        items: &[PreserveItem],
        txid: &TxId,
        meta: Map<String, Value>,
        progress: &dyn Progress,
    ) -> Result<PreservationReport, QuarantineError> {
        self.preserve_journaled(items, txid, meta, progress)
            .map(|(report, _)| report)
    }

    fn preserve_journaled(
        &self,
        items: &[PreserveItem],
        txid: &TxId,
        meta: Map<String, Value>,
        progress: &dyn Progress,
    ) -> Result<(PreservationReport, bool), QuarantineError> {
        let tx_dir = self.tx_dir(txid);
        if tx_dir.symlink_metadata().is_ok() {
            return Err(QuarantineError::TxExists {
                txid: txid.to_string(),
            });
        }
        let mut pending_start = Some(Record::TxStart(TxStart {
            txid: txid.to_string(),
            strategy: PRESERVE_STRATEGY.to_owned(),
            meta,
            workspace: Some(StoredPath::new(self.workspace())),
            ts: self.now(),
            schema: MANIFEST_SCHEMA,
        }));
        let mut report = PreservationReport {
            txid: txid.to_string(),
            kept: Vec::new(),
            skipped: Vec::new(),
            storage_failure: false,
        };
        let mut ordered: Vec<&PreserveItem> = items.iter().collect();
        ordered.sort_by(|a, b| a.origin.cmp(&b.origin));
        ordered.dedup_by(|a, b| a.origin == b.origin);
        for item in ordered {
            let relocate = RelocateItem {
                origin: item.origin.clone(),
                raw: item.raw.clone(),
            };
            let result = if item.copy {
                self.preserve_one(item, txid, &tx_dir, &mut pending_start)
            } else {
                let size = item.origin.symlink_metadata().map_or(0, |m| m.len());
                self.relocate_one(&relocate, txid, &tx_dir, &mut pending_start, progress)
                    .map(|moved| {
                        moved.map(|m| KeptFile {
                            origin: m.origin,
                            trash: m.trash,
                            by: KeptBy::Move,
                            bytes: size,
                        })
                    })
            };
            match result {
                Ok(Some(kept)) => report.kept.push(kept),
                Ok(None) => {
                    report
                        .skipped
                        .push(skip(&relocate, SkipKind::Absent, "already absent"));
                }
                Err(stop) if stop.before_start => {
                    return Err(QuarantineError::TxStartNotJournaled {
                        txid: txid.to_string(),
                        reason: stop.reason,
                    });
                }
                Err(stop) => {
                    report
                        .skipped
                        .push(skip(&relocate, stop.kind, &stop.reason));
                    report.storage_failure |= stop.kind == SkipKind::Storage;
                    // Stop at the first failure: the command will be refused.
                    break;
                }
            }
        }
        Ok((report, pending_start.is_none()))
    }

    /// Copies one file's current version into the transaction; `Ok(None)` when it is absent.
    fn preserve_one(
        &self,
        item: &PreserveItem,
        txid: &TxId,
        tx_dir: &Path,
        pending_start: &mut Option<Record>,
    ) -> Result<Option<KeptFile>, Stop> {
        let Ok(before) = item.origin.symlink_metadata() else {
            return Ok(None);
        };
        if !before.is_file() {
            return Err(Stop::failed(
                "not a regular file: only files' contents are preserved",
            ));
        }
        let dest = destination(self.workspace(), tx_dir, &item.origin).ok_or_else(|| {
            Stop::failed("uncontained destination: the file is not inside the workspace")
        })?;
        let origin = StoredPath::new(&item.origin);
        let trash = StoredPath::new(&dest);
        let intent = Record::PreserveIntent(PreserveIntent {
            txid: txid.to_string(),
            origin_path: origin.clone(),
            trash_path: trash.clone(),
            raw: Some(item.raw.clone()),
            size: before.len(),
            ts: self.now(),
            schema: MANIFEST_SCHEMA,
        });
        let first = pending_start.is_some();
        let batch: Vec<Record> = pending_start.take().into_iter().chain([intent]).collect();
        // Written now, flushed below with the copy: nothing the command touches changes
        // before this function returns, so the intent and the copy share one flush.
        let journal = match self.manifest().append_deferred(&batch) {
            Ok(journal) => journal,
            Err(error) => {
                return Err(Stop {
                    before_start: first,
                    ..Stop::failed(&format!("intent could not be journaled: {error}"))
                });
            }
        };
        self.faults().hit(FaultPoint::AfterIntent);

        let failed = |store: &Quarantine, kind: SkipKind, reason: String| {
            store.record_preserve_failed(txid, &origin, &trash, &reason);
            Stop {
                kind,
                reason,
                moved: Vec::new(),
                before_start: false,
            }
        };
        let parent = dest.parent().unwrap_or(tx_dir);
        if let Err(error) = create_dirs(parent, tx_dir) {
            let kind = if fsops::is_storage_full(&error) {
                SkipKind::Storage
            } else {
                SkipKind::Failed
            };
            return Err(failed(self, kind, error.to_string()));
        }
        let partial = partial_sibling(&dest);
        let cloned = match clone_file(&item.origin, &partial, self.faults()) {
            Ok(cloned) => cloned,
            Err(error) if error.is_storage() => {
                return Err(failed(
                    self,
                    SkipKind::Storage,
                    "storage unavailable".to_owned(),
                ));
            }
            Err(error) => return Err(failed(self, SkipKind::Failed, error.to_string())),
        };
        // Renamed before the flush: a crash leaves either no copy under its final name or a
        // complete one (a partial copy is removed by the reconciliation).
        if let Err(error) = fsops::rename_noreplace(&partial, &dest) {
            let _ = fsops::remove_file(&partial);
            return Err(failed(self, SkipKind::Failed, error.to_string()));
        }
        if let Err(reason) = self.flush_kept(&journal, &dest, parent) {
            return Err(failed(self, SkipKind::Failed, reason));
        }
        self.faults().hit(FaultPoint::AfterMove);
        let (method, digest, by) = match cloned {
            Cloned::Reflink => (PreserveMethod::Reflink, None, KeptBy::Reflink),
            Cloned::Copy(outcome) => (PreserveMethod::Copy, Some(outcome.digest), KeptBy::Copy),
        };
        self.faults().hit(FaultPoint::BeforeDone);
        let record = Record::Preserve(Preserved {
            txid: txid.to_string(),
            origin_path: origin.clone(),
            trash_path: trash.clone(),
            method: Some(method),
            size: before.len(),
            mode: Some(before.mode() & 0o7777),
            dev: Some(before.dev()),
            ino: Some(before.ino()),
            digest,
            recovered_from_intent: false,
            ts: self.now(),
            schema: MANIFEST_SCHEMA,
        });
        if let Err(error) = self.append_relaxed(&[record]) {
            // The copy is in place and its intent is journaled: the next command reconciles
            // it. This command must not run.
            return Err(Stop::failed(&format!(
                "completion could not be journaled: {error}"
            )));
        }
        Ok(Some(KeptFile {
            origin,
            trash,
            by,
            bytes: before.len(),
        }))
    }

    /// One durability epoch for a kept version: the copy and the directory naming it on a
    /// helper thread, the journal's intent here, and the caller's audit intent (already in
    /// flight). Returns once all are on disk, or why one may not be.
    fn flush_kept(&self, journal: &std::fs::File, copy: &Path, dir: &Path) -> Result<(), String> {
        let opened =
            std::fs::File::open(copy).and_then(|copy| Ok((copy, std::fs::File::open(dir)?)));
        let kept = match opened {
            Ok((copy, dir)) => SyncInFlight::start_all(vec![copy, dir]),
            Err(error) => SyncInFlight::done(Err(format!("the copy could not be opened: {error}"))),
        };
        let journaled = journal
            .sync_data()
            .map_err(|error| format!("the intent is not durable: {error}"));
        let audited = self.wait_before_effect();
        let kept = kept
            .wait()
            .map_err(|error| format!("the copy is not durable: {error}"));
        journaled.and(audited).and(kept)
    }

    fn record_preserve_failed(
        &self,
        txid: &TxId,
        origin: &StoredPath,
        trash: &StoredPath,
        reason: &str,
    ) {
        let _ = self.append(&[Record::PreserveFailed(Failed {
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
