//! Errors of install, uninstall and doctor.

use std::path::PathBuf;

use crate::harness::Harness;

/// The result type of this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// Why an install or uninstall could not be done. Nothing was written when one is returned,
/// except where a variant says otherwise.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// `HOME` is unset or not absolute, and a path under it was needed.
    #[error("`HOME` is not set to an absolute path")]
    NoHome,

    /// The harness has no configuration file to install into (`generic`).
    #[error("`{harness}` has no configuration file to install into")]
    NotInstallable {
        /// The harness.
        harness: Harness,
    },

    /// Reading or writing a file failed.
    #[error("failed to access `{}`", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },

    /// A harness config file is not valid JSON (or TOML); it was left untouched.
    #[error("`{}` is not valid {format}; it was left untouched", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// `JSON` or `TOML`.
        format: &'static str,
        /// The parser's message.
        message: String,
    },

    /// A config file parses but has an unexpected shape where the hook goes.
    #[error("`{}`: `{key}` is not {expected}; it was left untouched", path.display())]
    Shape {
        /// The file.
        path: PathBuf,
        /// The offending key path.
        key: String,
        /// What it should be.
        expected: &'static str,
    },

    /// A hook file agent-guard did not write (or one edited since) is in place (Cline's
    /// script, `OpenCode`'s plugin).
    #[error("`{}` already exists and is not agent-guard's own file; it was left untouched", path.display())]
    ForeignScript {
        /// The harness.
        harness: Harness,
        /// The file.
        path: PathBuf,
    },

    /// An install record in the state directory cannot be read.
    #[error("the install record `{}` is unreadable", path.display())]
    Record {
        /// The record file.
        path: PathBuf,
        /// The parser's message.
        message: String,
    },
}

impl Error {
    /// Builds an [`Error::Io`] for `path`.
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io { path, source }
    }

    /// Hints for the user (uv style `hint:` lines), if any.
    pub fn hints(&self) -> Vec<String> {
        match self {
            Error::NotInstallable { .. } => vec![
                "call `agent-guard check --enforce --harness generic` from the harness's own pre-exec hook; see `adapters/generic/README.md`".to_owned(),
            ],
            Error::Parse { message, .. } => vec![
                format!("the parser said: {message}"),
                "fix the file (or add the hook by hand, see `adapters/<harness>/README.md`) and run install again".to_owned(),
            ],
            Error::Shape { .. } => vec![
                "add the hook by hand, see `adapters/<harness>/README.md`".to_owned(),
            ],
            Error::ForeignScript {
                harness: Harness::OpenCode,
                ..
            } => vec![
                "move the file away and install again; agent-guard's plugin has to be exactly what install writes".to_owned(),
            ],
            Error::ForeignScript { .. } => vec![
                "Cline runs one `PreToolUse` script per directory: call `agent-guard check --enforce --harness cline` from your script, or move it away and install again".to_owned(),
            ],
            Error::Record { message, .. } => vec![
                format!("the parser said: {message}"),
                "move the record away; uninstall then removes only agent-guard's entry".to_owned(),
            ],
            Error::NoHome | Error::Io { .. } => Vec::new(),
        }
    }
}
