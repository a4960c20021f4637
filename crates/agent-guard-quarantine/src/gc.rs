//! Retention: which transactions gc may purge (the plan), and purging them (execute).
//!
//! Thresholds only *mark* transactions eligible; purging is always an explicit request
//! (reference 5.9). A transaction younger than the grace window is never eligible and never
//! purged, even by explicit id, so gc cannot race a fresh relocation. The whole selection is
//! validated before anything is deleted, and a `purged` tombstone is appended only after the
//! transaction directory is gone. Purged transactions leave the inventory for good: a
//! directory recreated under a purged id is neither walked nor purged ("unmanaged").

use std::collections::HashMap;
use std::path::PathBuf;

use chrono::{DateTime, TimeDelta, Utc};
use serde::Serialize;

use agent_guard_types::TxId;

use crate::error::QuarantineError;
use crate::faults::FaultPoint;
use crate::records::{MANIFEST_SCHEMA, Purged, Record};
use crate::store::Quarantine;
use crate::transactions::Transaction;
use agent_guard_fsops as fsops;

/// Names under the quarantine root that are never transactions, whatever the manifest says
/// (a hostile record must not make gc purge, or restore empty, the session directory).
pub(crate) const RESERVED_IDS: [&str; 4] = [
    crate::layout::SESSIONS_DIR_NAME,
    crate::layout::CHECKPOINTS_DIR_NAME,
    crate::lock::LOCK_FILE_NAME,
    crate::read_from::READ_FROM_FILE_NAME,
];

/// The retention policy of one gc run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GcPolicy {
    /// Transactions older than this many days are eligible (`age`).
    pub retention_days: u32,
    /// While the quarantine is larger, the oldest transactions are eligible (`capacity`).
    pub max_bytes: u64,
    /// Transactions younger than this many minutes are never eligible nor purgeable.
    pub grace_minutes: u32,
    /// The current time.
    pub now: DateTime<Utc>,
}

impl GcPolicy {
    /// The reference tool's retention period.
    pub const DEFAULT_RETENTION_DAYS: u32 = 30;
    /// The reference tool's size limit, 5 GiB.
    pub const DEFAULT_MAX_BYTES: u64 = 5 * 1024 * 1024 * 1024;
    /// The default grace window.
    pub const DEFAULT_GRACE_MINUTES: u32 = 60;

    /// The default policy at `now`.
    pub fn defaults(now: DateTime<Utc>) -> GcPolicy {
        GcPolicy {
            retention_days: GcPolicy::DEFAULT_RETENTION_DAYS,
            max_bytes: GcPolicy::DEFAULT_MAX_BYTES,
            grace_minutes: GcPolicy::DEFAULT_GRACE_MINUTES,
            now,
        }
    }

    /// Returns `true` if a transaction created at `created` is inside the grace window (a
    /// timestamp in the future counts as fresh too).
    fn fresh(&self, created: Option<DateTime<Utc>>) -> bool {
        let Some(created) = created else { return false };
        let window = TimeDelta::try_minutes(i64::from(self.grace_minutes));
        window
            .and_then(|w| self.now.checked_sub_signed(w))
            .is_none_or(|cutoff| created > cutoff)
    }

    /// Returns `true` if a transaction created at `created` is past the retention period.
    fn expired(&self, created: Option<DateTime<Utc>>) -> bool {
        let Some(created) = created else { return false };
        let period = TimeDelta::try_days(i64::from(self.retention_days));
        period
            .and_then(|p| self.now.checked_sub_signed(p))
            .is_some_and(|cutoff| created < cutoff)
    }
}

/// A transaction gc may purge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GcEntry {
    /// The id.
    pub txid: String,
    /// When it started (`tx-start`, or its first snapshot).
    pub ts: Option<String>,
    /// Its payload size.
    pub bytes: u64,
    /// Its recorded items (relocated items and snapshots).
    pub items: usize,
    /// Why it is eligible.
    pub reason: GcReason,
}

/// Why a transaction is eligible for gc.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum GcReason {
    /// Older than the retention period.
    Age,
    /// The oldest while the quarantine is over its size limit.
    Capacity,
}

impl GcReason {
    /// The stable name (`age`, `capacity`).
    pub const fn as_str(self) -> &'static str {
        match self {
            GcReason::Age => "age",
            GcReason::Capacity => "capacity",
        }
    }
}

impl std::fmt::Display for GcReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What gc would purge (`gc --json`, the default mode).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GcPlan {
    /// Transactions not purged yet.
    pub transactions: usize,
    /// Their total payload size.
    pub total_bytes: u64,
    /// The eligible ones: by age (oldest first), then by capacity (oldest first).
    pub eligible: Vec<GcEntry>,
    /// What would remain after purging every eligible transaction.
    pub remaining_bytes_after_gc: u64,
    /// The policy's retention period.
    pub retention_days: u32,
    /// The policy's size limit.
    pub max_bytes: u64,
    /// The policy's grace window.
    pub grace_minutes: u32,
}

/// Which transactions to purge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GcSelection {
    /// These ids (`--txid`, repeatable).
    Ids(Vec<String>),
    /// Everything the plan marks eligible (`--all-eligible`).
    AllEligible,
}

/// What a purge did (`gc --execute --json`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct GcOutcome {
    /// Transactions purged (directory removed, tombstone appended).
    pub purged: Vec<String>,
    /// Ids with neither a transaction nor a directory.
    pub missing: Vec<String>,
    /// Failures; those transactions keep their payload and stay eligible.
    pub errors: Vec<String>,
}

/// A transaction in the inventory.
#[derive(Debug)]
struct Entry<'a> {
    tx: &'a Transaction,
    created: Option<DateTime<Utc>>,
    bytes: u64,
}

/// What execute will do with one validated id.
#[derive(Debug)]
enum Target {
    /// Remove the directory, then append the tombstone.
    Purge(String, PathBuf),
    /// A known transaction without a directory (restored, say): only the tombstone.
    Tombstone(String),
    /// Nothing known by that id.
    Missing(String),
}

impl Quarantine {
    /// Plans a gc under `policy`. Takes the readers' lock; reads the manifest once and
    /// walks each live transaction directory once.
    pub fn gc_plan(&self, policy: &GcPolicy) -> Result<GcPlan, QuarantineError> {
        let _lock = self.lock_shared()?;
        let transactions = self.transactions()?;
        Ok(self.plan_of(&transactions, policy))
    }

    /// Purges the selection. Takes the writers' lock and validates the whole selection
    /// before deleting anything (an invalid id, a symlinked or unmanaged directory, or a
    /// transaction inside the grace window is an `Err`, and nothing is deleted). An empty
    /// selection is [`QuarantineError::NothingSelected`].
    pub fn gc_execute(
        &self,
        policy: &GcPolicy,
        selection: &GcSelection,
    ) -> Result<GcOutcome, QuarantineError> {
        if !self.trash().is_dir() {
            // Nothing to lock and nothing to purge; the ids are still validated.
            let ids = match selection {
                GcSelection::Ids(ids) if !ids.is_empty() => ids,
                _ => return Err(QuarantineError::NothingSelected),
            };
            for id in ids {
                TxId::parse(id).map_err(|_| QuarantineError::InvalidTxId { txid: id.clone() })?;
            }
            return Ok(GcOutcome {
                missing: dedup(ids),
                ..GcOutcome::default()
            });
        }
        let _lock = self.lock()?;
        // Best effort: a complete journal makes the inventory exact, but gc must not depend
        // on being able to write more than tombstones.
        let _ = self.reconcile_locked();
        let transactions = self.transactions()?;
        let ids = match selection {
            GcSelection::Ids(ids) => dedup(ids),
            GcSelection::AllEligible => self
                .plan_of(&transactions, policy)
                .eligible
                .into_iter()
                .map(|e| e.txid)
                .collect(),
        };
        if ids.is_empty() {
            return Err(QuarantineError::NothingSelected);
        }
        let trash_physical =
            fs_err::canonicalize(self.trash()).map_err(|source| QuarantineError::TrashPath {
                path: self.trash().to_path_buf(),
                source,
            })?;
        let live: HashMap<&str, &Transaction> = transactions
            .iter()
            .filter(|t| !t.purged)
            .map(|t| (t.txid.as_str(), t))
            .collect();
        let targets = ids
            .into_iter()
            .map(|id| validate(id, &trash_physical, &live, policy))
            .collect::<Result<Vec<_>, _>>()?;
        let mut outcome = GcOutcome::default();
        for target in targets {
            match target {
                Target::Missing(id) => outcome.missing.push(id),
                Target::Tombstone(id) => self.tombstone(id, &mut outcome),
                Target::Purge(id, dir) => match fsops::remove_tree(&dir) {
                    Ok(()) => {
                        self.faults().hit(FaultPoint::GcBeforeTombstone);
                        self.tombstone(id, &mut outcome);
                    }
                    // No tombstone: what is left stays restorable and eligible.
                    Err(error) => outcome
                        .errors
                        .push(format!("could not purge {id}: {error}")),
                },
            }
        }
        Ok(outcome)
    }

    /// The plan over transactions already read (no lock taken).
    pub(crate) fn plan_of(&self, transactions: &[Transaction], policy: &GcPolicy) -> GcPlan {
        let mut inventory: Vec<Entry<'_>> = transactions
            .iter()
            .filter(|t| !t.purged)
            .filter_map(|tx| {
                // An id that is not valid names no directory we would walk.
                let id = TxId::parse(&tx.txid).ok()?;
                Some(Entry {
                    tx,
                    created: tx.ts.as_deref().and_then(parse_ts),
                    bytes: self.tx_bytes(&id) + tx.stored_bytes(),
                })
            })
            .collect();
        // Oldest first; transactions without a timestamp last (stable: manifest order).
        inventory.sort_by_key(|e| (e.created.is_none(), e.created));
        let total_bytes: u64 = inventory.iter().map(|e| e.bytes).sum();
        let mut eligible = Vec::new();
        let mut chosen = vec![false; inventory.len()];
        let mut remaining = total_bytes;
        for (index, entry) in inventory.iter().enumerate() {
            if policy.expired(entry.created) && !policy.fresh(entry.created) {
                chosen[index] = true;
                remaining = remaining.saturating_sub(entry.bytes);
                eligible.push(gc_entry(entry, GcReason::Age));
            }
        }
        for (index, entry) in inventory.iter().enumerate() {
            if remaining <= policy.max_bytes {
                break;
            }
            let empty = entry.bytes == 0 && item_count(entry.tx) == 0;
            if chosen[index] || empty || entry.created.is_none() || policy.fresh(entry.created) {
                continue;
            }
            chosen[index] = true;
            remaining = remaining.saturating_sub(entry.bytes);
            eligible.push(gc_entry(entry, GcReason::Capacity));
        }
        GcPlan {
            transactions: inventory.len(),
            total_bytes,
            eligible,
            remaining_bytes_after_gc: remaining,
            retention_days: policy.retention_days,
            max_bytes: policy.max_bytes,
            grace_minutes: policy.grace_minutes,
        }
    }

    /// Appends the `purged` tombstone of `id` and records the outcome.
    fn tombstone(&self, id: String, outcome: &mut GcOutcome) {
        let record = Record::Purged(Purged {
            txid: id.clone(),
            ts: self.now(),
            schema: MANIFEST_SCHEMA,
        });
        match self.append(&[record]) {
            Ok(()) => outcome.purged.push(id),
            Err(error) => outcome.errors.push(format!(
                "purged {id} but its tombstone could not be stored: {error}"
            )),
        }
    }
}

/// Checks one id of the selection.
fn validate(
    id: String,
    trash_physical: &std::path::Path,
    live: &HashMap<&str, &Transaction>,
    policy: &GcPolicy,
) -> Result<Target, QuarantineError> {
    if TxId::parse(&id).is_err() {
        return Err(QuarantineError::InvalidTxId { txid: id });
    }
    if RESERVED_IDS.contains(&id.as_str()) {
        return Err(QuarantineError::UnmanagedDirectory { txid: id });
    }
    let dir = trash_physical.join(&id);
    let tx = live.get(id.as_str());
    if tx.is_some_and(|tx| policy.fresh(tx.ts.as_deref().and_then(parse_ts))) {
        return Err(QuarantineError::TooRecent {
            txid: id,
            grace_minutes: policy.grace_minutes,
        });
    }
    match dir.symlink_metadata() {
        Ok(metadata) if metadata.file_type().is_symlink() => {
            Err(QuarantineError::SymlinkedTransaction { txid: id })
        }
        Ok(metadata) if metadata.is_dir() && tx.is_some() => Ok(Target::Purge(id, dir)),
        Ok(_) => Err(QuarantineError::UnmanagedDirectory { txid: id }),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(if tx.is_some() {
            Target::Tombstone(id)
        } else {
            Target::Missing(id)
        }),
        Err(source) => Err(QuarantineError::InspectTransaction { path: dir, source }),
    }
}

fn gc_entry(entry: &Entry<'_>, reason: GcReason) -> GcEntry {
    GcEntry {
        txid: entry.tx.txid.clone(),
        ts: entry.tx.ts.clone(),
        bytes: entry.bytes,
        items: item_count(entry.tx),
        reason,
    }
}

fn item_count(tx: &Transaction) -> usize {
    tx.items.len() + tx.snapshots.len()
}

/// Parses a record timestamp (`YYYY-MM-DDTHH:MM:SSZ`, or any RFC 3339 form).
fn parse_ts(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// The ids in order, each once.
fn dedup(ids: &[String]) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    ids.iter()
        .filter(|id| seen.insert(id.as_str()))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone as _;

    use super::*;

    #[test]
    fn grace_and_retention_windows() {
        let now = Utc.with_ymd_and_hms(2026, 11, 30, 12, 0, 0).unwrap();
        let policy = GcPolicy {
            retention_days: 30,
            max_bytes: 0,
            grace_minutes: 60,
            now,
        };
        let ago = |minutes: i64| Some(now - TimeDelta::minutes(minutes));
        assert!(policy.fresh(ago(59)) && policy.fresh(ago(-5)) && !policy.fresh(ago(61)));
        assert!(!policy.fresh(None) && !policy.expired(None));
        assert!(policy.expired(ago(31 * 24 * 60)) && !policy.expired(ago(29 * 24 * 60)));
        let extreme = GcPolicy {
            retention_days: u32::MAX,
            grace_minutes: u32::MAX,
            ..policy
        };
        assert!(!extreme.expired(ago(1_000_000)) && extreme.fresh(ago(1_000_000)));
    }

    #[test]
    fn timestamps_parse_and_ids_dedup() {
        let parsed = parse_ts("2026-01-02T03:04:05Z").unwrap();
        assert_eq!(parsed, Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap());
        assert!(parse_ts("yesterday").is_none());
        let ids = vec!["b".to_owned(), "a".to_owned(), "b".to_owned()];
        assert_eq!(dedup(&ids), ["b", "a"]);
    }
}
