//! The crate's error type.

use std::io;
use std::path::PathBuf;

/// An error from a world probe that cannot be folded into a fact.
///
/// Most probes never fail: a path that cannot be resolved becomes a [`PathSpec`] with an
/// `error`, and a git failure becomes `false` or
/// [`ResetPreflight::Undeterminable`]. Only workspace discovery returns errors, because
/// without a workspace root there is nothing to judge against.
///
/// [`PathSpec`]: agent_guard_types::PathSpec
/// [`ResetPreflight::Undeterminable`]: agent_guard_types::ResetPreflight::Undeterminable
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WorldError {
    /// A directory could not be resolved to its physical location (`realpath`).
    #[error("cannot resolve the real path of `{}`", path.display())]
    Realpath {
        /// The path as given.
        path: PathBuf,
        /// The underlying I/O error.
        #[source]
        source: io::Error,
    },
    /// No git repository contains the start directory, and it is the filesystem root, another
    /// protected root or the home directory: a workspace is never chosen there by fallback.
    #[error(
        "no workspace: `{}` is not inside a git repository, and the guard never makes the \
         filesystem root or the home directory a workspace by itself; run it inside a project, \
         or set AGENT_GUARD_WORKSPACE to the project's directory",
        cwd.display()
    )]
    NoWorkspace {
        /// The directory the command ran in.
        cwd: PathBuf,
    },
    /// A relative start directory could not be made absolute.
    #[error("cannot make `{}` absolute", path.display())]
    Absolute {
        /// The path as given.
        path: PathBuf,
        /// The underlying I/O error.
        #[source]
        source: io::Error,
    },
}
