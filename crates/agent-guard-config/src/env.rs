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
    /// `CDPATH`: when set and not empty, a line's `cd` is not followed (it may search it).
    pub cdpath: Option<OsString>,
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
    /// git's configuration from the environment ([`env_vars::GIT_CONFIG`] and the
    /// `GIT_CONFIG_KEY_<n>` it counts), by name, as set.
    pub git_config: Vec<(String, OsString)>,
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
            cdpath: raw(env_vars::CDPATH),
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
            git_config: git_config(&raw),
            harness_markers: env_vars::HARNESS_MARKERS
                .iter()
                .copied()
                .filter(|name| raw(name).is_some())
                .collect(),
        }
    }

    /// Whether git's configuration in the environment may set an ignore rule the guard
    /// does not read: `git -c` parameters or `GIT_CONFIG_KEY_<n>` that name
    /// `core.excludesFile` or an include, or a `GIT_CONFIG_GLOBAL`/`GIT_CONFIG_SYSTEM` file
    /// that does (or cannot be read). Then nothing is regenerable: git and the guard could
    /// disagree on what is ignored (issue 36). Reads those files, only when they are named.
    pub fn git_config_unseen(&self) -> bool {
        let names_ignore = |text: &str| {
            let text = text.to_ascii_lowercase();
            text.contains("excludesfile") || text.contains("include")
        };
        self.git_config
            .iter()
            .any(|(name, value)| match name.as_str() {
                "GIT_CONFIG_COUNT" => false,
                // An empty file (`/dev/null`, as tests and scripts set it) sets nothing; a file
                // that is not a regular one is not read (a FIFO would wait).
                "GIT_CONFIG_GLOBAL" | "GIT_CONFIG_SYSTEM" => match std::fs::metadata(value) {
                    _ if value.is_empty() || value == "/dev/null" => false,
                    Ok(meta) if meta.is_file() => std::fs::read(value)
                        .map_or(true, |bytes| names_ignore(&String::from_utf8_lossy(&bytes))),
                    Err(error) => error.kind() != std::io::ErrorKind::NotFound,
                    Ok(_) => true,
                },
                _ => names_ignore(&value.to_string_lossy()),
            })
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

/// The variables of [`env_vars::GIT_CONFIG`] that are set, and the `GIT_CONFIG_KEY_<n>`
/// and `GIT_CONFIG_VALUE_<n>` that `GIT_CONFIG_COUNT` counts.
fn git_config(raw: &dyn Fn(&str) -> Option<OsString>) -> Vec<(String, OsString)> {
    let mut found: Vec<(String, OsString)> = env_vars::GIT_CONFIG
        .iter()
        .filter_map(|name| raw(name).map(|value| ((*name).to_owned(), value)))
        .collect();
    let count = raw("GIT_CONFIG_COUNT")
        .and_then(|value| value.to_str().and_then(|v| v.trim().parse::<usize>().ok()))
        .unwrap_or(0)
        .min(env_vars::GIT_CONFIG_KEYS);
    for n in 0..count {
        for name in [
            format!("GIT_CONFIG_KEY_{n}"),
            format!("GIT_CONFIG_VALUE_{n}"),
        ] {
            if let Some(value) = raw(&name) {
                found.push((name, value));
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    #[test]
    fn git_configuration_from_the_environment_may_hide_an_ignore_rule() {
        let with = |pairs: &[(&str, &str)]| EnvSnapshot {
            git_config: pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).into()))
                .collect(),
            ..EnvSnapshot::default()
        };
        assert!(!with(&[]).git_config_unseen());
        assert!(!with(&[("GIT_CONFIG_GLOBAL", "/dev/null")]).git_config_unseen());
        assert!(!with(&[("GIT_CONFIG_PARAMETERS", "'color.ui'='always'")]).git_config_unseen());
        assert!(with(&[("GIT_CONFIG_PARAMETERS", "'core.excludesFile'='/x'")]).git_config_unseen());
        assert!(with(&[("GIT_CONFIG_KEY_0", "include.path")]).git_config_unseen());
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("plain");
        std::fs::write(&plain, "[user]\n\tname = a\n").unwrap();
        let hiding = dir.path().join("hiding");
        std::fs::write(&hiding, "[core]\n\texcludesfile = /x\n").unwrap();
        let global = |path: &std::path::Path| {
            with(&[("GIT_CONFIG_GLOBAL", path.to_str().unwrap())]).git_config_unseen()
        };
        assert!(!global(&plain));
        assert!(global(&hiding));
        assert!(!global(&dir.path().join("missing")));
        assert!(global(dir.path()), "a directory cannot be read: unseen");
    }

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
