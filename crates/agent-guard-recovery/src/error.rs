//! Recovery errors.

use std::path::PathBuf;

use agent_guard_types::SessionMode;

/// An error of the quarantine store.
///
/// Every variant means the requested compensation did not happen; the caller must refuse the
/// command (fail closed).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RecoveryError {
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
    /// The workspace's git repository could not be opened.
    #[error("failed to open git repository `{path}`")]
    OpenRepository {
        /// The workspace.
        path: PathBuf,
        /// The git error.
        #[source]
        source: git2::Error,
    },
    /// Git could not say whether it ignores the quarantine.
    #[error("failed to check whether git ignores `{path}`")]
    IgnoreCheck {
        /// The quarantine.
        path: PathBuf,
        /// The git error.
        #[source]
        source: git2::Error,
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
    /// The quarantine could not be made a nested git repository.
    #[error("failed to initialise a git repository in quarantine `{path}`")]
    InitQuarantine {
        /// The quarantine.
        path: PathBuf,
        /// The git error.
        #[source]
        source: git2::Error,
    },
    /// The quarantine does not exist yet; call the layout first.
    #[error("quarantine `{path}` does not exist")]
    MissingTrash {
        /// The quarantine.
        path: PathBuf,
    },
    /// The session mode file could not be written.
    #[error("failed to write session mode `{path}`")]
    WriteMode {
        /// The mode file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// Leaving a restricted session needs a human at an interactive terminal.
    #[error(
        "changing the session mode from {} to {} requires an interactive terminal",
        .from.as_str(),
        .to.as_str()
    )]
    AuthorizationRequired {
        /// The current mode.
        from: SessionMode,
        /// The requested mode.
        to: SessionMode,
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
    /// The directory is not inside a git work tree (or the repository is bare).
    #[error("`{path}` is not inside a git work tree")]
    NotAWorkTree {
        /// The directory given.
        path: PathBuf,
    },
    /// A git operation failed.
    #[error("git could not {action} in `{path}`")]
    Git {
        /// What was attempted (`read the index`, `write the snapshot commit`, …).
        action: &'static str,
        /// The repository's work tree.
        path: PathBuf,
        /// The git error.
        #[source]
        source: git2::Error,
    },
    /// Reading or writing a work-tree path failed during a git compensation.
    #[error("failed to {action} `{path}`")]
    GitWorktree {
        /// What was attempted (`inspect`, `hash`, `list`).
        action: &'static str,
        /// The path.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// `HEAD` does not point to a commit yet (unborn branch): there is no base to snapshot
    /// against.
    #[error("the repository at `{path}` has no commit yet")]
    UnbornHead {
        /// The repository's work tree.
        path: PathBuf,
    },
    /// The index has unmerged entries, which a snapshot cannot record (`git stash` refuses
    /// them too).
    #[error("the index of `{path}` has unresolved merge conflicts")]
    UnmergedIndex {
        /// The repository's work tree.
        path: PathBuf,
    },
    /// A stash selector or branch name does not resolve to anything that exists.
    #[error("`{selector}` does not name an existing {subject} in `{path}`")]
    UnknownRef {
        /// What was asked for (`stash@{1}`, a branch name).
        selector: String,
        /// `stash entry` or `branch`.
        subject: &'static str,
        /// The repository's work tree.
        path: PathBuf,
    },
    /// A private ref of this transaction already exists and points elsewhere.
    #[error("ref `{refname}` already exists in `{path}`")]
    RefExists {
        /// The ref.
        refname: String,
        /// The repository's work tree.
        path: PathBuf,
    },
    /// A `git clean` flag or pathspec that the enumeration cannot reproduce exactly.
    #[error("unsupported git clean argument `{argument}`: {reason}")]
    UnsupportedCleanArgument {
        /// The flag or pathspec.
        argument: String,
        /// Why it is not supported.
        reason: &'static str,
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
}
