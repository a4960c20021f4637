//! The files that switch the guard on: its own configuration and every hook configuration a
//! supported harness reads, in the workspace and in the user's directories.
//!
//! An agent's command or edit tool that changes one of these (or a directory that holds one,
//! or creates one) could turn the guard off, so the world labels such targets
//! [`Protected::GuardControl`](crate::Protected::GuardControl) and the policy refuses them
//! (`BLOCK_SELF_PROTECTION`). `agent-guard install` writes only paths listed here (a test in
//! the install crate checks every harness and scope).

use std::path::{Path, PathBuf};

/// Workspace-relative, `/`-separated. A name ending in `/` is a directory whose every entry
/// a harness may read (Copilot's `.github/hooks/*.json`, Cline's hook scripts, `OpenCode`'s
/// plugins).
pub const PROJECT: &[&str] = &[
    ".agent-guard.toml",
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".codex/hooks.json",
    ".codex/config.toml",
    ".gemini/settings.json",
    ".github/hooks/",
    ".cursor/hooks.json",
    ".clinerules/hooks/",
    ".windsurf/hooks.json",
    ".qwen/settings.json",
    ".opencode/plugins/",
    ".opencode/opencode.json",
    ".opencode/opencode.jsonc",
    "opencode.json",
    "opencode.jsonc",
];

/// System-wide settings a team may install (read by the guard, may only tighten).
pub const SYSTEM: &str = "/etc/agent-guard/";

/// The user's directories, as the harnesses and the guard find them from the environment.
/// A relative value is ignored, as the harnesses ignore it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserDirs {
    /// `HOME`.
    pub home: Option<PathBuf>,
    /// `CLAUDE_CONFIG_DIR` (else `~/.claude`).
    pub claude_config_dir: Option<PathBuf>,
    /// `CODEX_HOME` (else `~/.codex`).
    pub codex_home: Option<PathBuf>,
    /// `GEMINI_CLI_HOME` (else `~`), which holds `.gemini/`.
    pub gemini_cli_home: Option<PathBuf>,
    /// `QWEN_HOME` (else `~/.qwen`).
    pub qwen_home: Option<PathBuf>,
    /// `COPILOT_HOME` (else `~/.copilot`).
    pub copilot_home: Option<PathBuf>,
    /// `XDG_CONFIG_HOME` (else `~/.config`).
    pub xdg_config_home: Option<PathBuf>,
    /// `XDG_STATE_HOME` (else `~/.local/state`).
    pub xdg_state_home: Option<PathBuf>,
    /// The guard's own binary (the one judging): replacing it turns every hook that names it
    /// into an allow.
    pub guard_binary: Option<PathBuf>,
    /// The directories of `PATH`: an `agent-guard` planted in one answers a hook that names
    /// the guard without a path.
    pub path_dirs: Vec<PathBuf>,
}

impl UserDirs {
    /// Every user-level guard path (absolute; a trailing `/` marks a directory), plus
    /// [`SYSTEM`]. Without a home directory, only the directories set explicitly count.
    pub fn entries(&self) -> Vec<PathBuf> {
        let home = self.home.as_deref().filter(|h| h.is_absolute());
        let dir = |var: &Option<PathBuf>, default: &str| -> Option<PathBuf> {
            match var {
                Some(dir) if dir.is_absolute() => Some(dir.clone()),
                _ => home.map(|home| home.join(default)),
            }
        };
        let mut entries = Vec::new();
        let mut add = |base: Option<PathBuf>, names: &[&str]| {
            if let Some(base) = base {
                entries.extend(names.iter().map(|name| join(&base, name)));
            }
        };
        add(
            dir(&self.claude_config_dir, ".claude"),
            &["settings.json", "settings.local.json"],
        );
        add(
            dir(&self.codex_home, ".codex"),
            &["hooks.json", "config.toml"],
        );
        add(
            dir(&self.gemini_cli_home, ""),
            &[".gemini/settings.json", ".gemini/trustedFolders.json"],
        );
        add(
            dir(&self.qwen_home, ".qwen"),
            &["settings.json", "trustedFolders.json"],
        );
        add(
            dir(&self.copilot_home, ".copilot"),
            &["hooks/", "config.json"],
        );
        add(
            home.map(Path::to_path_buf),
            &[
                ".cursor/hooks.json",
                "Documents/Cline/Hooks/",
                ".codeium/windsurf/hooks.json",
            ],
        );
        add(
            dir(&self.xdg_config_home, ".config"),
            &[
                "opencode/plugins/",
                "opencode/opencode.json",
                "opencode/opencode.jsonc",
                "agent-guard/",
            ],
        );
        add(dir(&self.xdg_state_home, ".local/state"), &["agent-guard/"]);
        entries.push(PathBuf::from(SYSTEM));
        entries.extend(self.guard_binary.iter().cloned());
        entries.extend(
            self.path_dirs
                .iter()
                .filter(|dir| dir.is_absolute())
                .flat_map(|dir| [dir.join("agent-guard"), dir.join("agent-guard.exe")]),
        );
        entries
    }
}

/// The project entries of `workspace` and of every directory above it, absolute: a
/// nested repository (`git init sub`) makes `sub` the workspace, and the project around it
/// keeps its hooks.
pub fn project_entries(workspace: &Path) -> Vec<PathBuf> {
    workspace
        .ancestors()
        .filter(|dir| dir.parent().is_some())
        .flat_map(|dir| PROJECT.iter().map(move |name| join(dir, name)))
        .collect()
}

/// `base` joined with `name`, a trailing `/` dropped (a directory and a file match alike:
/// what lies below either is covered).
fn join(base: &Path, name: &str) -> PathBuf {
    let name = name.trim_end_matches('/');
    if name.is_empty() {
        base.to_path_buf()
    } else {
        base.join(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_entries_follow_the_environment() {
        let dirs = UserDirs {
            home: Some("/h".into()),
            codex_home: Some("/cx".into()),
            gemini_cli_home: Some("relative".into()),
            ..UserDirs::default()
        };
        let entries = dirs.entries();
        for expected in [
            "/h/.claude/settings.json",
            "/cx/hooks.json",
            "/h/.gemini/settings.json",
            "/h/.copilot/hooks",
            "/h/.config/agent-guard",
            "/h/.local/state/agent-guard",
            "/etc/agent-guard",
        ] {
            assert!(
                entries.contains(&PathBuf::from(expected)),
                "{expected} missing from {entries:?}"
            );
        }
        assert!(!entries.contains(&PathBuf::from("/h/.codex/hooks.json")));
        let projects = project_entries(Path::new("/w/outer/inner"));
        assert!(projects.contains(&PathBuf::from("/w/outer/inner/.claude/settings.json")));
        assert!(projects.contains(&PathBuf::from("/w/outer/.claude/settings.json")));
        assert!(!projects.iter().any(|p| p.parent() == Some(Path::new("/"))));
        assert_eq!(UserDirs::default().entries(), vec![PathBuf::from(SYSTEM)]);
    }
}
