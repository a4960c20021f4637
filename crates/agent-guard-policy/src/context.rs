//! What the policy knows besides the ops: the declared cwd, the session mode, configuration.

use std::path::PathBuf;

use agent_guard_types::{CheckpointMode, SessionMode};

/// Inputs of a decision other than the ops and the world.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyContext {
    /// The declared working directory targets are resolved against.
    pub cwd: PathBuf,
    /// The session's authorisation mode.
    pub mode: SessionMode,
    /// Whether provably regenerable artifacts may be deleted directly.
    pub allow_regenerable: bool,
    /// Artifact patterns (`fnmatch` syntax) for regenerability.
    pub artifacts: Vec<String>,
    /// The largest file whose current version is preserved before an overwrite.
    pub preserve_max_bytes: u64,
    /// When workspace checkpoints are taken.
    pub checkpoint: CheckpointMode,
    /// Files larger than this are listed in a checkpoint without their content.
    pub checkpoint_max_file_bytes: u64,
    /// A line's literal directory changes may be followed: the shell that runs it has no
    /// `CDPATH` (which would make `cd src` search elsewhere first).
    pub follow_cd: bool,
    /// What git ignores is what the guard reads: no configuration from the environment
    /// (`GIT_CONFIG_PARAMETERS`, `GIT_CONFIG_GLOBAL`, …) names an ignore file or an include.
    /// Without it, a `git clean` that consults the ignore rules (not `-x`) is refused.
    pub git_ignores_known: bool,
}

impl PolicyContext {
    /// A NORMAL-mode context with regenerable deletes enabled and no artifact patterns.
    pub fn new(cwd: impl Into<PathBuf>) -> PolicyContext {
        PolicyContext {
            cwd: cwd.into(),
            mode: SessionMode::Normal,
            allow_regenerable: true,
            artifacts: Vec::new(),
            preserve_max_bytes: 256 * 1024 * 1024,
            checkpoint: CheckpointMode::Opaque,
            checkpoint_max_file_bytes: 64 * 1024 * 1024,
            follow_cd: true,
            git_ignores_known: true,
        }
    }

    /// Returns `true` in RESTRICTED mode.
    pub fn restricted(&self) -> bool {
        self.mode == SessionMode::Restricted
    }
}
