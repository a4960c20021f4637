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
