//! Fault injection for crash-safety tests.
//!
//! The engine arms at most one point from `AGENT_GUARD_FAULT` (test-only, unstable); when a
//! relocation, preservation, move recording, checkpoint, restore, undo or gc reaches it, the
//! process aborts on the spot — no unwinding, no flushing — which
//! is what a power cut or `kill -9` would do. The next command that touches the quarantine
//! must reconcile the journal so that no item is lost.

/// A step of the guard's own machinery at which a test may kill it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultPoint {
    /// The intent is durable; nothing has moved.
    AfterIntent,
    /// The item was renamed (or copied and its source removed); no outcome record yet.
    AfterMove,
    /// Just before the `relocate` record is appended.
    BeforeDone,
    /// Halfway through a cross-device copy.
    DuringCopy,
    /// Halfway through removing the source after a verified cross-device copy.
    DuringRemoval,
    /// A checkpoint's objects are written; no ref, no record yet.
    CheckpointAfterObjects,
    /// A checkpoint's ref is stored; no record yet.
    CheckpointAfterRef,
    /// A checkpoint restore kept the current versions in a new transaction; nothing was
    /// written back yet.
    CheckpointRestoreAfterBackup,
    /// A checkpoint restore wrote back its first file.
    CheckpointRestoreAfterFirstWrite,
    /// A preservation made the kept version (link, reflink or copy) under its temporary name;
    /// it is neither renamed into place nor flushed.
    PreserveAfterCopy,
    /// A line's `move-source` and `move-destination` records are durable; nothing is kept
    /// yet.
    MoveAfterRecords,
    /// A cross-device restore renamed its verified copy into place; the quarantine copy is
    /// still there and no `restore` record is written.
    RestoreAfterCopyBack,
    /// An undo of a line's moves staged the sources at their swap names
    /// (`<ws>/.agent-guard-swap-<txid>-<n>`); nothing is home yet.
    UndoMoveAfterStage,
    /// An undo of a line's moves set aside what stood at the sources' names; the sources are
    /// still at their swap names.
    UndoMoveAfterAside,
    /// gc removed a transaction's payload; its `purged` tombstone is not written.
    GcBeforeTombstone,
}

impl FaultPoint {
    /// Every point, for tests that try them all.
    pub const ALL: [FaultPoint; 15] = [
        FaultPoint::AfterIntent,
        FaultPoint::AfterMove,
        FaultPoint::BeforeDone,
        FaultPoint::DuringCopy,
        FaultPoint::DuringRemoval,
        FaultPoint::CheckpointAfterObjects,
        FaultPoint::CheckpointAfterRef,
        FaultPoint::CheckpointRestoreAfterBackup,
        FaultPoint::CheckpointRestoreAfterFirstWrite,
        FaultPoint::PreserveAfterCopy,
        FaultPoint::MoveAfterRecords,
        FaultPoint::RestoreAfterCopyBack,
        FaultPoint::UndoMoveAfterStage,
        FaultPoint::UndoMoveAfterAside,
        FaultPoint::GcBeforeTombstone,
    ];

    /// The name used in `AGENT_GUARD_FAULT`.
    pub const fn as_str(self) -> &'static str {
        match self {
            FaultPoint::AfterIntent => "after-intent",
            FaultPoint::AfterMove => "after-move",
            FaultPoint::BeforeDone => "before-done",
            FaultPoint::DuringCopy => "during-copy",
            FaultPoint::DuringRemoval => "during-removal",
            FaultPoint::CheckpointAfterObjects => "checkpoint-after-objects",
            FaultPoint::CheckpointAfterRef => "checkpoint-after-ref",
            FaultPoint::CheckpointRestoreAfterBackup => "checkpoint-restore-after-backup",
            FaultPoint::CheckpointRestoreAfterFirstWrite => "checkpoint-restore-after-first-write",
            FaultPoint::PreserveAfterCopy => "preserve-after-copy",
            FaultPoint::MoveAfterRecords => "move-after-records",
            FaultPoint::RestoreAfterCopyBack => "restore-after-copy-back",
            FaultPoint::UndoMoveAfterStage => "undo-move-after-stage",
            FaultPoint::UndoMoveAfterAside => "undo-move-after-aside",
            FaultPoint::GcBeforeTombstone => "gc-before-tombstone",
        }
    }

    /// Parses a name.
    pub fn parse(text: &str) -> Option<FaultPoint> {
        FaultPoint::ALL
            .into_iter()
            .find(|p| p.as_str() == text.trim())
    }
}

/// The armed fault point, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Faults(Option<FaultPoint>);

impl Faults {
    /// No fault armed (production).
    pub const fn none() -> Faults {
        Faults(None)
    }

    /// Arms `point`.
    pub const fn armed(point: FaultPoint) -> Faults {
        Faults(Some(point))
    }

    /// Aborts the process if `point` is armed (compensations outside this crate call it at
    /// their own journal steps).
    pub fn hit(self, point: FaultPoint) {
        if self.0 == Some(point) {
            std::process::abort();
        }
    }
}
