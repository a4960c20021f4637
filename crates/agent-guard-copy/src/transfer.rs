//! The copy itself: creating entries, streaming file content, applying metadata.

use std::ffi::OsStr;
use std::fs::{DirBuilder, OpenOptions};
use std::io::{Read as _, Write as _};
use std::os::fd::AsFd;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _};
use std::path::Path;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use rustix::fs::{AtFlags, CWD, Mode, OFlags};
use rustix::io::Errno;

use super::digest::{self, Body, Entry};
use super::walk::{self, Kind, Meta, Node, under};
use super::{CopyError, CopyOutcome, Progress, io_error, pool};
use crate::faults::{FaultPoint, Faults};
use agent_guard_fsops as fsops;

/// One verified copy in progress.
pub(super) struct Copier<'a> {
    /// The source root.
    src: &'a Path,
    /// The destination root.
    dst: &'a Path,
    /// The pre-scan of `src`.
    nodes: &'a [Node],
    /// For each node, the first node of the same inode if it is a later hard link.
    links: Vec<Option<usize>>,
    /// Where progress goes.
    progress: &'a dyn Progress,
    /// The armed fault point, if any.
    faults: Faults,
    /// Whether `dst` itself was created by us (and may be removed on failure).
    root_created: AtomicBool,
    /// Entries created so far (for the fault point).
    created: AtomicUsize,
    /// Content bytes copied so far.
    bytes: AtomicU64,
}

impl std::fmt::Debug for Copier<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Copier")
            .field("src", &self.src)
            .field("dst", &self.dst)
            .finish()
    }
}

impl<'a> Copier<'a> {
    /// Prepares the copy of the pre-scanned `nodes` from `src` to `dst`.
    pub(super) fn new(
        src: &'a Path,
        dst: &'a Path,
        nodes: &'a [Node],
        progress: &'a dyn Progress,
        faults: Faults,
    ) -> Copier<'a> {
        Copier {
            src,
            dst,
            nodes,
            links: digest::hard_links(nodes),
            progress,
            faults,
            root_created: AtomicBool::new(false),
            created: AtomicUsize::new(0),
            bytes: AtomicU64::new(0),
        }
    }

    /// The content bytes to copy (each hard-linked file once).
    pub(super) fn total_bytes(&self) -> u64 {
        self.file_jobs()
            .iter()
            .map(|&i| self.nodes[i].meta.size)
            .sum()
    }

    /// Whether the destination root exists because of this copy.
    pub(super) fn created_root(&self) -> bool {
        self.root_created.load(Ordering::Relaxed)
    }

    /// The nodes whose content is copied: regular files, except later hard links.
    fn file_jobs(&self) -> Vec<usize> {
        (0..self.nodes.len())
            .filter(|&i| self.nodes[i].kind == Kind::File && self.links[i].is_none())
            .collect()
    }

    /// Copies, syncs and verifies (see the module documentation for the phases).
    pub(super) fn run(&self) -> Result<CopyOutcome, CopyError> {
        let bodies: Vec<OnceLock<Body>> = self.nodes.iter().map(|_| OnceLock::new()).collect();
        for (node, body) in self.nodes.iter().zip(&bodies) {
            match node.kind {
                Kind::Dir => {
                    self.create_dir(node)?;
                    let _ = body.set(Body::Dir);
                }
                Kind::Symlink => {
                    let _ = body.set(Body::Symlink(self.create_symlink(node)?));
                }
                Kind::File | Kind::Special(_) => continue,
            }
            self.tick();
        }
        let jobs = self.file_jobs();
        pool::for_each(jobs.len(), |job, buffer| {
            let index = jobs[job];
            let _ = bodies[index].set(Body::File(self.copy_file(&self.nodes[index], buffer)?));
            self.tick();
            Ok(())
        })?;
        for (index, first) in self.links.iter().enumerate() {
            if let Some(first) = *first {
                let (original, link) = (&self.nodes[first].rel, &self.nodes[index].rel);
                let path = under(self.dst, link);
                std::fs::hard_link(under(self.dst, original), &path)
                    .map_err(|e| io_error(&path, e))?;
                let _ = bodies[index].set(Body::HardLink(original.clone()));
                self.tick();
            }
        }
        for node in self
            .nodes
            .iter()
            .rev()
            .filter(|node| node.kind == Kind::Dir)
        {
            self.finish_dir(node)?;
        }
        let parent = match self.dst.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        fsops::sync_dir(parent).map_err(|e| io_error(parent, e))?;

        let expected = self
            .nodes
            .iter()
            .zip(bodies)
            .map(|(node, body)| match body.into_inner() {
                Some(body) => Ok(Entry::new(node, body)),
                None => Err(CopyError::Mismatch {
                    path: under(self.dst, &node.rel),
                }),
            })
            .collect::<Result<Vec<Entry>, CopyError>>()?;
        let actual = digest::tree_entries(self.dst)?;
        let digest = digest::fold(&expected);
        if digest::fold(&actual) != digest {
            let path = digest::first_difference(self.dst, &expected, &actual);
            return Err(CopyError::Mismatch { path });
        }
        // Last: reading the links for the verification updated their atimes.
        for node in self.nodes.iter().filter(|node| node.kind == Kind::Symlink) {
            let path = under(self.dst, &node.rel);
            rustix::fs::utimensat(
                CWD,
                &path,
                &node.meta.timestamps(),
                AtFlags::SYMLINK_NOFOLLOW,
            )
            .map_err(|e| io_error(&path, e.into()))?;
        }
        Ok(CopyOutcome {
            digest,
            files: self
                .nodes
                .iter()
                .filter(|node| node.kind == Kind::File)
                .count() as u64,
            bytes: self.bytes.load(Ordering::Relaxed),
        })
    }

    /// Counts one created entry; the crash-test fault point sits halfway.
    fn tick(&self) {
        let created = self.created.fetch_add(1, Ordering::Relaxed) + 1;
        if created == self.nodes.len().div_ceil(2) {
            self.faults.hit(FaultPoint::DuringCopy);
        }
    }

    /// Notes that `node` is the root and was just created by us.
    fn created(&self, node: &Node) {
        if node.rel.as_os_str().is_empty() {
            self.root_created.store(true, Ordering::Relaxed);
        }
    }

    /// Creates a directory, private until [`Copier::finish_dir`] gives it its mode.
    fn create_dir(&self, node: &Node) -> Result<(), CopyError> {
        let path = under(self.dst, &node.rel);
        DirBuilder::new()
            .mode(0o700)
            .create(&path)
            .map_err(|e| io_error(&path, e))?;
        self.created(node);
        Ok(())
    }

    /// Recreates a symlink with the same target bytes (and owner where allowed); returns the
    /// target.
    fn create_symlink(&self, node: &Node) -> Result<Vec<u8>, CopyError> {
        let target = walk::read_link(&under(self.src, &node.rel))?;
        let path = under(self.dst, &node.rel);
        std::os::unix::fs::symlink(OsStr::from_bytes(&target), &path)
            .map_err(|e| io_error(&path, e))?;
        self.created(node);
        let stat = rustix::fs::statat(CWD, &path, AtFlags::SYMLINK_NOFOLLOW)
            .map_err(|e| io_error(&path, e.into()))?;
        if (stat.st_uid, stat.st_gid) != (node.meta.uid, node.meta.gid) {
            let result = std::os::unix::fs::lchown(&path, Some(node.meta.uid), Some(node.meta.gid));
            tolerate_denied(result).map_err(|e| io_error(&path, e))?;
        }
        Ok(target)
    }

    /// Streams one regular file, hashing what is read; gives the copy the source's owner,
    /// mode and times and syncs it. Returns the content hash.
    fn copy_file(&self, node: &Node, buffer: &mut [u8]) -> Result<[u8; 32], CopyError> {
        let from = under(self.src, &node.rel);
        let to = under(self.dst, &node.rel);
        let mut input = walk::open_file(&from, &node.meta)?;
        let mut output = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&to)
            .map_err(|e| io_error(&to, e))?;
        self.created(node);
        let mut hasher = blake3::Hasher::new();
        loop {
            let n = match input.read(buffer) {
                Ok(0) => break,
                Ok(n) => n,
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(io_error(&from, error)),
            };
            hasher.update(&buffer[..n]);
            output
                .write_all(&buffer[..n])
                .map_err(|e| io_error(&to, e))?;
            self.bytes.fetch_add(n as u64, Ordering::Relaxed);
            self.progress.advance(n as u64);
        }
        set_metadata(&output, &to, &node.meta)?;
        output.sync_all().map_err(|e| io_error(&to, e))?;
        Ok(*hasher.finalize().as_bytes())
    }

    /// Gives a copied directory its owner, mode and times once its children exist, and syncs
    /// its entries (what `fsops::sync_dir` does, on the descriptor already open).
    fn finish_dir(&self, node: &Node) -> Result<(), CopyError> {
        let path = under(self.dst, &node.rel);
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd =
            rustix::fs::open(&path, flags, Mode::empty()).map_err(|e| io_error(&path, e.into()))?;
        set_metadata(&fd, &path, &node.meta)?;
        rustix::fs::fsync(&fd).map_err(|e| io_error(&path, e.into()))
    }
}

/// Sets owner (where allowed), permission bits and times of the open object `fd` at `path`.
/// The owner goes first: `chown` may clear set-id bits.
fn set_metadata(fd: impl AsFd, path: &Path, meta: &Meta) -> Result<(), CopyError> {
    let fd = fd.as_fd();
    let failed = |error: Errno| io_error(path, error.into());
    let stat = rustix::fs::fstat(fd).map_err(failed)?;
    if (stat.st_uid, stat.st_gid) != (meta.uid, meta.gid) {
        let result = std::os::unix::fs::fchown(fd, Some(meta.uid), Some(meta.gid));
        tolerate_denied(result).map_err(|e| io_error(path, e))?;
    }
    rustix::fs::fchmod(fd, Mode::from_raw_mode(meta.mode)).map_err(failed)?;
    rustix::fs::futimens(fd, &meta.timestamps()).map_err(failed)
}

/// Ownership is preserved best-effort: a refused `chown` (not root, or an id that does not
/// map into this user namespace) is not an error.
fn tolerate_denied(result: std::io::Result<()>) -> std::io::Result<()> {
    match result {
        Err(error)
            if error.raw_os_error() == Some(Errno::PERM.raw_os_error())
                || error.raw_os_error() == Some(Errno::INVAL.raw_os_error()) =>
        {
            Ok(())
        }
        other => other,
    }
}
