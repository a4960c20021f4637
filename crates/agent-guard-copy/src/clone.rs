//! Copying one regular file as cheaply as the filesystem allows: a reflink (`FICLONE`) where
//! it shares extents, else a kernel copy whose original and copy are hashed and compared.

use std::fs::{File, OpenOptions};
use std::io::{Read as _, Write as _};
use std::os::unix::fs::{FileExt as _, MetadataExt as _, OpenOptionsExt as _};
use std::path::{Path, PathBuf};

use rustix::fs::{Mode, OFlags, Timespec, Timestamps};
use rustix::io::Errno;

use super::digest::{self, Body, Entry};
use super::pool::BUFFER_SIZE;
use super::{CopyError, CopyOutcome, io_error};
use crate::faults::{FaultPoint, Faults};
use agent_guard_fsops as fsops;

/// How a file's copy was made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cloned {
    /// A second name for the same inode (`link`): O(1); only where nothing writes the
    /// original in place.
    Link,
    /// The filesystem shares the extents (`FICLONE`): O(1), and identical by construction.
    Reflink,
    /// A streamed copy, re-read and compared by digest.
    Copy(CopyOutcome),
    /// A symbolic link, made anew with the same target.
    Symlink,
}

/// Gives the regular file `src` the second name `dst` (which must not exist), when that keeps
/// its current version: `src` has no other name (one that could be written in place later)
/// and lies on the same filesystem. `Ok(false)` when a link is not possible or not safe, so
/// that the caller copies instead.
pub fn link_file(src: &Path, dst: &Path) -> Result<bool, CopyError> {
    let meta = src.symlink_metadata().map_err(|e| io_error(src, e))?;
    if !meta.is_file() || meta.nlink() != 1 {
        return Ok(false);
    }
    match std::fs::hard_link(src, dst) {
        Ok(()) => {}
        Err(error) if fsops::is_storage_full(&error) => return Err(io_error(dst, error)),
        // EXDEV (another filesystem), EPERM (protected_hardlinks, a filesystem without
        // links), EMLINK: copy instead.
        Err(_) => return Ok(false),
    }
    // The same inode, still with no name but ours and the original's: anything else means
    // the file changed under us (renamed over, linked elsewhere) between the two looks.
    let linked = dst.symlink_metadata().map_err(|e| io_error(dst, e))?;
    if linked.ino() != meta.ino() || linked.dev() != meta.dev() || linked.nlink() != 2 {
        discard(dst);
        return Ok(false);
    }
    Ok(true)
}

/// Copies the regular file `src` to `dst` (which must not exist), keeping permission bits,
/// times and (where allowed) the owner, and leaving `src` untouched. Tries a reflink first;
/// a streamed copy of more than `max_stream` bytes is refused ([`CopyError::TooLarge`])
/// before anything is written. Nothing is synced: the caller flushes `dst` and its
/// directory, in the same durability epoch as its journal records.
pub fn clone_file(
    src: &Path,
    dst: &Path,
    max_stream: Option<u64>,
    faults: Faults,
) -> Result<Cloned, CopyError> {
    let source = OpenOptions::new()
        .read(true)
        .custom_flags(OFlags::NOFOLLOW.bits().cast_signed())
        .open(src)
        .map_err(|e| io_error(src, e))?;
    let meta = source.metadata().map_err(|e| io_error(src, e))?;
    if !meta.is_file() {
        return Err(CopyError::Mismatch {
            path: src.to_path_buf(),
        });
    }
    let target = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(dst)
        .map_err(|e| io_error(dst, e))?;
    if rustix::fs::ioctl_ficlone(&target, &source).is_ok() {
        let finished = finish_clone(&target, &meta).map_err(|e| io_error(dst, e));
        if let Err(error) = finished {
            discard(dst);
            return Err(error);
        }
        return Ok(Cloned::Reflink);
    }
    if let Some(cap) = max_stream.filter(|cap| meta.len() > *cap) {
        discard(dst);
        return Err(CopyError::TooLarge {
            path: src.to_path_buf(),
            size: meta.len(),
            cap,
        });
    }
    // No shared extents: stream into the file just created (no second inode allocation).
    let streamed = stream(&source, src, &target, dst, &meta, faults);
    if streamed.is_err() {
        discard(dst);
    }
    streamed.map(Cloned::Copy)
}

/// Files at least this large are hashed on two threads at once (the original and the
/// copy); below it a second thread costs more than it saves.
const PARALLEL_HASH: u64 = 4 * 1024 * 1024;

/// The most one `copy_file_range` call is asked to copy.
const RANGE_CHUNK: usize = 1 << 30;

/// Copies `source` into the empty `target` (in the kernel where it can: `copy_file_range`),
/// gives the copy the source's mode and times (and owner where allowed), then hashes the
/// original and the copy and compares them: for a large file on two threads, while a third
/// flushes the copy (the caller flushes it, and its directory, in any case). The digest is the tree digest of a single-file tree, the one
/// `digest_tree` computes over the copy.
///
/// The original is read once more after the copy rather than hashed while it is copied: a
/// write to it in between is then a mismatch (the copy is refused), never a copy that holds
/// a mix of two versions and passes.
fn stream(
    source: &File,
    src: &Path,
    target: &File,
    dst: &Path,
    meta: &std::fs::Metadata,
    faults: Faults,
) -> Result<CopyOutcome, CopyError> {
    let bytes = transfer(source, src, target, dst)?;
    faults.hit(FaultPoint::DuringCopy);
    finish_clone(target, meta).map_err(|e| io_error(dst, e))?;
    let copy = File::open(dst).map_err(|e| io_error(dst, e))?;
    let (read, again) = if bytes >= PARALLEL_HASH {
        // The flush of a large copy waits on the disk while the hashes use the CPU: it runs
        // beside them (the caller's own flush then finds nothing left to write).
        std::thread::scope(|scope| {
            let flushed = scope.spawn(|| target.sync_all());
            let original = scope.spawn(|| hash(source, src));
            let again = hash(&copy, dst);
            let read = join(original);
            join(flushed).map_err(|e| io_error(dst, e))?;
            Ok::<_, CopyError>((read, again))
        })?
    } else {
        (hash(source, src), hash(&copy, dst))
    };
    let read = read?;
    if again? != read {
        return Err(CopyError::Mismatch {
            path: dst.to_path_buf(),
        });
    }
    let entry = Entry {
        rel: PathBuf::new(),
        mode: meta.mode() & 0o7777,
        body: Body::File(read),
    };
    Ok(CopyOutcome {
        digest: digest::fold(&[entry]),
        files: 1,
        bytes,
    })
}

/// Copies all of `source` into the empty `target`, by `copy_file_range` (no trip through
/// user space), or by reads and writes where the kernel cannot (another filesystem type, an
/// old kernel). Returns the bytes copied.
fn transfer(source: &File, src: &Path, target: &File, dst: &Path) -> Result<u64, CopyError> {
    let (mut read, mut written) = (0_u64, 0_u64);
    loop {
        match rustix::fs::copy_file_range(
            source,
            Some(&mut read),
            target,
            Some(&mut written),
            RANGE_CHUNK,
        ) {
            Ok(0) => return Ok(written),
            Ok(_) | Err(Errno::INTR) => {}
            Err(Errno::XDEV | Errno::NOSYS | Errno::INVAL | Errno::OPNOTSUPP | Errno::PERM)
                if written == 0 =>
            {
                return copy_through_buffer(source, src, target, dst);
            }
            Err(error) => return Err(io_error(dst, error.into())),
        }
    }
}

/// The result of a scoped thread, its panic carried on.
fn join<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    handle
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// The fallback of [`transfer`]: reads and writes through a buffer.
fn copy_through_buffer(
    mut source: &File,
    src: &Path,
    mut target: &File,
    dst: &Path,
) -> Result<u64, CopyError> {
    let mut buffer = vec![0; BUFFER_SIZE];
    let mut bytes = 0_u64;
    loop {
        let n = match source.read(&mut buffer) {
            Ok(0) => return Ok(bytes),
            Ok(n) => n,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(io_error(src, error)),
        };
        target
            .write_all(&buffer[..n])
            .map_err(|e| io_error(dst, e))?;
        bytes += n as u64;
    }
}

/// The content hash of the whole of `file` (read by position, so the file's offset is not
/// used).
fn hash(file: &File, path: &Path) -> Result<[u8; 32], CopyError> {
    let mut buffer = vec![0; BUFFER_SIZE];
    let mut hasher = blake3::Hasher::new();
    let mut offset = 0_u64;
    loop {
        match file.read_at(&mut buffer, offset) {
            Ok(0) => return Ok(*hasher.finalize().as_bytes()),
            Ok(n) => {
                hasher.update(&buffer[..n]);
                offset += n as u64;
            }
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(error) => return Err(io_error(path, error)),
        }
    }
}

/// Writes the bytes of the regular file `src` into the existing regular file `dst` in place,
/// so that `dst` keeps its inode (and hard links): a reflink of the whole file where
/// possible, else a truncate and a streamed copy. `dst` then gets `src`'s permission bits and
/// times, and is synced.
pub fn write_into(src: &Path, dst: &Path) -> std::io::Result<()> {
    let source = File::open(src)?;
    let meta = source.metadata()?;
    let target = OpenOptions::new()
        .write(true)
        .custom_flags(OFlags::NOFOLLOW.bits().cast_signed())
        .open(dst)?;
    if rustix::fs::ioctl_ficlone(&target, &source).is_err() {
        target.set_len(0)?;
        let mut reader = &source;
        let mut writer = &target;
        std::io::copy(&mut reader, &mut writer)?;
    }
    finish_clone(&target, &meta)?;
    target.sync_all()
}

/// Gives a copy the source's permission bits, owner (where allowed) and times.
fn finish_clone(target: &File, meta: &std::fs::Metadata) -> std::io::Result<()> {
    // The owner only where allowed (root); otherwise the copy is ours, as any copy is.
    let _ = rustix::fs::fchown(
        target,
        Some(rustix::fs::Uid::from_raw(meta.uid())),
        Some(rustix::fs::Gid::from_raw(meta.gid())),
    );
    rustix::fs::fchmod(target, Mode::from_raw_mode(meta.mode() & 0o7777))?;
    rustix::fs::futimens(
        target,
        &Timestamps {
            last_access: Timespec {
                tv_sec: meta.atime(),
                tv_nsec: meta.atime_nsec(),
            },
            last_modification: Timespec {
                tv_sec: meta.mtime(),
                tv_nsec: meta.mtime_nsec(),
            },
        },
    )?;
    Ok(())
}

/// Removes our own incomplete copy.
fn discard(dst: &Path) {
    let _ = fsops::remove_file(dst);
}
