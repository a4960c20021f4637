//! Copying one regular file as cheaply as the filesystem allows: a reflink (`FICLONE`) where
//! it shares extents, else the verified copy.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _};
use std::path::Path;

use rustix::fs::{Mode, OFlags, Timespec, Timestamps};

use super::{CopyError, CopyOutcome, NoProgress, copy_verified, io_error};
use crate::faults::Faults;
use agent_guard_fsops as fsops;

/// How a file's copy was made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Cloned {
    /// The filesystem shares the extents (`FICLONE`): O(1), and identical by construction.
    Reflink,
    /// A streamed copy, re-read and compared by digest.
    Copy(CopyOutcome),
}

/// Copies the regular file `src` to `dst` (which must not exist), keeping permission bits,
/// times and (where allowed) the owner, and leaving `src` untouched. Tries a reflink first.
pub(crate) fn clone_file(src: &Path, dst: &Path, faults: Faults) -> Result<Cloned, CopyError> {
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
    drop(target);
    discard(dst);
    copy_verified(src, dst, &NoProgress, faults).map(Cloned::Copy)
}

/// Writes the bytes of the regular file `src` into the existing regular file `dst` in place,
/// so that `dst` keeps its inode (and hard links): a reflink of the whole file where
/// possible, else a truncate and a streamed copy. `dst` then gets `src`'s permission bits and
/// times, and is synced.
pub(crate) fn write_into(src: &Path, dst: &Path) -> std::io::Result<()> {
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
    finish_clone(&target, &meta)
}

/// Gives a fresh reflink the source's permission bits, owner and times, and syncs it.
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
    target.sync_all()
}

/// Removes our own incomplete copy.
fn discard(dst: &Path) {
    let _ = fsops::remove_file(dst);
}
