//! Session authorisation modes: show and change them.
//!
//! NORMAL → RESTRICTED is always allowed (a human veto, or an agent restricting itself).
//! RESTRICTED → NORMAL needs a human at an interactive terminal; the caller says whether
//! stdin is one.

use std::path::Path;

use serde::Serialize;

use agent_guard_config::EnvSnapshot;
use agent_guard_recovery::ensure_layout;
use agent_guard_session::{mode_path, read_mode, set_mode};
use agent_guard_types::SessionMode;

use crate::error::Result;
use crate::runtime::Runtime;
use crate::workspace::Workspace;

/// A session's mode, as `agent-guard mode --json` reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModeReport {
    /// The mode.
    pub mode: SessionMode,
    /// When it was set (UTC), if ever.
    pub mode_since: Option<String>,
    /// Whether this call changed it.
    pub changed: bool,
    /// The state file.
    pub state_file: String,
}

/// Reads the mode of the session selected by `AGENT_GUARD_SESSION` (or the legacy state).
pub fn show_mode(cwd: &Path, env: &EnvSnapshot) -> Result<ModeReport> {
    let workspace = Workspace::open(cwd, env)?;
    let session = workspace.settings.session.as_deref();
    let state = read_mode(workspace.trash(), session);
    Ok(ModeReport {
        mode: state.mode,
        mode_since: state.since,
        changed: false,
        state_file: mode_path(workspace.trash(), session).display().to_string(),
    })
}

/// Changes the mode; leaving RESTRICTED requires `interactive`.
pub fn change_mode(
    cwd: &Path,
    env: &EnvSnapshot,
    mode: SessionMode,
    interactive: bool,
) -> Result<ModeReport> {
    let workspace = Workspace::open(cwd, env)?;
    let runtime = Runtime::from_env(env)?;
    ensure_layout(&workspace.root, workspace.trash())?;
    let session = workspace.settings.session.as_deref();
    let change = set_mode(
        workspace.trash(),
        session,
        mode,
        "cli",
        interactive,
        runtime.now(),
    )?;
    Ok(ModeReport {
        mode: change.state.mode,
        mode_since: change.state.since,
        changed: change.changed,
        state_file: mode_path(workspace.trash(), session).display().to_string(),
    })
}
