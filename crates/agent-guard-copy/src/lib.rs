//! Verified copies for agent-guard's store (and the crash-test fault points its steps
//! share, [`faults`]): keeping a file by a hard link, a reflink or a kernel copy that is
//! hashed and compared ([`clone_file`]), and the cross-device fallback: a verified copy,
//! then removal of the source.
//!
//! When `rename` fails with `EXDEV`, the relocation copies the item into the quarantine with
//! [`copy_verified`], and only after the copy is durable and verified removes the original with
//! [`remove_source`].
//!
//! The copy runs in phases over a list of entries taken by one pre-scan (`walk`):
//!
//! 1. the pre-scan refuses FIFOs, sockets and device nodes before anything is created;
//! 2. directories and symlinks are created (directories private, `0700`, for now);
//! 3. regular files are streamed through a buffer (in parallel when there are several), each
//!    byte read from the source is hashed, and each file gets its owner, mode and times and is
//!    `fsync`ed;
//! 4. later occurrences of a hard-linked file are linked to the first copy;
//! 5. directories get their owner, mode and times bottom-up (after their children, which would
//!    otherwise clobber the mtime) and are `fsync`ed, as is the parent of the destination;
//! 6. the destination is re-read from disk and its tree digest compared with the digest of
//!    what was read from the source (see `digest` for the format);
//! 7. symlinks get their times (reading a link for the verification updates its atime).
//!
//! Any failure removes the partial destination (it is our own copy, never user data).
//!
//! Errors carry the path they concern. The module uses `std::fs` rather than `fs-err` for its
//! own calls: `fs-err` wraps the OS error, which would hide `ENOSPC` from
//! [`fsops::is_storage_full`], and [`CopyError`] names the path already.

#![warn(missing_docs)]

mod clone;
mod digest;
pub mod faults;
mod pool;
mod remove;
mod transfer;
mod walk;

#[cfg(test)]
mod tests;

use std::io;
use std::path::{Path, PathBuf};

use agent_guard_fsops as fsops;

pub use clone::{Cloned, clone_file, link_file, write_into};
pub use faults::{FaultPoint, Faults};
pub use remove::{remove_copied_source, remove_source};

/// Progress of a long copy (the CLI draws a bar on a terminal; the library never prints).
///
/// The copy may call [`Progress::advance`] from several threads at once.
pub trait Progress: Sync {
    /// The total number of bytes to copy, known after the pre-scan.
    fn start(&self, _total_bytes: u64) {}
    /// `bytes` more were copied.
    fn advance(&self, _bytes: u64) {}
    /// The copy finished (or failed).
    fn finish(&self) {}
}

/// A progress sink that ignores everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl Progress for NoProgress {}

/// What a verified copy produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopyOutcome {
    /// The tree digest (64 lowercase hex characters) of the source as read, equal to the
    /// digest of the destination as re-read.
    pub digest: String,
    /// The number of regular-file entries (each name of a hard-linked file counts).
    pub files: u64,
    /// The number of content bytes read and written (hard links are not copied twice).
    pub bytes: u64,
}

/// Why a copy or a removal failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CopyError {
    /// A FIFO, socket or device node: refused before anything is written.
    #[error("refusing to copy the {kind} `{path}`")]
    Special {
        /// The special file.
        path: PathBuf,
        /// What it is (`FIFO`, `socket`, `block device`, `character device`).
        kind: &'static str,
    },
    /// No space or quota left (ENOSPC, EDQUOT).
    #[error("no space or quota left for `{path}`")]
    Storage {
        /// The file or directory being written.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// Any other I/O error.
    #[error("I/O error on `{path}`")]
    Io {
        /// The file or directory concerned.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// The file would have to be copied byte by byte (no reflink) and is over the cap.
    #[error("`{path}` is {size} bytes, over the {cap}-byte copy cap")]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size.
        size: u64,
        /// The cap.
        cap: u64,
    },
    /// The destination's content does not match what was read from the source.
    #[error("the copy `{path}` does not match its source")]
    Mismatch {
        /// The first destination entry that differs (or the destination root).
        path: PathBuf,
    },
}

impl CopyError {
    /// Wraps an I/O error on `path`, telling a full storage apart.
    pub fn io(path: &Path, source: io::Error) -> CopyError {
        io_error(path, source)
    }

    /// Returns `true` if the storage is full (the caller reports it differently).
    pub fn is_storage(&self) -> bool {
        matches!(self, CopyError::Storage { .. })
    }
}

/// Wraps an I/O error on `path`, telling a full storage apart.
fn io_error(path: &Path, source: io::Error) -> CopyError {
    let path = path.to_path_buf();
    if fsops::is_storage_full(&source) {
        CopyError::Storage { path, source }
    } else {
        CopyError::Io { path, source }
    }
}

/// Copies `src` (a file, a directory tree or a symlink; `src` itself is never followed) to
/// `dst`, which must not exist (its parent does), and verifies it.
///
/// Owner, permission bits, atime and mtime are preserved for files, directories and symlinks
/// (ownership only where allowed, e.g. as root); hard links inside the tree stay hard links.
/// On error nothing remains at `dst` unless `dst` existed before the call.
pub fn copy_verified(
    src: &Path,
    dst: &Path,
    progress: &dyn Progress,
    faults: Faults,
) -> Result<CopyOutcome, CopyError> {
    let nodes = walk::walk(src, walk::Specials::Refuse)?;
    let copier = transfer::Copier::new(src, dst, &nodes, progress, faults);
    progress.start(copier.total_bytes());
    let result = copier.run();
    progress.finish();
    if result.is_err() && copier.created_root() {
        remove::discard(dst);
    }
    result
}

/// Computes the same digest over an existing tree (used to re-verify a quarantine copy).
///
/// `path` may be a directory, a regular file or a symlink (which is not followed); special
/// files are refused with [`CopyError::Special`]. Files and directories are read with
/// `O_NOATIME` where allowed, so re-verifying leaves their atimes alone.
pub fn digest_tree(path: &Path) -> Result<String, CopyError> {
    Ok(digest::fold(&digest::tree_entries(path)?))
}
