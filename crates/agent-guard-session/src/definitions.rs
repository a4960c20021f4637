//! The shell definitions a session made and never called (issue 38, point 2).
//!
//! A line that only defines a function or an alias (`f() { rm -rf build; }`) runs nothing
//! and is allowed; a shell that keeps its definitions runs the body when a later line calls
//! `f`. The engine remembers each such definition here, per session, before the defining
//! line runs, and judges later lines of the session with them defined first.
//!
//! Stored as `sessions/<session>.definitions.json` (or `definitions.json` without a session)
//! in the quarantine: a JSON array of `{"name", "text"}`, newest last, at most
//! [`MAX_DEFINITIONS`]. Something planted at the name, an unreadable or corrupt file reads
//! as no definitions: a later call is then an unknown program, checkpointed as before.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::{SESSIONS_DIR_NAME, sanitize_session};

/// The most definitions a session keeps (the oldest go first).
pub const MAX_DEFINITIONS: usize = 64;

/// Definition files larger than this read as none.
const MAX_FILE_BYTES: u64 = 256 * 1024;

/// A function or alias definition a session made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Remembered {
    /// The name a later command calls it by.
    pub name: String,
    /// The definition's text, which defines it again when run before a later line.
    pub text: String,
}

/// Where a session's definitions are kept.
pub fn definitions_path(trash: &Path, session: Option<&str>) -> PathBuf {
    match session {
        Some(session) => trash
            .join(SESSIONS_DIR_NAME)
            .join(format!("{}.definitions.json", sanitize_session(session))),
        None => trash.join("definitions.json"),
    }
}

/// The definitions a session made, oldest first; none when there is no (valid) file.
pub fn read_definitions(trash: &Path, session: Option<&str>) -> Vec<Remembered> {
    let path = definitions_path(trash, session);
    let Ok(file) =
        agent_guard_fsops::state::open_file(&path, agent_guard_fsops::state::Access::Read)
    else {
        return Vec::new();
    };
    let mut bytes = Vec::new();
    if file
        .take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .is_err()
        || bytes.len() as u64 > MAX_FILE_BYTES
    {
        return Vec::new();
    }
    serde_json::from_slice(&bytes).unwrap_or_default()
}

/// Adds `new` to a session's definitions (a later definition of a name replaces an earlier
/// one), durably: written to a temporary file, flushed and renamed over the old one. The
/// quarantine must exist.
///
/// # Errors
/// The file could not be written.
pub fn remember(
    trash: &Path,
    session: Option<&str>,
    new: &[Remembered],
) -> Result<(), std::io::Error> {
    if new.is_empty() {
        return Ok(());
    }
    let mut all = read_definitions(trash, session);
    all.retain(|old| !new.iter().any(|n| n.name == old.name));
    all.extend(new.iter().cloned());
    let excess = all.len().saturating_sub(MAX_DEFINITIONS);
    all.drain(..excess);
    let path = definitions_path(trash, session);
    if let Some(dir) = path.parent().filter(|dir| !dir.is_dir()) {
        fs_err::create_dir(dir)?;
    }
    let mut bytes = serde_json::to_vec(&all).map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(std::io::Error::other(
            "the session's definitions are larger than the guard keeps",
        ));
    }
    agent_guard_fsops::replace_file(&path, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_are_kept_per_session_newest_replacing() {
        let trash = tempfile::tempdir().unwrap();
        let trash = trash.path();
        let def = |name: &str, text: &str| Remembered {
            name: name.into(),
            text: text.into(),
        };
        assert!(read_definitions(trash, Some("a")).is_empty());
        remember(trash, Some("a"), &[def("f", "f() { rm x; }")]).unwrap();
        remember(trash, Some("a"), &[def("g", "alias g='rm y'")]).unwrap();
        remember(trash, Some("a"), &[def("f", "f() { :; }")]).unwrap();
        assert_eq!(
            read_definitions(trash, Some("a")),
            [def("g", "alias g='rm y'"), def("f", "f() { :; }")]
        );
        assert!(read_definitions(trash, Some("b")).is_empty());
        std::fs::write(definitions_path(trash, Some("a")), "not json").unwrap();
        assert!(read_definitions(trash, Some("a")).is_empty());
    }
}
