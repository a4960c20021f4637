//! The sanctioned filesystem mutations of agent-guard: renames, removals and durable writes.
//!
//! In the pipeline this sits under the effect stage: the quarantine store, the git layer and
//! the session state move or delete files only through these functions. `clippy.toml` forbids
//! `rename` and `remove_*` everywhere else in the workspace; each function here carries an
//! `expect` that names why it may. Keep this file small and obvious.
//!
//! ```
//! let dir = tempfile::tempdir().unwrap();
//! let file = dir.path().join("state.json");
//! agent_guard_fsops::replace_file(&file, b"{}").unwrap();
//! assert_eq!(std::fs::read(&file).unwrap(), b"{}");
//! ```

#![warn(missing_docs)]

mod in_flight;
pub mod state;

pub use in_flight::SyncInFlight;

use std::io::Write as _;
use std::path::{Path, PathBuf};

use rustix::fs::{CWD, RenameFlags, renameat_with};
use rustix::io::Errno;

/// Renames `from` to `to` (atomic within one filesystem; replaces a file at `to`).
#[expect(
    clippy::disallowed_methods,
    reason = "agent-guard-fsops is the one sanctioned place for renames"
)]
pub fn rename(from: &Path, to: &Path) -> std::io::Result<()> {
    fs_err::rename(from, to)
}

/// Renames `from` to `to` without ever replacing an existing `to`
/// (`renameat2(RENAME_NOREPLACE)`). Where the filesystem lacks it, falls back to a hard link
/// plus unlink for non-directories and to check-then-rename for directories (a race there can
/// only make the rename fail with `EEXIST`/`ENOTEMPTY` or replace an empty directory).
pub fn rename_noreplace(from: &Path, to: &Path) -> std::io::Result<()> {
    match renameat_with(CWD, from, CWD, to, RenameFlags::NOREPLACE) {
        Ok(()) => Ok(()),
        Err(errno)
            if errno == Errno::INVAL || errno == Errno::NOSYS || errno == Errno::OPNOTSUPP =>
        {
            rename_noreplace_fallback(from, to)
        }
        Err(errno) => Err(std::io::Error::from(errno)),
    }
}

#[expect(
    clippy::disallowed_methods,
    reason = "agent-guard-fsops is the one sanctioned place for renames and removals"
)]
fn rename_noreplace_fallback(from: &Path, to: &Path) -> std::io::Result<()> {
    let metadata = std::fs::symlink_metadata(from)?;
    if metadata.is_dir() {
        if to.symlink_metadata().is_ok() {
            return Err(std::io::Error::from(std::io::ErrorKind::AlreadyExists));
        }
        return std::fs::rename(from, to);
    }
    std::fs::hard_link(from, to)?;
    std::fs::remove_file(from)
}

/// Returns `true` if `error` is a cross-device rename failure (`EXDEV`).
pub fn is_cross_device(error: &std::io::Error) -> bool {
    error.raw_os_error() == Some(Errno::XDEV.raw_os_error())
}

/// Returns `true` if `error` means the storage is full (`ENOSPC`, `EDQUOT`), also when a
/// wrapper (`fs-err`) kept only the error's kind.
pub fn is_storage_full(error: &std::io::Error) -> bool {
    let raw = error.raw_os_error();
    raw == Some(Errno::NOSPC.raw_os_error())
        || raw == Some(Errno::DQUOT.raw_os_error())
        || matches!(
            error.kind(),
            std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded
        )
}

/// Removes a file or a symlink (never follows it).
#[expect(
    clippy::disallowed_methods,
    reason = "agent-guard-fsops is the one sanctioned place for removals"
)]
pub fn remove_file(path: &Path) -> std::io::Result<()> {
    std::fs::remove_file(path)
}

/// Removes an empty directory.
#[expect(
    clippy::disallowed_methods,
    reason = "agent-guard-fsops is the one sanctioned place for removals"
)]
pub fn remove_dir(path: &Path) -> std::io::Result<()> {
    std::fs::remove_dir(path)
}

/// Removes a directory tree (symlinks inside are removed, never followed). Used only on
/// quarantine payload (gc) and on verified sources of cross-device moves.
#[expect(
    clippy::disallowed_methods,
    reason = "agent-guard-fsops is the one sanctioned place for removals"
)]
pub fn remove_tree(path: &Path) -> std::io::Result<()> {
    std::fs::remove_dir_all(path)
}

/// Whether `error` says the path is not there: missing, or a component above it is not a
/// directory (a store whose parent is a file).
pub fn is_absent(error: &std::io::Error) -> bool {
    matches!(
        error.kind(),
        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
    )
}

/// Flushes a directory's entries (new names, renames) to stable storage.
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    fs_err::File::open(dir)?.sync_all()
}

/// Returns `<path>.tmp`, the temporary sibling used by [`replace_file`].
pub fn temporary_sibling(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".tmp");
    PathBuf::from(name)
}

/// Replaces the contents of `path` durably: write `<path>.tmp`, fsync it, rename it over
/// `path`, fsync the directory. A crash leaves either the old or the new file, never a mix.
pub fn replace_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let temporary = temporary_sibling(path);
    let mut file = fs_err::File::create(&temporary)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    drop(file);
    rename(&temporary, path)?;
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => sync_dir(dir),
        _ => sync_dir(Path::new(".")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_disk_is_told_also_through_a_wrapper() {
        use std::io::{Error, ErrorKind};
        assert!(is_storage_full(&Error::from_raw_os_error(28)));
        assert!(is_storage_full(&Error::from_raw_os_error(122)));
        // What `fs-err` returns: the kind of the error it wraps, no raw code.
        let wrapped = Error::new(ErrorKind::StorageFull, Error::from_raw_os_error(28));
        assert_eq!(wrapped.raw_os_error(), None);
        assert!(is_storage_full(&wrapped));
        assert!(!is_storage_full(&Error::from_raw_os_error(5)));
        assert!(!is_storage_full(&Error::other("full")));
    }

    #[test]
    fn noreplace_refuses_an_occupied_destination() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        std::fs::write(&a, "a").unwrap();
        std::fs::write(&b, "b").unwrap();
        let error = rename_noreplace(&a, &b).unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "b");
        let c = dir.path().join("c");
        rename_noreplace(&a, &c).unwrap();
        assert!(!a.exists() && c.exists());
        assert!(rename_noreplace_fallback(&c, &b).is_err());
        rename_noreplace_fallback(&c, &a).unwrap();
        assert!(a.exists() && !c.exists());
    }
}
