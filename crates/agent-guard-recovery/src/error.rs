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
}
