//! Session authorisation modes.

use serde::{Deserialize, Serialize};

/// The authorisation mode of a session.
///
/// A session starts `NORMAL`. A human veto moves it to `RESTRICTED`, where only single files
/// may be deleted (recoverably). Leaving `RESTRICTED` needs an interactive terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "UPPERCASE")]
pub enum SessionMode {
    /// Full capability.
    #[default]
    Normal,
    /// Capability narrowed by a human veto.
    Restricted,
}

impl SessionMode {
    /// Returns `NORMAL` or `RESTRICTED`.
    pub const fn as_str(self) -> &'static str {
        match self {
            SessionMode::Normal => "NORMAL",
            SessionMode::Restricted => "RESTRICTED",
        }
    }

    /// Parses `NORMAL`/`RESTRICTED` case-insensitively.
    pub fn parse(text: &str) -> Option<SessionMode> {
        match text.trim().to_ascii_uppercase().as_str() {
            "NORMAL" => Some(SessionMode::Normal),
            "RESTRICTED" => Some(SessionMode::Restricted),
            _ => None,
        }
    }
}

/// When the guard takes a workspace checkpoint before a command runs (`[checkpoint] mode`
/// in `.agent-guard.toml`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum CheckpointMode {
    /// Never: programs the guard cannot see into run unprotected
    /// (`ALLOW_UNCHECKPOINTED`), and deletes whose targets only the shell knows are refused.
    Never,
    /// Before what the guard cannot see into (the default): opaque programs, and deletes
    /// confined to the workspace whose targets only the shell or the program knows.
    #[default]
    Opaque,
    /// Also before every other line that changes something, on top of its own compensation.
    /// Lines known to change nothing still take none.
    Always,
}

impl CheckpointMode {
    /// Every mode.
    pub const ALL: [CheckpointMode; 3] = [
        CheckpointMode::Never,
        CheckpointMode::Opaque,
        CheckpointMode::Always,
    ];

    /// Returns `never`, `opaque` or `always`.
    pub const fn as_str(self) -> &'static str {
        match self {
            CheckpointMode::Never => "never",
            CheckpointMode::Opaque => "opaque",
            CheckpointMode::Always => "always",
        }
    }

    /// Parses a mode name.
    pub fn parse(text: &str) -> Option<CheckpointMode> {
        CheckpointMode::ALL
            .into_iter()
            .find(|mode| mode.as_str() == text.trim())
    }

    /// Whether checkpoints are taken at all.
    pub const fn enabled(self) -> bool {
        !matches!(self, CheckpointMode::Never)
    }
}
