//! The project file `.agent-guard.toml`.

use std::io::Read;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::ConfigError;

/// The name of the project file at the workspace root.
pub const CONFIG_FILE_NAME: &str = ".agent-guard.toml";

/// The largest project file read, in bytes (64 KiB). A larger file is an error.
pub const MAX_CONFIG_BYTES: u64 = 64 * 1024;

/// The parsed `.agent-guard.toml`.
///
/// Every table rejects unknown keys, so a typo is an error instead of a silently ignored
/// setting. Every key is optional.
///
/// ```toml
/// dialect = "posix"
/// trash = ".agent-trash"
///
/// [regenerable]
/// enabled = true
/// artifacts = ["generated"]
///
/// [retention]
/// days = 30
/// max_bytes = 5368709120
/// grace_minutes = 60
///
/// [hook]
/// deadline_ms = 5000
///
/// [preserve]
/// max_bytes = 268435456
/// edit_tools = true
///
/// [checkpoint]
/// mode = "opaque"
/// max_file_bytes = 67108864
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ConfigFile {
    /// The default dialect selector (validated by the policy, not here).
    pub dialect: Option<String>,
    /// The quarantine location; relative to the workspace unless absolute.
    pub trash: Option<PathBuf>,
    /// Regenerable-artifact settings.
    pub regenerable: RegenerableConfig,
    /// Quarantine retention settings.
    pub retention: RetentionConfig,
    /// Hook settings.
    pub hook: HookConfig,
    /// Settings of the preservation of overwritten files.
    pub preserve: PreserveConfig,
    /// Settings of workspace checkpoints.
    pub checkpoint: CheckpointConfig,
}

/// The `[checkpoint]` table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CheckpointConfig {
    /// When a workspace checkpoint is taken: `never`, `opaque` (before what the guard cannot
    /// see into, the default) or `always`.
    pub mode: Option<agent_guard_types::CheckpointMode>,
    /// Files larger than this are listed in a checkpoint without their content.
    pub max_file_bytes: Option<u64>,
}

/// The `[preserve]` table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PreserveConfig {
    /// The largest file whose current version is preserved before an overwrite; a larger
    /// one makes the verdict ASK.
    pub max_bytes: Option<u64>,
    /// `false` lets harness edit tools (`Write`, `Edit`, `apply_patch`, …) through without
    /// preserving what they replace.
    pub edit_tools: Option<bool>,
}

/// The `[regenerable]` table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RegenerableConfig {
    /// `false` disables the direct deletion of regenerable artifacts.
    pub enabled: Option<bool>,
    /// Extra artifact patterns, added to the defaults.
    pub artifacts: Vec<String>,
}

/// The `[retention]` table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RetentionConfig {
    /// Transactions older than this many days may be purged.
    pub days: Option<u32>,
    /// The quarantine size above which the oldest transactions may be purged.
    pub max_bytes: Option<u64>,
    /// Transactions newer than this many minutes are never purged.
    pub grace_minutes: Option<u32>,
}

/// The `[hook]` table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HookConfig {
    /// The internal deadline of one hook invocation, in milliseconds.
    pub deadline_ms: Option<u64>,
}

impl ConfigFile {
    /// Parses the text of a project file; `path` is only used in errors.
    pub fn parse(text: &str, path: &Path) -> Result<ConfigFile, ConfigError> {
        toml::from_str(text).map_err(|source| ConfigError::Parse {
            path: path.to_path_buf(),
            suggestion: nearest_key(source.message()),
            source: Box::new(source),
        })
    }
}

/// For the parser's "unknown field `trsh`, expected one of `dialect`, `trash`, …", the
/// expected key nearest to the unknown one, when one is near enough to be a typo.
fn nearest_key(message: &str) -> Option<String> {
    let rest = message.strip_prefix("unknown field `")?;
    let (unknown, expected) = rest.split_once('`')?;
    expected
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|key| (strsim::damerau_levenshtein(unknown, key), key))
        .filter(|(distance, key)| *distance <= (key.len().max(unknown.len()) / 3).max(2))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, key)| key.to_owned())
}

/// Reads `<workspace>/.agent-guard.toml` if it exists.
///
/// Returns `Ok(None)` when there is no such file. A file that exists but cannot be read, is
/// larger than [`MAX_CONFIG_BYTES`], is not UTF-8 or does not parse is an error that names the
/// file; it never degrades to the defaults.
pub fn load_config(workspace: &Path) -> Result<Option<ConfigFile>, ConfigError> {
    let Some(bytes) = read_bytes(workspace)? else {
        return Ok(None);
    };
    parse_bytes(workspace, bytes).map(Some)
}

/// Parses the bytes [`read_bytes`] returned.
pub(crate) fn parse_bytes(workspace: &Path, bytes: Vec<u8>) -> Result<ConfigFile, ConfigError> {
    parse_path(&workspace.join(CONFIG_FILE_NAME), bytes)
}

/// Parses the bytes of the configuration file at `path`.
pub(crate) fn parse_path(path: &Path, bytes: Vec<u8>) -> Result<ConfigFile, ConfigError> {
    let text = String::from_utf8(bytes).map_err(|source| ConfigError::NotUtf8 {
        path: path.to_path_buf(),
        source,
    })?;
    ConfigFile::parse(&text, path)
}

/// The bytes of `<workspace>/.agent-guard.toml`, `None` when there is none.
pub(crate) fn read_bytes(workspace: &Path) -> Result<Option<Vec<u8>>, ConfigError> {
    read_path(&workspace.join(CONFIG_FILE_NAME))
}

/// The bytes of the configuration file at `path`, `None` when there is none: opened
/// without blocking, read only when it is a regular file, at most [`MAX_CONFIG_BYTES`].
pub(crate) fn read_path(path: &Path) -> Result<Option<Vec<u8>>, ConfigError> {
    let path = path.to_path_buf();
    let read_error = |source| ConfigError::Read {
        path: path.clone(),
        source,
    };
    // Opened without blocking (a FIFO planted at the name would block the open until a
    // writer came) and read only when it is a regular file.
    let file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits().cast_signed())
        .open(&path)
    {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(read_error(error)),
    };
    if !file.metadata().map_err(read_error)?.is_file() {
        return Err(ConfigError::NotAFile { path });
    }
    let mut bytes = Vec::new();
    // Read one byte past the limit so that an oversized file is detected without reading it
    // all (the file could be a FIFO or a huge file planted by mistake).
    file.take(MAX_CONFIG_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(read_error)?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        return Err(ConfigError::TooLarge {
            path,
            limit: MAX_CONFIG_BYTES,
        });
    }
    Ok(Some(bytes))
}

/// The project file alone (no user or system layer, see [`crate::layers`]) with what a
/// person has not trusted set aside: the configuration it makes (`None` when there is no
/// file) and the loosening keys that were set aside because these bytes were not trusted
/// (see `trust.rs`). `state_dir` is where trust is recorded.
///
/// # Errors
/// As [`load_config`].
pub fn load_trusted_config(
    workspace: &Path,
    state_dir: Option<&Path>,
) -> Result<Option<(ConfigFile, Vec<&'static str>)>, ConfigError> {
    let layered = crate::layers::load_layers(workspace, state_dir, None, None)?;
    Ok(layered.any.then_some((layered.file, layered.set_aside)))
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::*;

    fn write(dir: &Path, text: &str) {
        fs_err::write(dir.join(CONFIG_FILE_NAME), text).unwrap();
    }

    #[test]
    fn a_fifo_at_the_name_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CONFIG_FILE_NAME);
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            &path,
            rustix::fs::Mode::from_raw_mode(0o600),
        )
        .unwrap();
        let (sender, receiver) = std::sync::mpsc::channel();
        let workspace = dir.path().to_path_buf();
        std::thread::spawn(move || sender.send(load_config(&workspace)).unwrap());
        let loaded = receiver
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("a FIFO at the config's name must not make the guard hang");
        assert!(
            matches!(loaded, Err(ConfigError::NotAFile { .. })),
            "{loaded:?}"
        );
    }

    #[test]
    fn missing_file_is_none() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(load_config(dir.path()).unwrap(), None);
    }

    #[test]
    fn full_file_parses() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            r#"
dialect = "pwsh"
trash = "q"
[regenerable]
enabled = false
artifacts = ["gen", "*.o"]
[retention]
days = 7
max_bytes = 1024
grace_minutes = 5
[hook]
deadline_ms = 250
"#,
        );
        let file = load_config(dir.path()).unwrap().unwrap();
        assert_eq!(file.dialect.as_deref(), Some("pwsh"));
        assert_eq!(file.trash, Some(PathBuf::from("q")));
        assert_eq!(file.regenerable.enabled, Some(false));
        assert_eq!(file.regenerable.artifacts, ["gen", "*.o"]);
        assert_eq!(file.retention.days, Some(7));
        assert_eq!(file.retention.max_bytes, Some(1024));
        assert_eq!(file.retention.grace_minutes, Some(5));
        assert_eq!(file.hook.deadline_ms, Some(250));
    }

    #[test]
    fn empty_file_is_all_defaults() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "");
        assert_eq!(
            load_config(dir.path()).unwrap(),
            Some(ConfigFile::default())
        );
    }

    #[test]
    fn unknown_keys_are_rejected_in_every_table() {
        for text in [
            "trsh = \"x\"",
            "[regenerable]\nenable = true",
            "[retention]\nday = 1",
            "[hook]\ndeadline = 1",
            "[unknown]\nx = 1",
        ] {
            let dir = tempfile::tempdir().unwrap();
            write(dir.path(), text);
            let error = load_config(dir.path()).unwrap_err();
            assert!(
                matches!(error, ConfigError::Parse { .. }),
                "{text}: {error:?}"
            );
        }
    }

    #[test]
    fn an_unknown_key_names_the_nearest_valid_one() {
        for (text, nearest) in [
            ("trsh = \"x\"", Some("trash")),
            ("dialet = \"posix\"", Some("dialect")),
            ("[regenerable]\nartifact = []", Some("artifacts")),
            ("[retention]\nday = 1", Some("days")),
            ("[hook]\ndeadline = 1", Some("deadline_ms")),
            ("[checkpoint]\nmax_file_byte = 1", Some("max_file_bytes")),
            ("[preserve]\nedittools = true", Some("edit_tools")),
            ("completely_else = 1", None),
        ] {
            let dir = tempfile::tempdir().unwrap();
            write(dir.path(), text);
            let error = load_config(dir.path()).unwrap_err();
            let ConfigError::Parse { suggestion, .. } = &error else {
                panic!("{text}: {error:?}");
            };
            assert_eq!(suggestion.as_deref(), nearest, "{text}");
            if let Some(key) = nearest {
                assert!(
                    error
                        .to_string()
                        .contains(&format!("did you mean `{key}`?"))
                );
            }
        }
    }

    #[test]
    fn malformed_file_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "dialect = \n[[[");
        let error = load_config(dir.path()).unwrap_err();
        let path = dir.path().join(CONFIG_FILE_NAME);
        assert!(
            error.to_string().contains(&path.display().to_string()),
            "{error}"
        );
        assert!(error.source().is_some());
    }

    #[test]
    fn wrong_types_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "[retention]\ndays = -1");
        assert!(matches!(
            load_config(dir.path()),
            Err(ConfigError::Parse { .. })
        ));
        write(dir.path(), "[regenerable]\nenabled = \"no\"");
        assert!(matches!(
            load_config(dir.path()),
            Err(ConfigError::Parse { .. })
        ));
    }

    #[test]
    fn oversized_and_non_utf8_files_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let big = format!(
            "# {}\n",
            "x".repeat(usize::try_from(MAX_CONFIG_BYTES).unwrap())
        );
        write(dir.path(), &big);
        assert!(matches!(
            load_config(dir.path()),
            Err(ConfigError::TooLarge { .. })
        ));
        fs_err::write(dir.path().join(CONFIG_FILE_NAME), b"dialect = \"\xff\"").unwrap();
        assert!(matches!(
            load_config(dir.path()),
            Err(ConfigError::NotUtf8 { .. })
        ));
    }

    #[test]
    fn a_directory_at_the_name_is_not_a_file() {
        let dir = tempfile::tempdir().unwrap();
        fs_err::create_dir(dir.path().join(CONFIG_FILE_NAME)).unwrap();
        assert!(matches!(
            load_config(dir.path()),
            Err(ConfigError::NotAFile { .. })
        ));
    }
}
