//! The guard's own state files and directories, opened so that nothing planted at their
//! names can redirect or stall the guard (issue 35, point 4).
//!
//! A command the guard lets run could leave a symbolic link where the audit log, the
//! manifest or a lock will be opened (into the user's shell startup file, say), a FIFO that
//! blocks the open, or a directory of someone else's. So every state file is opened with
//! `O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC`, relative to a descriptor of its directory that
//! was checked first (a directory of the user's), and then checked by its own descriptor: a
//! regular file owned by the user running the guard. A state directory is checked with `lstat` before it
//! is used: a real directory (not a link to one) of the same owner. Whatever fails is an
//! error that names the path and says what to do; the guard never opens it.

use std::fs::File;
use std::os::unix::fs::MetadataExt as _;
use std::path::Path;

use rustix::fs::{Mode, OFlags};

/// How a state file is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Read only; the file must exist.
    Read,
    /// Appended to (and read), created `0600` if missing.
    Append,
    /// Read and written in place, created `0600` if missing, never truncated.
    Update,
    /// Replaced: created `0600` if missing, truncated if present.
    Truncate,
}

/// What is wrong with a state path.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// A symbolic link stands where a state file or directory belongs.
    #[error(
        "{path} is a symbolic link where agent-guard keeps its own state, and agent-guard never follows one there: remove the link (`rm '{path}'`) and try again"
    )]
    Link {
        /// The path.
        path: String,
    },
    /// Something other than the expected kind of file stands there.
    #[error(
        "{path} is {found} where agent-guard keeps a {expected}, and agent-guard does not open it: move it away (`mv '{path}' '{path}.aside'`) and try again"
    )]
    WrongKind {
        /// The path.
        path: String,
        /// What is there (`a FIFO`, `a directory`, …).
        found: &'static str,
        /// What belongs there.
        expected: &'static str,
    },
    /// A state file with another name (a hard link): what the guard writes there would land
    /// in that other file too.
    #[error(
        "{path} has another name (a hard link, {links} names in all), where agent-guard keeps its own state: move it away (`mv '{path}' '{path}.aside'`) and try again"
    )]
    HardLink {
        /// The path.
        path: String,
        /// How many names the file has.
        links: u64,
    },
    /// The path belongs to another user.
    #[error(
        "{path} belongs to user {owner}, not to the user running agent-guard ({user}), and agent-guard does not use another user's state: move it away (`mv '{path}' '{path}.aside'`) and try again"
    )]
    ForeignOwner {
        /// The path.
        path: String,
        /// Its owner's uid.
        owner: u32,
        /// The effective uid running the guard.
        user: u32,
    },
}

impl From<StateError> for std::io::Error {
    fn from(error: StateError) -> std::io::Error {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, error)
    }
}

/// Opens the state file at `path` for `access` without following a link at its name or
/// blocking on a special file, and checks by its descriptor that it is a regular file owned
/// by the user running the guard.
///
/// # Errors
/// The open's own error (a missing file for [`Access::Read`], permissions), or a
/// [`StateError`] (as an [`std::io::Error`] of kind `InvalidInput`) for a link, a file of
/// another kind or another owner.
pub fn open_file(path: &Path, access: Access) -> std::io::Result<File> {
    let mut flags = OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    // Truncating on open would act before the check below: truncate after it instead.
    flags |= match access {
        Access::Read => OFlags::RDONLY,
        Access::Append => OFlags::RDWR | OFlags::APPEND | OFlags::CREATE,
        Access::Update => OFlags::RDWR | OFlags::CREATE,
        Access::Truncate => OFlags::WRONLY | OFlags::CREATE,
    };
    let (dir, name) = verified_parent(path)?;
    let fd =
        rustix::fs::openat(&dir, name, flags, Mode::from_raw_mode(0o600)).map_err(|errno| {
            if errno == rustix::io::Errno::LOOP {
                StateError::Link {
                    path: path.display().to_string(),
                }
                .into()
            } else {
                std::io::Error::from(errno)
            }
        })?;
    let file = File::from(fd);
    let metadata = file.metadata()?;
    check(path, &metadata, false)?;
    if access == Access::Truncate {
        file.set_len(0)?;
    }
    Ok(file)
}

/// The directory that holds the state file at `path`, opened (`O_PATH`) and checked by its
/// descriptor (a directory of the user running the guard), and the file's name in it: the
/// file is then opened relative to that descriptor, so the directory the check saw is the
/// one the file is opened in. The directory itself may be reached through a link (a store
/// the user placed on another disk); the entries below a store's root are checked with
/// [`check_entry`] before a writer takes its lock.
fn verified_parent(path: &Path) -> std::io::Result<(rustix::fd::OwnedFd, &std::ffi::OsStr)> {
    let name = path.file_name().ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{} names no file", path.display()),
        )
    })?;
    let parent = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let dir = rustix::fs::open(
        parent,
        OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    let stat = rustix::fs::fstat(&dir)?;
    let user = rustix::process::geteuid().as_raw();
    if stat.st_uid != user {
        return Err(StateError::ForeignOwner {
            path: parent.display().to_string(),
            owner: stat.st_uid,
            user,
        }
        .into());
    }
    Ok((dir, name))
}

/// Checks the state directory at `dir`, when it exists: a real directory, not a link to
/// one, owned by the user running the guard. A missing one is fine (it is made later).
///
/// # Errors
/// A [`StateError`] (as an [`std::io::Error`]), or the `lstat`'s own error other than a
/// missing path.
pub fn check_dir(dir: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(dir) {
        Ok(metadata) => Ok(check(dir, &metadata, true)?),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(error),
    }
}

/// Checks the root of a store at `dir`, when it exists: a directory owned by the user
/// running the guard. Unlike an entry inside it, the root may be reached through a symbolic
/// link (a quarantine the user placed on another disk and linked to); what it resolves to is
/// checked.
///
/// # Errors
/// As [`check_dir`].
pub fn check_root(dir: &Path) -> std::io::Result<()> {
    match std::fs::metadata(dir) {
        Ok(metadata) => Ok(check(dir, &metadata, true)?),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(error),
    }
}

/// Checks the state entry at `path` when it exists, by `lstat`: a real directory when
/// `dir`, else a regular file; owned by the user running the guard.
///
/// # Errors
/// As [`check_dir`].
pub fn check_entry(path: &Path, dir: bool) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(metadata) => Ok(check(path, &metadata, dir)?),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(error),
    }
}

/// The kind and owner checks of an entry's metadata (from `lstat` or `fstat`).
fn check(path: &Path, metadata: &std::fs::Metadata, dir: bool) -> Result<(), StateError> {
    let kind = metadata.file_type();
    let shown = || path.display().to_string();
    if kind.is_symlink() {
        return Err(StateError::Link { path: shown() });
    }
    let expected = if dir { "directory" } else { "regular file" };
    let right = if dir { kind.is_dir() } else { kind.is_file() };
    if !right {
        return Err(StateError::WrongKind {
            path: shown(),
            found: describe(kind),
            expected,
        });
    }
    if !dir && metadata.nlink() > 1 {
        return Err(StateError::HardLink {
            path: shown(),
            links: metadata.nlink(),
        });
    }
    let user = rustix::process::geteuid().as_raw();
    if metadata.uid() != user {
        return Err(StateError::ForeignOwner {
            path: shown(),
            owner: metadata.uid(),
            user,
        });
    }
    Ok(())
}

/// What a file type is, in words.
fn describe(kind: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt as _;
    if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else if kind.is_symlink() {
        "a symbolic link"
    } else {
        "a regular file"
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read as _, Write as _};
    use std::os::unix::fs::PermissionsExt as _;

    use super::*;

    #[test]
    fn a_state_file_with_a_second_name_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("bashrc");
        std::fs::write(&victim, b"export PATH\n").unwrap();
        let state = dir.path().join("manifest.jsonl");
        std::fs::hard_link(&victim, &state).unwrap();
        let error = open_file(&state, Access::Append).unwrap_err();
        assert!(error.to_string().contains("hard link"), "{error}");
        assert_eq!(std::fs::read(&victim).unwrap(), b"export PATH\n");
        assert!(check_entry(&state, false).is_err());
    }

    #[test]
    fn a_link_at_a_state_file_is_refused_and_its_target_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("bashrc");
        std::fs::write(&victim, b"export PATH\n").unwrap();
        let state = dir.path().join("audit.jsonl");
        std::os::unix::fs::symlink(&victim, &state).unwrap();
        for access in [
            Access::Append,
            Access::Update,
            Access::Truncate,
            Access::Read,
        ] {
            let error = open_file(&state, access).unwrap_err();
            assert!(
                error.to_string().contains("symbolic link"),
                "{access:?}: {error}"
            );
        }
        assert_eq!(std::fs::read(&victim).unwrap(), b"export PATH\n");
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("manifest.jsonl");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        // A blocking open of a FIFO for reading waits for a writer: this returns at once.
        let error = open_file(&fifo, Access::Read).unwrap_err();
        assert!(error.to_string().contains("a FIFO"), "{error}");
        let error = open_file(&fifo, Access::Append).unwrap_err();
        assert!(error.to_string().contains("a FIFO"), "{error}");
    }

    #[test]
    fn a_directory_or_a_link_to_one_is_refused_as_a_file_and_as_a_directory() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("lock");
        std::fs::create_dir(&sub).unwrap();
        assert!(open_file(&sub, Access::Update).is_err());
        let link = dir.path().join("watch");
        std::os::unix::fs::symlink(dir.path(), &link).unwrap();
        assert!(
            check_dir(&link)
                .unwrap_err()
                .to_string()
                .contains("symbolic link")
        );
        assert!(check_dir(&sub).is_ok());
        assert!(check_dir(&dir.path().join("missing")).is_ok());
        assert!(check_entry(&sub, false).is_err());
    }

    #[test]
    fn the_directory_is_checked_by_its_descriptor_before_the_file_is_opened_in_it() {
        let dir = tempfile::tempdir().unwrap();
        // A store root the user linked to another disk is followed.
        let disk = dir.path().join("disk");
        std::fs::create_dir(&disk).unwrap();
        let root = dir.path().join("store");
        std::os::unix::fs::symlink(&disk, &root).unwrap();
        drop(open_file(&root.join("lock"), Access::Update).unwrap());
        assert!(disk.join("lock").is_file());
        // Another user's directory is not used, when this test can make one.
        if rustix::process::geteuid().is_root() {
            let foreign = dir.path().join("foreign");
            std::fs::create_dir(&foreign).unwrap();
            std::os::unix::fs::chown(&foreign, Some(65534), Some(65534)).unwrap();
            let error = open_file(&foreign.join("manifest.jsonl"), Access::Append).unwrap_err();
            assert!(
                error.to_string().contains("belongs to user 65534"),
                "{error}"
            );
            assert!(!foreign.join("manifest.jsonl").exists());
        }
        // A file where the directory belongs is no directory.
        let file = dir.path().join("file");
        std::fs::write(&file, b"x").unwrap();
        assert!(open_file(&file.join("lock"), Access::Update).is_err());
    }

    #[test]
    fn regular_files_open_as_asked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        open_file(&path, Access::Append)
            .unwrap()
            .write_all(b"one\n")
            .unwrap();
        open_file(&path, Access::Append)
            .unwrap()
            .write_all(b"two\n")
            .unwrap();
        let mut text = String::new();
        open_file(&path, Access::Read)
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "one\ntwo\n");
        open_file(&path, Access::Truncate)
            .unwrap()
            .write_all(b"new")
            .unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        let fresh = dir.path().join("lock");
        drop(open_file(&fresh, Access::Update).unwrap());
        assert_eq!(
            std::fs::metadata(&fresh).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
}
