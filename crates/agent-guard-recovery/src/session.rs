//! Session authorisation modes (`NORMAL` / `RESTRICTED`), stored in the quarantine.
//!
//! The file is advisory: an agent running as the same user could edit it. Adapters that can
//! should hold the authoritative mode in host memory.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use agent_guard_types::SessionMode;
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use crate::{RecoveryError, fsops};

/// The legacy (sessionless) mode file at the quarantine root.
pub const STATE_FILE_NAME: &str = "state.json";

/// The directory of per-session mode files at the quarantine root.
pub const SESSIONS_DIR_NAME: &str = "sessions";

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
    let file = fs_err::File::open(path).ok()?;
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
/// [`RecoveryError::AuthorizationRequired`] and nothing changes. A request for the current
/// mode is a no-op. The new state is written to `<path>.tmp`, fsynced and renamed over the
/// mode file, and the directory is fsynced. The quarantine must already exist.
pub fn set_mode(
    trash: &Path,
    session: Option<&str>,
    mode: SessionMode,
    actor: &str,
    interactive: bool,
    now: DateTime<Utc>,
) -> Result<ModeChange, RecoveryError> {
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
        return Err(RecoveryError::AuthorizationRequired {
            from: previous,
            to: mode,
        });
    }
    if !trash.is_dir() {
        return Err(RecoveryError::MissingTrash {
            path: trash.to_path_buf(),
        });
    }
    let path = mode_path(trash, session);
    let write_error = |source| RecoveryError::WriteMode {
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
#[path = "session_tests.rs"]
mod tests;
