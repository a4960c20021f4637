//! The harnesses, the install scopes, and where each harness keeps its hook configuration.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, Result};

pub use agent_guard_types::Harness;

/// Where a hook is installed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    /// The workspace's own config (`.claude/`, `.codex/`, …).
    Project,
    /// The user's config under the home directory.
    User,
}

impl Scope {
    /// `project` or `user`.
    pub const fn name(self) -> &'static str {
        match self {
            Scope::Project => "project",
            Scope::User => "user",
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The environment an install runs in, captured once by the caller.
#[derive(Debug, Clone, Default)]
pub struct Environment {
    /// The directory the workspace is discovered from (absolute).
    pub cwd: PathBuf,
    /// `HOME`.
    pub home: Option<PathBuf>,
    /// `XDG_STATE_HOME`: where install records live (default `~/.local/state`).
    pub state_home: Option<PathBuf>,
    /// `CODEX_HOME` (default `~/.codex`).
    pub codex_home: Option<PathBuf>,
    /// `COPILOT_HOME` (default `~/.copilot`).
    pub copilot_home: Option<PathBuf>,
    /// `CLAUDE_CONFIG_DIR` (default `~/.claude`).
    pub claude_config_dir: Option<PathBuf>,
    /// `GEMINI_CLI_HOME`: the home directory Gemini CLI puts `.gemini/` in (default `HOME`).
    pub gemini_cli_home: Option<PathBuf>,
    /// `QWEN_HOME`: Qwen Code's configuration directory (default `~/.qwen`).
    pub qwen_home: Option<PathBuf>,
    /// `XDG_CONFIG_HOME`: where `OpenCode` keeps its user config (default `~/.config`).
    pub xdg_config_home: Option<PathBuf>,
}

impl Environment {
    /// The home directory, or an error naming `HOME`.
    pub(crate) fn home(&self) -> Result<&Path> {
        self.home
            .as_deref()
            .filter(|home| home.is_absolute())
            .ok_or(Error::NoHome)
    }

    /// The workspace: the nearest ancestor of `cwd` holding `.git`, else `cwd` itself;
    /// symlinks resolved, as harnesses see it.
    pub fn workspace(&self) -> PathBuf {
        let cwd = canonical(&self.cwd);
        cwd.ancestors()
            .find(|dir| dir.join(".git").exists())
            .map_or_else(|| cwd.clone(), Path::to_path_buf)
    }

    /// Codex's home directory (`CODEX_HOME` or `~/.codex`), resolved as Codex resolves it.
    pub(crate) fn codex_home(&self) -> Result<PathBuf> {
        let raw = match &self.codex_home {
            Some(dir) if dir.is_absolute() => dir.clone(),
            _ => self.home()?.join(".codex"),
        };
        Ok(canonical(&raw))
    }

    /// A directory given by an environment variable (absolute), else `default` under the home.
    fn dir_or_home(&self, var: Option<&Path>, default: &str) -> Result<PathBuf> {
        match var {
            Some(dir) if dir.is_absolute() => Ok(dir.to_path_buf()),
            _ => Ok(self.home()?.join(default)),
        }
    }

    /// Gemini CLI's user directory: `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`.
    pub(crate) fn gemini_dir(&self) -> Result<PathBuf> {
        let home = match &self.gemini_cli_home {
            Some(dir) if dir.is_absolute() => dir.as_path(),
            _ => self.home()?,
        };
        Ok(home.join(".gemini"))
    }

    /// Qwen Code's user directory: `QWEN_HOME`, else `~/.qwen`.
    pub(crate) fn qwen_dir(&self) -> Result<PathBuf> {
        self.dir_or_home(self.qwen_home.as_deref(), ".qwen")
    }

    /// Copilot CLI's configuration directory: `COPILOT_HOME`, else `~/.copilot`.
    pub(crate) fn copilot_home(&self) -> Result<PathBuf> {
        self.dir_or_home(self.copilot_home.as_deref(), ".copilot")
    }

    /// `OpenCode`'s user configuration directory: `$XDG_CONFIG_HOME/opencode`, else
    /// `~/.config/opencode`.
    pub(crate) fn opencode_dir(&self) -> Result<PathBuf> {
        Ok(self
            .dir_or_home(self.xdg_config_home.as_deref(), ".config")?
            .join("opencode"))
    }

    /// The guard's own state directory (`$XDG_STATE_HOME/agent-guard`, else
    /// `~/.local/state/agent-guard`): a guard file as a whole.
    fn guard_state_dir(&self) -> Result<PathBuf> {
        let base = match &self.state_home {
            Some(dir) if dir.is_absolute() => dir.clone(),
            _ => self.home()?.join(".local").join("state"),
        };
        Ok(base.join("agent-guard"))
    }

    /// The directory that holds install records.
    pub(crate) fn state_dir(&self) -> Result<PathBuf> {
        Ok(self.guard_state_dir()?.join("installs"))
    }

    /// The hook launcher install writes (`$XDG_STATE_HOME/agent-guard/bin/agent-guard-hook`):
    /// inside the guard's state directory, which the guard protects from the agent.
    pub fn launcher_path(&self) -> Result<PathBuf> {
        Ok(self
            .guard_state_dir()?
            .join("bin")
            .join(crate::shell::LAUNCHER_NAME))
    }

    /// The user directories of [`agent_guard_types::guard_files`] as this environment
    /// names them: what the guard protects when the harness runs with the same variables.
    pub(crate) fn user_dirs(&self) -> agent_guard_types::guard_files::UserDirs {
        agent_guard_types::guard_files::UserDirs {
            home: self.home.clone(),
            claude_config_dir: self.claude_config_dir.clone(),
            codex_home: self.codex_home.clone(),
            gemini_cli_home: self.gemini_cli_home.clone(),
            qwen_home: self.qwen_home.clone(),
            copilot_home: self.copilot_home.clone(),
            xdg_config_home: self.xdg_config_home.clone(),
            xdg_state_home: self.state_home.clone(),
            ..agent_guard_types::guard_files::UserDirs::default()
        }
    }

    /// The hook configuration file of `harness` in `scope`.
    pub fn config_path(&self, harness: Harness, scope: Scope) -> Result<PathBuf> {
        let path = match (harness, scope) {
            (Harness::ClaudeCode, Scope::Project) => self.workspace().join(".claude/settings.json"),
            (Harness::ClaudeCode, Scope::User) => self
                .dir_or_home(self.claude_config_dir.as_deref(), ".claude")?
                .join("settings.json"),
            (Harness::Codex, Scope::Project) => self.workspace().join(".codex/hooks.json"),
            (Harness::Codex, Scope::User) => self.codex_home()?.join("hooks.json"),
            (Harness::Gemini, Scope::Project) => self.workspace().join(".gemini/settings.json"),
            (Harness::Gemini, Scope::User) => self.gemini_dir()?.join("settings.json"),
            (Harness::Copilot, Scope::Project) => {
                self.workspace().join(".github/hooks/agent-guard.json")
            }
            (Harness::Copilot, Scope::User) => self.copilot_home()?.join("hooks/agent-guard.json"),
            (Harness::Cursor, Scope::Project) => self.workspace().join(".cursor/hooks.json"),
            (Harness::Cursor, Scope::User) => self.home()?.join(".cursor/hooks.json"),
            (Harness::Cline, Scope::Project) => {
                self.workspace().join(".clinerules/hooks/PreToolUse")
            }
            (Harness::Cline, Scope::User) => self.home()?.join("Documents/Cline/Hooks/PreToolUse"),
            (Harness::Windsurf, Scope::Project) => self.workspace().join(".windsurf/hooks.json"),
            (Harness::Windsurf, Scope::User) => self.home()?.join(".codeium/windsurf/hooks.json"),
            (Harness::QwenCode, Scope::Project) => self.workspace().join(".qwen/settings.json"),
            (Harness::QwenCode, Scope::User) => self.qwen_dir()?.join("settings.json"),
            (Harness::OpenCode, Scope::Project) => {
                self.workspace().join(".opencode/plugins/agent-guard.js")
            }
            (Harness::OpenCode, Scope::User) => self.opencode_dir()?.join("plugins/agent-guard.js"),
            (Harness::Generic, _) => return Err(Error::NotInstallable { harness }),
        };
        Ok(path)
    }
}

/// Resolves symlinks in the longest existing prefix of `path` and appends the rest, so a
/// path that does not exist yet is spelled the way it will be once created.
pub(crate) fn canonical(path: &Path) -> PathBuf {
    let mut missing = Vec::new();
    let mut current = path.to_path_buf();
    loop {
        if let Ok(resolved) = fs_err::canonicalize(&current) {
            return missing
                .iter()
                .rev()
                .fold(resolved, |acc: PathBuf, part| acc.join(part));
        }
        match (current.file_name(), current.parent()) {
            (Some(name), Some(parent)) => {
                missing.push(name.to_owned());
                current = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_keeps_missing_suffix() {
        let dir = tempfile::tempdir().unwrap();
        let real = fs_err::canonicalize(dir.path()).unwrap();
        assert_eq!(canonical(&dir.path().join("a/b")), real.join("a/b"));
    }

    #[test]
    fn paths_follow_the_environment() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs_err::canonicalize(dir.path()).unwrap();
        fs_err::create_dir_all(root.join("ws/.git")).unwrap();
        fs_err::create_dir_all(root.join("ws/sub")).unwrap();
        let env = Environment {
            cwd: root.join("ws/sub"),
            home: Some(root.join("home")),
            codex_home: Some(root.join("cx")),
            ..Environment::default()
        };
        assert_eq!(
            env.config_path(Harness::Codex, Scope::Project).unwrap(),
            root.join("ws/.codex/hooks.json")
        );
        assert_eq!(
            env.config_path(Harness::Codex, Scope::User).unwrap(),
            root.join("cx/hooks.json")
        );
        assert_eq!(
            env.state_dir().unwrap(),
            root.join("home/.local/state/agent-guard/installs")
        );
        assert!(env.config_path(Harness::Generic, Scope::User).is_err());
        assert_eq!(
            env.config_path(Harness::OpenCode, Scope::User).unwrap(),
            root.join("home/.config/opencode/plugins/agent-guard.js")
        );
        let env = Environment {
            gemini_cli_home: Some(root.join("g")),
            qwen_home: Some(root.join("q")),
            xdg_config_home: Some(root.join("xdg")),
            ..env
        };
        assert_eq!(
            env.config_path(Harness::Gemini, Scope::User).unwrap(),
            root.join("g/.gemini/settings.json")
        );
        assert_eq!(
            env.config_path(Harness::QwenCode, Scope::User).unwrap(),
            root.join("q/settings.json")
        );
        assert_eq!(
            env.config_path(Harness::OpenCode, Scope::Project).unwrap(),
            root.join("ws/.opencode/plugins/agent-guard.js")
        );
        assert_eq!(
            env.config_path(Harness::OpenCode, Scope::User).unwrap(),
            root.join("xdg/opencode/plugins/agent-guard.js")
        );
    }

    /// Every hook file `install` writes, the launcher included, is a guard file, so an agent's command cannot
    /// change it (`BLOCK_SELF_PROTECTION`), with the environment's directories default or set.
    #[test]
    fn every_installed_hook_file_is_a_guard_file() {
        use agent_guard_types::guard_files::project_entries;
        let root = PathBuf::from("/r");
        let defaults = Environment {
            cwd: root.join("ws"),
            home: Some(root.join("home")),
            ..Environment::default()
        };
        let moved = Environment {
            state_home: Some(root.join("state")),
            codex_home: Some(root.join("cx")),
            copilot_home: Some(root.join("cp")),
            claude_config_dir: Some(root.join("cl")),
            gemini_cli_home: Some(root.join("g")),
            qwen_home: Some(root.join("q")),
            xdg_config_home: Some(root.join("xdg")),
            ..defaults.clone()
        };
        for env in [defaults, moved] {
            let mut guarded = project_entries(&env.workspace());
            guarded.extend(env.user_dirs().entries());
            let mut written: Vec<PathBuf> =
                vec![env.state_dir().unwrap(), env.launcher_path().unwrap()];
            for harness in Harness::ALL {
                for scope in [Scope::Project, Scope::User] {
                    written.extend(env.config_path(harness, scope).ok());
                }
            }
            for path in written {
                assert!(
                    guarded.iter().any(|entry| path.starts_with(entry)),
                    "{} is not a guard file",
                    path.display()
                );
            }
        }
    }
}
