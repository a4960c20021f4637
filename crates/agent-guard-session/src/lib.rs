//! agent-guard's authorisation state: session modes (`NORMAL` / `RESTRICTED`), stored in the
//! quarantine.
//!
//! In the pipeline this feeds the policy: the engine reads the session's mode before it
//! decides (a restricted session may only delete single files, recoverably), and `agent-guard
//! mode` changes it. `NORMAL → RESTRICTED` is always allowed (a human veto, or an agent
//! restricting itself); leaving `RESTRICTED` needs a human at a terminal.
//!
//! The file is advisory: an agent running as the same user could edit it. Adapters that can
//! should hold the authoritative mode in host memory. This crate never decides anything else
//! and writes only the mode files, through `agent-guard-fsops`.
//!
//! ```
//! use agent_guard_session::read_mode;
//! use agent_guard_types::SessionMode;
//!
//! let trash = tempfile::tempdir().unwrap();
//! assert_eq!(read_mode(trash.path(), Some("agent-1")).mode, SessionMode::Normal);
//! ```

#![warn(missing_docs)]

pub mod approval;
pub mod definitions;

use std::io::Read as _;
use std::path::{Path, PathBuf};

use agent_guard_fsops as fsops;
use agent_guard_types::SessionMode;
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

pub use agent_guard_quarantine::{SESSIONS_DIR_NAME, STATE_FILE_NAME};

/// An error changing a session's mode.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SessionError {
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
    /// The quarantine does not exist yet; lay it out first.
    #[error("quarantine `{path}` does not exist")]
    MissingTrash {
        /// The quarantine.
        path: PathBuf,
    },
}

/// The longest sanitised session id used in a file name.
const MAX_SESSION_CHARS: usize = 80;

/// Mode files larger than this are treated as corrupt.
const MAX_MODE_FILE_BYTES: u64 = 64 * 1024;

/// The stored mode of a session.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ModeState {
    /// The mode; `NORMAL` when nothing (valid) is stored.
    pub mode: SessionMode,
    /// When the mode was set (UTC `YYYY-MM-DDTHH:MM:SSZ`), if recorded.
    pub since: Option<String>,
    /// Who set it (raw actor text), if recorded.
    pub set_by: Option<String>,
}

/// The result of [`set_mode`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModeChange {
    /// The mode before the request.
    pub previous: SessionMode,
    /// The stored state after the request.
    pub state: ModeState,
    /// `false` when the session already was in the requested mode (nothing was written).
    pub changed: bool,
}

/// Returns the sanitised file stem for a session id.
///
/// Every character outside `[A-Za-z0-9._-]` becomes `_`, the result is cut to 80 characters,
/// and an empty result, `.` or `..` becomes `_`, so that an id can never name anything
/// but a file directly inside `sessions/`.
pub fn sanitize_session(session: &str) -> String {
    let sanitized: String = session
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .take(MAX_SESSION_CHARS)
        .collect();
    match sanitized.as_str() {
        "" | "." | ".." => "_".to_owned(),
        _ => sanitized,
    }
}

/// Returns the mode file of a session: `<trash>/sessions/<sanitised id>.json`, or the legacy
/// `<trash>/state.json` when there is no session id.
pub fn mode_path(trash: &Path, session: Option<&str>) -> PathBuf {
    match session {
        Some(session) => trash
            .join(SESSIONS_DIR_NAME)
            .join(format!("{}.json", sanitize_session(session))),
        None => trash.join(STATE_FILE_NAME),
    }
}

/// Reads the mode of a session.
///
/// A missing, unreadable, oversized or corrupt file, or an unknown mode, reads as `NORMAL`:
/// every session starts unrestricted, so one degraded agent cannot lock out concurrent ones.
pub fn read_mode(trash: &Path, session: Option<&str>) -> ModeState {
    let path = mode_path(trash, session);
    // Something planted at the record's name (a link, a FIFO, another user's file, a second
    // name) is no record a person left: the session is restricted, never lifted by it.
    if agent_guard_fsops::state::check_entry(&path, false)
        .is_err_and(|error| error.kind() == std::io::ErrorKind::InvalidInput)
    {
        return ModeState {
            mode: SessionMode::Restricted,
            since: None,
            set_by: Some(format!(
                "agent-guard: {} is not a file it wrote",
                path.display()
            )),
        };
    }
    let Some(record) = read_record(&path) else {
        return ModeState::default();
    };
    let Some(mode) = record
        .get("mode")
        .and_then(Value::as_str)
        .and_then(SessionMode::parse)
    else {
        return ModeState::default();
    };
    let text = |key: &str| record.get(key).and_then(Value::as_str).map(str::to_owned);
    ModeState {
        mode,
        since: text("since"),
        set_by: text("set_by"),
    }
}

fn read_record(path: &Path) -> Option<Map<String, Value>> {
    // Not through a link, and never waiting on a FIFO planted at its name.
    let file =
        agent_guard_fsops::state::open_file(path, agent_guard_fsops::state::Access::Read).ok()?;
    let mut bytes = Vec::new();
    file.take(MAX_MODE_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    if bytes.len() as u64 > MAX_MODE_FILE_BYTES {
        return None;
    }
    match serde_json::from_slice(&bytes).ok()? {
        Value::Object(record) => Some(record),
        _ => None,
    }
}

/// Requests a mode change for a session.
///
/// `NORMAL → RESTRICTED` is always allowed. `RESTRICTED → NORMAL` needs a human: `interactive`
/// must be `true` (the caller passes `stdin.is_terminal()`), otherwise the result is
/// [`SessionError::AuthorizationRequired`] and nothing changes. A request for the current
/// mode is a no-op. The new state is written to `<path>.tmp`, fsynced and renamed over the
/// mode file, and the directory is fsynced. The quarantine must already exist.
pub fn set_mode(
    trash: &Path,
    session: Option<&str>,
    mode: SessionMode,
    actor: &str,
    interactive: bool,
    now: DateTime<Utc>,
) -> Result<ModeChange, SessionError> {
    let current = read_mode(trash, session);
    let previous = current.mode;
    if previous == mode {
        return Ok(ModeChange {
            previous,
            state: current,
            changed: false,
        });
    }
    if previous == SessionMode::Restricted && !interactive {
        return Err(SessionError::AuthorizationRequired {
            from: previous,
            to: mode,
        });
    }
    if !trash.is_dir() {
        return Err(SessionError::MissingTrash {
            path: trash.to_path_buf(),
        });
    }
    let path = mode_path(trash, session);
    let write_error = |source| SessionError::WriteMode {
        path: path.clone(),
        source,
    };
    if let Some(dir) = path.parent().filter(|dir| !dir.is_dir()) {
        fs_err::create_dir(dir).map_err(write_error)?;
    }
    let state = ModeState {
        mode,
        since: Some(agent_guard_audit::format_timestamp(now)),
        set_by: Some(actor.to_owned()),
    };
    let mut record = Map::new();
    record.insert("mode".into(), Value::from(mode.as_str()));
    record.insert("since".into(), Value::from(state.since.clone()));
    record.insert("set_by".into(), Value::from(actor));
    let mut bytes = serde_json::to_vec(&record).map_err(|error| write_error(error.into()))?;
    bytes.push(b'\n');
    fsops::replace_file(&path, &bytes).map_err(write_error)?;
    Ok(ModeChange {
        previous,
        state,
        changed: true,
    })
}

#[cfg(test)]
mod tests;
