//! Errors of the quarantine store.

use std::path::PathBuf;

/// An error of the quarantine store.
///
/// Every variant means the requested compensation did not happen; the caller must refuse the
/// command (fail closed).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum QuarantineError {
    /// The workspace root could not be resolved to its physical path.
    #[error("failed to resolve workspace `{path}`")]
    Workspace {
        /// The workspace as given.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The quarantine path could not be resolved to its physical path.
    #[error("failed to resolve quarantine path `{path}`")]
    TrashPath {
        /// The quarantine as given.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The quarantine is the workspace itself.
    #[error("the quarantine `{path}` is the workspace root itself")]
    TrashIsWorkspace {
        /// The quarantine.
        path: PathBuf,
    },
    /// The quarantine's workspace-relative path is not UTF-8 and cannot be written as a git
    /// exclude pattern.
    #[error("quarantine path `{path}` is not valid UTF-8")]
    TrashNotUtf8 {
        /// The quarantine.
        path: PathBuf,
    },
    /// The exclude rule for the quarantine could not be written (and git does not already
    /// ignore it), so nothing was created.
    #[error("failed to add the quarantine to `{path}`")]
    Exclude {
        /// The repository's `info/exclude` file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The quarantine directory could not be created.
    #[error("failed to create quarantine `{path}`")]
    CreateTrash {
        /// The quarantine.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The quarantine does not exist yet; call the layout first.
    #[error("quarantine `{path}` does not exist")]
    MissingTrash {
        /// The quarantine.
        path: PathBuf,
    },
    /// The quarantine lock could not be taken.
    #[error("failed to lock the quarantine at `{path}`")]
    Lock {
        /// The lock file.
        path: std::path::PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The manifest could not be read or appended to.
    #[error("failed to access the manifest `{path}`")]
    Manifest {
        /// The manifest.
        path: std::path::PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A transaction directory with this id already exists.
    #[error("transaction `{txid}` already exists")]
    TxExists {
        /// The id.
        txid: String,
    },
    /// A string given as a transaction id does not match the id pattern (it could name a
    /// path).
    #[error("invalid quarantine transaction id {txid:?}")]
    InvalidTxId {
        /// The string as given.
        txid: String,
    },
    /// A directory in the quarantine that no live transaction owns (never purged).
    #[error("unmanaged quarantine directory `{txid}`")]
    UnmanagedDirectory {
        /// The directory's name.
        txid: String,
    },
    /// A transaction directory that is a symlink (never followed, never purged).
    #[error("quarantine transaction `{txid}` is a symlink")]
    SymlinkedTransaction {
        /// The id.
        txid: String,
    },
    /// A transaction inside the gc grace window (never purged).
    #[error("transaction `{txid}` is newer than the {grace_minutes}-minute grace window")]
    TooRecent {
        /// The id.
        txid: String,
        /// The grace window.
        grace_minutes: u32,
    },
    /// A purge request that selects nothing.
    #[error("nothing selected")]
    NothingSelected,
    /// A transaction directory could not be inspected.
    #[error("failed to inspect quarantine transaction `{path}`")]
    InspectTransaction {
        /// The directory.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A transaction's opening record could not be journaled; nothing was moved.
    #[error("transaction `{txid}` could not be journaled: {reason}")]
    TxStartNotJournaled {
        /// The id.
        txid: String,
        /// Why.
        reason: String,
    },
    /// Git could not say whether it ignores the quarantine, or where its exclude file is.
    #[error("failed to check whether git ignores the quarantine")]
    IgnoreCheck(#[source] agent_guard_git::GitError),
    /// The quarantine could not be made a nested git repository.
    #[error("failed to shield the quarantine from git with a nested repository")]
    InitQuarantine(#[source] agent_guard_git::GitError),
}
