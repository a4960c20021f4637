//! Restore: put a transaction's quarantined items back, never overwriting anything.
//!
//! Order of one restore (reference 5.6): validate the id without reading the manifest → take
//! the writers' lock → find the transaction → check that its directory is a plain child of
//! the physical quarantine → **check every item before moving any** (one static error for
//! the whole batch) → move the items back one by one, re-checking each → remove the
//! directories the moves left empty → append one `restore` record.
//!
//! An occupied target is never overwritten. Two directories merge (what is absent moves, the
//! rest is a conflict), which makes an interrupted or `--path`-partial restore resumable.
//! Anything else is a conflict, or with `--force` the occupant is first preserved in a new
//! transaction (itself restorable) whose `meta.restoring_txid` names this one. Restoring a
//! transaction that is already completely back changes nothing (`already_restored`).

mod leftover;
mod moves;
mod paths;
mod place;
mod plan;
mod transfer;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::Serialize;

use agent_guard_types::TxId;

use crate::copy::Progress;
use crate::error::QuarantineError;
use crate::gc::RESERVED_IDS;
use crate::records::{MANIFEST_SCHEMA, Record, Restored};
use crate::store::Quarantine;
use crate::stored_path::StoredPath;
use crate::transactions::Transaction;
use crate::tx_lines::TxLines;

use self::paths::{Bounds, SOURCE_OUTSIDE, TARGET_OUTSIDE};
use self::place::Restorer;
use self::plan::{Destination, normalise_directory, plan};

/// Why a restore was refused before anything moved.
///
/// It serialises as its message (the `error` field of `restore --json`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RestoreRefusal {
    /// The id does not match the transaction id pattern (it could name a path).
    InvalidId,
    /// No transaction with this id is recorded.
    Unknown(String),
    /// The writers' lock could not be taken.
    Locked(String),
    /// The manifest could not be read.
    ManifestUnreadable(String),
    /// gc purged the transaction.
    Purged(String),
    /// The transaction records another workspace.
    OtherWorkspace(String),
    /// `undo` found no restorable transaction in this workspace.
    NothingToUndo,
    /// Neither a transaction nor a quarantined path of this workspace is named so.
    NotHeld(String),
    /// A source or target fails the boundary checks, or the destination is unusable.
    Unsafe(String),
}

impl std::fmt::Display for RestoreRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RestoreRefusal::InvalidId => f.write_str("invalid quarantine transaction id"),
            RestoreRefusal::Unknown(id) => write!(f, "unknown transaction: {id}"),
            RestoreRefusal::Locked(why) => write!(f, "quarantine could not be locked: {why}"),
            RestoreRefusal::ManifestUnreadable(why) => {
                write!(f, "manifest could not be read: {why}")
            }
            RestoreRefusal::Purged(id) => write!(f, "transaction {id} was purged"),
            RestoreRefusal::OtherWorkspace(id) => {
                write!(f, "transaction {id} belongs to another workspace")
            }
            RestoreRefusal::NothingToUndo => {
                f.write_str("nothing to undo: no restorable transaction in this workspace")
            }
            RestoreRefusal::NotHeld(text) => write!(
                f,
                "`{text}` names no transaction of this workspace, and no restorable item is at \
                 that path"
            ),
            RestoreRefusal::Unsafe(why) => f.write_str(why),
        }
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for RestoreRefusal {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RestoreRefusal".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "Why the restore was refused before anything moved.",
            "type": "string",
        })
    }
}

impl Serialize for RestoreRefusal {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// What to restore and where.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RestoreOptions {
    /// Preserve occupants in a new transaction instead of reporting them as conflicts.
    pub force: bool,
    /// Restore into `<to>/<workspace-relative path>` instead of the original places. Must be
    /// absolute; created if missing; may lie outside the workspace (never in the quarantine).
    pub to: Option<PathBuf>,
    /// Restore only these workspace-relative paths: items at or below them, or subtrees of a
    /// quarantined directory.
    pub paths: Vec<PathBuf>,
}

/// The result of one restore (`restore --json`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RestoreReport {
    /// The transaction id as given.
    pub txid: String,
    /// No errors and no conflicts.
    pub ok: bool,
    /// Everything was already back; nothing changed.
    pub already_restored: bool,
    /// What was put back (targets, physical spelling).
    pub restored: Vec<String>,
    /// Occupied targets that were left alone.
    pub conflicts: Vec<String>,
    /// Error lines (a refusal's message is here too).
    pub errors: Vec<String>,
    /// New transactions that preserved occupants (`--force`).
    pub backup_txids: Vec<String>,
    /// Items an earlier restore of this transaction had already put back (their quarantine
    /// copies are gone because of it); not errors.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub previously_restored: Vec<String>,
    /// What a line moved out of the workspace and changed there: its name in the workspace
    /// came back from the copy kept before the line ran, and this is left where it is
    /// (outside the workspace, the guard moves nothing away).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left_outside: Vec<String>,
    /// Why the restore was refused before anything moved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<RestoreRefusal>,
}

impl RestoreReport {
    /// An empty report for `txid`.
    fn new(txid: &str) -> RestoreReport {
        RestoreReport {
            txid: txid.to_owned(),
            ok: false,
            already_restored: false,
            restored: Vec::new(),
            conflicts: Vec::new(),
            errors: Vec::new(),
            backup_txids: Vec::new(),
            previously_restored: Vec::new(),
            left_outside: Vec::new(),
            error: None,
        }
    }

    /// A refusal: nothing moved. The message is also an error line, so that callers that
    /// look only at `errors` (exit codes) see it.
    pub fn refused(txid: &str, error: RestoreRefusal) -> RestoreReport {
        RestoreReport {
            errors: vec![error.to_string()],
            error: Some(error),
            ..RestoreReport::new(txid)
        }
    }
}

/// Restores the items of a transaction that are not files in the quarantine: git snapshots
/// and kept refs, which their compensations put back.
pub trait OtherItems {
    /// Restores `tx`'s other items; called with the writers' lock held.
    fn restore(
        &self,
        store: &Quarantine,
        tx: &Transaction,
        request: &mut OtherRequest<'_>,
    ) -> OtherOutcome;
}

/// What a restore of other items may do: overwrite (after keeping the current value in a
/// new transaction, as `--force` does for files), and the ids of such transactions.
pub struct OtherRequest<'a> {
    /// `--force`: a ref that points elsewhere now is kept in a new transaction, then reset.
    pub force: bool,
    /// The id of each new (backup) transaction.
    pub new_txid: &'a mut dyn FnMut() -> TxId,
    /// `--path`: restore only these workspace-relative paths (empty: everything). Only
    /// compensations that can restore part of what they keep (checkpoints) act on a
    /// partial restore; the others do nothing then.
    pub paths: &'a [PathBuf],
}

impl std::fmt::Debug for OtherRequest<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OtherRequest")
            .field("force", &self.force)
            .finish_non_exhaustive()
    }
}

/// What [`OtherItems::restore`] did, one line per item.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OtherOutcome {
    /// What is back in place (`stash:<sha>`, `ref:<name>`, …).
    pub restored: Vec<String>,
    /// What holds something else now and was left untouched.
    pub conflicts: Vec<String>,
    /// Failures.
    pub errors: Vec<String>,
    /// New transactions that kept what a forced restore replaced.
    pub backup_txids: Vec<String>,
}

/// A restore of files only: a transaction's other items are reported as not restorable.
#[derive(Debug, Clone, Copy, Default)]
pub struct FilesOnly;

impl OtherItems for FilesOnly {
    fn restore(
        &self,
        _store: &Quarantine,
        tx: &Transaction,
        _request: &mut OtherRequest<'_>,
    ) -> OtherOutcome {
        OtherOutcome {
            errors: tx
                .snapshots
                .iter()
                .filter_map(|s| s.sha.as_ref())
                .map(|sha| format!("{sha}: git items are restored through agent-guard-recovery"))
                .collect(),
            ..OtherOutcome::default()
        }
    }
}

/// What one restore did, with paths kept exact for the journal.
#[derive(Debug, Default)]
struct Outcome {
    restored: Vec<PathBuf>,
    conflicts: Vec<PathBuf>,
    errors: Vec<String>,
    backup_txids: Vec<String>,
    /// What earlier restores had already put back.
    previously: Vec<PathBuf>,
    /// What a line moved out and changed there, left where it is.
    left_outside: Vec<PathBuf>,
    /// Set when the restore was refused before anything moved.
    refusal: Option<RestoreRefusal>,
}

impl Outcome {
    fn refused(error: String) -> Outcome {
        Outcome {
            errors: vec![error.clone()],
            refusal: Some(RestoreRefusal::Unsafe(error)),
            ..Outcome::default()
        }
    }

    /// The report of the restore of `txid` that this outcome describes.
    fn into_report(self, txid: &str) -> RestoreReport {
        let outcome = self;
        let text =
            |paths: Vec<PathBuf>| paths.into_iter().map(|p| p.display().to_string()).collect();
        RestoreReport {
            ok: outcome.errors.is_empty() && outcome.conflicts.is_empty(),
            restored: text(outcome.restored),
            conflicts: text(outcome.conflicts),
            errors: outcome.errors,
            backup_txids: outcome.backup_txids,
            previously_restored: text(outcome.previously),
            left_outside: text(outcome.left_outside),
            error: outcome.refusal,
            ..RestoreReport::new(txid)
        }
    }
}

impl Quarantine {
    /// Restores transaction `txid`. Takes the writers' lock, restores, appends one `restore`
    /// record.
    ///
    /// The transaction's files come back from the quarantine; its other items (git
    /// snapshots, kept refs) are handed to `others`, under the same lock and into the same
    /// record. `new_txid` supplies the id of each preservation transaction (`--force`); an id
    /// that already exists is refused and nothing is preserved. `progress` reports
    /// cross-device copies. Never fails as a whole: every problem is in the report
    /// (`ok: false`).
    pub fn restore(
        &self,
        txid: &str,
        options: &RestoreOptions,
        new_txid: &mut dyn FnMut() -> TxId,
        progress: &dyn Progress,
        others: &dyn OtherItems,
    ) -> RestoreReport {
        let Ok(id) = TxId::parse(txid) else {
            return RestoreReport::refused(txid, RestoreRefusal::InvalidId);
        };
        let unknown = || RestoreReport::refused(txid, RestoreRefusal::Unknown(id.to_string()));
        // Look before locking, so an unknown id creates nothing (not even the lock file).
        if !self.trash().is_dir() || !self.manifest_mentions(&id) {
            return unknown();
        }
        let _lock = match self.lock() {
            Ok(lock) => lock,
            Err(error) => {
                return RestoreReport::refused(txid, RestoreRefusal::Locked(error.to_string()));
            }
        };
        // Best effort: the transaction view already counts interrupted moves whose copy
        // exists, and a full disk must not keep anyone from getting their files back.
        let _ = self.reconcile_locked();
        let index = match TxLines::load(&self.manifest()) {
            Ok(index) => index,
            Err(error) => {
                return RestoreReport::refused(
                    txid,
                    RestoreRefusal::ManifestUnreadable(error.to_string()),
                );
            }
        };
        let Some(tx) = index.transaction(id.as_str()) else {
            return unknown();
        };
        let tx = &tx;
        if let Some(refused) = self.not_restorable(txid, &id, tx, options) {
            return refused;
        }
        let known_ids = index.ids().map(str::to_owned).collect();
        let mut outcome = if tx.items.is_empty() && !tx.snapshots.is_empty() {
            Outcome::default()
        } else {
            self.restore_checked(&id, tx, options, known_ids, new_txid, progress)
                .unwrap_or_else(Outcome::refused)
        };
        // Items that are not files in the quarantine (git snapshots, kept refs): their
        // compensations restore them (whole-transaction restores only).
        if !tx.snapshots.is_empty() && outcome.refusal.is_none() && options.to.is_some() {
            outcome.errors.push(format!(
                "{} git snapshot(s) or checkpoint(s) of transaction {id} were not restored: \
                 --to restores quarantined files only; run the restore again without --to",
                tx.snapshots.len()
            ));
        }
        if !tx.snapshots.is_empty() && outcome.refusal.is_none() && options.to.is_none() {
            let mut request = OtherRequest {
                force: options.force,
                new_txid,
                paths: &options.paths,
            };
            let others = others.restore(self, tx, &mut request);
            outcome.backup_txids.extend(others.backup_txids);
            outcome
                .restored
                .extend(others.restored.into_iter().map(PathBuf::from));
            outcome
                .conflicts
                .extend(others.conflicts.into_iter().map(PathBuf::from));
            outcome.errors.extend(others.errors);
        }
        let record = self.restore_record(&id, options, &outcome);
        if self.append(&[record]).is_err() {
            outcome
                .errors
                .push("restore journal could not be stored".to_owned());
        }
        outcome.into_report(txid)
    }

    /// The refusal of a restore of `tx` (spelled `txid`) with `options`, or its report when
    /// there is nothing left to restore; `None` when it may go ahead.
    fn not_restorable(
        &self,
        txid: &str,
        id: &TxId,
        tx: &Transaction,
        options: &RestoreOptions,
    ) -> Option<RestoreReport> {
        if tx.purged {
            return Some(RestoreReport::refused(
                txid,
                RestoreRefusal::Purged(id.to_string()),
            ));
        }
        if !self.owns(tx) {
            return Some(RestoreReport::refused(
                txid,
                RestoreRefusal::OtherWorkspace(id.to_string()),
            ));
        }
        if tx.restorable_items() == 0
            && tx
                .last_restore
                .as_ref()
                .is_some_and(|r| r.errors.is_empty() && r.conflicts.is_empty())
        {
            return Some(RestoreReport {
                ok: true,
                already_restored: true,
                ..RestoreReport::new(txid)
            });
        }
        // Git snapshots and workspace checkpoints put back into their original places only.
        if options.to.is_some() && tx.items.is_empty() && !tx.snapshots.is_empty() {
            return Some(RestoreReport::refused(
                txid,
                RestoreRefusal::Unsafe(format!(
                    "transaction {id} holds no quarantined files, only a git snapshot or a \
                     workspace checkpoint, which restore into their original places only: \
                     run it without --to (add --force to keep the current versions in a new \
                     transaction), or --path to restore part of it"
                )),
            ));
        }
        None
    }

    /// The `restore` record of transaction `id` restored with `options`, as `outcome` says.
    fn restore_record(&self, id: &TxId, options: &RestoreOptions, outcome: &Outcome) -> Record {
        Record::Restore(Restored {
            txid: id.to_string(),
            force: options.force,
            restored: outcome.restored.iter().map(StoredPath::new).collect(),
            conflicts: outcome.conflicts.iter().map(StoredPath::new).collect(),
            errors: outcome.errors.clone(),
            backup_txids: outcome.backup_txids.clone(),
            to: options.to.as_ref().map(StoredPath::new),
            paths: options.paths.iter().map(StoredPath::new).collect(),
            ts: self.now(),
            schema: MANIFEST_SCHEMA,
        })
    }

    /// The restore proper, once the transaction is known to be ours and not done. `Err` is a
    /// refusal before anything moved.
    fn restore_checked(
        &self,
        id: &TxId,
        tx: &Transaction,
        options: &RestoreOptions,
        known_ids: HashSet<String>,
        new_txid: &mut dyn FnMut() -> TxId,
        progress: &dyn Progress,
    ) -> Result<Outcome, String> {
        let bounds = self.bounds(id)?;
        let destination = match &options.to {
            None => Destination {
                lexical: None,
                physical: bounds.workspace.clone(),
            },
            Some(dir) => {
                let invalid = || format!("invalid restore destination: {}", dir.display());
                let lexical = normalise_directory(dir).ok_or_else(invalid)?;
                let physical = paths::resolve_existing(&lexical).ok_or(TARGET_OUTSIDE)?;
                if bounds.inside_quarantine(&lexical) || bounds.inside_quarantine(&physical) {
                    return Err(paths::TARGET_OVERLAPS.to_owned());
                }
                Destination {
                    lexical: Some(lexical),
                    physical,
                }
            }
        };
        // A preservation's restore replaces what the command left with the kept version, and
        // keeps the current one in a new transaction first, as `--force` does.
        let force = options.force || tx.is_preserve();
        let checked = plan(&bounds, &tx.items, &destination, &options.paths, force)?;
        if let Some(dir) = &destination.lexical {
            fs_err::create_dir_all(&destination.physical).map_err(|e| e.to_string())?;
            if paths::resolve_existing(dir).as_ref() != Some(&destination.physical) {
                return Err(TARGET_OUTSIDE.to_owned());
            }
        }
        let mut restorer = Restorer {
            store: self,
            bounds: &bounds,
            base: destination.physical,
            txid: id,
            force,
            in_place: tx
                .items
                .iter()
                .map(|item| item.kept_from.is_some_and(|kept| !kept.by_name))
                .collect(),
            kept_identity: tx
                .items
                .iter()
                .map(|item| match item.kept_from {
                    Some(kept) if kept.by_name => kept.dev.zip(kept.ino),
                    _ => None,
                })
                .collect(),
            origins: tx.items.iter().map(|item| item.origin.clone()).collect(),
            restored_before: tx.restored_paths.clone(),
            previously: Vec::new(),
            left_outside: Vec::new(),
            known_ids,
            new_txid,
            progress,
            sources: checked.sources,
            touched: HashSet::new(),
            emptied: Vec::new(),
            restored: Vec::new(),
            conflicts: Vec::new(),
            errors: Vec::new(),
            backup_txids: Vec::new(),
            occupants_kept: HashSet::new(),
        };
        // A line's moves go back first: that frees the names their kept versions return to.
        let moves = tx.is_move() && options.to.is_none();
        let selected = |path: &Path| {
            options.paths.is_empty()
                || options
                    .paths
                    .iter()
                    .any(|p| path.starts_with(bounds.workspace.join(p)))
        };
        if moves {
            restorer.moves_back(tx, &selected);
        }
        restorer.keep_occupants(&checked.units);
        for unit in &checked.units {
            restorer.run(unit);
        }
        if moves {
            restorer.shapes_back(tx, &selected);
        }
        restorer.clean_up();
        Ok(Outcome {
            restored: restorer.restored,
            conflicts: restorer.conflicts,
            errors: restorer.errors,
            backup_txids: restorer.backup_txids,
            previously: restorer.previously,
            left_outside: restorer.left_outside,
            refusal: None,
        })
    }

    /// The physical places a restore of `id` is checked against. The transaction directory
    /// must be a plain directory directly under the physical quarantine (or absent).
    fn bounds(&self, id: &TxId) -> Result<Bounds, String> {
        let workspace = fs_err::canonicalize(self.workspace()).map_err(|_| TARGET_OUTSIDE)?;
        let trash_physical = fs_err::canonicalize(self.trash()).map_err(|_| SOURCE_OUTSIDE)?;
        if RESERVED_IDS.contains(&id.as_str()) {
            return Err(SOURCE_OUTSIDE.to_owned());
        }
        let tx_dir = trash_physical.join(id.as_str());
        match tx_dir.symlink_metadata() {
            Ok(metadata) if metadata.is_dir() => {}
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            _ => return Err(SOURCE_OUTSIDE.to_owned()),
        }
        Ok(Bounds {
            workspace,
            trash: self.trash().to_path_buf(),
            trash_physical,
            tx_dir,
        })
    }

    /// Returns `false` if the transaction records another workspace (in neither spelling
    /// this one). Without a recorded workspace, the item boundary checks decide.
    fn owns(&self, tx: &Transaction) -> bool {
        let Some(recorded) = &tx.workspace else {
            return true;
        };
        recorded == self.workspace()
            || fs_err::canonicalize(recorded)
                .ok()
                .is_some_and(|r| fs_err::canonicalize(self.workspace()).ok() == Some(r))
    }

    /// Returns `true` if the manifest may name `id`: a quick, unlocked byte search for the
    /// quoted id (ids are `[A-Za-z0-9_-]`), so an unknown id creates nothing. A
    /// false positive only costs the locked lookup that follows.
    fn manifest_mentions(&self, id: &TxId) -> bool {
        let needle = format!("\"{}\"", id.as_str());
        std::fs::read(self.manifest().path())
            .is_ok_and(|bytes| memchr::memmem::find(&bytes, needle.as_bytes()).is_some())
    }

    /// The newest transaction of this workspace that still has something to restore
    /// (what `undo` restores). Reads the manifest under the readers' lock.
    ///
    /// # Errors
    /// The lock or the manifest could not be read.
    pub fn newest_restorable(&self) -> Result<Option<String>, QuarantineError> {
        let _lock = self.lock_shared()?;
        let index = TxLines::load(&self.manifest())?;
        Ok(index.newest_restorable(self.workspace()).map(|t| t.txid))
    }
}
