//! Audit errors.

use std::path::PathBuf;

/// An error while writing or reading the audit log.
///
/// A failed append never authorises a required operation: the caller refuses instead.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AuditError {
    /// The quarantine directory does not exist; the layout must be created first.
    #[error("audit directory `{dir}` does not exist")]
    MissingDirectory {
        /// The missing directory.
        dir: PathBuf,
        /// The error from opening the log.
        #[source]
        source: std::io::Error,
    },
    /// The log could not be opened for appending.
    #[error("failed to open `{path}` for appending")]
    Open {
        /// The log file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The exclusive lock on the log could not be taken.
    #[error("failed to lock `{path}`")]
    Lock {
        /// The log file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// Writing or syncing the record failed; the file may end with a partial line.
    #[error("failed to append to `{path}`")]
    Append {
        /// The log file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// Reading the log failed.
    #[error("failed to read `{path}`")]
    Read {
        /// The log file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The record could not be serialised.
    #[error("failed to serialize an audit record")]
    Serialize {
        /// The underlying error.
        #[source]
        source: serde_json::Error,
    },
    /// The chain key could not be read or created.
    #[error("failed to read or create the audit chain key `{path}`")]
    Key {
        /// The key file or its directory.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The key file or its directory is not what it must be (a symlink, not a regular file).
    #[error("the audit chain key `{path}` is not a private regular file in a private directory")]
    KeyInsecure {
        /// The offending path.
        path: PathBuf,
    },
    /// The key file does not hold a key (64 hex digits); it is never replaced silently,
    /// because every record made with it would become unverifiable.
    #[error("the audit chain key `{path}` is malformed")]
    KeyMalformed {
        /// The key file.
        path: PathBuf,
    },
}
