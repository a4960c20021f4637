//! Preservation: keep the current version of files a command is about to overwrite or
//! consume, in a new transaction, before it runs — without taking anything away: the command
//! finds every file where it was, byte for byte.
//!
//! Per item, the cheapest way that keeps the version as it is now:
//!
//! - **link** (the line only replaces the name: `mv` onto, `ln -f`, `install`): a second name
//!   in the quarantine for the same inode, when the file has no other name and the quarantine
//!   is on its filesystem. The command renames over (or unlinks) the workspace's name; the
//!   old inode lives on in the quarantine, unchanged.
//! - **reflink** (the command writes the file in place, or reads it): its extents are shared
//!   (`FICLONE`) where the filesystem can.
//! - **copy**: otherwise, streamed, re-read and compared by digest, refused over the item's
//!   cap ([`PreserveItem::max_copy`]) before anything is written.
//! - a **symlink** is kept as a link with the same target.
//!
//! Write-ahead: the `preserve-intent` written → the kept version, under a temporary name →
//! renamed into place → one flush of the intent, the copy and its directory (beside the
//! caller's audit intent) → `preserve`. Nothing the command touches changes before the flush
//! has returned.
//!
//! Crash recovery resolves an open `preserve-intent` like a relocation's (see `reconcile`).
//! The transaction's `tx-start` names the strategy `preserve`: its restore puts the old
//! versions back over whatever the command left, keeping that in a new transaction first.

use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

use crate::tx_meta::TxMeta;
use serde::Serialize;

use agent_guard_types::TxId;

use crate::copy::{Cloned, CopyError, Progress, clone_file, link_file};
use crate::error::QuarantineError;
use crate::faults::{FaultPoint, Faults};
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
    /// A hard link may keep it: the command only replaces the name, and nothing writes the
    /// file in place (see the module docs). Still only when the file has one name and the
    /// quarantine is on its filesystem; otherwise it is reflinked or copied.
    pub link: bool,
    /// The largest file copied byte by byte; a larger one that can be neither linked nor
    /// reflinked is not kept ([`SkipKind::TooLarge`]). `None`: no cap (a restore keeping
    /// what it replaces).
    pub max_copy: Option<u64>,
    /// The command replaces the name (a rename over it, an unlink first): however the
    /// version is kept, it goes back by name, never by writing its bytes into whatever file
    /// then stands there (after `ln -f a b` that file is `a`).
    pub by_name: bool,
}

impl PreserveItem {
    /// An item kept by reflink or copy, whatever its size (a restore's backups).
    pub fn copy(origin: PathBuf, raw: String) -> PreserveItem {
        PreserveItem {
            origin,
            raw,
            link: false,
            max_copy: None,
            by_name: false,
        }
    }
}

/// How a kept version got into the quarantine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum KeptBy {
    /// A hard link: the old inode itself, which the command only unlinks from its name.
    Link,
    /// A reflink: the file's extents are shared (O(1)).
    Reflink,
    /// A streamed copy, verified by digest.
    Copy,
    /// A symbolic link, kept as a link with the same target.
    Symlink,
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
        crate::relocate::complete(self.storage_failure, &self.skipped)
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
        meta: TxMeta,
        progress: &dyn Progress,
    ) -> Result<PreservationReport, QuarantineError> {
        self.under_writers_lock(|q| q.preserve_journaled(items, txid, meta, progress))
    }

    /// [`Quarantine::preserve`] for a caller that already holds the writers' lock.
    pub(crate) fn preserve_locked(
        &self,
        items: &[PreserveItem],
        txid: &TxId,
        meta: TxMeta,
        progress: &dyn Progress,
    ) -> Result<PreservationReport, QuarantineError> {
        self.preserve_journaled(items, txid, meta, progress)
            .map(|(report, _)| report)
    }

    fn preserve_journaled(
        &self,
        items: &[PreserveItem],
        txid: &TxId,
        meta: TxMeta,
        _progress: &dyn Progress,
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
        self.keep_items(items, txid, &tx_dir, &mut pending_start, &mut report)?;
        Ok((report, pending_start.is_none()))
    }

    /// Keeps each of `items` in transaction `txid` (whose `tx-start`, while still
    /// `pending_start`, goes with the first intent), into `report`; stops at the first item
    /// that could not be kept.
    ///
    /// # Errors
    /// The `tx-start` could not be journaled: nothing at all happened.
    pub(crate) fn keep_items(
        &self,
        items: &[PreserveItem],
        txid: &TxId,
        tx_dir: &Path,
        pending_start: &mut Option<Record>,
        report: &mut PreservationReport,
    ) -> Result<(), QuarantineError> {
        let mut ordered: Vec<&PreserveItem> = items.iter().collect();
        // The same file twice: the stricter way (no link) wins.
        ordered.sort_by(|a, b| a.origin.cmp(&b.origin).then(a.link.cmp(&b.link)));
        ordered.dedup_by(|a, b| a.origin == b.origin);
        for item in ordered {
            let relocate = RelocateItem {
                origin: item.origin.clone(),
                raw: item.raw.clone(),
            };
            match self.preserve_one(item, txid, tx_dir, pending_start) {
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
                    // Stop at the first failure: the command will be refused (or asked about).
                    break;
                }
            }
        }
        Ok(())
    }

    /// Keeps one file's current version in the transaction; `Ok(None)` when it is absent.
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
        let symlink = before.file_type().is_symlink();
        if !(before.is_file() || symlink) {
            return Err(Stop::failed(
                "not a regular file or a symlink: only files' contents are preserved",
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
        let cloned = match self.keep_version(item, symlink, &dest, tx_dir, &journal) {
            Ok(cloned) => cloned,
            Err((kind, reason)) => return Err(failed(self, kind, reason)),
        };
        self.faults().hit(FaultPoint::AfterMove);
        let (method, digest, by) = match cloned {
            Cloned::Link => (PreserveMethod::Link, None, KeptBy::Link),
            Cloned::Reflink => (PreserveMethod::Reflink, None, KeptBy::Reflink),
            Cloned::Copy(outcome) => (PreserveMethod::Copy, Some(outcome.digest), KeptBy::Copy),
            Cloned::Symlink => (PreserveMethod::Symlink, None, KeptBy::Symlink),
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
            by_name: item.by_name,
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

    /// Keeps `item`'s current version at `dest` in the transaction at `tx_dir` (a link, a
    /// reflink, a copy, or a symlink's copy), renamed into place once complete and flushed
    /// with the intent's `journal`; `Err` says what kind of failure stopped it, and why.
    fn keep_version(
        &self,
        item: &PreserveItem,
        symlink: bool,
        dest: &Path,
        tx_dir: &Path,
        journal: &std::fs::File,
    ) -> Result<Cloned, (SkipKind, String)> {
        let parent = dest.parent().unwrap_or(tx_dir);
        if let Err(error) = create_dirs(parent, tx_dir) {
            let kind = if fsops::is_storage_full(&error) {
                SkipKind::Storage
            } else {
                SkipKind::Failed
            };
            return Err((kind, error.to_string()));
        }
        let partial = partial_sibling(dest);
        // A link is noted before it is made: if the command does not replace the name, the
        // next writer of the store turns it into a copy (see `links`).
        let noted = if item.link && !symlink {
            match crate::links::note(self.trash(), &item.origin, dest) {
                Ok(file) => Some(file),
                Err(error) => return Err((SkipKind::Failed, error.to_string())),
            }
        } else {
            None
        };
        let kept = if symlink {
            copy_link(&item.origin, &partial)
        } else {
            keep_file(item, &partial, self.faults())
        };
        let cloned = match kept {
            Ok(cloned) => cloned,
            Err(CopyError::TooLarge { size, cap, .. }) => {
                return Err((
                    SkipKind::TooLarge,
                    format!(
                        "{} is {size} bytes, over the {cap}-byte copy cap, and can be neither \
                         hard-linked nor reflinked",
                        item.raw
                    ),
                ));
            }
            Err(error) if error.is_storage() => {
                return Err((
                    SkipKind::Storage,
                    format!(
                        "storage unavailable: no room to keep {}: {error} (free space on the \
                         disk that holds the guard's store, or point AGENT_GUARD_TRASH at a \
                         store on another disk, then run the command again)",
                        item.raw
                    ),
                ));
            }
            Err(error) => return Err((SkipKind::Failed, error.to_string())),
        };
        self.faults().hit(FaultPoint::PreserveAfterCopy);
        // Renamed before the flush: a crash leaves either no copy under its final name or a
        // complete one (a partial copy is removed by the reconciliation).
        if let Err(error) = fsops::rename_noreplace(&partial, dest) {
            let _ = fsops::remove_file(&partial);
            return Err((SkipKind::Failed, error.to_string()));
        }
        // A link's or a symlink's bytes are not new: the directory entry is what to flush.
        let written = matches!(cloned, Cloned::Reflink | Cloned::Copy(_)).then_some(dest);
        if let Err(reason) = self.flush_kept(journal, written, parent, noted) {
            return Err((SkipKind::Failed, reason));
        }
        Ok(cloned)
    }

    /// One durability epoch for a kept version: the copy and the directory naming it on a
    /// helper thread, the journal's intent here, and the caller's audit intent (already in
    /// flight). Returns once all are on disk, or why one may not be.
    fn flush_kept(
        &self,
        journal: &std::fs::File,
        copy: Option<&Path>,
        dir: &Path,
        noted: Option<std::fs::File>,
    ) -> Result<(), String> {
        let opened = std::fs::File::open(dir).and_then(|dir| {
            let mut files = vec![dir];
            if let Some(copy) = copy {
                files.push(std::fs::File::open(copy)?);
            }
            files.extend(noted);
            Ok(files)
        });
        let kept = match opened {
            Ok(files) => SyncInFlight::start_all(files),
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

/// How many times a copy is made before a file that keeps changing under it is given up.
const COPY_ATTEMPTS: usize = 3;

/// Keeps a regular file: a hard link where the item allows one and it is safe, else a
/// reflink or a (capped) copy. A copy that does not match the original (written to while
/// it was copied) is made again, a few times.
fn keep_file(item: &PreserveItem, partial: &Path, faults: Faults) -> Result<Cloned, CopyError> {
    if item.link && link_file(&item.origin, partial)? {
        return Ok(Cloned::Link);
    }
    let mut attempt = 1;
    loop {
        match clone_file(&item.origin, partial, item.max_copy, faults) {
            Err(CopyError::Mismatch { .. }) if attempt < COPY_ATTEMPTS => attempt += 1,
            kept => return kept,
        }
    }
}

/// Keeps a symbolic link as a link with the same target (never followed).
pub(crate) fn copy_link(origin: &Path, partial: &Path) -> Result<Cloned, CopyError> {
    let meta = origin
        .symlink_metadata()
        .map_err(|e| CopyError::io(origin, e))?;
    let target = std::fs::read_link(origin).map_err(|e| CopyError::io(origin, e))?;
    std::os::unix::fs::symlink(&target, partial).map_err(|e| CopyError::io(partial, e))?;
    // The link's own times too (a restore renames this very link back).
    let times = rustix::fs::Timestamps {
        last_access: rustix::fs::Timespec {
            tv_sec: meta.atime(),
            tv_nsec: meta.atime_nsec(),
        },
        last_modification: rustix::fs::Timespec {
            tv_sec: meta.mtime(),
            tv_nsec: meta.mtime_nsec(),
        },
    };
    let _ = rustix::fs::utimensat(
        rustix::fs::CWD,
        partial,
        &times,
        rustix::fs::AtFlags::SYMLINK_NOFOLLOW,
    );
    Ok(Cloned::Symlink)
}
