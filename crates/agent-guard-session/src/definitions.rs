//! The shell definitions a session made and never called (issue 38, point 2).
//!
//! A line that only defines a function or an alias (`f() { rm -rf build; }`) runs nothing
//! and is allowed; a shell that keeps its definitions runs the body when a later line calls
//! `f`. The engine remembers each such definition here, per session (a shell may move
//! between workspaces, its definitions go along), before the defining line runs, and judges
//! every later line of the session with them defined first.
//!
//! Stored as `definitions/<session>.json` (`definitions/no-session.json` without one) in
//! agent-guard's per-user state directory, which the guard protects: a JSON array of
//! `{"name", "text"}` in the order they were made, never replaced (a definition that did
//! not run, `false && f() { :; }`, must not hide the one that did), at most
//! [`MAX_DEFINITIONS`]; a session that would make more has its new ones judged where they
//! stand. An unreadable or corrupt file reads as none.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::sanitize_session;

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

/// Where a session's definitions are kept, below agent-guard's per-user `state_dir`.
pub fn definitions_path(state_dir: &Path, session: Option<&str>) -> PathBuf {
    let stem = session.map_or_else(|| "no-session".to_owned(), sanitize_session);
    state_dir.join("definitions").join(format!("{stem}.json"))
}

/// The definitions kept at `path`, oldest first; none when there is no (valid) file. One
/// failed `open` when there is none: this is read for every line.
pub fn read_definitions(path: &Path) -> Vec<Remembered> {
    let Ok(file) =
        agent_guard_fsops::state::open_file(path, agent_guard_fsops::state::Access::Read)
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

/// Adds `new` to the definitions kept at `path` (one already there with the same text is
/// not added twice), durably: written to a temporary file, flushed and renamed over the old
/// one, its directory made (private) if need be.
///
/// # Errors
/// The file could not be written, or it would hold more than [`MAX_DEFINITIONS`] (nothing
/// is dropped to make room).
pub fn remember(path: &Path, new: &[Remembered]) -> Result<(), std::io::Error> {
    if new.is_empty() {
        return Ok(());
    }
    let mut all = read_definitions(path);
    for definition in new {
        if !all.contains(definition) {
            all.push(definition.clone());
        }
    }
    if all.len() > MAX_DEFINITIONS {
        return Err(std::io::Error::other(format!(
            "the session already keeps {MAX_DEFINITIONS} definitions"
        )));
    }
    if let Some(dir) = path.parent().filter(|dir| !dir.is_dir()) {
        std::os::unix::fs::DirBuilderExt::mode(std::fs::DirBuilder::new().recursive(true), 0o700)
            .create(dir)?;
    }
    let mut bytes = serde_json::to_vec(&all).map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(std::io::Error::other(
            "the session's definitions are larger than the guard keeps",
        ));
    }
    agent_guard_fsops::replace_file(path, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_are_kept_per_session_and_never_replaced() {
        let state = tempfile::tempdir().unwrap();
        let path = definitions_path(state.path(), Some("a"));
        let def = |name: &str, text: &str| Remembered {
            name: name.into(),
            text: text.into(),
        };
        assert!(read_definitions(&path).is_empty());
        remember(&path, &[def("f", "f() { rm x; }")]).unwrap();
        remember(&path, &[def("g", "alias g='rm y'")]).unwrap();
        remember(&path, &[def("f", "f() { :; }"), def("g", "alias g='rm y'")]).unwrap();
        assert_eq!(
            read_definitions(&path),
            [
                def("f", "f() { rm x; }"),
                def("g", "alias g='rm y'"),
                def("f", "f() { :; }")
            ]
        );
        assert!(read_definitions(&definitions_path(state.path(), Some("b"))).is_empty());
        let many: Vec<Remembered> = (0..MAX_DEFINITIONS)
            .map(|i| def(&format!("g{i}"), &format!("g{i}() {{ :; }}")))
            .collect();
        assert!(
            remember(&path, &many).is_err(),
            "nothing is dropped for room"
        );
        assert_eq!(read_definitions(&path).len(), 3);
        std::fs::write(&path, "not json").unwrap();
        assert!(read_definitions(&path).is_empty());
    }
}
