//! Looking at every tracked file of the work tree, in parallel, the way git refreshes its
//! index: a file whose stat data still matches its index entry is taken as unchanged;
//! only the others are read, hashed and (when new) written to the object database.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::Path;

use git2::{IndexEntry, IndexTime, ObjectType, Odb, Oid, Repository};

use crate::error::GitError;

pub(crate) const MODE_TYPE_MASK: u32 = 0o170_000;
pub(crate) const MODE_FILE: u32 = 0o100_644;
pub(crate) const MODE_EXECUTABLE: u32 = 0o100_755;
pub(crate) const MODE_SYMLINK: u32 = 0o120_000;
pub(crate) const MODE_GITLINK: u32 = 0o160_000;
const MODE_TREE: u32 = 0o040_000;

/// Below this many entries one thread is faster than several.
const PARALLEL_THRESHOLD: usize = 2_000;

/// How the repository wants work-tree files interpreted.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Settings {
    /// `core.filemode`: the executable bit is meaningful.
    pub(crate) filemode: bool,
    /// `core.symlinks`: symlinks are real links (else plain files holding the target).
    pub(crate) symlinks: bool,
    /// No clean filter can apply (no attributes, no `core.autocrlf`): raw content is the
    /// blob, so files are hashed and stored here.
    pub(crate) plain: bool,
    /// The index file's modification time: entries modified at or after it are "racily
    /// clean" and must be hashed (git's rule).
    pub(crate) racy_limit: Option<(i64, i64)>,
}

/// The `lstat` data a scan compares with an index entry.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Lstat {
    mode: u32,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
    ino: u64,
    uid: u32,
    gid: u32,
}

impl Lstat {
    /// From the standard library's metadata.
    pub(crate) fn of(metadata: &std::fs::Metadata) -> Lstat {
        Lstat {
            mode: metadata.mode(),
            size: metadata.len(),
            mtime: (metadata.mtime(), metadata.mtime_nsec()),
            ctime: (metadata.ctime(), metadata.ctime_nsec()),
            ino: metadata.ino(),
            uid: metadata.uid(),
            gid: metadata.gid(),
        }
    }

    /// From `statx`.
    fn of_statx(stat: &rustix::fs::Statx) -> Lstat {
        Lstat {
            mode: u32::from(stat.stx_mode),
            size: stat.stx_size,
            mtime: (stat.stx_mtime.tv_sec, i64::from(stat.stx_mtime.tv_nsec)),
            ctime: (stat.stx_ctime.tv_sec, i64::from(stat.stx_ctime.tv_nsec)),
            ino: stat.stx_ino,
            uid: stat.stx_uid,
            gid: stat.stx_gid,
        }
    }

    pub(crate) fn is_symlink(&self) -> bool {
        self.mode & MODE_TYPE_MASK == MODE_SYMLINK
    }

    pub(crate) fn is_dir(&self) -> bool {
        self.mode & MODE_TYPE_MASK == MODE_TREE
    }
}

/// The directory of the entry looked at last, open, so that each file is looked up by its
/// name in it (one path component) rather than by its whole path from `/`: sorted entries
/// come directory by directory. Resolving every component of every absolute path was a
/// third of a snapshot's time at 100,000 files.
#[derive(Default)]
struct Cursor {
    dir: Option<Vec<u8>>,
    fd: Option<std::os::fd::OwnedFd>,
}

/// What the work tree holds for one index entry.
#[derive(Debug)]
pub(crate) enum Seen {
    /// The stat data matches: the index's blob.
    Unchanged,
    /// Gone, or replaced by a directory (as `git add -u` sees it).
    Removed,
    /// Possibly changed: its mode, and its stored blob when it could be hashed here.
    Changed { mode: u32, id: Option<Oid> },
}

/// Looks at every entry (stage 0, no gitlinks), in parallel for large indexes; the result
/// is in entry order. Blobs go to the object database of the repository at `git_dir`
/// (each thread opens its own handle).
pub(crate) fn scan(
    root: &Path,
    git_dir: &Path,
    entries: &[IndexEntry],
    settings: Settings,
) -> Result<Vec<Seen>, GitError> {
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .min(8);
    let chunk = if entries.len() < PARALLEL_THRESHOLD {
        entries.len().max(1)
    } else {
        entries.len().div_ceil(threads)
    };
    let work = |part: &[IndexEntry]| -> Result<Vec<Seen>, GitError> {
        let repository = Repository::open(git_dir).map_err(|source| GitError::OpenRepository {
            path: git_dir.to_path_buf(),
            source,
        })?;
        let odb = repository.odb().map_err(|source| GitError::Git {
            action: "open the object database",
            path: root.to_path_buf(),
            source,
        })?;
        let mut cursor = Cursor::default();
        part.iter()
            .map(|entry| look(root, &odb, entry, settings, &mut cursor))
            .collect()
    };
    if threads == 1 || entries.len() < PARALLEL_THRESHOLD {
        return work(entries);
    }
    std::thread::scope(|scope| {
        let workers: Vec<_> = entries
            .chunks(chunk)
            .map(|part| scope.spawn(move || work(part)))
            .collect();
        let mut out = Vec::with_capacity(entries.len());
        for worker in workers {
            let part = worker.join().map_err(|_| GitError::GitWorktree {
                action: "scan",
                path: root.to_path_buf(),
                source: std::io::Error::other("a scanning thread panicked"),
            })??;
            out.extend(part);
        }
        Ok(out)
    })
}

/// Looks at one entry.
fn look(
    root: &Path,
    odb: &Odb<'_>,
    entry: &IndexEntry,
    settings: Settings,
    cursor: &mut Cursor,
) -> Result<Seen, GitError> {
    let path = root.join(OsStr::from_bytes(&entry.path));
    let io = |action: &'static str, source| GitError::GitWorktree {
        action,
        path: path.clone(),
        source,
    };
    let metadata = match lstat(root, &entry.path, cursor) {
        Ok(metadata) => metadata,
        Err(error) if agent_guard_fsops::is_absent(&error) => return Ok(Seen::Removed),
        Err(error) => return Err(io("inspect", error)),
    };
    if metadata.is_dir() {
        return Ok(Seen::Removed);
    }
    if unchanged(entry, &metadata, settings) {
        return Ok(Seen::Unchanged);
    }
    let mode = worktree_mode(&metadata, entry.mode, settings);
    let symlink = metadata.is_symlink();
    if !symlink && !settings.plain {
        return Ok(Seen::Changed { mode, id: None });
    }
    let content = read_content(&path, symlink).map_err(|error| io("hash", error))?;
    let git_error = |source| GitError::Git {
        action: "store a work-tree file",
        path: path.clone(),
        source,
    };
    let id = Oid::hash_object(ObjectType::Blob, &content).map_err(git_error)?;
    // Existing objects are not rewritten (nor freshened: the snapshot ref keeps them).
    let id = if odb.exists(id) {
        id
    } else {
        odb.write(ObjectType::Blob, &content).map_err(git_error)?
    };
    Ok(Seen::Changed { mode, id: Some(id) })
}

/// `lstat` of `relative` (below `root`): `statx` of its name in its directory, which
/// `cursor` keeps open from one entry to the next. Like `lstat` of the whole path, the
/// directories on the way are followed and the last component is not.
fn lstat(root: &Path, relative: &[u8], cursor: &mut Cursor) -> std::io::Result<Lstat> {
    let (dir, name) = match relative.iter().rposition(|b| *b == b'/') {
        Some(slash) => (&relative[..slash], &relative[slash + 1..]),
        None => (&relative[..0], relative),
    };
    if cursor.dir.as_deref() != Some(dir) {
        cursor.fd = None;
        cursor.dir = Some(dir.to_vec());
        let path = root.join(OsStr::from_bytes(dir));
        cursor.fd = Some(rustix::fs::open(
            &path,
            rustix::fs::OFlags::PATH | rustix::fs::OFlags::DIRECTORY | rustix::fs::OFlags::CLOEXEC,
            rustix::fs::Mode::empty(),
        )?);
    }
    let Some(fd) = cursor.fd.as_ref() else {
        // The directory could not be opened last time: it still cannot hold the file.
        return Err(std::io::ErrorKind::NotFound.into());
    };
    let stat = rustix::fs::statx(
        fd,
        OsStr::from_bytes(name),
        rustix::fs::AtFlags::SYMLINK_NOFOLLOW,
        rustix::fs::StatxFlags::BASIC_STATS,
    )?;
    Ok(Lstat::of_statx(&stat))
}

/// A file's bytes, or a symlink's target (never what it points to).
pub(crate) fn read_content(path: &Path, symlink: bool) -> std::io::Result<Vec<u8>> {
    if symlink {
        Ok(fs_err::read_link(path)?
            .into_os_string()
            .into_encoded_bytes())
    } else {
        fs_err::read(path)
    }
}

/// Returns `true` if the file's stat data still matches its index entry, so its content is
/// the entry's blob (git's `ie_match_stat`, with the racy-timestamp rule). Stricter than
/// git where that is cheap: a mismatch only costs a hash.
#[expect(
    clippy::cast_possible_truncation,
    reason = "the index stores 32-bit stat fields, truncated as git truncates them"
)]
fn unchanged(entry: &IndexEntry, metadata: &Lstat, settings: Settings) -> bool {
    let same_time = |recorded: IndexTime, seconds: i64, nanoseconds: i64| {
        // Nanoseconds are compared only when git recorded them.
        recorded.seconds() == seconds as i32
            && (recorded.nanoseconds() == 0 || i64::from(recorded.nanoseconds()) == nanoseconds)
    };
    let racy = settings.racy_limit.is_none_or(|(seconds, nanoseconds)| {
        let entry_seconds = i64::from(entry.mtime.seconds());
        let entry_nanoseconds = i64::from(entry.mtime.nanoseconds());
        entry_seconds > seconds
            || (entry_seconds == seconds
                && (entry_nanoseconds == 0 || entry_nanoseconds >= nanoseconds))
    });
    !racy
        && same_time(entry.mtime, metadata.mtime.0, metadata.mtime.1)
        && same_time(entry.ctime, metadata.ctime.0, metadata.ctime.1)
        && entry.file_size == metadata.size as u32
        && entry.ino == metadata.ino as u32
        && entry.uid == metadata.uid
        && entry.gid == metadata.gid
        && worktree_mode(metadata, entry.mode, settings) == entry.mode
}

/// The mode git would record for a work-tree file whose index entry has `index_mode`.
pub(crate) fn worktree_mode(metadata: &Lstat, index_mode: u32, settings: Settings) -> u32 {
    if metadata.is_symlink() || (!settings.symlinks && index_mode & MODE_TYPE_MASK == MODE_SYMLINK)
    {
        MODE_SYMLINK
    } else if !settings.filemode {
        if index_mode == MODE_EXECUTABLE {
            MODE_EXECUTABLE
        } else {
            MODE_FILE
        }
    } else if metadata.mode & 0o100 != 0 {
        MODE_EXECUTABLE
    } else {
        MODE_FILE
    }
}
