//! Resolved settings.

use std::ffi::OsStr;
use std::path::PathBuf;

use crate::{CONFIG_FILE_NAME, ConfigError, ConfigFile, EnvSnapshot, env_vars};

/// The default quarantine directory name, inside the workspace.
pub const DEFAULT_TRASH_DIRNAME: &str = ".agent-trash";

/// The default artifact patterns of regenerable build output.
pub const DEFAULT_ARTIFACTS: &[&str] = &[
    "node_modules",
    "dist",
    "build",
    "out",
    "target",
    "__pycache__",
    ".cache",
    "coverage",
    ".next",
    ".nuxt",
    ".venv",
    "venv",
    ".pytest_cache",
    ".mypy_cache",
    ".tox",
    ".turbo",
    ".parcel-cache",
    "*.pyc",
    "*.pyo",
    "*.egg-info",
];

pub(crate) const DEFAULT_RETENTION_DAYS: u32 = 30;
pub(crate) const DEFAULT_RETENTION_MAX_BYTES: u64 = 5 * 1024 * 1024 * 1024;
pub(crate) const DEFAULT_GRACE_MINUTES: u32 = 60;
/// The largest file preserved before an overwrite when the project does not say (256 MiB).
pub const DEFAULT_PRESERVE_MAX_BYTES: u64 = 256 * 1024 * 1024;
/// The largest file a checkpoint keeps when the project does not say (64 MiB).
pub const DEFAULT_CHECKPOINT_MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// The hook's deadline when neither the environment nor the project sets one.
pub const DEFAULT_DEADLINE_MS: u64 = 5000;
/// The longest accepted hook deadline (ten minutes); anything longer is a configuration defect.
pub const MAX_DEADLINE_MS: u64 = 600_000;

/// The hook deadline the environment asks for before any workspace is known:
/// `AGENT_GUARD_DEADLINE_MS` when it is a number in `1..=MAX_DEADLINE_MS`, else the default.
///
/// Hook mode starts its clock with this and adopts the project's `[hook] deadline_ms` once
/// the workspace is open; unlike [`Settings::resolve`], a malformed value is not an error
/// here, because the hook must answer (with a deny, at worst) rather than fail.
pub fn env_deadline(env: &crate::EnvSnapshot) -> u64 {
    env.deadline_ms
        .as_deref()
        .map(str::trim)
        .and_then(|value| value.parse::<u64>().ok())
        .filter(|ms| (1..=MAX_DEADLINE_MS).contains(ms))
        .unwrap_or(DEFAULT_DEADLINE_MS)
}

/// Values of `AGENT_GUARD_ALLOW_REGENERABLE` that disable regenerable deletion.
const FALSE_WORDS: &[&str] = &["0", "false", "no", "off"];

/// Resolved, immutable settings.
///
/// Precedence: CLI > environment > project file > defaults. The CLI layer applies its own
/// overrides before calling [`Settings::resolve`] (the workspace it passes is already the
/// result of flag, `AGENT_GUARD_WORKSPACE` or discovery).
#[derive(Debug, Clone, PartialEq, Eq)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "independent switches resolved from separate sources"
)]
pub struct Settings {
    /// The workspace root, as passed in.
    pub workspace: PathBuf,
    /// The quarantine root (absolute when the workspace is). Until the engine locates the
    /// per-user store, the default is `<workspace>/.agent-trash`.
    pub trash: PathBuf,
    /// The quarantine was named (`AGENT_GUARD_TRASH` or `trash` in the project file), not
    /// located by default.
    pub trash_explicit: bool,
    /// The raw session id (`AGENT_GUARD_SESSION`), `None` when unset or empty.
    pub session: Option<String>,
    /// Whether provably regenerable artifacts may be deleted directly.
    pub allow_regenerable: bool,
    /// git's configuration from the environment may change what git ignores in a way the
    /// guard does not read ([`EnvSnapshot::git_config_unseen`]).
    pub git_config_unseen: bool,
    /// Artifact patterns: the defaults, then the project file's, then the environment's, without
    /// duplicates.
    pub artifacts: Vec<String>,
    /// Retention in days (default 30).
    pub retention_days: u32,
    /// Quarantine size cap in bytes (default 5 GiB).
    pub retention_max_bytes: u64,
    /// Transactions newer than this are never purged (default 60 minutes).
    pub grace_minutes: u32,
    /// The hook's internal deadline in milliseconds (default 5000).
    pub deadline_ms: u64,
    /// The largest file whose current version is preserved before an overwrite (default
    /// 256 MiB); a larger one makes the verdict ASK.
    pub preserve_max_bytes: u64,
    /// Whether harness edit tools preserve what they replace (default `true`).
    pub preserve_edit_tools: bool,
    /// When workspace checkpoints are taken (default `opaque`).
    pub checkpoint: agent_guard_types::CheckpointMode,
    /// Files larger than this are listed in a checkpoint without their content (default
    /// 64 MiB).
    pub checkpoint_max_file_bytes: u64,
    /// The project file's `dialect` selector, unvalidated; the engine ranks it below the flag,
    /// the payload and `AGENT_GUARD_DIALECT`.
    pub dialect_from_config: Option<String>,
}

impl Settings {
    /// Resolves the settings from the environment snapshot and the project file.
    ///
    /// Empty environment values count as unset. An invalid `AGENT_GUARD_DEADLINE_MS` or an out
    /// of range `hook.deadline_ms` is an error.
    pub fn resolve(
        workspace: PathBuf,
        env: &EnvSnapshot,
        file: Option<&ConfigFile>,
    ) -> Result<Settings, ConfigError> {
        let default_file = ConfigFile::default();
        let file = file.unwrap_or(&default_file);

        let (trash, trash_explicit) =
            match (non_empty_os(env.trash.as_deref()), file.trash.as_deref()) {
                (Some(from_env), _) => (workspace.join(from_env), true),
                (None, Some(from_file)) if !from_file.as_os_str().is_empty() => {
                    (workspace.join(from_file), true)
                }
                _ => (workspace.join(DEFAULT_TRASH_DIRNAME), false),
            };

        let allow_regenerable = match non_empty(env.allow_regenerable.as_deref()) {
            Some(value) => !FALSE_WORDS.contains(&value.to_ascii_lowercase().as_str()),
            None => file.regenerable.enabled.unwrap_or(true),
        } && !env.git_config_unseen();

        let mut artifacts: Vec<String> = Vec::new();
        let mut add = |pattern: &str| {
            if !pattern.is_empty() && !artifacts.iter().any(|known| known == pattern) {
                artifacts.push(pattern.to_owned());
            }
        };
        for pattern in DEFAULT_ARTIFACTS {
            add(pattern);
        }
        for pattern in &file.regenerable.artifacts {
            add(pattern);
        }
        if let Some(list) = env.artifacts.as_deref() {
            // A pattern that is not UTF-8 cannot be matched reliably; dropping it can only make
            // fewer targets regenerable, which is the stricter outcome.
            for pattern in std::env::split_paths(list) {
                if let Some(pattern) = pattern.to_str() {
                    add(pattern);
                }
            }
        }

        let deadline_ms = match non_empty(env.deadline_ms.as_deref()) {
            Some(value) => parse_deadline(value).ok_or_else(|| ConfigError::InvalidEnv {
                name: env_vars::DEADLINE_MS,
                value: value.to_owned(),
                reason: "expected an integer number of milliseconds between 1 and 600000",
            })?,
            None => match file.hook.deadline_ms {
                Some(value) if !(1..=MAX_DEADLINE_MS).contains(&value) => {
                    return Err(ConfigError::InvalidFileValue {
                        path: workspace.join(CONFIG_FILE_NAME),
                        key: "hook.deadline_ms",
                        reason: "expected a number of milliseconds between 1 and 600000",
                    });
                }
                Some(value) => value,
                None => DEFAULT_DEADLINE_MS,
            },
        };

        Ok(Settings {
            trash,
            trash_explicit,
            session: env.session.clone().filter(|session| !session.is_empty()),
            allow_regenerable,
            git_config_unseen: env.git_config_unseen(),
            artifacts,
            retention_days: file.retention.days.unwrap_or(DEFAULT_RETENTION_DAYS),
            retention_max_bytes: file
                .retention
                .max_bytes
                .unwrap_or(DEFAULT_RETENTION_MAX_BYTES),
            grace_minutes: file
                .retention
                .grace_minutes
                .unwrap_or(DEFAULT_GRACE_MINUTES),
            deadline_ms,
            preserve_max_bytes: file
                .preserve
                .max_bytes
                .unwrap_or(DEFAULT_PRESERVE_MAX_BYTES),
            preserve_edit_tools: file.preserve.edit_tools.unwrap_or(true),
            checkpoint: file.checkpoint.mode.unwrap_or_default(),
            checkpoint_max_file_bytes: file
                .checkpoint
                .max_file_bytes
                .unwrap_or(DEFAULT_CHECKPOINT_MAX_FILE_BYTES),
            dialect_from_config: file.dialect.clone(),
            workspace,
        })
    }
}

fn non_empty(value: Option<&str>) -> Option<&str> {
    value.map(str::trim).filter(|value| !value.is_empty())
}

fn non_empty_os(value: Option<&OsStr>) -> Option<&OsStr> {
    value.filter(|value| !value.is_empty())
}

fn parse_deadline(value: &str) -> Option<u64> {
    value
        .parse::<u64>()
        .ok()
        .filter(|ms| (1..=MAX_DEADLINE_MS).contains(ms))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{HookConfig, RegenerableConfig, RetentionConfig};

    fn ws() -> PathBuf {
        PathBuf::from("/w")
    }

    fn resolve(env: &EnvSnapshot, file: Option<&ConfigFile>) -> Settings {
        Settings::resolve(ws(), env, file).unwrap()
    }

    #[test]
    fn defaults() {
        let settings = resolve(&EnvSnapshot::default(), None);
        assert_eq!(settings.workspace, ws());
        assert_eq!(settings.trash, PathBuf::from("/w/.agent-trash"));
        assert_eq!(settings.session, None);
        assert!(settings.allow_regenerable);
        assert_eq!(settings.artifacts, DEFAULT_ARTIFACTS);
        assert_eq!(settings.retention_days, 30);
        assert_eq!(settings.retention_max_bytes, 5_368_709_120);
        assert_eq!(settings.grace_minutes, 60);
        assert_eq!(settings.deadline_ms, 5000);
        assert_eq!(settings.dialect_from_config, None);
    }

    #[test]
    fn trash_precedence_env_over_file_over_default() {
        let file = ConfigFile {
            trash: Some("from-file".into()),
            ..ConfigFile::default()
        };
        let env = EnvSnapshot {
            trash: Some("from-env".into()),
            ..EnvSnapshot::default()
        };
        assert_eq!(
            resolve(&env, Some(&file)).trash,
            PathBuf::from("/w/from-env")
        );
        assert_eq!(
            resolve(&EnvSnapshot::default(), Some(&file)).trash,
            PathBuf::from("/w/from-file")
        );
        let env = EnvSnapshot {
            trash: Some("/abs/q".into()),
            ..EnvSnapshot::default()
        };
        assert_eq!(resolve(&env, Some(&file)).trash, PathBuf::from("/abs/q"));
        let file = ConfigFile {
            trash: Some("/abs/f".into()),
            ..ConfigFile::default()
        };
        assert_eq!(
            resolve(&EnvSnapshot::default(), Some(&file)).trash,
            PathBuf::from("/abs/f")
        );
        let env = EnvSnapshot {
            trash: Some(String::new().into()),
            ..EnvSnapshot::default()
        };
        assert_eq!(resolve(&env, Some(&file)).trash, PathBuf::from("/abs/f"));
    }

    #[test]
    fn regenerable_switch() {
        let disabled = ConfigFile {
            regenerable: RegenerableConfig {
                enabled: Some(false),
                artifacts: vec![],
            },
            ..ConfigFile::default()
        };
        for (value, expected) in [
            ("0", false),
            ("false", false),
            (" NO ", false),
            ("Off", false),
            ("1", true),
            ("yes", true),
            ("anything", true),
        ] {
            let env = EnvSnapshot {
                allow_regenerable: Some(value.into()),
                ..EnvSnapshot::default()
            };
            assert_eq!(resolve(&env, None).allow_regenerable, expected, "{value}");
            // When the variable is set it wins over the file.
            assert_eq!(
                resolve(&env, Some(&disabled)).allow_regenerable,
                expected,
                "{value}"
            );
        }
        assert!(!resolve(&EnvSnapshot::default(), Some(&disabled)).allow_regenerable);
        let env = EnvSnapshot {
            allow_regenerable: Some("  ".into()),
            ..EnvSnapshot::default()
        };
        assert!(!resolve(&env, Some(&disabled)).allow_regenerable);
    }

    #[test]
    fn artifacts_are_defaults_then_file_then_env() {
        let file = ConfigFile {
            regenerable: RegenerableConfig {
                enabled: None,
                artifacts: vec!["gen".into(), "dist".into(), String::new()],
            },
            ..ConfigFile::default()
        };
        let env = EnvSnapshot {
            artifacts: Some("tmp-out::*.o:gen".into()),
            ..EnvSnapshot::default()
        };
        let settings = resolve(&env, Some(&file));
        let extra: Vec<&str> = settings.artifacts[DEFAULT_ARTIFACTS.len()..]
            .iter()
            .map(String::as_str)
            .collect();
        assert_eq!(extra, ["gen", "tmp-out", "*.o"]);
        assert_eq!(
            &settings.artifacts[..DEFAULT_ARTIFACTS.len()],
            DEFAULT_ARTIFACTS
        );
    }

    #[test]
    fn deadline_precedence_and_validation() {
        let file = ConfigFile {
            hook: HookConfig {
                deadline_ms: Some(700),
            },
            ..ConfigFile::default()
        };
        assert_eq!(
            resolve(&EnvSnapshot::default(), Some(&file)).deadline_ms,
            700
        );
        let env = EnvSnapshot {
            deadline_ms: Some(" 1200 ".into()),
            ..EnvSnapshot::default()
        };
        assert_eq!(resolve(&env, Some(&file)).deadline_ms, 1200);
        for bad in ["abc", "-5", "0", "1.5", "600001"] {
            let env = EnvSnapshot {
                deadline_ms: Some(bad.into()),
                ..EnvSnapshot::default()
            };
            let error = Settings::resolve(ws(), &env, None).unwrap_err();
            assert!(matches!(
                error,
                ConfigError::InvalidEnv {
                    name: env_vars::DEADLINE_MS,
                    ..
                }
            ));
            assert!(
                error.to_string().contains("AGENT_GUARD_DEADLINE_MS"),
                "{error}"
            );
        }
        let file = ConfigFile {
            hook: HookConfig {
                deadline_ms: Some(0),
            },
            ..ConfigFile::default()
        };
        let error = Settings::resolve(ws(), &EnvSnapshot::default(), Some(&file)).unwrap_err();
        assert!(error.to_string().contains(".agent-guard.toml"), "{error}");
    }

    #[test]
    fn retention_and_dialect_come_from_the_file() {
        let file = ConfigFile {
            dialect: Some("cmd".into()),
            retention: RetentionConfig {
                days: Some(3),
                max_bytes: Some(10),
                grace_minutes: Some(0),
            },
            ..ConfigFile::default()
        };
        let settings = resolve(&EnvSnapshot::default(), Some(&file));
        assert_eq!(settings.retention_days, 3);
        assert_eq!(settings.retention_max_bytes, 10);
        assert_eq!(settings.grace_minutes, 0);
        assert_eq!(settings.dialect_from_config.as_deref(), Some("cmd"));
    }

    #[test]
    fn empty_session_is_none() {
        let env = EnvSnapshot {
            session: Some(String::new()),
            ..EnvSnapshot::default()
        };
        assert_eq!(resolve(&env, None).session, None);
        let env = EnvSnapshot {
            session: Some("agent-1".into()),
            ..EnvSnapshot::default()
        };
        assert_eq!(resolve(&env, None).session.as_deref(), Some("agent-1"));
    }

    #[test]
    #[expect(
        clippy::disallowed_methods,
        reason = "test configuration from the environment"
    )]
    fn capture_reads_the_process_environment() {
        // Only reads; the variables may or may not be set in the test environment.
        let env = EnvSnapshot::capture();
        assert_eq!(env.home, std::env::var_os("HOME"));
    }
}
