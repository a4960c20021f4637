//! Errors of the recovery layer.

/// An error of a compensation, a restore or a purge.
///
/// Every variant means the requested compensation did not happen (or was rolled back); the
/// caller must refuse the command (fail closed).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RecoveryError {
    /// The quarantine store failed.
    #[error(transparent)]
    Quarantine(#[from] agent_guard_quarantine::QuarantineError),
    /// A git operation failed.
    #[error(transparent)]
    Git(#[from] agent_guard_git::GitError),
    /// A database could not be dumped or restored.
    #[error("could not {action}: {detail}")]
    Database {
        /// What was being done.
        action: &'static str,
        /// What the tool or the system said.
        detail: String,
    },
}
