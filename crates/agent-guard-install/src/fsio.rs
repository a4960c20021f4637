//! File operations of install and uninstall: atomic writes that keep permissions, and the
//! two removals uninstall needs.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The current content of a file: `None` when it does not exist.
pub(crate) fn read(path: &Path) -> Result<Option<Vec<u8>>> {
    match fs_err::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(Error::io(path)(error)),
    }
}

/// The permission bits of a file, if it exists.
pub(crate) fn mode(path: &Path) -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        fs_err::metadata(path)
            .ok()
            .map(|meta| meta.permissions().mode() & 0o7777)
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// The file that writes to `path` land in: its target when `path` is a symlink (dotfile
/// managers link harness configs), so the link itself survives.
pub(crate) fn write_target(path: &Path) -> PathBuf {
    if path.is_symlink() {
        fs_err::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
    } else {
        path.to_path_buf()
    }
}

/// Creates the missing ancestors of `path` and returns them, outermost first.
pub(crate) fn create_parents(path: &Path) -> Result<Vec<PathBuf>> {
    let Some(parent) = path.parent() else {
        return Ok(Vec::new());
    };
    let missing: Vec<PathBuf> = parent
        .ancestors()
        .take_while(|dir| !dir.exists())
        .map(Path::to_path_buf)
        .collect();
    fs_err::create_dir_all(parent).map_err(Error::io(parent))?;
    Ok(missing.into_iter().rev().collect())
}

/// Replaces `path` with `bytes` atomically (a sibling temporary file, fsynced, renamed over
/// it), with permission bits `mode`.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8], mode: u32) -> Result<()> {
    let target = write_target(path);
    let dir = target.parent().unwrap_or(Path::new("."));
    let mut temp = tempfile::Builder::new()
        .prefix(".agent-guard-")
        .tempfile_in(dir)
        .map_err(Error::io(dir))?;
    temp.write_all(bytes).map_err(Error::io(temp.path()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        fs_err::set_permissions(temp.path(), std::fs::Permissions::from_mode(mode))
            .map_err(Error::io(temp.path()))?;
    }
    #[cfg(not(unix))]
    let _ = mode;
    temp.as_file().sync_all().map_err(Error::io(temp.path()))?;
    temp.persist(&target)
        .map_err(|error| Error::io(&target)(error.error))?;
    if let Ok(dir_handle) = fs_err::File::open(dir) {
        // Best effort: the rename is durable once the directory is synced.
        let _ = dir_handle.sync_all();
    }
    Ok(())
}

/// Removes a file agent-guard created, during uninstall.
#[expect(
    clippy::disallowed_methods,
    reason = "uninstall removes a config file that install created (recorded in the install state), only when it is byte-identical to what install wrote"
)]
pub(crate) fn remove_created_file(path: &Path) -> Result<()> {
    match fs_err::remove_file(path) {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(Error::io(path)(error)),
    }
}

/// Removes the directories install created, innermost first, as long as they are empty.
/// Returns those that stay (not empty), outermost first.
#[expect(
    clippy::disallowed_methods,
    reason = "uninstall removes only empty directories that install created (recorded in the install state)"
)]
pub(crate) fn remove_created_dirs(dirs: &[PathBuf]) -> Vec<PathBuf> {
    for (index, dir) in dirs.iter().enumerate().rev() {
        // A directory that is not empty (another file of ours, or the user's) stays.
        if fs_err::remove_dir(dir).is_err() {
            return dirs[..=index].to_vec();
        }
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_keeps_symlinks_and_sets_modes() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.json");
        fs_err::write(&real, "old").unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomic(&link, b"new", 0o640).unwrap();
        assert!(link.is_symlink());
        assert_eq!(fs_err::read(&real).unwrap(), b"new");
        assert_eq!(mode(&real), Some(0o640));
    }

    #[test]
    fn created_parents_are_listed_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a/b/c.json");
        let created = create_parents(&file).unwrap();
        assert_eq!(created, vec![dir.path().join("a"), dir.path().join("a/b")]);
        fs_err::write(dir.path().join("a/keep"), "").unwrap();
        assert_eq!(remove_created_dirs(&created), vec![dir.path().join("a")]);
        assert!(!dir.path().join("a/b").exists());
    }
}
