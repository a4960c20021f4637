//! The canonical tree digest.
//!
//! The digest is BLAKE3 over a byte string that lists the tree's entries in the walk's
//! canonical order (pre-order, children sorted by name bytes):
//!
//! ```text
//! "agent-guard tree digest v1\0"  u64-le entry count
//! per entry: tag (1 byte)  u64-le path length  relative path bytes ('/'-separated,
//!            empty for the root)  u32-le permission bits (0 for symlinks)  payload
//!   'd' directory  no payload
//!   'f' file       the 32-byte BLAKE3 hash of its content
//!   'l' symlink    u64-le length, target bytes
//!   'h' hard link  u64-le length, relative path of the first entry of the same inode
//! ```
//!
//! Every variable-length field is length-prefixed and the tag fixes the payload's layout, so
//! two different trees never produce the same byte string. The root's own name, owners and
//! times are not part of it, so a tree and its copy elsewhere have the same digest.

use std::collections::HashMap;
use std::io::Read as _;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::walk::{self, Kind, Meta, Node, Specials, under};
use super::{CopyError, io_error, pool};

/// What the digest records about one entry beyond its path and mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Body {
    /// A directory.
    Dir,
    /// A regular file and the hash of its content.
    File([u8; 32]),
    /// A symlink and its target bytes.
    Symlink(Vec<u8>),
    /// A further name of a file listed earlier (relative path of the first name).
    HardLink(PathBuf),
}

/// One entry of the canonical listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Entry {
    /// The path relative to the root.
    pub(super) rel: PathBuf,
    /// The permission bits (0 for symlinks, whose bits mean nothing on Linux).
    pub(super) mode: u32,
    /// The rest.
    pub(super) body: Body,
}

impl Entry {
    /// The entry for `node`.
    pub(super) fn new(node: &Node, body: Body) -> Entry {
        let mode = if node.kind == Kind::Symlink {
            0
        } else {
            node.meta.mode
        };
        Entry {
            rel: node.rel.clone(),
            mode,
            body,
        }
    }
}

/// The domain separator that starts the digested byte string.
const DOMAIN: &[u8] = b"agent-guard tree digest v1\0";

/// Computes the digest of a canonical listing (64 lowercase hex characters).
pub(super) fn fold(entries: &[Entry]) -> String {
    fn bytes(hasher: &mut blake3::Hasher, bytes: &[u8]) {
        hasher.update(&(bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    }
    let mut hasher = blake3::Hasher::new();
    hasher.update(DOMAIN);
    hasher.update(&(entries.len() as u64).to_le_bytes());
    for entry in entries {
        let tag = match entry.body {
            Body::Dir => b'd',
            Body::File(_) => b'f',
            Body::Symlink(_) => b'l',
            Body::HardLink(_) => b'h',
        };
        hasher.update(&[tag]);
        bytes(&mut hasher, entry.rel.as_os_str().as_bytes());
        hasher.update(&entry.mode.to_le_bytes());
        match &entry.body {
            Body::Dir => {}
            Body::File(hash) => {
                hasher.update(hash);
            }
            Body::Symlink(target) => bytes(&mut hasher, target),
            Body::HardLink(first) => bytes(&mut hasher, first.as_os_str().as_bytes()),
        }
    }
    hasher.finalize().to_hex().to_string()
}

/// For each node, the index of the first node of the same inode if it is a later name of a
/// hard-linked regular file.
pub(super) fn hard_links(nodes: &[Node]) -> Vec<Option<usize>> {
    let mut first = HashMap::new();
    nodes
        .iter()
        .enumerate()
        .map(|(index, node)| {
            if node.kind != Kind::File || node.meta.nlink < 2 {
                return None;
            }
            let earlier = *first.entry((node.meta.dev, node.meta.ino)).or_insert(index);
            (earlier != index).then_some(earlier)
        })
        .collect()
}

/// Streams the regular file walked as `meta` at `path` through BLAKE3.
fn hash_file(path: &Path, meta: &Meta, buffer: &mut [u8]) -> Result<[u8; 32], CopyError> {
    let mut file = walk::open_file(path, meta)?;
    let mut hasher = blake3::Hasher::new();
    loop {
        match file.read(buffer) {
            Ok(0) => return Ok(*hasher.finalize().as_bytes()),
            Ok(n) => {
                hasher.update(&buffer[..n]);
            }
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(error) => return Err(io_error(path, error)),
        }
    }
}

/// Reads the tree at `root` from disk into its canonical listing (files are hashed in
/// parallel).
pub(super) fn tree_entries(root: &Path) -> Result<Vec<Entry>, CopyError> {
    let nodes = walk::walk(root, Specials::Refuse)?;
    let links = hard_links(&nodes);
    let jobs: Vec<usize> = (0..nodes.len())
        .filter(|&i| links[i].is_none() && matches!(nodes[i].kind, Kind::File | Kind::Symlink))
        .collect();
    let bodies: Vec<OnceLock<Body>> = nodes.iter().map(|_| OnceLock::new()).collect();
    pool::for_each(jobs.len(), |job, buffer| {
        let node = &nodes[jobs[job]];
        let path = under(root, &node.rel);
        let body = if node.kind == Kind::File {
            Body::File(hash_file(&path, &node.meta, buffer)?)
        } else {
            Body::Symlink(walk::read_link(&path)?)
        };
        let _ = bodies[jobs[job]].set(body);
        Ok(())
    })?;
    let entries = nodes
        .iter()
        .zip(bodies)
        .zip(&links)
        .map(|((node, body), link)| {
            let body = match (link, body.into_inner()) {
                (Some(first), _) => Body::HardLink(nodes[*first].rel.clone()),
                (None, Some(body)) => body,
                (None, None) => Body::Dir,
            };
            Entry::new(node, body)
        })
        .collect();
    Ok(entries)
}

/// The destination path of the first entry where two listings differ (`root` if none does).
pub(super) fn first_difference(root: &Path, expected: &[Entry], actual: &[Entry]) -> PathBuf {
    let differing = expected
        .iter()
        .zip(actual)
        .find(|(a, b)| a != b)
        .map(|(_, b)| b);
    let extra = || {
        actual
            .get(expected.len())
            .or_else(|| expected.get(actual.len()))
    };
    match differing.or_else(extra) {
        Some(entry) => under(root, &entry.rel),
        None => root.to_path_buf(),
    }
}
