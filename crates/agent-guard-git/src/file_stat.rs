//! `lstat` of tracked files relative to their directory, for the snapshot scan.
//!
//! The scan looks at every tracked file. Given an absolute path, the kernel resolves every
//! component again for each file (`/tmp/…/ws/pkg000/mod0/f000.txt` is six dentry lookups);
//! on a 100,000-file tree that path walk was a third of the snapshot's time. The index lists a
//! directory's files together, so the scan opens each directory once (`O_PATH`) and asks
//! `fstatat` for the name alone. Leading symlinks are followed when the directory is opened,
//! as they are when a whole path is resolved, and the last component is never followed: the
//! result is what `lstat` of the whole path gives. A directory that cannot be opened falls
//! back to `lstat` of the whole path, which reports the same errors it always did.

use std::ffi::OsStr;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::Path;

use rustix::fs::{AtFlags, Mode, OFlags};

/// The stat data the scan compares with an index entry.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FileStat {
    /// The full `st_mode` (type and permission bits).
    pub(crate) mode: u32,
    pub(crate) mtime: (i64, i64),
    pub(crate) ctime: (i64, i64),
    pub(crate) size: u64,
    pub(crate) ino: u64,
    pub(crate) uid: u32,
    pub(crate) gid: u32,
}

/// The file-type bits of `st_mode`.
const TYPE_MASK: u32 = 0o170_000;

impl FileStat {
    /// The stat data of `std`'s metadata.
    pub(crate) fn of(metadata: &std::fs::Metadata) -> FileStat {
        FileStat {
            mode: metadata.mode(),
            mtime: (metadata.mtime(), metadata.mtime_nsec()),
            ctime: (metadata.ctime(), metadata.ctime_nsec()),
            size: metadata.len(),
            ino: metadata.ino(),
            uid: metadata.uid(),
            gid: metadata.gid(),
        }
    }

    #[allow(
        clippy::unnecessary_cast,
        clippy::cast_possible_wrap,
        clippy::cast_sign_loss,
        clippy::cast_possible_truncation,
        clippy::useless_conversion,
        reason = "the field types of `struct stat` differ by target; the kernel's values fit"
    )]
    fn of_raw(stat: &rustix::fs::Stat) -> FileStat {
        FileStat {
            mode: stat.st_mode as u32,
            mtime: (stat.st_mtime as i64, stat.st_mtime_nsec as i64),
            ctime: (stat.st_ctime as i64, stat.st_ctime_nsec as i64),
            size: stat.st_size as u64,
            ino: stat.st_ino as u64,
            uid: stat.st_uid as u32,
            gid: stat.st_gid as u32,
        }
    }

    /// A directory (never a symlink to one).
    pub(crate) fn is_dir(&self) -> bool {
        self.mode & TYPE_MASK == 0o040_000
    }

    /// A symlink.
    pub(crate) fn is_symlink(&self) -> bool {
        self.mode & TYPE_MASK == 0o120_000
    }
}

/// `lstat` of repository-relative paths, keeping the last directory open.
#[derive(Debug)]
pub(crate) struct Stats<'a> {
    root: &'a Path,
    directory: Vec<u8>,
    /// The open directory; `None` before the first lookup or when it could not be opened.
    fd: Option<OwnedFd>,
    opened: bool,
}

impl<'a> Stats<'a> {
    pub(crate) fn new(root: &'a Path) -> Stats<'a> {
        Stats {
            root,
            directory: Vec::new(),
            fd: None,
            opened: false,
        }
    }

    /// `lstat` of `relative` (`/`-separated, below the root).
    pub(crate) fn lstat(&mut self, relative: &[u8]) -> std::io::Result<FileStat> {
        let (directory, name) = match relative.iter().rposition(|b| *b == b'/') {
            Some(slash) => (&relative[..slash], &relative[slash + 1..]),
            None => (&b""[..], relative),
        };
        if !self.opened || self.directory != directory {
            self.directory.clear();
            self.directory.extend_from_slice(directory);
            let path = self.root.join(OsStr::from_bytes(directory));
            let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
            self.fd = rustix::fs::open(&path, flags, Mode::empty()).ok();
            self.opened = true;
        }
        match &self.fd {
            Some(fd) if !name.is_empty() => {
                rustix::fs::statat(fd, OsStr::from_bytes(name), AtFlags::SYMLINK_NOFOLLOW)
                    .map(|stat| FileStat::of_raw(&stat))
                    .map_err(std::io::Error::from)
            }
            _ => fs_err::symlink_metadata(self.root.join(OsStr::from_bytes(relative)))
                .map(|metadata| FileStat::of(&metadata)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_lookups_agree_with_lstat_of_the_whole_path() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let root = dir.path();
        fs_err::create_dir_all(root.join("a/b")).expect("setup");
        fs_err::write(root.join("a/b/file"), "x").expect("setup");
        fs_err::write(root.join("top"), "y").expect("setup");
        std::os::unix::fs::symlink("b", root.join("a/link")).expect("setup");
        std::os::unix::fs::symlink("a", root.join("dirlink")).expect("setup");
        let mut stats = Stats::new(root);
        for path in [
            "a/b/file",
            "top",
            "a/link",
            "a/b",
            "dirlink/b/file",
            "dirlink",
        ] {
            let ours = stats.lstat(path.as_bytes()).expect(path);
            let theirs = FileStat::of(&fs_err::symlink_metadata(root.join(path)).expect(path));
            assert_eq!(
                (ours.mode, ours.ino, ours.size, ours.mtime, ours.ctime),
                (
                    theirs.mode,
                    theirs.ino,
                    theirs.size,
                    theirs.mtime,
                    theirs.ctime
                ),
                "{path}"
            );
        }
        assert!(stats.lstat(b"a/link").expect("link").is_symlink());
        assert!(stats.lstat(b"a/b").expect("dir").is_dir());
        for (path, kind) in [
            ("missing/file", std::io::ErrorKind::NotFound),
            ("a/missing", std::io::ErrorKind::NotFound),
            ("top/below", std::io::ErrorKind::NotADirectory),
        ] {
            let error = stats.lstat(path.as_bytes()).expect_err(path);
            assert_eq!(error.kind(), kind, "{path}");
        }
    }
}
