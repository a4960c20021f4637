//! The configuration's layers (issue 35, point 2): the user's file, the project's, and the
//! system's, merged into one [`ConfigFile`] before [`crate::Settings::resolve`].
//!
//! - The **user** file (`$XDG_CONFIG_HOME/agent-guard/config.toml`, else
//!   `~/.config/agent-guard/config.toml`) is the user's own choice and lies outside the
//!   workspace, among the guard files an agent's command cannot change: each key it sets
//!   replaces the default.
//! - The **project** file (`.agent-guard.toml`) is in the workspace, where the agent can write
//!   it: it may only tighten what the layers below set, until a person trusts its bytes
//!   (`agent-guard config trust`); a trusted one replaces them like the user's.
//! - The **system** file (`/etc/agent-guard/config.toml`, for teams) may only tighten: each
//!   key is the tighter of its value and what the layers above made.
//!
//! "Tighter" is per key: a longer retention, a smaller preservation cap, edit tools
//! preserved, checkpoints taken more often, regenerable deletion off. A quarantine location,
//! more regenerable artifacts and another dialect (which changes how every line is read)
//! only ever loosen. The hook's deadline neither tightens nor loosens (a short one only
//! makes hooks deny): a later layer's value stands.

use std::path::{Path, PathBuf};

use agent_guard_types::CheckpointMode;

use crate::settings::{
    DEFAULT_CHECKPOINT_MAX_FILE_BYTES, DEFAULT_GRACE_MINUTES, DEFAULT_PRESERVE_MAX_BYTES,
    DEFAULT_RETENTION_DAYS, DEFAULT_RETENTION_MAX_BYTES,
};
use crate::{ConfigError, ConfigFile, EnvSnapshot};

/// The system-wide file, for teams: it may only tighten.
pub const SYSTEM_CONFIG_PATH: &str = "/etc/agent-guard/config.toml";

/// The user's file below the configuration directory.
const USER_CONFIG: &str = "agent-guard/config.toml";

/// The user's configuration file: `$XDG_CONFIG_HOME/agent-guard/config.toml` when that is
/// absolute, else `~/.config/agent-guard/config.toml`; `None` without a home.
pub fn user_config_path(env: &EnvSnapshot) -> Option<PathBuf> {
    let absolute = |value: &std::ffi::OsStr| {
        let path = Path::new(value);
        path.is_absolute().then(|| path.to_path_buf())
    };
    let base = match env.xdg_config_home.as_deref().and_then(absolute) {
        Some(dir) => dir,
        None => env.home.as_deref().and_then(absolute)?.join(".config"),
    };
    Some(base.join(USER_CONFIG))
}

/// The merged configuration and what of the project file was set aside.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layered {
    /// The configuration the settings are resolved from.
    pub file: ConfigFile,
    /// The project file's keys that would have loosened what the layers below set, set aside
    /// because a person has not trusted these bytes.
    pub set_aside: Vec<&'static str>,
    /// Whether any file was read.
    pub any: bool,
}

/// Reads the user's file (at `user`), the project's (in `workspace`, trusted per
/// `state_dir`) and the system's (at `system`) and merges them.
///
/// # Errors
/// A file that exists but cannot be read or parsed, naming it (as [`crate::load_config`]).
pub fn load_layers(
    workspace: &Path,
    state_dir: Option<&Path>,
    user: Option<&Path>,
    system: Option<&Path>,
) -> Result<Layered, ConfigError> {
    let mut layered = Layered::default();
    if let Some(file) = user.map(read_layer).transpose()?.flatten() {
        layered.file = overlay(&layered.file, &file);
        layered.any = true;
    }
    if let Some(bytes) = crate::file::read_bytes(workspace)? {
        let digest = crate::trust::digest(&bytes);
        let project = crate::file::parse_bytes(workspace, bytes)?;
        let (tightened, set_aside) = tighten(&layered.file, &project);
        layered.file =
            if set_aside.is_empty() || crate::trust::is_trusted(state_dir, workspace, &digest) {
                overlay(&layered.file, &project)
            } else {
                layered.set_aside = set_aside;
                tightened
            };
        layered.any = true;
    }
    if let Some(file) = system.map(read_layer).transpose()?.flatten() {
        layered.file = tighten(&layered.file, &file).0;
        layered.any = true;
    }
    Ok(layered)
}

/// Reads and parses the layer file at `path`, `None` when there is none.
fn read_layer(path: &Path) -> Result<Option<ConfigFile>, ConfigError> {
    let Some(bytes) = crate::file::read_path(path)? else {
        return Ok(None);
    };
    crate::file::parse_path(path, bytes).map(Some)
}

/// `base` with every key `over` sets replaced by `over`'s value (regenerable artifacts
/// added).
pub fn overlay(base: &ConfigFile, over: &ConfigFile) -> ConfigFile {
    let mut out = base.clone();
    macro_rules! take {
        ($($field:ident).+) => {
            if over.$($field).+.is_some() {
                out.$($field).+.clone_from(&over.$($field).+);
            }
        };
    }
    take!(dialect);
    take!(trash);
    take!(regenerable.enabled);
    take!(retention.days);
    take!(retention.max_bytes);
    take!(retention.grace_minutes);
    take!(hook.deadline_ms);
    take!(preserve.max_bytes);
    take!(preserve.edit_tools);
    take!(checkpoint.mode);
    take!(checkpoint.max_file_bytes);
    for pattern in &over.regenerable.artifacts {
        if !out.regenerable.artifacts.contains(pattern) {
            out.regenerable.artifacts.push(pattern.clone());
        }
    }
    out
}

/// `base` with each key of `over` taken where it is at least as tight as `base`'s value
/// (the default when unset), and the keys of `over` that would loosen it, in file order.
pub fn tighten(base: &ConfigFile, over: &ConfigFile) -> (ConfigFile, Vec<&'static str>) {
    let mut out = base.clone();
    let mut loose = Vec::new();
    // A key where a greater value is tighter (`Some` only when `over` sets it).
    macro_rules! tighter_when {
        ($key:literal, $($field:ident).+, $default:expr, $tighter:expr) => {
            if let Some(value) = over.$($field).+ {
                let current = base.$($field).+.unwrap_or($default);
                if $tighter(value, current) || value == current {
                    out.$($field).+ = Some(value);
                } else {
                    loose.push($key);
                }
            }
        };
    }
    out.hook.deadline_ms = over.hook.deadline_ms.or(base.hook.deadline_ms);
    // Another dialect makes the lexer read every line another way (`echo hi; rm -rf src` is
    // one harmless cmd word): as loose as a quarantine elsewhere.
    if over.dialect.is_some() && over.dialect != base.dialect {
        loose.push("dialect");
    }
    if over.trash.is_some() && over.trash != base.trash {
        loose.push("trash");
    }
    if over
        .regenerable
        .artifacts
        .iter()
        .any(|p| !base.regenerable.artifacts.contains(p))
    {
        loose.push("regenerable.artifacts");
    }
    tighter_when!(
        "regenerable.enabled",
        regenerable.enabled,
        true,
        |v: bool, c: bool| !v && c
    );
    tighter_when!(
        "retention.days",
        retention.days,
        DEFAULT_RETENTION_DAYS,
        |v, c| v > c
    );
    tighter_when!(
        "retention.max_bytes",
        retention.max_bytes,
        DEFAULT_RETENTION_MAX_BYTES,
        |v, c| v > c
    );
    tighter_when!(
        "retention.grace_minutes",
        retention.grace_minutes,
        DEFAULT_GRACE_MINUTES,
        |v, c| v > c
    );
    tighter_when!(
        "preserve.max_bytes",
        preserve.max_bytes,
        DEFAULT_PRESERVE_MAX_BYTES,
        |v, c| v < c
    );
    tighter_when!(
        "preserve.edit_tools",
        preserve.edit_tools,
        true,
        |v: bool, c: bool| v && !c
    );
    tighter_when!(
        "checkpoint.mode",
        checkpoint.mode,
        CheckpointMode::default(),
        |v, c| rank(v) > rank(c)
    );
    tighter_when!(
        "checkpoint.max_file_bytes",
        checkpoint.max_file_bytes,
        DEFAULT_CHECKPOINT_MAX_FILE_BYTES,
        |v, c| v > c
    );
    (out, loose)
}

/// How often a checkpoint mode takes checkpoints: more is tighter.
fn rank(mode: CheckpointMode) -> u8 {
    match mode {
        CheckpointMode::Never => 0,
        CheckpointMode::Opaque => 1,
        CheckpointMode::Always => 2,
    }
}

#[cfg(test)]
mod tests;
