//! Recording a line's moves before it runs: where each source is, what each destination
//! holds. Nothing is taken away: the command finds every path where it was.
//!
//! One transaction (`tx-start` strategy `move`) per line:
//!
//! 1. `move-source` for every source (its kind, device, inode, mode, size) and
//!    `move-destination` for every path a source may land on (absent, an empty directory, a
//!    directory, or a file whose version is kept), journaled durably first;
//! 2. every existing file or symlink a destination would replace is kept as a preservation
//!    keeps it (`preserve-intent` → a hard link, reflink or copy → `preserve`);
//! 3. a source that may leave the workspace (or its filesystem) is copied into the
//!    transaction too — a file reflinked or copied (refused over its cap), a tree copied and
//!    verified — under a temporary name, renamed into place when complete, then flushed.
//!
//! Undo (see `restore::moves`) finds each source by its device and inode wherever the line put
//! it and renames it back; the kept versions and absences of the destinations follow.

use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

use crate::tx_meta::TxMeta;
use serde::Serialize;

use agent_guard_types::TxId;

use crate::copy::{CopyError, Progress, clone_file, copy_verified};
use crate::error::QuarantineError;
use crate::faults::FaultPoint;
use crate::preserve::{PreservationReport, PreserveItem};
use crate::records::{
    ItemKind, MANIFEST_SCHEMA, MoveDestination, MoveIndex, MoveSource, Record, TxStart, WasThere,
};
use crate::relocate::{SkipKind, Skipped, create_dirs, destination, partial_sibling};
use crate::store::Quarantine;
use crate::stored_path::StoredPath;
use agent_guard_fsops as fsops;

/// The `tx-start` strategy of a move record.
pub const MOVE_STRATEGY: &str = "move";

/// Where a transaction keeps the git index a `git mv` rewrites (workspace paths are kept
/// under the same directory; no repository's work tree has a top-level entry of this name
/// that a move would also keep).
pub(crate) const INDEX_NAME: &str = ".agent-guard-index";

/// A path a line moves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveItem {
    /// Its physical path, inside the workspace.
    pub origin: PathBuf,
    /// The caller's spelling.
    pub raw: String,
    /// Keep a copy too (it may leave the workspace or its filesystem).
    pub copy: bool,
    /// The largest copy made byte by byte (a reflink keeps any size).
    pub max_copy: u64,
    /// Where it may land, looked at first by undo.
    pub landings: Vec<PathBuf>,
}

/// A path a moved source may land on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Landing {
    /// Its physical path.
    pub path: PathBuf,
    /// Inside the workspace (undo makes it what it was) or not (only looked at).
    pub inside: bool,
}

/// What to record for a line's moves.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MoveRecording {
    /// The sources.
    pub sources: Vec<MoveItem>,
    /// Every path a source may land on.
    pub landings: Vec<Landing>,
    /// The existing files and symlinks the landings would replace.
    pub kept: Vec<PreserveItem>,
    /// The line's `git mv` rewrites the index: keep it.
    pub index: bool,
}

/// What [`Quarantine::record_moves`] did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MoveReport {
    /// The transaction id.
    pub txid: String,
    /// The sources recorded.
    pub sources: Vec<StoredPath>,
    /// How many sources were also copied.
    pub copies: usize,
    /// The destinations' kept versions.
    pub kept: PreservationReport,
    /// Sources that could not be recorded or copied (absent ones are fine).
    pub skipped: Vec<Skipped>,
}

impl MoveReport {
    /// Returns `true` when everything to keep was kept.
    pub fn complete(&self) -> bool {
        self.kept.complete() && self.skipped.iter().all(|s| s.kind == SkipKind::Absent)
    }
}

impl Quarantine {
    /// Records `plan` in the new transaction `txid`, under the writers' lock (reconciling
    /// interrupted transactions first). Returns once the records, the kept versions and the
    /// copies are on disk.
    ///
    /// # Errors
    /// Only when nothing was recorded: the lock, the reconciliation or the first records
    /// failed, or the transaction directory already exists.
    pub fn record_moves(
        &self,
        plan: &MoveRecording,
        txid: &TxId,
        meta: TxMeta,
        progress: &dyn Progress,
    ) -> Result<MoveReport, QuarantineError> {
        let _lock = self.lock()?;
        let (_, closed) = self.reconcile_closing()?;
        let tx_dir = self.tx_dir(txid);
        if tx_dir.symlink_metadata().is_ok() {
            return Err(QuarantineError::TxExists {
                txid: txid.to_string(),
            });
        }
        let mut records = vec![Record::TxStart(TxStart {
            txid: txid.to_string(),
            strategy: MOVE_STRATEGY.to_owned(),
            meta,
            workspace: Some(StoredPath::new(self.workspace())),
            ts: self.now(),
            schema: MANIFEST_SCHEMA,
        })];
        let mut report = MoveReport {
            txid: txid.to_string(),
            sources: Vec::new(),
            copies: 0,
            kept: PreservationReport {
                txid: txid.to_string(),
                kept: Vec::new(),
                skipped: Vec::new(),
                storage_failure: false,
            },
            skipped: Vec::new(),
        };
        let copies = self.record_sources(plan, txid, &tx_dir, &mut records, &mut report);
        records.extend(
            plan.landings
                .iter()
                .map(|landing| self.destination_record(txid, landing)),
        );
        let index = plan
            .index
            .then(|| agent_guard_git::index_path(self.workspace()))
            .flatten()
            .filter(|index| index.is_file());
        let kept_index = tx_dir.join(INDEX_NAME);
        if let Some(index) = &index {
            records.push(Record::MoveIndex(MoveIndex {
                txid: txid.to_string(),
                index_path: StoredPath::new(index),
                kept_path: StoredPath::new(&kept_index),
                ts: self.now(),
                schema: MANIFEST_SCHEMA,
            }));
        }
        // Durable before anything else: an interrupted recording leaves an undoable record
        // of what was where (the command has not run yet).
        self.append(&records)?;
        self.faults().hit(FaultPoint::MoveAfterRecords);
        if let Some(index) = &index
            && let Err(reason) = keep_index(index, &kept_index, &tx_dir)
        {
            report.skipped.push(Skipped {
                raw: "git index".to_owned(),
                origin: StoredPath::new(index),
                kind: SkipKind::Failed,
                reason,
            });
        }
        let mut no_start = None;
        self.keep_items(&plan.kept, txid, &tx_dir, &mut no_start, &mut report.kept)?;
        for (source, place) in copies {
            match self.copy_source(source, &place, &tx_dir, progress) {
                Ok(()) => report.copies += 1,
                Err((kind, reason)) => {
                    report.skipped.push(skipped(source, kind, &reason));
                    break;
                }
            }
        }
        if let Err(reason) = self.wait_before_effect() {
            report.skipped.push(Skipped {
                raw: String::new(),
                origin: StoredPath::new(self.workspace()),
                kind: SkipKind::Failed,
                reason,
            });
        }
        self.manifest().store_checkpoint(closed);
        Ok(report)
    }

    /// Records where each of `plan`'s sources is (`move-source`), or why it is skipped;
    /// returns the sources to copy into the transaction, each with its place there.
    fn record_sources<'p>(
        &self,
        plan: &'p MoveRecording,
        txid: &TxId,
        tx_dir: &Path,
        records: &mut Vec<Record>,
        report: &mut MoveReport,
    ) -> Vec<(&'p MoveItem, PathBuf)> {
        let kept_paths: Vec<&Path> = plan.kept.iter().map(|k| k.origin.as_path()).collect();
        let mut copies: Vec<(&MoveItem, PathBuf)> = Vec::new();
        for source in &plan.sources {
            let Ok(meta) = source.origin.symlink_metadata() else {
                report
                    .skipped
                    .push(skipped(source, SkipKind::Absent, "already absent"));
                continue;
            };
            let Some(place) = destination(self.workspace(), tx_dir, &source.origin) else {
                report.skipped.push(skipped(
                    source,
                    SkipKind::Failed,
                    "uncontained destination: the source is not inside the workspace",
                ));
                continue;
            };
            // A source that is also a destination whose version is kept: that version is its
            // copy (the same path, the same moment).
            let copy_path = source.copy.then(|| place.clone());
            if source.copy && !kept_paths.contains(&source.origin.as_path()) {
                copies.push((source, place));
            }
            records.push(Record::MoveSource(MoveSource {
                txid: txid.to_string(),
                origin_path: StoredPath::new(&source.origin),
                kind: kind_of(&meta),
                dev: meta.dev(),
                ino: meta.ino(),
                mode: meta.mode() & 0o7777,
                size: if meta.is_file() { meta.len() } else { 0 },
                copy_path: copy_path.as_ref().map(StoredPath::new),
                landings: source.landings.iter().map(StoredPath::new).collect(),
                ts: self.now(),
                schema: MANIFEST_SCHEMA,
            }));
            report.sources.push(StoredPath::new(&source.origin));
        }
        copies
    }

    /// The `move-destination` record of `landing`: what it holds before the line runs.
    fn destination_record(&self, txid: &TxId, landing: &Landing) -> Record {
        let (was, mode) = match landing.path.symlink_metadata() {
            Err(_) => (WasThere::Absent, None),
            Ok(meta) if meta.is_dir() => {
                let empty = fs_err::read_dir(&landing.path).is_ok_and(|mut e| e.next().is_none());
                let was = if empty {
                    WasThere::EmptyDir
                } else {
                    WasThere::Dir
                };
                (was, Some(meta.mode() & 0o7777))
            }
            Ok(meta) => (WasThere::Kept, Some(meta.mode() & 0o7777)),
        };
        Record::MoveDestination(MoveDestination {
            txid: txid.to_string(),
            path: StoredPath::new(&landing.path),
            was,
            mode,
            inside: landing.inside,
            ts: self.now(),
            schema: MANIFEST_SCHEMA,
        })
    }

    /// Copies one source into the transaction at `place`, durably; the copy appears under
    /// that name only once complete.
    fn copy_source(
        &self,
        source: &MoveItem,
        place: &Path,
        tx_dir: &Path,
        progress: &dyn Progress,
    ) -> Result<(), (SkipKind, String)> {
        let parent = place.parent().unwrap_or(tx_dir);
        create_dirs(parent, tx_dir).map_err(|e| (storage_kind(&e), e.to_string()))?;
        let partial = partial_sibling(place);
        let meta = source
            .origin
            .symlink_metadata()
            .map_err(|e| (SkipKind::Absent, e.to_string()))?;
        let copied = if meta.is_dir() {
            let bytes = crate::usage::walk(&source.origin, false).bytes;
            if bytes > source.max_copy {
                Err(CopyError::TooLarge {
                    path: source.origin.clone(),
                    size: bytes,
                    cap: source.max_copy,
                })
            } else {
                copy_verified(&source.origin, &partial, progress, self.faults()).map(|_| ())
            }
        } else if meta.file_type().is_symlink() {
            crate::preserve::copy_link(&source.origin, &partial).map(|_| ())
        } else {
            clone_file(
                &source.origin,
                &partial,
                Some(source.max_copy),
                self.faults(),
            )
            .map(|_| ())
        };
        match copied {
            Ok(()) => {}
            Err(CopyError::TooLarge { size, cap, .. }) => {
                return Err((
                    SkipKind::TooLarge,
                    format!(
                        "{} is {size} bytes, over the {cap}-byte copy cap, and may leave the \
                         workspace",
                        source.raw
                    ),
                ));
            }
            Err(error) if error.is_storage() => {
                return Err((SkipKind::Storage, "storage unavailable".to_owned()));
            }
            Err(error) => return Err((SkipKind::Failed, error.to_string())),
        }
        if let Err(error) = fsops::rename_noreplace(&partial, place) {
            let _ = fsops::remove_tree(&partial);
            return Err((SkipKind::Failed, error.to_string()));
        }
        let synced = if meta.is_file() {
            std::fs::File::open(place).and_then(|f| f.sync_all())
        } else {
            Ok(())
        };
        synced
            .and_then(|()| fsops::sync_dir(parent))
            .map_err(|e| (storage_kind(&e), format!("the copy is not durable: {e}")))
    }
}

fn kind_of(meta: &std::fs::Metadata) -> ItemKind {
    if meta.file_type().is_symlink() {
        ItemKind::Symlink
    } else if meta.is_dir() {
        ItemKind::Dir
    } else {
        ItemKind::File
    }
}

fn storage_kind(error: &std::io::Error) -> SkipKind {
    if fsops::is_storage_full(error) {
        SkipKind::Storage
    } else {
        SkipKind::Failed
    }
}

fn skipped(source: &MoveItem, kind: SkipKind, reason: &str) -> Skipped {
    Skipped {
        raw: source.raw.clone(),
        origin: StoredPath::new(&source.origin),
        kind,
        reason: reason.to_owned(),
    }
}

/// Keeps the index file: a hard link (git renames a new index over it, leaving this one
/// whole), or a copy on another filesystem; flushed.
fn keep_index(index: &Path, kept: &Path, tx_dir: &Path) -> Result<(), String> {
    create_dirs(tx_dir, tx_dir).map_err(|e| e.to_string())?;
    if std::fs::hard_link(index, kept).is_err() {
        let partial = partial_sibling(kept);
        fs_err::copy(index, &partial).map_err(|e| e.to_string())?;
        std::fs::File::open(&partial)
            .and_then(|f| f.sync_all())
            .map_err(|e| e.to_string())?;
        fsops::rename_noreplace(&partial, kept).map_err(|e| e.to_string())?;
    }
    fsops::sync_dir(tx_dir).map_err(|e| e.to_string())
}
