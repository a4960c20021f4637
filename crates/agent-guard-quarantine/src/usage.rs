//! Quarantine usage: files and bytes on disk, and how much of it is restorable.
//!
//! One walk of the quarantine (no per-item manifest reads), so `status` stays interactive
//! with 10,000 transactions. Symlinks count as files of 0 bytes and are never followed; the
//! quarantine's own nested `.git` is not counted. Entries that vanish or cannot be read
//! during the walk (a concurrent restore) are skipped: usage is an estimate, not a ledger.

use std::path::{Path, PathBuf};

use serde::Serialize;

use agent_guard_types::TxId;

use crate::error::QuarantineError;
use crate::gc::{GcPlan, GcPolicy};
use crate::reconcile::Reconciled;
use crate::records::Record;
use crate::store::Quarantine;
use crate::transactions::{Transaction, transactions};

/// What the quarantine holds (`status --json` `usage`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Usage {
    /// Files, symlinks and other non-directories under the quarantine (journals included).
    pub files: u64,
    /// Their total size in bytes (symlinks count 0).
    pub bytes: u64,
    /// Transactions not purged by gc.
    pub transactions: usize,
    /// Transactions with at least one restorable item.
    pub restorable_transactions: usize,
    /// Restorable items over all transactions.
    pub restorable_items: usize,
    /// Bytes of the workspace checkpoints' private object store (`checkpoints/`, counted in
    /// `bytes` too): contents are stored once and shared by every checkpoint.
    pub checkpoint_bytes: u64,
    /// Content-addressed objects in that store; gc frees those only purged checkpoints held.
    pub checkpoint_objects: u64,
}

/// Everything `status` reports about the quarantine, gathered under one lock.
#[derive(Debug, Clone, Default)]
pub struct Overview {
    /// Interrupted relocations this call resolved.
    pub reconciled: Reconciled,
    /// What the quarantine holds.
    pub usage: Usage,
    /// What gc would purge under the policy (`None` when there is no quarantine yet).
    pub plan: Option<GcPlan>,
    /// Items ever recovered from an intent by crash reconciliation.
    pub recovered_total: usize,
}

/// Files and bytes found by one walk.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Totals {
    /// Non-directories.
    pub(crate) files: u64,
    /// Sizes of regular files.
    pub(crate) bytes: u64,
}

impl Quarantine {
    /// Counts what the quarantine holds. Takes the readers' lock (do not call it while
    /// holding the writers' lock). A missing quarantine holds nothing.
    pub fn usage(&self) -> Result<Usage, QuarantineError> {
        let _lock = self.lock_shared()?;
        let transactions = self.transactions()?;
        Ok(self.usage_of(&transactions))
    }

    /// Reconciles interrupted relocations, then reports usage, the gc plan under `policy` and
    /// how many items reconciliation ever recovered, all under one writers' lock and one
    /// manifest read after reconciling. A missing quarantine holds nothing.
    pub fn overview(&self, policy: &GcPolicy) -> Result<Overview, QuarantineError> {
        if !self.trash().is_dir() {
            return Ok(Overview::default());
        }
        let _lock = self.lock()?;
        let reconciled = self.reconcile_locked()?;
        let records = self.manifest().read()?;
        let recovered_total = records
            .iter()
            .filter(|r| match r {
                Record::Relocate(r) => r.recovered_from_intent,
                Record::RelocateFailed(r) => r.recovered_from_intent,
                _ => false,
            })
            .count();
        let transactions = transactions(&records);
        Ok(Overview {
            reconciled,
            usage: self.usage_of(&transactions),
            plan: Some(self.plan_of(&transactions, policy)),
            recovered_total,
        })
    }

    /// [`Quarantine::usage`] over transactions already read, without locking.
    pub(crate) fn usage_of(&self, transactions: &[Transaction]) -> Usage {
        let totals = walk(self.trash(), true);
        let checkpoints = self.trash().join(crate::layout::CHECKPOINTS_DIR_NAME);
        let mut usage = Usage {
            files: totals.files,
            bytes: totals.bytes,
            checkpoint_bytes: walk(&checkpoints, false).bytes,
            checkpoint_objects: objects(&checkpoints.join("objects")),
            ..Usage::default()
        };
        for tx in transactions.iter().filter(|t| !t.purged) {
            usage.transactions += 1;
            let restorable = tx.restorable_items();
            if restorable > 0 {
                usage.restorable_transactions += 1;
                usage.restorable_items += restorable;
            }
        }
        usage
    }

    /// The size of a transaction's payload: regular files under `<trash>/<txid>`, symlinks
    /// not followed. A transaction directory that is itself a symlink counts 0.
    pub fn tx_bytes(&self, txid: &TxId) -> u64 {
        walk(&self.tx_dir(txid), false).bytes
    }
}

/// The objects of a git object directory: loose ones, and those every pack's index lists
/// (a pack without a readable version-2 index is not used by git, and counts nothing).
fn objects(objects: &Path) -> u64 {
    loose_objects(objects) + packed_objects(&objects.join("pack"))
}

fn packed_objects(packs: &Path) -> u64 {
    let Ok(entries) = fs_err::read_dir(packs) else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "idx"))
        .map(|e| index_count(&e.path()))
        .sum()
}

/// The object count of a version-2 pack index: the last of its 256 fan-out entries.
fn index_count(idx: &Path) -> u64 {
    use std::io::Read as _;
    let mut head = [0u8; 8 + 256 * 4];
    let read = fs_err::File::open(idx).and_then(|mut file| file.read_exact(&mut head));
    if read.is_err() || head[..8] != [0xff, b't', b'O', b'c', 0, 0, 0, 2] {
        return 0;
    }
    let last: [u8; 4] = head[8 + 255 * 4..].try_into().unwrap_or_default();
    u64::from(u32::from_be_bytes(last))
}

/// The loose objects of a git object directory (files under its two-hex-digit fan-out).
fn loose_objects(objects: &Path) -> u64 {
    let Ok(fanout) = fs_err::read_dir(objects) else {
        return 0;
    };
    fanout
        .filter_map(Result::ok)
        .filter(|d| {
            let name = d.file_name();
            let name = name.as_encoded_bytes();
            name.len() == 2 && name.iter().all(u8::is_ascii_hexdigit)
        })
        .map(|d| walk(&d.path(), false).files)
        .sum()
}

/// Walks `root` without following symlinks (an explicit stack: no recursion limit). With
/// `skip_git`, the `.git` directly under `root` is left out.
pub(crate) fn walk(root: &Path, skip_git: bool) -> Totals {
    let mut totals = Totals::default();
    if !root.symlink_metadata().is_ok_and(|m| m.is_dir()) {
        return totals;
    }
    let mut pending: Vec<PathBuf> = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = fs_err::read_dir(&dir) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            if file_type.is_dir() {
                if !(skip_git && dir == root && entry.file_name() == ".git") {
                    pending.push(entry.path());
                }
                continue;
            }
            totals.files += 1;
            if file_type.is_file() {
                totals.bytes += entry.metadata().map_or(0, |m| m.len());
            }
        }
    }
    totals
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_count_as_empty_files_and_git_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs_err::create_dir_all(root.join("t/a/b")).unwrap();
        fs_err::create_dir_all(root.join(".git/objects")).unwrap();
        fs_err::write(root.join(".git/objects/x"), vec![0; 100]).unwrap();
        fs_err::write(root.join("t/a/b/f"), vec![0; 10]).unwrap();
        fs_err::write(root.join("manifest.jsonl"), vec![0; 5]).unwrap();
        std::os::unix::fs::symlink(root.join(".git"), root.join("t/link")).unwrap();
        assert_eq!(
            walk(root, true),
            Totals {
                files: 3,
                bytes: 15
            }
        );
        assert_eq!(
            walk(&root.join("t"), false),
            Totals {
                files: 2,
                bytes: 10
            }
        );
        assert_eq!(walk(&root.join("t/link"), false), Totals::default());
        assert_eq!(walk(&root.join("missing"), false), Totals::default());
    }
}
