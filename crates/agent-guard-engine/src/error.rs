//! Engine errors.

use std::path::PathBuf;

/// An error of an engine command.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EngineError {
    /// The workspace could not be located from the working directory.
    #[error("cannot resolve the workspace from `{cwd}`")]
    Workspace {
        /// The working directory.
        cwd: PathBuf,
        /// Why.
        #[source]
        source: agent_guard_world::WorldError,
    },
    /// The configuration could not be loaded.
    #[error("the configuration is invalid")]
    Config(#[source] agent_guard_config::ConfigError),
    /// A test-only override has an unusable value.
    #[error("invalid value `{value}` for {name}")]
    InvalidOverride {
        /// The variable.
        name: &'static str,
        /// Its value.
        value: String,
    },
    /// A compensation, restore or purge failed.
    #[error(transparent)]
    Recovery(#[from] agent_guard_recovery::RecoveryError),
    /// A quarantine operation failed.
    #[error(transparent)]
    Quarantine(#[from] agent_guard_recovery::QuarantineError),
    /// The session mode could not be changed.
    #[error(transparent)]
    Session(#[from] agent_guard_session::SessionError),
    /// The demo workspace could not be written.
    #[error("failed to prepare the demo workspace at `{path}`")]
    Demo {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A transaction reference names no single transaction.
    #[error(transparent)]
    TxRef(#[from] crate::txref::TxRefError),
    /// An approval names nothing, or could not be granted.
    #[error(transparent)]
    Approval(#[from] agent_guard_session::approval::ApprovalError),
    /// The audit log could not be opened.
    #[error("the audit log is unavailable: {0}")]
    AuditUnavailable(String),
    /// An audit write failed.
    #[error(transparent)]
    Audit(#[from] agent_guard_audit::AuditError),
    /// Neither `XDG_STATE_HOME` nor `HOME` names an absolute directory for the audit chain
    /// key.
    #[error("no state directory for the audit chain key (set `HOME` or `XDG_STATE_HOME`)")]
    NoStateDirectory,
    /// The state directory lies inside the workspace or the quarantine, where anything that
    /// can rewrite the log could also read the key.
    #[error("the audit chain key directory `{dir}` is inside `{inside}`")]
    KeyInsideWorkspace {
        /// The key's state directory.
        dir: PathBuf,
        /// The workspace or quarantine root it lies in.
        inside: PathBuf,
    },
    /// A verb that only a person may run was run without one (no terminal, or under an
    /// agent's harness).
    #[error(
        "`agent-guard {verb}` must be run by a person at a terminal, not by an agent; run it \
         yourself in your own shell"
    )]
    NotAPerson {
        /// The verb refused.
        verb: &'static str,
    },
    /// `config trust` found no project file.
    #[error("there is no project file to trust at `{path}`")]
    NoProjectFile {
        /// Where it was looked for.
        path: PathBuf,
    },
    /// The trust record could not be written.
    #[error("could not record the trust at `{path}`")]
    TrustRecord {
        /// The record's path.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

/// The engine's result type.
pub type Result<T> = std::result::Result<T, EngineError>;
