//! `agent-guard config trust`: a person lets the project file's loosening settings apply.
//!
//! The file's SHA-256 is written to the user's state directory (outside the workspace, and a
//! guard file the agent's commands cannot change), so the same bytes are trusted until the
//! file changes. Only a person may do this: the CLI refuses when it is not at a terminal or
//! runs under an agent's harness.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use agent_guard_config::{CONFIG_FILE_NAME, ConfigFile, EnvSnapshot, trust};
use serde::Serialize;

use crate::error::{EngineError, Result};
use crate::workspace::{Workspace, state_dir};

/// What `config trust` recorded.
#[derive(Debug, Clone, Serialize)]
pub struct TrustReport {
    /// The project file trusted.
    pub file: PathBuf,
    /// Its SHA-256, as recorded.
    pub sha256: String,
    /// The loosening settings that now apply.
    pub loosening: Vec<&'static str>,
    /// Where the trust is recorded.
    pub record: PathBuf,
}

/// Trusts the project file of the workspace at `cwd` as it is now. `person` says that a
/// person runs this (the CLI's checks); without it nothing is recorded.
///
/// # Errors
/// Not a person, no project file, a file that does not parse, no state directory, or the
/// record cannot be written.
pub fn trust_config(cwd: &Path, env: &EnvSnapshot, person: bool) -> Result<TrustReport> {
    if !person {
        return Err(EngineError::NotAPerson {
            verb: "config trust",
        });
    }
    let workspace = Workspace::open(cwd, env)?;
    let file = workspace.root.join(CONFIG_FILE_NAME);
    let bytes = trust::project_file_bytes(&workspace.root)
        .map_err(EngineError::Config)?
        .ok_or_else(|| EngineError::NoProjectFile { path: file.clone() })?;
    let text = String::from_utf8_lossy(&bytes);
    let parsed = ConfigFile::parse(&text, &file).map_err(EngineError::Config)?;
    let state = state_dir(env, workspace.home.as_deref()).ok_or(EngineError::NoStateDirectory)?;
    let sha256 = trust::digest(&bytes);
    let record = trust::trust_record(&state, &workspace.root);
    write_record(&record, &sha256).map_err(|source| EngineError::TrustRecord {
        path: record.clone(),
        source,
    })?;
    crate::seal::person_changed_guard_files(env);
    Ok(TrustReport {
        file,
        sha256,
        loosening: trust::loosening(&parsed),
        record,
    })
}

/// Writes the digest durably: a temporary file beside the record, synced, renamed over it.
fn write_record(record: &Path, sha256: &str) -> std::io::Result<()> {
    let dir = record
        .parent()
        .ok_or_else(|| std::io::Error::other("the record has no directory"))?;
    fs_err::create_dir_all(dir)?;
    let mut temporary = tempfile::NamedTempFile::new_in(dir)?;
    writeln!(temporary, "{sha256}")?;
    temporary.as_file().sync_all()?;
    temporary.persist(record).map_err(|error| error.error)?;
    fs_err::File::open(dir)?.sync_all()
}

/// The project file's loosening settings that are set aside until a person trusts the file
/// (for `doctor`); empty when there are none or the workspace cannot be opened.
pub fn untrusted_settings(cwd: &Path, env: &EnvSnapshot) -> Vec<&'static str> {
    Workspace::open(cwd, env)
        .map(|workspace| workspace.untrusted)
        .unwrap_or_default()
}
