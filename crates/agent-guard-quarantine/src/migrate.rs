//! Moving a store from inside the workspace (`<workspace>/.agent-trash`, where the reference
//! tool and earlier versions kept it) to its place out of reach, automatically and
//! crash-safely.
//!
//! Under the old store's writers' lock, with its interrupted transactions reconciled first:
//!
//! 1. `<new>/migrated-from` names the old place, durably, in what becomes the new store: on
//!    the same filesystem the whole directory is renamed there (one atomic `rename`); across
//!    filesystems it is copied under `<new>.agent-guard-partial`, verified, and only then
//!    renamed into place and the old copy removed;
//! 2. the journal's paths into the old place are rewritten to the new one (a durable
//!    replacement of `manifest.jsonl`; the reconciliation checkpoint becomes stale and is
//!    ignored);
//! 3. the marker goes.
//!
//! Any step interrupted is finished by the next command that opens the workspace: a marker
//! means steps 2 and 3 are due (and, across filesystems, that the old copy may go); a partial
//! copy is our own and is removed. A new store that already holds transactions is never
//! merged into: the old one is left, and `status` names it.

use std::io::Write as _;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::DirBuilderExt as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::copy::{NoProgress, copy_verified};
use crate::error::QuarantineError;
use crate::faults::Faults;
use crate::lock::StoreLock;
use crate::manifest::MANIFEST_FILE_NAME;
use crate::store::Quarantine;
use agent_guard_fsops as fsops;

/// The marker a migration leaves in the new store until its journal is rewritten.
pub const MIGRATED_FROM: &str = "migrated-from";

/// What [`migrate_store`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Migration {
    /// There was nothing to move.
    Nothing,
    /// The old store is now the new one.
    Moved,
    /// Both hold transactions: the old one was left where it is.
    LeftBoth,
}

/// Moves the store at `old` (inside the workspace) to `new`, or finishes a move an earlier
/// command began. Cheap when there is nothing to do: one `lstat` and one `stat`.
///
/// # Errors
/// A step failed; what was done so far is finished by the next call.
pub fn migrate_store(
    workspace: &Path,
    old: &Path,
    new: &Path,
) -> Result<Migration, QuarantineError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| QuarantineError::CreateTrash { path, source }
    };
    if new.join(MIGRATED_FROM).is_file() {
        finish(new, old)?;
        return Ok(Migration::Moved);
    }
    // Never through a link: a cloned repository can ship `.agent-trash` as one.
    let Ok(meta) = old.symlink_metadata() else {
        return Ok(Migration::Nothing);
    };
    if !meta.is_dir() || !old.join(MANIFEST_FILE_NAME).is_file() {
        return Ok(Migration::Nothing);
    }
    if new.join(MANIFEST_FILE_NAME).is_file() {
        return Ok(Migration::LeftBoth);
    }
    let lock = StoreLock::acquire(old, true)?;
    if !old.join(MANIFEST_FILE_NAME).is_file() {
        // Another command moved it meanwhile.
        return Ok(Migration::Nothing);
    }
    Quarantine::new(workspace, old).reconcile_locked()?;
    private_dirs(new.parent().unwrap_or(new)).map_err(io(new))?;
    // The watcher of the old store listens on a socket in it; without it, it ends.
    let _ = fsops::remove_file(&old.join("watch").join("sock"));
    let marker = old.join(MIGRATED_FROM);
    write_durably(&marker, old.as_os_str().as_bytes()).map_err(io(&marker))?;
    if let Ok(empty) = fs_err::read_dir(new).map(|mut e| e.next().is_none())
        && empty
    {
        // An empty directory made before (by a layout call): the rename takes its place.
        let _ = fsops::remove_dir(new);
    }
    match fsops::rename_noreplace(old, new) {
        Ok(()) => {}
        Err(error) if fsops::is_cross_device(&error) => {
            let partial = partial_of(new);
            if partial.symlink_metadata().is_ok() {
                let _ = fsops::remove_tree(&partial);
            }
            copy_verified(old, &partial, &NoProgress, Faults::none()).map_err(|e| {
                QuarantineError::CreateTrash {
                    path: partial.clone(),
                    source: std::io::Error::other(e.to_string()),
                }
            })?;
            fsops::rename_noreplace(&partial, new).map_err(io(new))?;
            fsops::sync_dir(new.parent().unwrap_or(new)).map_err(io(new))?;
        }
        Err(error) => return Err(io(new)(error)),
    }
    drop(lock);
    finish(new, old)?;
    Ok(Migration::Moved)
}

/// Steps 2 and 3 (and the old copy's removal across filesystems).
fn finish(new: &Path, old: &Path) -> Result<(), QuarantineError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| QuarantineError::CreateTrash { path, source }
    };
    let marker = new.join(MIGRATED_FROM);
    let from = PathBuf::from(std::ffi::OsStr::from_bytes(
        &fs_err::read(&marker).map_err(io(&marker))?,
    ));
    let _lock = StoreLock::acquire(new, true)?;
    if !marker.is_file() {
        return Ok(());
    }
    let manifest = new.join(MANIFEST_FILE_NAME);
    let bytes = fs_err::read(&manifest).map_err(io(&manifest))?;
    let rewritten = rebase_journal(&bytes, &from, new);
    if rewritten != bytes {
        fsops::replace_file(&manifest, &rewritten).map_err(io(&manifest))?;
    }
    // Across filesystems the old copy is still there: the new one is complete and
    // verified (it was renamed into place only then), so the old one goes.
    if from == old && old.join(MIGRATED_FROM).is_file() && old != new {
        fsops::remove_tree(old).map_err(io(old))?;
    }
    fsops::remove_file(&marker).map_err(io(&marker))?;
    fsops::sync_dir(new).map_err(io(new))
}

/// The journal with every path into `from` moved to `to` (lines it cannot read unchanged).
pub(crate) fn rebase_journal(bytes: &[u8], from: &Path, to: &Path) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    for line in bytes.split_inclusive(|b| *b == b'\n') {
        let body = line.strip_suffix(b"\n").unwrap_or(line);
        let rebased = serde_json::from_slice::<Value>(body)
            .ok()
            .and_then(|mut value| rebase_record(&mut value, from, to).then_some(value))
            .and_then(|value| serde_json::to_vec(&value).ok());
        match rebased {
            Some(text) => {
                out.extend_from_slice(&text);
                if line.ends_with(b"\n") {
                    out.push(b'\n');
                }
            }
            None => out.extend_from_slice(line),
        }
    }
    out
}

/// Rebases the path fields of one record; whether any changed.
fn rebase_record(value: &mut Value, from: &Path, to: &Path) -> bool {
    let Some(object) = value.as_object_mut() else {
        return false;
    };
    let mut changed = false;
    for key in ["trash_path", "copy_path", "kept_path"] {
        let Some(Value::String(text)) = object.get(key) else {
            continue;
        };
        if let Ok(rest) = Path::new(text).strip_prefix(from) {
            let moved = to.join(rest);
            if let Some(moved) = moved.to_str() {
                object.insert(key.to_owned(), Value::String(moved.to_owned()));
                changed = true;
            }
        }
    }
    changed
}

/// Makes `dir` and its missing parents, the ones it makes private (`0700`).
pub(crate) fn private_dirs(dir: &Path) -> std::io::Result<()> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

fn partial_of(new: &Path) -> PathBuf {
    let mut name = new.file_name().unwrap_or_default().to_os_string();
    name.push(".agent-guard-partial");
    new.with_file_name(name)
}

fn write_durably(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = fs_err::File::create(path)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    fsops::sync_dir(path.parent().unwrap_or(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_journal_follows_the_store() {
        let journal =
            b"{\"trash_path\":\"/ws/.agent-trash/t1/a\",\"txid\":\"t1\",\"type\":\"relocate\"}\n\
            not json\n\
            {\"origin_path\":\"/ws/a\",\"txid\":\"t1\",\"type\":\"restore\"}\n";
        let out = rebase_journal(journal, Path::new("/ws/.agent-trash"), Path::new("/s/ws-1"));
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("\"trash_path\":\"/s/ws-1/t1/a\""), "{text}");
        assert!(text.contains("not json\n"));
        assert!(text.contains("\"origin_path\":\"/ws/a\""));
    }

    #[test]
    fn a_store_moves_whole_and_its_journal_with_it() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        let old = ws.join(".agent-trash");
        let new = dir.path().join("data/agent-guard/ws-1");
        fs_err::create_dir_all(old.join("t1")).unwrap();
        fs_err::write(old.join("t1/a"), "a").unwrap();
        let line = format!(
            "{{\"trash_path\":\"{}\",\"txid\":\"t1\",\"type\":\"relocate\"}}\n",
            old.join("t1/a").display()
        );
        fs_err::write(old.join(MANIFEST_FILE_NAME), &line).unwrap();
        assert_eq!(migrate_store(&ws, &old, &new).unwrap(), Migration::Moved);
        assert!(!old.exists());
        assert_eq!(fs_err::read_to_string(new.join("t1/a")).unwrap(), "a");
        let journal = fs_err::read_to_string(new.join(MANIFEST_FILE_NAME)).unwrap();
        assert!(
            journal.contains(&new.join("t1/a").display().to_string()),
            "{journal}"
        );
        assert!(!new.join(MIGRATED_FROM).exists());
        assert_eq!(migrate_store(&ws, &old, &new).unwrap(), Migration::Nothing);
    }

    #[test]
    fn an_interrupted_move_is_finished() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        let old = ws.join(".agent-trash");
        let new = dir.path().join("store");
        fs_err::create_dir_all(&new).unwrap();
        // The rename happened, the journal was not rewritten yet.
        fs_err::write(new.join(MIGRATED_FROM), old.as_os_str().as_bytes()).unwrap();
        let line = format!(
            "{{\"trash_path\":\"{}\",\"txid\":\"t1\",\"type\":\"relocate\"}}\n",
            old.join("t1/a").display()
        );
        fs_err::write(new.join(MANIFEST_FILE_NAME), &line).unwrap();
        assert_eq!(migrate_store(&ws, &old, &new).unwrap(), Migration::Moved);
        let journal = fs_err::read_to_string(new.join(MANIFEST_FILE_NAME)).unwrap();
        assert!(journal.contains(&new.join("t1/a").display().to_string()));
        assert!(!new.join(MIGRATED_FROM).exists());
    }

    #[test]
    fn a_linked_old_store_is_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        fs_err::create_dir_all(&ws).unwrap();
        let elsewhere = dir.path().join("elsewhere");
        fs_err::create_dir_all(&elsewhere).unwrap();
        fs_err::write(elsewhere.join(MANIFEST_FILE_NAME), "").unwrap();
        std::os::unix::fs::symlink(&elsewhere, ws.join(".agent-trash")).unwrap();
        let new = dir.path().join("store");
        assert_eq!(
            migrate_store(&ws, &ws.join(".agent-trash"), &new).unwrap(),
            Migration::Nothing
        );
        assert!(elsewhere.join(MANIFEST_FILE_NAME).exists());
    }
}
