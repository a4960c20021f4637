//! [`Quarantine`]: the handle every recovery operation goes through.

use std::path::{Path, PathBuf};

use agent_guard_audit::{Clock, SyncInFlight, format_timestamp};
use agent_guard_types::TxId;

use crate::error::QuarantineError;
use crate::faults::Faults;
use crate::lock::StoreLock;
use crate::manifest::Manifest;
use crate::records::Record;
use crate::transactions::{Transaction, transactions};

/// The quarantine of one workspace: its root, manifest, lock, clock and armed faults.
#[derive(Debug, Clone)]
pub struct Quarantine {
    workspace: PathBuf,
    trash: PathBuf,
    clock: Clock,
    faults: Faults,
    git_user_dir: Option<PathBuf>,
    before_effect: Option<SyncInFlight>,
}

impl Quarantine {
    /// A handle over `trash` for the (physical) `workspace`. Nothing is touched.
    pub fn new(workspace: impl Into<PathBuf>, trash: impl Into<PathBuf>) -> Quarantine {
        Quarantine {
            workspace: workspace.into(),
            trash: trash.into(),
            clock: Clock::System,
            faults: Faults::none(),
            git_user_dir: None,
            before_effect: None,
        }
    }

    /// Makes every destructive step (a move, a copy over, a direct delete) first wait for
    /// `sync`: the caller's own intent record (the audit intent), whose flush then overlaps
    /// the manifest intent's instead of preceding it. A failed sync stops the step, as a
    /// failed manifest intent would.
    #[must_use]
    pub fn with_before_effect(mut self, sync: SyncInFlight) -> Quarantine {
        self.before_effect = Some(sync);
        self
    }

    /// Waits for the sync given to [`Quarantine::with_before_effect`], if any.
    pub(crate) fn wait_before_effect(&self) -> Result<(), String> {
        self.before_effect.as_ref().map_or(Ok(()), |sync| {
            sync.wait()
                .map_err(|error| format!("the audit intent is not durable: {error}"))
        })
    }

    /// Uses `clock` for record timestamps.
    #[must_use]
    pub fn with_clock(mut self, clock: Clock) -> Quarantine {
        self.clock = clock;
        self
    }

    /// Arms fault injection (tests).
    #[must_use]
    pub fn with_faults(mut self, faults: Faults) -> Quarantine {
        self.faults = faults;
        self
    }

    /// Uses `dir` as git's per-user configuration directory (`$XDG_CONFIG_HOME/git`), whose
    /// `ignore` and `attributes` files git reads without configuration. Without it, only
    /// `core.excludesFile` and `core.attributesFile` are read.
    #[must_use]
    pub fn with_git_user_dir(mut self, dir: Option<PathBuf>) -> Quarantine {
        self.git_user_dir = dir;
        self
    }

    /// Git's per-user configuration directory, if known.
    pub fn git_user_dir(&self) -> Option<&Path> {
        self.git_user_dir.as_deref()
    }

    /// The physical workspace root.
    pub fn workspace(&self) -> &Path {
        &self.workspace
    }

    /// The quarantine root.
    pub fn trash(&self) -> &Path {
        &self.trash
    }

    /// The armed faults.
    pub fn faults(&self) -> Faults {
        self.faults
    }

    /// The journal.
    pub fn manifest(&self) -> Manifest {
        Manifest::new(&self.trash)
    }

    /// A transaction's payload directory, `<trash>/<txid>`.
    pub fn tx_dir(&self, txid: &TxId) -> PathBuf {
        self.trash.join(txid.as_str())
    }

    /// The current timestamp for records.
    pub fn now(&self) -> String {
        format_timestamp(self.clock.now())
    }

    /// The clock.
    pub fn clock(&self) -> Clock {
        self.clock
    }

    /// Takes the writers' lock.
    pub fn lock(&self) -> Result<StoreLock, QuarantineError> {
        StoreLock::acquire(&self.trash, true)
    }

    /// Takes a readers' lock (a missing quarantine needs none; `None` then).
    pub fn lock_shared(&self) -> Result<Option<StoreLock>, QuarantineError> {
        if self.trash.is_dir() {
            StoreLock::acquire(&self.trash, false).map(Some)
        } else {
            Ok(None)
        }
    }

    /// Appends records durably.
    pub fn append(&self, records: &[Record]) -> Result<(), QuarantineError> {
        self.manifest().append(records)
    }

    /// Appends records without waiting for the disk (see [`Manifest::append_relaxed`]).
    pub fn append_relaxed(&self, records: &[Record]) -> Result<(), QuarantineError> {
        self.manifest().append_relaxed(records)
    }

    /// Every transaction, oldest first.
    pub fn transactions(&self) -> Result<Vec<Transaction>, QuarantineError> {
        Ok(transactions(&self.manifest().read()?))
    }

    /// One transaction by id.
    pub fn transaction(&self, txid: &TxId) -> Result<Option<Transaction>, QuarantineError> {
        Ok(self
            .transactions()?
            .into_iter()
            .find(|t| t.txid == txid.as_str()))
    }
}
