//! A project file may tighten the guard, never loosen it, until a person trusts it.
//!
//! `.agent-guard.toml` lives in the workspace, where the agent can write it. A setting that
//! weakens protection there — a quarantine elsewhere, more regenerable artifacts, shorter
//! retention, edit tools or checkpoints switched off, a larger preservation cap (fewer
//! questions) — takes effect only after a person runs `agent-guard config trust`, which
//! records the file's SHA-256 outside the workspace (in the user's state directory, itself a
//! guard file), as direnv's `allow` does. A changed file needs trust again. Until then the
//! safe value is used ([`tightened`]) and the caller says which settings were set aside.

use std::path::{Path, PathBuf};

use sha2::{Digest as _, Sha256};

use crate::{ConfigError, ConfigFile};

/// The keys of `file` that weaken protection compared with the defaults, in file order
/// (what [`crate::layers::tighten`] sets aside over no other layer).
pub fn loosening(file: &ConfigFile) -> Vec<&'static str> {
    crate::layers::tighten(&ConfigFile::default(), file).1
}

/// `file` with every loosening setting set back to its default; what tightens stays.
pub fn tightened(file: &ConfigFile) -> ConfigFile {
    crate::layers::tighten(&ConfigFile::default(), file).0
}

/// The SHA-256 of a project file's bytes, as hex.
pub fn digest(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    Sha256::digest(bytes)
        .iter()
        .fold(String::with_capacity(64), |mut text, b| {
            let _ = write!(text, "{b:02x}");
            text
        })
}

/// Where the trust of `workspace`'s project file is recorded: one file per workspace under
/// `<state_dir>/trust/`, named by the SHA-256 of the workspace's path, holding the
/// trusted file's digest.
pub fn trust_record(state_dir: &Path, workspace: &Path) -> PathBuf {
    let key = digest(workspace.as_os_str().as_encoded_bytes());
    state_dir.join("trust").join(key)
}

/// Returns `true` if a person trusted exactly these project-file bytes (`digest`) for
/// `workspace`. A missing, unreadable or different record is no trust.
pub fn is_trusted(state_dir: Option<&Path>, workspace: &Path, digest: &str) -> bool {
    let Some(state_dir) = state_dir else {
        return false;
    };
    let record = trust_record(state_dir, workspace);
    match std::fs::symlink_metadata(&record) {
        Ok(metadata) if metadata.is_file() && metadata.len() < 4096 => {}
        _ => return false,
    }
    std::fs::read_to_string(&record).is_ok_and(|text| text.trim() == digest)
}

/// Reads the project file's bytes for [`digest`], as [`crate::load_config`] reads them.
///
/// # Errors
/// As [`crate::load_config`].
pub fn project_file_bytes(workspace: &Path) -> Result<Option<Vec<u8>>, ConfigError> {
    crate::file::read_bytes(workspace)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> ConfigFile {
        ConfigFile::parse(text, Path::new("t.toml")).unwrap()
    }

    #[test]
    fn only_weakening_settings_loosen() {
        assert!(loosening(&parse("")).is_empty());
        let tight = parse(
            "[retention]\ndays = 90\n[preserve]\nmax_bytes = 1024\n[checkpoint]\nmode = \"always\"\n[regenerable]\nenabled = false\n",
        );
        assert!(loosening(&tight).is_empty(), "{:?}", loosening(&tight));
        let loose = parse(
            "trash = \"/tmp/q\"\n[regenerable]\nartifacts = [\"data\"]\n[retention]\ndays = 1\n[preserve]\nedit_tools = false\n[checkpoint]\nmode = \"never\"\n",
        );
        assert_eq!(
            loosening(&loose),
            [
                "trash",
                "regenerable.artifacts",
                "retention.days",
                "preserve.edit_tools",
                "checkpoint.mode"
            ]
        );
        let safe = tightened(&loose);
        assert!(loosening(&safe).is_empty());
        assert_eq!(safe.trash, None);
        assert!(safe.regenerable.artifacts.is_empty());
    }

    #[test]
    fn trust_is_for_these_bytes_in_this_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let ws = Path::new("/work/project");
        let good = digest(b"trash = \"q\"\n");
        assert!(!is_trusted(Some(&state), ws, &good));
        let record = trust_record(&state, ws);
        fs_err::create_dir_all(record.parent().unwrap()).unwrap();
        fs_err::write(&record, format!("{good}\n")).unwrap();
        assert!(is_trusted(Some(&state), ws, &good));
        assert!(!is_trusted(Some(&state), ws, &digest(b"trash = \"r\"\n")));
        assert!(!is_trusted(Some(&state), Path::new("/work/other"), &good));
        assert!(!is_trusted(None, ws, &good));
    }
}
