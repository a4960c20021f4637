//! Errors of the git layer.

use std::path::PathBuf;

/// An error of a git operation.
///
/// Every variant means the requested snapshot, enumeration or ref operation did not happen
/// (or was rolled back); a caller that compensates must refuse the command.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GitError {
    /// The repository could not be opened.
    #[error("failed to open git repository `{path}`")]
    OpenRepository {
        /// The directory searched from.
        path: PathBuf,
        /// The git error.
        #[source]
        source: git2::Error,
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
    /// Reading or writing a work-tree path failed.
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
    /// A private ref already exists and points elsewhere.
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
    /// Git could not say whether it ignores a path.
    #[error("failed to check whether git ignores `{path}`")]
    IgnoreCheck {
        /// The path.
        path: PathBuf,
        /// The git error.
        #[source]
        source: git2::Error,
    },
    /// A reflog could not be read or listed.
    #[error("failed to {action} `{path}`")]
    Reflog {
        /// What was attempted (`read a reflog`, `list the reflogs`).
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A repository could not be created.
    #[error("failed to initialise a git repository in `{path}`")]
    Init {
        /// The directory.
        path: PathBuf,
        /// The git error.
        #[source]
        source: git2::Error,
    },
}
