//! Restore and purge over every compensation: the quarantine puts files back, and each
//! compensation puts back (or releases) what it keeps elsewhere.

use agent_guard_quarantine::{
    GcOutcome, GcPolicy, GcSelection, Progress, Quarantine, RestoreOptions, RestoreReport,
};
use agent_guard_types::TxId;

use crate::RecoveryError;
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
    Ok(outcome)
}
