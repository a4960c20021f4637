//! Crash recovery: resolve intents that have no outcome record against the filesystem.
//!
//! Runs under the writers' lock before every relocation and whenever `status` asks. Every
//! open intent ends with an outcome record, so each item is either at its origin or in the
//! quarantine with a complete record — never nowhere:
//!
//! | quarantine copy | origin  | journal            | outcome                                  |
//! |-----------------|---------|--------------------|------------------------------------------|
//! | present         | absent  | any                | `relocate` (recovered)                   |
//! | absent          | present | any                | `relocate-failed` (nothing moved)        |
//! | present         | present | `copy-verified`    | `relocate`, origin leftovers kept        |
//! | present         | present | no `copy-verified` | `relocate`, the origin was recreated     |
//! | absent          | absent  | any                | `relocate-failed` (vanished; reported)   |
//!
//! Temporary copies of interrupted cross-device moves (`.agent-guard-partial-*`) are our own
//! incomplete data and are removed; the origin they were copied from is intact.
//!
//! A `preserve-intent` (a copy of a file that stays in place) is resolved the same way: its
//! copy is renamed into place only once verified, so a copy there is `preserve`
//! (recovered), and no copy is `preserve-failed` — the file itself was never touched by the
//! guard, and the command it was kept for did not run (its check never answered).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::QuarantineError;
use crate::read_from::Closed;
use crate::records::{
    Failed, Intent, MANIFEST_SCHEMA, Method, PreserveIntent, Preserved, Record, Relocated,
};
use crate::relocate::{PARTIAL_PREFIX, partial_sibling};
use crate::store::Quarantine;
use agent_guard_fsops as fsops;

/// What a reconciliation resolved.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Reconciled {
    /// Items found in the quarantine and recorded as relocated.
    pub relocated: usize,
    /// Items found still at their origin and recorded as not moved.
    pub not_moved: usize,
    /// Items whose quarantine copy and origin both exist.
    pub both_kept: usize,
    /// Items found nowhere (removed by something else).
    pub vanished: usize,
}

impl Reconciled {
    /// The number of intents resolved.
    pub fn total(&self) -> usize {
        self.relocated + self.not_moved + self.both_kept + self.vanished
    }
}

impl Quarantine {
    /// Resolves interrupted relocations under the writers' lock. A missing quarantine has
    /// nothing to reconcile.
    pub fn reconcile(&self) -> Result<Reconciled, QuarantineError> {
        if !self.trash().is_dir() {
            return Ok(Reconciled::default());
        }
        let _lock = self.lock()?;
        self.reconcile_locked()
    }

    /// [`Quarantine::reconcile`] for a caller that holds the writers' lock.
    pub(crate) fn reconcile_locked(&self) -> Result<Reconciled, QuarantineError> {
        self.reconcile_closing().map(|(summary, _)| summary)
    }

    /// [`Quarantine::reconcile_locked`], also returning the manifest offset before which
    /// every intent is now closed. Only the manifest after its checkpoint is read.
    pub(crate) fn reconcile_closing(&self) -> Result<(Reconciled, Closed), QuarantineError> {
        crate::links::settle(self.trash());
        let manifest = self.manifest();
        let unread = manifest.read_unread()?;
        let closed = unread.closed_after_reconcile();
        let records = crate::manifest::parse(&unread.bytes);
        let OpenIntents {
            open,
            open_preserves,
            verified,
        } = open_intents(&records);
        let mut summary = Reconciled::default();
        let mut outcomes = Vec::new();
        for (key, intent) in open {
            remove_partial(&intent.trash_path.0);
            let in_quarantine = intent.trash_path.0.symlink_metadata().is_ok();
            let at_origin = intent.origin_path.0.symlink_metadata().is_ok();
            let record = match (in_quarantine, at_origin) {
                (true, false) => {
                    summary.relocated += 1;
                    relocated(&intent, verified.contains(&key), false, self.now())
                }
                (true, true) => {
                    summary.both_kept += 1;
                    relocated(&intent, verified.contains(&key), true, self.now())
                }
                (false, true) => {
                    summary.not_moved += 1;
                    failed(
                        &intent,
                        "interrupted before the move; the item is at its origin",
                        self.now(),
                    )
                }
                (false, false) => {
                    summary.vanished += 1;
                    failed(
                        &intent,
                        "vanished: neither the origin nor the quarantine copy exists",
                        self.now(),
                    )
                }
            };
            outcomes.push(record);
        }
        for intent in open_preserves.into_values() {
            remove_partial(&intent.trash_path.0);
            if intent.trash_path.0.symlink_metadata().is_ok() {
                summary.relocated += 1;
                outcomes.push(Record::Preserve(Preserved {
                    txid: intent.txid.clone(),
                    origin_path: intent.origin_path.clone(),
                    trash_path: intent.trash_path.clone(),
                    method: None,
                    size: intent.size,
                    mode: None,
                    dev: None,
                    ino: None,
                    digest: None,
                    // How it was kept is not recorded yet: by name is safe for every way.
                    by_name: true,
                    recovered_from_intent: true,
                    ts: self.now(),
                    schema: MANIFEST_SCHEMA,
                }));
            } else {
                summary.not_moved += 1;
                outcomes.push(Record::PreserveFailed(Failed {
                    txid: intent.txid.clone(),
                    origin_path: intent.origin_path.clone(),
                    trash_path: intent.trash_path.clone(),
                    reason: "interrupted before the copy; the file is untouched".to_owned(),
                    recovered_from_intent: true,
                    ts: self.now(),
                    schema: MANIFEST_SCHEMA,
                }));
            }
        }
        if !outcomes.is_empty() {
            self.append(&outcomes)?;
            // That append was durable: the outcomes the checkpoint relies on are on disk.
            manifest.store_checkpoint(closed);
        }
        Ok((summary, closed))
    }
}

/// The intents of a manifest's records that no outcome record closes, and the relocations
/// whose copy was verified.
struct OpenIntents {
    /// Relocation intents, by transaction and origin.
    open: BTreeMap<(String, PathBuf), Intent>,
    /// Preservation intents, by transaction and origin.
    open_preserves: BTreeMap<(String, PathBuf), PreserveIntent>,
    /// The relocations (transaction and origin) whose copy was verified.
    verified: BTreeSet<(String, PathBuf)>,
}

/// Finds the open intents of `records`.
fn open_intents(records: &[Record]) -> OpenIntents {
    let mut open: BTreeMap<(String, PathBuf), Intent> = BTreeMap::new();
    let mut open_preserves: BTreeMap<(String, PathBuf), PreserveIntent> = BTreeMap::new();
    let mut verified: BTreeSet<(String, PathBuf)> = BTreeSet::new();
    for record in records {
        match record {
            Record::RelocateIntent(r) => {
                open.insert((r.txid.clone(), r.origin_path.0.clone()), r.clone());
            }
            Record::PreserveIntent(r) => {
                open_preserves.insert((r.txid.clone(), r.origin_path.0.clone()), r.clone());
            }
            Record::Preserve(Preserved {
                txid, origin_path, ..
            })
            | Record::PreserveFailed(Failed {
                txid, origin_path, ..
            }) => {
                open_preserves.remove(&(txid.clone(), origin_path.0.clone()));
            }
            Record::CopyVerified(r) => {
                verified.insert((r.txid.clone(), r.origin_path.0.clone()));
            }
            Record::Relocate(Relocated {
                txid, origin_path, ..
            })
            | Record::RelocateFailed(Failed {
                txid, origin_path, ..
            }) => {
                open.remove(&(txid.clone(), origin_path.0.clone()));
            }
            _ => {}
        }
    }
    OpenIntents {
        open,
        open_preserves,
        verified,
    }
}

fn relocated(intent: &Intent, copied: bool, origin_leftovers: bool, ts: String) -> Record {
    Record::Relocate(Relocated {
        txid: intent.txid.clone(),
        origin_path: intent.origin_path.clone(),
        trash_path: intent.trash_path.clone(),
        kind: intent.kind,
        size: None,
        mode: None,
        mtime: None,
        method: copied.then_some(Method::Copy),
        digest: None,
        recovered_from_intent: true,
        origin_leftovers,
        ts,
        schema: MANIFEST_SCHEMA,
    })
}

fn failed(intent: &Intent, reason: &str, ts: String) -> Record {
    Record::RelocateFailed(Failed {
        txid: intent.txid.clone(),
        origin_path: intent.origin_path.clone(),
        trash_path: intent.trash_path.clone(),
        reason: reason.to_owned(),
        recovered_from_intent: true,
        ts,
        schema: MANIFEST_SCHEMA,
    })
}

/// Removes the temporary copy of an interrupted cross-device move, if any.
fn remove_partial(dest: &Path) {
    let partial = partial_sibling(dest);
    debug_assert!(
        partial
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with(PARTIAL_PREFIX))
    );
    match partial.symlink_metadata() {
        Ok(metadata) if metadata.is_dir() => {
            let _ = fsops::remove_tree(&partial);
        }
        Ok(_) => {
            let _ = fsops::remove_file(&partial);
        }
        Err(_) => {}
    }
}
