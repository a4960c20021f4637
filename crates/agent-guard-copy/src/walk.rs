//! The pre-scan: lists a tree in canonical order without following any symlink.
//!
//! Directories are read through descriptors opened with `O_NOFOLLOW` (and `O_NOATIME` where
//! allowed, so that verifying a copy does not touch the atimes just preserved); each child is
//! `lstat`ed relative to its directory. Children are sorted by their name bytes, and the list
//! is the pre-order of the tree: a directory comes before its children, so the reversed list
//! is a valid bottom-up order.

use std::ffi::OsStr;
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};

use rustix::fs::{AtFlags, CWD, Dir, FileType, Mode, OFlags, Stat, Timespec, Timestamps};
use rustix::io::Errno;

use super::{CopyError, io_error};

/// What an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// A directory.
    Dir,
    /// A regular file.
    File,
    /// A symbolic link.
    Symlink,
    /// A FIFO, socket or device node, with its name for messages.
    Special(&'static str),
}

/// The `lstat` of an entry at the time of the walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Meta {
    /// The permission bits (`mode & 0o7777`).
    pub(super) mode: u32,
    /// The owner.
    pub(super) uid: u32,
    /// The group.
    pub(super) gid: u32,
    /// The size in bytes.
    pub(super) size: u64,
    /// The device.
    pub(super) dev: u64,
    /// The inode.
    pub(super) ino: u64,
    /// The number of hard links.
    pub(super) nlink: u64,
    /// The access time (seconds, nanoseconds).
    pub(super) atime: (i64, i64),
    /// The modification time (seconds, nanoseconds).
    pub(super) mtime: (i64, i64),
}

impl Meta {
    /// Converts a `stat` (whose field widths vary between targets).
    #[allow(
        clippy::useless_conversion,
        clippy::unnecessary_fallible_conversions,
        reason = "the `stat` field types differ between targets"
    )]
    pub(super) fn from_stat(stat: &Stat) -> Meta {
        Meta {
            mode: u32::from(stat.st_mode) & 0o7777,
            uid: stat.st_uid,
            gid: stat.st_gid,
            size: u64::try_from(stat.st_size).unwrap_or(0),
            dev: u64::from(stat.st_dev),
            ino: u64::from(stat.st_ino),
            nlink: u64::from(stat.st_nlink),
            atime: (
                i64::from(stat.st_atime),
                i64::try_from(stat.st_atime_nsec).unwrap_or(0),
            ),
            mtime: (
                i64::from(stat.st_mtime),
                i64::try_from(stat.st_mtime_nsec).unwrap_or(0),
            ),
        }
    }

    /// The times as `utimensat` wants them.
    pub(super) fn timestamps(&self) -> Timestamps {
        Timestamps {
            last_access: Timespec {
                tv_sec: self.atime.0,
                tv_nsec: self.atime.1,
            },
            last_modification: Timespec {
                tv_sec: self.mtime.0,
                tv_nsec: self.mtime.1,
            },
        }
    }
}

/// One entry of a walked tree.
#[derive(Debug)]
pub(super) struct Node {
    /// The path relative to the root (empty for the root itself).
    pub(super) rel: PathBuf,
    /// What it is.
    pub(super) kind: Kind,
    /// Its metadata.
    pub(super) meta: Meta,
}

/// Whether special files end the walk with [`CopyError::Special`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Specials {
    /// Refuse them (copy, digest).
    Refuse,
    /// List them (removal).
    Allow,
}

/// `root` joined with `rel`, or `root` itself for the empty relative path.
pub(super) fn under(root: &Path, rel: &Path) -> PathBuf {
    if rel.as_os_str().is_empty() {
        root.to_path_buf()
    } else {
        root.join(rel)
    }
}

/// Lists the tree at `root` (which is not followed if it is a symlink) in canonical order.
pub(super) fn walk(root: &Path, specials: Specials) -> Result<Vec<Node>, CopyError> {
    let stat = rustix::fs::statat(CWD, root, AtFlags::SYMLINK_NOFOLLOW)
        .map_err(|e| io_error(root, e.into()))?;
    let mut nodes = Vec::new();
    let kind = push(&mut nodes, root, PathBuf::new(), &stat, specials)?;
    if kind == Kind::Dir {
        let fd = open_dir(CWD, root).map_err(|e| io_error(root, e.into()))?;
        walk_dir(fd, root, Path::new(""), specials, &mut nodes)?;
    }
    Ok(nodes)
}

/// Appends the children of the directory open at `fd` (`rel` under `root`), recursively.
fn walk_dir(
    fd: OwnedFd,
    root: &Path,
    rel: &Path,
    specials: Specials,
    nodes: &mut Vec<Node>,
) -> Result<(), CopyError> {
    let failed = |error: Errno| io_error(&under(root, rel), error.into());
    let mut dir = Dir::new(fd).map_err(failed)?;
    let mut names = Vec::new();
    while let Some(entry) = dir.read() {
        let entry = entry.map_err(failed)?;
        let name = entry.file_name();
        if name != c"." && name != c".." {
            names.push(name.to_owned());
        }
    }
    names.sort_unstable();
    let dir_fd = dir.fd().map_err(failed)?;
    for name in names {
        let child = rel.join(OsStr::from_bytes(name.to_bytes()));
        let stat = rustix::fs::statat(dir_fd, name.as_c_str(), AtFlags::SYMLINK_NOFOLLOW)
            .map_err(|e| io_error(&root.join(&child), e.into()))?;
        if push(nodes, root, child.clone(), &stat, specials)? == Kind::Dir {
            let fd = open_dir(dir_fd, &name).map_err(|e| io_error(&root.join(&child), e.into()))?;
            walk_dir(fd, root, &child, specials, nodes)?;
        }
    }
    Ok(())
}

/// Classifies and appends one entry.
fn push(
    nodes: &mut Vec<Node>,
    root: &Path,
    rel: PathBuf,
    stat: &Stat,
    specials: Specials,
) -> Result<Kind, CopyError> {
    let kind = kind_of(stat);
    if let (Kind::Special(name), Specials::Refuse) = (kind, specials) {
        return Err(CopyError::Special {
            path: under(root, &rel),
            kind: name,
        });
    }
    nodes.push(Node {
        rel,
        kind,
        meta: Meta::from_stat(stat),
    });
    Ok(kind)
}

/// The kind of the object `stat` describes.
pub(super) fn kind_of(stat: &Stat) -> Kind {
    match FileType::from_raw_mode(stat.st_mode) {
        FileType::Directory => Kind::Dir,
        FileType::RegularFile => Kind::File,
        FileType::Symlink => Kind::Symlink,
        FileType::Fifo => Kind::Special("FIFO"),
        FileType::Socket => Kind::Special("socket"),
        FileType::BlockDevice => Kind::Special("block device"),
        FileType::CharacterDevice => Kind::Special("character device"),
        FileType::Unknown => Kind::Special("file of unknown type"),
    }
}

/// `O_NOATIME` where the platform has it.
#[cfg(any(target_os = "linux", target_os = "android"))]
const NOATIME: OFlags = OFlags::NOATIME;
#[cfg(not(any(target_os = "linux", target_os = "android")))]
const NOATIME: OFlags = OFlags::empty();

/// Opens `path` relative to `dir` with `flags`, adding `O_NOATIME` where the caller may use
/// it (it is refused with `EPERM` on files of other users).
fn open_quietly<P: rustix::path::Arg + Copy>(
    dir: impl AsFd,
    path: P,
    flags: OFlags,
) -> Result<OwnedFd, Errno> {
    let flags = flags | OFlags::CLOEXEC | OFlags::NOFOLLOW;
    match rustix::fs::openat(dir.as_fd(), path, flags | NOATIME, Mode::empty()) {
        Err(Errno::PERM) => rustix::fs::openat(dir, path, flags, Mode::empty()),
        other => other,
    }
}

/// Opens a directory for reading, never following a symlink.
pub(super) fn open_dir<P: rustix::path::Arg + Copy>(
    dir: impl AsFd,
    path: P,
) -> Result<OwnedFd, Errno> {
    open_quietly(dir, path, OFlags::RDONLY | OFlags::DIRECTORY)
}

/// Opens the regular file walked as `meta` at `path` for reading and checks that it is still
/// that file. Never follows a symlink, and never blocks on a FIFO swapped in since the walk.
pub(super) fn open_file(path: &Path, meta: &Meta) -> Result<File, CopyError> {
    let fd = open_quietly(CWD, path, OFlags::RDONLY | OFlags::NONBLOCK)
        .map_err(|e| io_error(path, e.into()))?;
    let stat = rustix::fs::fstat(&fd).map_err(|e| io_error(path, e.into()))?;
    match kind_of(&stat) {
        Kind::File => {}
        Kind::Special(kind) => {
            return Err(CopyError::Special {
                path: path.to_path_buf(),
                kind,
            });
        }
        Kind::Dir | Kind::Symlink => return Err(changed(path)),
    }
    let now = Meta::from_stat(&stat);
    if (now.dev, now.ino) != (meta.dev, meta.ino) {
        return Err(changed(path));
    }
    Ok(File::from(fd))
}

/// The error for an entry replaced by another object since the walk.
pub(super) fn changed(path: &Path) -> CopyError {
    let source = io::Error::other("replaced by another object while being copied");
    CopyError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Reads a symlink's target bytes (never follows it).
pub(super) fn read_link(path: &Path) -> Result<Vec<u8>, CopyError> {
    let target =
        rustix::fs::readlinkat(CWD, path, Vec::new()).map_err(|e| io_error(path, e.into()))?;
    Ok(target.into_bytes())
}
