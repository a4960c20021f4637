//! The one compensation interface: plan → durable intent → effect → verified outcome →
//! restore → release.

use std::path::{Path, PathBuf};

use serde::Serialize;

use agent_guard_quarantine::{Origin, TxMeta};
use agent_guard_quarantine::{
    OtherItems, OtherOutcome, OtherRequest, Progress, Quarantine, Transaction,
};
use agent_guard_types::{CompensationStatus, Plan, Strategy, TxId};

use crate::{
    checkpoint, clean_enumerate, database_dump, moves, preserve, preserve_refs, relocate, snapshot,
};

/// What one compensation runs with: the quarantine, the transaction it creates, who asked,
/// and where to report progress.
pub struct Job<'a> {
    /// The quarantine the transaction goes into.
    pub store: &'a Quarantine,
    /// The new transaction's id.
    pub txid: TxId,
    /// Who created it, journaled with the transaction.
    pub origin: Origin,
    /// Progress of long copies.
    pub progress: &'a dyn Progress,
}

impl Job<'_> {
    /// The outcome of handing `strategy`'s compensation a plan of another kind (`why`
    /// says which it expected): a failure, nothing done.
    pub fn wrong_plan(&self, strategy: Strategy, why: &str) -> Applied {
        Applied::failed(
            strategy,
            &self.txid,
            Failure::with_detail(FailureKind::Failed, why),
        )
    }

    /// The journal's `meta` of this job's transaction, made by `strategy`.
    pub fn meta(&self, strategy: Strategy) -> TxMeta {
        TxMeta::of(self.origin.clone()).with_strategy(strategy.as_str())
    }
}

impl std::fmt::Debug for Job<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Job")
            .field("trash", &self.store.trash())
            .field("txid", &self.txid)
            .field("origin", &self.origin)
            .finish_non_exhaustive()
    }
}

/// Why a compensation did not protect everything it had to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FailureKind {
    /// The quarantine ran out of space; what did not fit stayed where it was.
    Storage,
    /// What the command would destroy could not be enumerated, so nothing was attempted.
    Undeterminable,
    /// Some items were protected and some were not; what moved stays restorable.
    Partial,
    /// The compensation was attempted and failed.
    Failed,
    /// A file could be kept only by copying it byte by byte, and it is over the copy cap:
    /// nothing more was kept, and a person decides (the line becomes a question).
    TooLarge,
}

/// A compensation that did not fully succeed: the kind, and the cause when there is one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Failure {
    /// What went wrong.
    pub kind: FailureKind,
    /// The underlying error, rendered with its sources.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl Failure {
    /// A failure of `kind` caused by `error`.
    pub fn because(kind: FailureKind, error: &dyn std::error::Error) -> Failure {
        Failure {
            kind,
            detail: Some(agent_guard_types::error_chain(error)),
        }
    }

    /// A failure of `kind` with a plain explanation.
    pub fn with_detail(kind: FailureKind, detail: impl Into<String>) -> Failure {
        Failure {
            kind,
            detail: Some(detail.into()),
        }
    }
}

/// The verified outcome of one compensation (`check --json`'s `compensations[]`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Applied {
    /// How it protected the targets.
    pub strategy: Strategy,
    /// The transaction it created.
    pub txid: String,
    /// How far it got.
    pub status: CompensationStatus,
    /// Items moved (or refs and snapshots kept).
    pub moved: usize,
    /// Items that could not be protected.
    pub skipped: usize,
    /// Items enumerated (clean-enumerate only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enumerated: Option<usize>,
    /// The snapshot commit (snapshot only; `null` for a clean tree).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha: Option<Option<String>>,
    /// Workspace-relative paths that were moved (for the agent; not audited).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    /// Why it did not fully succeed; `None` when it did.
    #[serde(skip)]
    pub failure: Option<Failure>,
    /// A checkpoint found no watcher of its store to ask: the caller may start one for
    /// this plan ([`crate::watch_checkpoints`]) so that the next checkpoint is cheaper.
    #[serde(skip)]
    pub start_watcher: Option<agent_guard_types::CheckpointPlan>,
    /// A relocation's own report: what moved where, and why the rest did not (`safe-delete`
    /// shows it item by item); `None` for other strategies and when nothing was attempted.
    #[serde(skip)]
    pub relocation: Option<agent_guard_quarantine::RelocationReport>,
}

impl Applied {
    /// A compensation of `strategy` in `txid` that has not protected anything (yet).
    pub fn new(strategy: Strategy, txid: &TxId, status: CompensationStatus) -> Applied {
        Applied {
            strategy,
            txid: txid.to_string(),
            status,
            moved: 0,
            skipped: 0,
            enumerated: None,
            sha: None,
            paths: Vec::new(),
            failure: None,
            start_watcher: None,
            relocation: None,
        }
    }

    /// A compensation that failed before protecting anything.
    pub fn failed(strategy: Strategy, txid: &TxId, failure: Failure) -> Applied {
        Applied {
            failure: Some(failure),
            ..Applied::new(strategy, txid, CompensationStatus::Failed)
        }
    }

    /// The outcome of a compensation that either kept everything or failed: `fill` sets
    /// what the kept value tells on a complete outcome; an error is a failure with its chain.
    pub fn settled<T, E: std::error::Error>(
        strategy: Strategy,
        txid: &TxId,
        result: Result<T, E>,
        fill: impl FnOnce(T, Applied) -> Applied,
    ) -> Applied {
        match result {
            Ok(kept) => fill(
                kept,
                Applied::new(strategy, txid, CompensationStatus::Complete),
            ),
            Err(error) => Applied::failed(
                strategy,
                txid,
                Failure::because(FailureKind::Failed, &error),
            ),
        }
    }

    /// Whether everything was protected.
    pub fn succeeded(&self) -> bool {
        self.failure.is_none()
    }
}

/// One way of making a destructive effect undoable.
///
/// Each compensation is one module implementing this trait plus one entry in
/// [`COMPENSATIONS`]. The engine's `--enforce` is a loop over the line's plans: it asks
/// [`for_plan`] for the compensation of each and calls [`Compensation::apply`]. Restore and
/// gc go through the same registry.
pub trait Compensation: Sync + std::fmt::Debug {
    /// The strategy this compensation carries out.
    fn strategy(&self) -> Strategy;

    /// Carries out `plan` in the new transaction `job.txid`: journal the intent durably,
    /// perform the effect, verify it, journal the outcome. Never panics on a plan of
    /// another strategy; it reports a failure instead.
    fn apply(&self, job: &Job<'_>, plan: &Plan) -> Applied;

    /// Restores what this compensation kept in `tx` apart from quarantined files (which
    /// the quarantine restores itself). Called with the writers' lock held; with
    /// `request.force`, what now holds the place is kept in a new transaction first.
    fn restore(
        &self,
        _store: &Quarantine,
        _tx: &Transaction,
        _request: &mut OtherRequest<'_>,
        _out: &mut OtherOutcome,
    ) {
    }

    /// Releases what this compensation keeps outside the quarantine directory (private git
    /// refs) once gc purged `tx`. Returns how many things it released.
    fn release(&self, _store: &Quarantine, _tx: &Transaction) -> usize {
        0
    }
}

/// Every compensation, one entry each.
pub static COMPENSATIONS: &[&dyn Compensation] = &[
    &relocate::Relocate,
    &clean_enumerate::CleanEnumerate,
    &snapshot::Snapshot,
    &preserve_refs::PreserveRefs,
    &preserve::Preserve,
    &checkpoint::Checkpoint,
    &moves::Move,
    &database_dump::DatabaseDump,
];

/// The compensation of `strategy`.
pub fn compensation(strategy: Strategy) -> Option<&'static dyn Compensation> {
    COMPENSATIONS
        .iter()
        .copied()
        .find(|c| c.strategy() == strategy)
}

/// The compensation that carries out `plan`, or `None` when the plan compensates nothing.
pub fn for_plan(plan: &Plan) -> Option<&'static dyn Compensation> {
    Strategy::for_plan(plan).and_then(compensation)
}

/// Restores the non-file items of a transaction through every registered compensation.
#[derive(Debug, Clone, Copy, Default)]
pub struct Registered;

impl OtherItems for Registered {
    fn restore(
        &self,
        store: &Quarantine,
        tx: &Transaction,
        request: &mut OtherRequest<'_>,
    ) -> OtherOutcome {
        let mut out = OtherOutcome::default();
        for compensation in COMPENSATIONS {
            compensation.restore(store, tx, request, &mut out);
        }
        out
    }
}

/// `path` relative to `workspace`, for the agent's message.
pub(crate) fn relative(path: &Path, workspace: &Path) -> String {
    path.strip_prefix(workspace)
        .map_or_else(|_| path.to_path_buf(), PathBuf::from)
        .display()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_strategy_has_exactly_one_compensation() {
        for strategy in Strategy::ALL {
            let count = COMPENSATIONS
                .iter()
                .filter(|c| c.strategy() == *strategy)
                .count();
            assert_eq!(count, 1, "{strategy}");
        }
        assert_eq!(COMPENSATIONS.len(), Strategy::ALL.len());
    }
}
