//! Writing one config file with a record of what it was, and undoing that write.
//!
//! Install computes the file's new content and [`apply`] writes it after backing up the old
//! bytes and, on the first write, keeping them as the file's original. Uninstall computes the
//! content without agent-guard's entry and [`revert`] either restores the original exactly
//! (when the file is still exactly what agent-guard last wrote and no other install shares
//! it) or writes that structurally edited content.

use std::path::Path;

use serde::Serialize;

use crate::error::Result;
use crate::fsio;
use crate::record::{Original, Record, Store};

/// What happened to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Action {
    /// Install created the file.
    Created,
    /// Install added or updated agent-guard's entry.
    Modified,
    /// Nothing needed to change.
    Unchanged,
    /// Uninstall put the file's original bytes back.
    Restored,
    /// Uninstall removed the file install had created.
    Removed,
    /// Uninstall removed only agent-guard's entry (the file had changed since install).
    EntryRemoved,
}

/// Writes `new` to `path` (currently `current`) for `owner`, keeping the record.
/// `new_mode` applies when the file is created; an existing file keeps its mode.
pub(crate) fn apply(
    store: &Store,
    path: &Path,
    owner: &str,
    current: Option<&[u8]>,
    new: &[u8],
    new_mode: u32,
    trust_key: Option<&str>,
) -> Result<Action> {
    let existing = store.load(path)?;
    if current == Some(new) {
        // Already installed. Adopt the file only if a live record already tracks it.
        if let Some(mut record) = existing {
            let before = record.clone();
            record.add_owner(owner);
            set_trust_key(&mut record, owner, trust_key);
            if record != before {
                store.save(&record, None)?;
            }
        }
        return Ok(Action::Unchanged);
    }
    if let Some(bytes) = current {
        store.backup(path, bytes)?;
    }
    let mut record = if let Some(mut record) = existing {
        if store.written(path)?.as_deref() != current {
            // Changed outside agent-guard since: its original can no longer be restored
            // without losing that change.
            record.original = None;
        }
        record
    } else {
        if let Some(bytes) = current {
            store.put_original(path, bytes)?;
        }
        let original = Original {
            existed: current.is_some(),
            mode: fsio::mode(path),
        };
        let created = if current.is_none() {
            fsio::create_parents(path)?
        } else {
            Vec::new()
        };
        Record::new(path, original, created)
    };
    record.add_owner(owner);
    set_trust_key(&mut record, owner, trust_key);
    store.save(&record, Some(new))?;
    fsio::create_parents(path)?;
    let mode = fsio::mode(path).unwrap_or(new_mode);
    fsio::write_atomic(path, new, mode)?;
    Ok(if current.is_none() {
        Action::Created
    } else {
        Action::Modified
    })
}

/// Removes `owner`'s part of `path`: `without` is the current content with agent-guard's
/// entry removed (`None`: the file should not exist, a Cline script).
pub(crate) fn revert(
    store: &Store,
    path: &Path,
    owner: &str,
    current: Option<&[u8]>,
    without: Option<&[u8]>,
) -> Result<Action> {
    let record = store.load(path)?;
    let Some(current) = current else {
        // The file is gone already: nothing of ours is left in it.
        if let Some(record) = record {
            forget(store, record, owner, None)?;
        }
        return Ok(Action::Unchanged);
    };
    if without == Some(current) {
        if let Some(record) = record {
            forget(store, record, owner, None)?;
        }
        return Ok(Action::Unchanged);
    }
    if let Some(record) = &record {
        let untouched = store.written(path)?.as_deref() == Some(current);
        let sole_owner = record.owners.iter().all(|o| o == owner);
        if let (true, true, Some(original)) = (untouched, sole_owner, record.original) {
            restore(store, record, original)?;
            store.retire(path)?;
            return Ok(if original.existed {
                Action::Restored
            } else {
                Action::Removed
            });
        }
    }
    store.backup(path, current)?;
    match without {
        Some(bytes) => {
            let mode = fsio::mode(path).unwrap_or(0o644);
            fsio::write_atomic(path, bytes, mode)?;
        }
        None => fsio::remove_created_file(path)?,
    }
    if let Some(record) = record {
        let untouched = store.written(path)?.as_deref() == Some(current);
        forget(store, record, owner, untouched.then_some(without).flatten())?;
    }
    Ok(Action::EntryRemoved)
}

/// Puts the original bytes back, or removes the file and the directories install created.
fn restore(store: &Store, record: &Record, original: Original) -> Result<()> {
    if original.existed {
        let bytes = store.original(&record.path)?.unwrap_or_default();
        fsio::write_atomic(&record.path, &bytes, original.mode.unwrap_or(0o644))
    } else {
        fsio::remove_created_file(&record.path)?;
        let kept = fsio::remove_created_dirs(&record.created_dirs);
        // A directory install created that still holds another of our files (Codex's
        // `hooks.json` and `config.toml`) goes with that file's uninstall.
        store.hand_over_dirs(&record.path, &kept)
    }
}

/// Drops `owner` from a record after a structural removal. `written` is the new content
/// when the file was still agent-guard's own before it (the original stays restorable for
/// the remaining owners); otherwise the original is given up.
fn forget(store: &Store, mut record: Record, owner: &str, written: Option<&[u8]>) -> Result<()> {
    record.remove_owner(owner);
    if record.owners.is_empty() {
        return store.retire(&record.path);
    }
    if written.is_none() {
        record.original = None;
    }
    store.save(&record, written)
}

fn set_trust_key(record: &mut Record, owner: &str, key: Option<&str>) {
    if let Some(key) = key {
        record.trust_keys.retain(|(o, _)| o != owner);
        record.trust_keys.push((owner.to_owned(), key.to_owned()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(dir: &Path) -> Store {
        Store::new(dir.join("state"))
    }

    #[test]
    fn apply_then_revert_restores_bytes_and_mode() {
        let dir = tempfile::tempdir().unwrap();
        let store = store(dir.path());
        let path = dir.path().join("settings.json");
        fs_err::write(&path, "{ \"a\":1 }").unwrap();
        fsio::write_atomic(&path, b"{ \"a\":1 }", 0o600).unwrap();
        let action = apply(
            &store,
            &path,
            "o",
            Some(b"{ \"a\":1 }"),
            b"{\"a\": 2}",
            0o644,
            None,
        )
        .unwrap();
        assert_eq!(action, Action::Modified);
        let current = fs_err::read(&path).unwrap();
        let action = revert(&store, &path, "o", Some(&current), Some(b"{\"a\": 1}")).unwrap();
        assert_eq!(action, Action::Restored);
        assert_eq!(fs_err::read(&path).unwrap(), b"{ \"a\":1 }");
        assert_eq!(fsio::mode(&path), Some(0o600));
    }

    #[test]
    fn created_files_and_dirs_go_away() {
        let dir = tempfile::tempdir().unwrap();
        let store = store(dir.path());
        let path = dir.path().join("ws/.cursor/hooks.json");
        assert_eq!(
            apply(&store, &path, "o", None, b"{}", 0o644, None).unwrap(),
            Action::Created
        );
        assert_eq!(
            revert(&store, &path, "o", Some(b"{}"), Some(b"{ }")).unwrap(),
            Action::Removed
        );
        assert!(!dir.path().join("ws").exists());
    }

    #[test]
    fn an_edited_file_keeps_the_edit() {
        let dir = tempfile::tempdir().unwrap();
        let store = store(dir.path());
        let path = dir.path().join("hooks.json");
        apply(&store, &path, "o", None, b"ours", 0o644, None).unwrap();
        fs_err::write(&path, "ours+edit").unwrap();
        let action = revert(&store, &path, "o", Some(b"ours+edit"), Some(b"edit")).unwrap();
        assert_eq!(action, Action::EntryRemoved);
        assert_eq!(fs_err::read(&path).unwrap(), b"edit");
    }

    #[test]
    fn shared_files_restore_after_the_last_owner() {
        let dir = tempfile::tempdir().unwrap();
        let store = store(dir.path());
        let path = dir.path().join("config.toml");
        fs_err::write(&path, "x").unwrap();
        apply(&store, &path, "a", Some(b"x"), b"xa", 0o644, Some("ka")).unwrap();
        apply(&store, &path, "b", Some(b"xa"), b"xab", 0o644, Some("kb")).unwrap();
        let action = revert(&store, &path, "a", Some(b"xab"), Some(b"xb")).unwrap();
        assert_eq!(action, Action::EntryRemoved);
        fs_err::write(&path, "xb").unwrap();
        let action = revert(&store, &path, "b", Some(b"xb"), Some(b"x")).unwrap();
        assert_eq!(action, Action::Restored);
        assert_eq!(fs_err::read(&path).unwrap(), b"x");
    }
}
