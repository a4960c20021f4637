//! Configuration errors.

use std::path::PathBuf;

/// An error while loading or resolving the configuration.
///
/// Every variant is fatal for the decision path: the caller must refuse (fail closed), never
/// fall back to defaults.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The project file exists but could not be read.
    #[error("failed to read `{path}`")]
    Read {
        /// The project file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The project file is larger than [`MAX_CONFIG_BYTES`](crate::MAX_CONFIG_BYTES).
    #[error("`{path}` is larger than {limit} bytes")]
    TooLarge {
        /// The project file.
        path: PathBuf,
        /// The size limit in bytes.
        limit: u64,
    },
    /// The project file is not a regular file (a FIFO, a device, a directory): it is not
    /// read, so it cannot make the guard hang (issue 35).
    #[error(
        "`{path}` is not a regular file; remove it, or put the configuration file in its place"
    )]
    NotAFile {
        /// The project file.
        path: PathBuf,
    },
    /// The project file is not valid UTF-8.
    #[error("`{path}` is not valid UTF-8")]
    NotUtf8 {
        /// The project file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::string::FromUtf8Error,
    },
    /// The project file is not valid TOML or does not match the schema (unknown keys included).
    #[error("failed to parse `{path}`{}", suggestion.as_ref().map(|key| format!(" (did you mean `{key}`?)")).unwrap_or_default())]
    Parse {
        /// The project file.
        path: PathBuf,
        /// For an unknown key, the valid key nearest to it.
        suggestion: Option<String>,
        /// The parser's error, with the offending line and key.
        #[source]
        source: Box<toml::de::Error>,
    },
    /// A value of the project file is out of range.
    #[error("invalid value for `{key}` in `{path}`: {reason}")]
    InvalidFileValue {
        /// The project file.
        path: PathBuf,
        /// The dotted key, e.g. `hook.deadline_ms`.
        key: &'static str,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// An environment variable has an unusable value.
    #[error("invalid value `{value}` for environment variable `{name}`: {reason}")]
    InvalidEnv {
        /// The variable name.
        name: &'static str,
        /// The value as found.
        value: String,
        /// What is wrong with it.
        reason: &'static str,
    },
}
