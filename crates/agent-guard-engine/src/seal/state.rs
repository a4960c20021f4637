//! The seal's files in the store: opened without following a link or waiting on a FIFO,
//! written durably.

use std::io::{Read as _, Write as _};
use std::path::Path;

use agent_guard_fsops::state::{Access, check_dir, open_file};

use super::Seal;

/// The largest pending seal read (a few thousand entries take a few hundred KiB).
const MAX_PENDING_BYTES: u64 = 16 << 20;

/// Creates the seal directory `dir` when missing, after checking that what stands there is
/// the user's own real directory.
pub(super) fn make_dir(dir: &Path) -> std::io::Result<()> {
    check_dir(dir)?;
    match std::fs::create_dir(dir) {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => check_dir(dir),
        Err(error) => Err(error),
    }
}

/// Keeps `bytes` as `blobs/<sha256>` unless it is there; answers whether it wrote one (the
/// directory is synced once by the caller).
pub(super) fn keep_blob(blobs: &Path, sha256: &str, bytes: &[u8]) -> std::io::Result<bool> {
    let path = blobs.join(sha256);
    if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
        return Ok(false);
    }
    write_synced(&path, bytes)?;
    Ok(true)
}

/// The kept bytes of `sha256`, checked against their name.
pub(super) fn blob(blobs: &Path, sha256: &str) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    open_file(&blobs.join(sha256), Access::Read)?.read_to_end(&mut bytes)?;
    if agent_guard_config::trust::digest(&bytes) != sha256 {
        return Err(std::io::Error::other(format!(
            "the kept copy {} does not hold what it was kept as",
            blobs.join(sha256).display()
        )));
    }
    Ok(bytes)
}

/// Replaces `path` with `bytes` durably: a synced temporary sibling renamed over it, the
/// directory synced.
pub(super) fn replace(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let temporary = agent_guard_fsops::temporary_sibling(path);
    write_synced(&temporary, bytes)?;
    agent_guard_fsops::rename(&temporary, path)?;
    match path.parent() {
        Some(dir) => agent_guard_fsops::sync_dir(dir),
        None => Ok(()),
    }
}

/// Writes `bytes` to the state file `path` and syncs it.
fn write_synced(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = open_file(path, Access::Truncate)?;
    file.set_len(0)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// The pending seal in `dir`, if one is there. A seal that cannot be read is an error: the
/// caller cannot say the guard files are as they were.
pub(super) fn read_pending(path: &Path) -> std::io::Result<Option<Seal>> {
    let file = match open_file(path, Access::Read) {
        Ok(file) => file,
        // No store (or none there yet): no seal was ever taken in it.
        Err(error) if agent_guard_fsops::is_absent(&error) => return Ok(None),
        Err(error) => return Err(error),
    };
    let mut bytes = Vec::new();
    file.take(MAX_PENDING_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_PENDING_BYTES {
        return Err(std::io::Error::other(format!(
            "{} is larger than a seal can be",
            path.display()
        )));
    }
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(std::io::Error::other)
}

/// Removes the blobs no entry of `seal` names (older seals' copies).
pub(super) fn prune_blobs(blobs: &Path, seal: &Seal) {
    fn kept(sealed: &super::Sealed) -> Option<&str> {
        match sealed {
            super::Sealed::File {
                sha256, kept: true, ..
            } => Some(sha256.as_str()),
            super::Sealed::Link {
                through: Some(file),
                ..
            } => kept(file),
            _ => None,
        }
    }
    let named: std::collections::BTreeSet<&str> = seal.entries.values().filter_map(kept).collect();
    let Ok(dir) = std::fs::read_dir(blobs) else {
        return;
    };
    for entry in dir.filter_map(Result::ok) {
        let name = entry.file_name();
        if !named.contains(name.to_string_lossy().as_ref()) {
            let _ = agent_guard_fsops::remove_file(&entry.path());
        }
    }
}

/// The modification time of `path`, by `lstat`.
pub(super) fn modified(path: &Path) -> Option<std::time::SystemTime> {
    std::fs::symlink_metadata(path).ok()?.modified().ok()
}

/// When a person last changed guard files (the mark in the user's `state_dir`); a mark
/// dated in the future is none: a program that sets it there would void every seal to come.
pub(super) fn person_mark(state_dir: &Path) -> Option<std::time::SystemTime> {
    let marked = modified(&state_dir.join(super::PERSON_MARK))?;
    let slack = std::time::Duration::from_mins(1);
    (marked <= std::time::SystemTime::now() + slack).then_some(marked)
}
