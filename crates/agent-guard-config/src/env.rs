//! The environment snapshot.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::env_vars;

/// A snapshot of the relevant environment, captured once by the engine (or built by tests).
///
/// Path-valued variables keep their raw bytes; text-valued ones are converted lossily (see
/// [`EnvSnapshot::capture`]). An unset variable is `None`; an empty one is kept as empty and
/// treated as unset by [`Settings::resolve`](crate::Settings::resolve).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvSnapshot {
    /// `AGENT_GUARD_WORKSPACE`: overrides workspace discovery.
    pub workspace: Option<OsString>,
    /// `AGENT_GUARD_TRASH`: the quarantine location.
    pub trash: Option<OsString>,
    /// `AGENT_GUARD_DIALECT`: the default dialect selector.
    pub dialect: Option<String>,
    /// `AGENT_GUARD_SESSION`: the raw session identity.
    pub session: Option<String>,
    /// `AGENT_GUARD_ARTIFACTS`: extra artifact patterns, path-list separated.
    pub artifacts: Option<OsString>,
    /// `AGENT_GUARD_ALLOW_REGENERABLE`: regenerable-artifact switch.
    pub allow_regenerable: Option<String>,
    /// `HOME`: the user's home directory.
    pub home: Option<OsString>,
    /// `AGENT_GUARD_DEADLINE_MS`: the hook deadline, unparsed.
    pub deadline_ms: Option<String>,
    /// `AGENT_GUARD_NOW`: test-only clock override, unparsed (unstable).
    pub now: Option<String>,
    /// `AGENT_GUARD_ID_SEED`: test-only id seed, unparsed (unstable).
    pub id_seed: Option<String>,
    /// `AGENT_GUARD_DEBUG`: adapter debug switch.
    pub debug: Option<String>,
    /// `AGENT_GUARD_CHECKPOINT_WATCH`: whether a checkpoint may start a watcher.
    pub checkpoint_watch: Option<String>,
    /// `AGENT_GUARD_FAULT`: test-only crash injection point (unstable).
    pub fault: Option<String>,
    /// `XDG_CONFIG_HOME`: where git looks for the user's `ignore` and `attributes` files.
    pub xdg_config_home: Option<OsString>,
    /// `XDG_STATE_HOME`: where `install` keeps backups.
    pub xdg_state_home: Option<OsString>,
    /// `XDG_DATA_HOME`: where the per-user stores of workspaces live.
    pub xdg_data_home: Option<OsString>,
    /// `CODEX_HOME`: Codex's configuration directory.
    pub codex_home: Option<OsString>,
    /// `COPILOT_HOME`: Copilot CLI's configuration directory.
    pub copilot_home: Option<OsString>,
    /// `CLAUDE_CONFIG_DIR`: Claude Code's configuration directory.
    pub claude_config_dir: Option<OsString>,
    /// `GEMINI_CLI_HOME`: the home directory Gemini CLI keeps `.gemini/` in.
    pub gemini_cli_home: Option<OsString>,
    /// `QWEN_HOME`: Qwen Code's configuration directory.
    pub qwen_home: Option<OsString>,
    /// `PATH`: where a program named without a path is found.
    pub path: Option<OsString>,
    /// The agent-harness markers ([`env_vars::HARNESS_MARKERS`]) set in the environment: the
    /// process runs a command an agent's harness started.
    pub harness_markers: Vec<&'static str>,
}

impl EnvSnapshot {
    /// Captures the variables of [`env_vars`] from the process environment.
    ///
    /// This is the one place agent-guard reads its environment. A text-valued variable that is
    /// not valid UTF-8 is kept as its lossy conversion, so that a garbled value is reported as
    /// invalid later instead of silently disappearing.
    #[expect(
        clippy::disallowed_methods,
        reason = "the one place the environment is read"
    )]
    pub fn capture() -> EnvSnapshot {
        let raw = |name: &str| std::env::var_os(name);
        let text = |name: &str| raw(name).map(|value| value.to_string_lossy().into_owned());
        EnvSnapshot {
            workspace: raw(env_vars::WORKSPACE),
            trash: raw(env_vars::TRASH),
            dialect: text(env_vars::DIALECT),
            session: text(env_vars::SESSION),
            artifacts: raw(env_vars::ARTIFACTS),
            allow_regenerable: text(env_vars::ALLOW_REGENERABLE),
            home: raw(env_vars::HOME),
            deadline_ms: text(env_vars::DEADLINE_MS),
            now: text(env_vars::NOW),
            id_seed: text(env_vars::ID_SEED),
            debug: text(env_vars::DEBUG),
            checkpoint_watch: text(env_vars::CHECKPOINT_WATCH),
            fault: text(env_vars::FAULT),
            xdg_config_home: raw(env_vars::XDG_CONFIG_HOME),
            xdg_state_home: raw(env_vars::XDG_STATE_HOME),
            xdg_data_home: raw(env_vars::XDG_DATA_HOME),
            codex_home: raw(env_vars::CODEX_HOME),
            copilot_home: raw(env_vars::COPILOT_HOME),
            claude_config_dir: raw(env_vars::CLAUDE_CONFIG_DIR),
            gemini_cli_home: raw(env_vars::GEMINI_CLI_HOME),
            qwen_home: raw(env_vars::QWEN_HOME),
            path: raw(env_vars::PATH),
            harness_markers: env_vars::HARNESS_MARKERS
                .iter()
                .copied()
                .filter(|name| raw(name).is_some())
                .collect(),
        }
    }

    /// Whether a checkpoint may start the background watcher (on unless
    /// `AGENT_GUARD_CHECKPOINT_WATCH` is `0`, `false`, `no` or `off`).
    pub fn checkpoint_watch(&self) -> bool {
        !self.checkpoint_watch.as_deref().is_some_and(|value| {
            matches!(
                value.trim().to_ascii_lowercase().as_str(),
                "0" | "false" | "no" | "off"
            )
        })
    }

    /// Git's per-user configuration directory, as git finds it without configuration:
    /// `$XDG_CONFIG_HOME/git`, else `$HOME/.config/git` (empty values count as unset).
    pub fn git_user_dir(&self) -> Option<PathBuf> {
        match non_empty(self.xdg_config_home.as_ref()) {
            Some(config) => Some(PathBuf::from(config).join("git")),
            None => non_empty(self.home.as_ref())
                .map(|home| PathBuf::from(home).join(".config").join("git")),
        }
    }
}

/// The value unless it is empty.
fn non_empty(value: Option<&OsString>) -> Option<&OsString> {
    value.filter(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_user_dir_prefers_xdg_config_home_then_home() {
        let mut env = EnvSnapshot {
            home: Some("/home/u".into()),
            ..EnvSnapshot::default()
        };
        assert_eq!(
            env.git_user_dir(),
            Some(PathBuf::from("/home/u/.config/git"))
        );
        env.xdg_config_home = Some("".into());
        assert_eq!(
            env.git_user_dir(),
            Some(PathBuf::from("/home/u/.config/git"))
        );
        env.xdg_config_home = Some("/xdg".into());
        assert_eq!(env.git_user_dir(), Some(PathBuf::from("/xdg/git")));
        assert_eq!(EnvSnapshot::default().git_user_dir(), None);
    }
}
