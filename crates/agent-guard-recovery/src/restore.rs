//! Restore and purge over every compensation: the quarantine puts files back, and each
//! compensation puts back (or releases) what it keeps elsewhere.

use agent_guard_quarantine::{
    GcOutcome, GcPolicy, GcSelection, Progress, Quarantine, RestoreOptions, RestoreReport,
};
use std::collections::HashSet;

use agent_guard_checkpoint::CheckpointStore;
use agent_guard_types::TxId;

use crate::RecoveryError;
use crate::checkpoint;
use crate::compensation::{COMPENSATIONS, Registered};

/// Restores transaction `txid`: its quarantined files, and through every compensation its
/// other items (git snapshots, kept refs), under one lock and into one `restore` record.
///
/// Never fails as a whole: every problem is in the report (`ok: false`). See
/// [`Quarantine::restore`] for the order of a restore and what `--force` preserves.
pub fn restore(
    store: &Quarantine,
    txid: &str,
    options: &RestoreOptions,
    new_txid: &mut dyn FnMut() -> TxId,
    progress: &dyn Progress,
) -> RestoreReport {
    store.restore(txid, options, new_txid, progress, &Registered)
}

/// Purges the selected transactions (see [`Quarantine::gc_execute`]), then lets every
/// compensation release what it keeps for them outside the quarantine (private git refs).
///
/// # Errors
/// As [`Quarantine::gc_execute`]: nothing selected, an unmanaged or symlinked id, a
/// transaction inside the grace window, or the lock.
pub fn purge(
    store: &Quarantine,
    policy: &GcPolicy,
    selection: &GcSelection,
) -> Result<GcOutcome, RecoveryError> {
    let outcome = store.gc_execute(policy, selection)?;
    for txid in &outcome.purged {
        let Ok(id) = TxId::parse(txid) else { continue };
        if let Ok(Some(tx)) = store.transaction(&id) {
            for compensation in COMPENSATIONS {
                compensation.release(store, &tx);
            }
        }
    }
    prune_checkpoints(store);
    Ok(outcome)
}

/// Frees the checkpoint objects that only purged (or never journaled) checkpoints held:
/// every checkpoint ref whose transaction is not live goes, then every object no remaining
/// checkpoint reaches. Under the writers' lock, so no checkpoint is being taken meanwhile.
/// Returns what was pruned (nothing when there is no store or the lock is busy).
pub fn prune_checkpoints(store: &Quarantine) -> agent_guard_checkpoint::Pruned {
    let Some(mut checkpoints) = CheckpointStore::open_existing(&checkpoint::store_dir(store))
    else {
        return agent_guard_checkpoint::Pruned::default();
    };
    let Ok(_lock) = store.lock() else {
        return agent_guard_checkpoint::Pruned::default();
    };
    let Ok(transactions) = store.transactions() else {
        return agent_guard_checkpoint::Pruned::default();
    };
    let live: Vec<_> = transactions
        .iter()
        .filter(|tx| !tx.purged && tx.snapshots.iter().any(checkpoint::is_checkpoint))
        .collect();
    let txids: HashSet<String> = live.iter().map(|tx| tx.txid.clone()).collect();
    let recorded: Vec<String> = live
        .iter()
        .flat_map(|tx| tx.snapshots.iter())
        .filter(|item| checkpoint::is_checkpoint(item))
        .filter_map(|item| item.sha.clone())
        .collect();
    checkpoints.prune(&txids, &recorded).unwrap_or_default()
}
