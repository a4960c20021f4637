//! The private index's two files, byte by byte (little-endian).
//!
//! - The base (`agent-guard-index`): magic, version, the last checkpoint (its commit, or
//!   twenty zero bytes, and its meta blob's content), the trees (directory, tree id), the
//!   entries (`path`, `st_mode`, size, mtime, ctime, inode, device, links, blob id or none), and a
//!   64-bit checksum of everything before it.
//! - The delta (`agent-guard-index.delta`): magic, version, the checksum of the base it
//!   amends, the last checkpoint, the trees (all of them: a few per directory), the number
//!   of entries once amended, the changes (an entry added or replaced, or a path removed),
//!   and its own checksum.
//!
//! A file of another version, torn or damaged, is ignored; a delta whose base is not the
//! base on disk is ignored too.

use std::path::Path;

use git2::Oid;

use super::{EntryRef, Stat};
use crate::watch::Token;

const BASE_MAGIC: &[u8; 8] = b"AGCKPTIX";
const DELTA_MAGIC: &[u8; 8] = b"AGCKPTDX";
/// 2: trees before entries, so that the entries can be read in place and in order.
/// 3: the last checkpoint's commit and meta, and the delta file.
/// 4: the watcher's token the last checkpoint was taken at, and each entry's link count.
pub(super) const VERSION: u32 = 4;

/// What both files say about the last checkpoint, besides its entries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Head {
    /// The last checkpoint's commit.
    pub(crate) commit: Option<Oid>,
    /// Its meta blob's content.
    pub(crate) meta: Vec<u8>,
    /// Tree ids of its directories (`""` is the root), in [`super::path_order`].
    pub(crate) trees: Vec<(Vec<u8>, Oid)>,
    /// The watcher's token the entries are current at ([`crate::watch`]):
    /// every file changed since is in what the watcher heard after it.
    pub(crate) watch: Option<Token>,
}

/// A parsed base: its bytes, where its entries start, how many.
pub(super) struct Base {
    pub(super) bytes: Vec<u8>,
    pub(super) entries_at: usize,
    pub(super) count: usize,
    pub(super) sum: u64,
    pub(super) head: Head,
}

/// A parsed delta: its bytes, where its changes start, how many, and the entry count once
/// applied.
pub(super) struct Delta {
    pub(super) bytes: Vec<u8>,
    pub(super) changes_at: usize,
    pub(super) changes: usize,
    pub(super) count: usize,
    pub(super) head: Head,
}

/// Reads and checks the base at `path`.
pub(super) fn read_base(path: &Path) -> Option<Base> {
    let bytes = fs_err::read(path).ok()?;
    let sum = verify(&bytes)?;
    let mut reader = Reader::new(&bytes);
    if reader.take(8)? != BASE_MAGIC || reader.u32()? != VERSION {
        return None;
    }
    let head = reader.head()?;
    let count = usize::try_from(reader.u64()?).ok()?;
    let entries_at = reader.at;
    Some(Base {
        bytes,
        entries_at,
        count,
        sum,
        head,
    })
}

/// Reads and checks the delta at `path`, if it amends the base whose checksum is `base`.
pub(super) fn read_delta(path: &Path, base: u64) -> Option<Delta> {
    let bytes = fs_err::read(path).ok()?;
    verify(&bytes)?;
    let mut reader = Reader::new(&bytes);
    if reader.take(8)? != DELTA_MAGIC || reader.u32()? != VERSION || reader.u64()? != base {
        return None;
    }
    let head = reader.head()?;
    let count = usize::try_from(reader.u64()?).ok()?;
    let changes = usize::try_from(reader.u64()?).ok()?;
    let changes_at = reader.at;
    Some(Delta {
        bytes,
        changes_at,
        changes,
        count,
        head,
    })
}

/// Writes a base of `entries` to `path` atomically (`durable`: flushed, the file before its
/// rename, the directory after).
pub(super) fn write_base<'a>(
    path: &Path,
    head: &Head,
    count: usize,
    entries: impl Iterator<Item = EntryRef<'a>>,
    durable: bool,
) -> std::io::Result<()> {
    let mut out = Vec::with_capacity(64 + head.meta.len() + count * 96 + head.trees.len() * 48);
    out.extend_from_slice(BASE_MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    put_head(&mut out, head);
    out.extend_from_slice(&(count as u64).to_le_bytes());
    for entry in entries {
        put_entry(&mut out, entry);
    }
    finish(path, out, durable)
}

/// Writes a delta amending the base whose checksum is `base` to `path` atomically:
/// `changes` (path, the entry or `None` when removed) in [`super::path_order`].
pub(super) fn write_delta(
    path: &Path,
    base: u64,
    head: &Head,
    count: usize,
    changes: &[(&[u8], Option<EntryRef<'_>>)],
) -> std::io::Result<()> {
    let mut out = Vec::with_capacity(64 + head.meta.len() + changes.len() * 100);
    out.extend_from_slice(DELTA_MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&base.to_le_bytes());
    put_head(&mut out, head);
    out.extend_from_slice(&(count as u64).to_le_bytes());
    out.extend_from_slice(&(changes.len() as u64).to_le_bytes());
    for (path, entry) in changes {
        if let Some(entry) = entry {
            out.push(1);
            put_entry(&mut out, *entry);
        } else {
            out.push(0);
            put_path(&mut out, path);
        }
    }
    finish(path, out, false)
}

/// Appends the checksum, then writes `out` to a temporary file renamed over `path`
/// (`durable`: the file flushed before the rename, the directory after).
pub(crate) fn finish(path: &Path, mut out: Vec<u8>, durable: bool) -> std::io::Result<()> {
    use std::io::Write as _;
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".tmp");
    let mut file = fs_err::File::create(&temporary)?;
    file.write_all(&out)?;
    if durable {
        file.sync_all()?;
    }
    drop(file);
    agent_guard_fsops::rename(Path::new(&temporary), path)?;
    if durable && let Some(dir) = path.parent() {
        fs_err::File::open(dir)?.sync_all()?;
    }
    Ok(())
}

/// The checksum the file ends with, when it is right.
pub(crate) fn verify(bytes: &[u8]) -> Option<u64> {
    let body_len = bytes.len().checked_sub(8)?;
    let (body, sum) = bytes.split_at(body_len);
    let sum = u64::from_le_bytes(sum.try_into().ok()?);
    (sum == checksum(body)).then_some(sum)
}

fn put_head(out: &mut Vec<u8>, head: &Head) {
    out.extend_from_slice(head.commit.as_ref().map_or(&[0; 20][..], Oid::as_bytes));
    put_path(out, &head.meta);
    out.extend_from_slice(&(head.trees.len() as u64).to_le_bytes());
    for (path, id) in &head.trees {
        put_path(out, path);
        out.extend_from_slice(id.as_bytes());
    }
    match &head.watch {
        Some(token) => {
            out.push(1);
            out.extend_from_slice(&token.instance);
            out.extend_from_slice(&token.seq.to_le_bytes());
        }
        None => out.push(0),
    }
}

fn put_entry(out: &mut Vec<u8>, entry: EntryRef<'_>) {
    put_path(out, entry.path);
    let stat = &entry.stat;
    out.extend_from_slice(&stat.mode.to_le_bytes());
    out.extend_from_slice(&stat.size.to_le_bytes());
    out.extend_from_slice(&stat.mtime.0.to_le_bytes());
    out.extend_from_slice(&stat.mtime.1.to_le_bytes());
    out.extend_from_slice(&stat.ctime.0.to_le_bytes());
    out.extend_from_slice(&stat.ctime.1.to_le_bytes());
    out.extend_from_slice(&stat.ino.to_le_bytes());
    out.extend_from_slice(&stat.dev.to_le_bytes());
    out.extend_from_slice(&stat.links.to_le_bytes());
    match entry.id {
        Some(id) => {
            out.push(1);
            out.extend_from_slice(id.as_bytes());
        }
        None => out.push(0),
    }
}

fn put_path(out: &mut Vec<u8>, path: &[u8]) {
    #[expect(
        clippy::cast_possible_truncation,
        reason = "paths are far shorter than 4 GiB"
    )]
    out.extend_from_slice(&(path.len() as u32).to_le_bytes());
    out.extend_from_slice(path);
}

/// A 64-bit FNV-1a over 8-byte words: cheap, and enough to notice a damaged cache.
pub(super) fn checksum(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        hash ^= u64::from_le_bytes(word);
        hash = hash.wrapping_mul(0x0100_0000_01b3).rotate_left(29);
    }
    for byte in chunks.remainder() {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash ^ bytes.len() as u64
}

/// A cursor over a file's bytes (its checksum excluded).
pub(super) struct Reader<'a> {
    bytes: &'a [u8],
    pub(super) at: usize,
}

impl<'a> Reader<'a> {
    /// A reader of `file` (checked) without its checksum, from `at`.
    pub(super) fn at(file: &'a [u8], at: usize) -> Reader<'a> {
        Reader {
            bytes: file.get(..file.len().saturating_sub(8)).unwrap_or_default(),
            at,
        }
    }

    fn new(file: &'a [u8]) -> Reader<'a> {
        Reader::at(file, 0)
    }

    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let slice = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(slice)
    }

    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
    }

    fn u32(&mut self) -> Option<u32> {
        self.array().map(u32::from_le_bytes)
    }

    fn u64(&mut self) -> Option<u64> {
        self.array().map(u64::from_le_bytes)
    }

    fn i64(&mut self) -> Option<i64> {
        self.array().map(i64::from_le_bytes)
    }

    fn path(&mut self) -> Option<&'a [u8]> {
        let len = usize::try_from(self.u32()?).ok()?;
        self.take(len)
    }

    fn id(&mut self) -> Option<Oid> {
        Oid::from_bytes(self.take(20)?).ok()
    }

    fn head(&mut self) -> Option<Head> {
        let commit = self.take(20)?;
        let commit = if commit.iter().all(|b| *b == 0) {
            None
        } else {
            Some(Oid::from_bytes(commit).ok()?)
        };
        let meta = self.path()?.to_vec();
        let count = usize::try_from(self.u64()?).ok()?;
        let mut trees = Vec::with_capacity(count.min(self.bytes.len() / 24));
        for _ in 0..count {
            let path = self.path()?.to_vec();
            trees.push((path, self.id()?));
        }
        let watch = match self.take(1)? {
            [1] => Some(Token {
                instance: self.array()?,
                seq: self.u64()?,
            }),
            _ => None,
        };
        Some(Head {
            commit,
            meta,
            trees,
            watch,
        })
    }

    /// The next entry.
    pub(super) fn entry(&mut self) -> Option<EntryRef<'a>> {
        let path = self.path()?;
        let stat = Stat {
            mode: self.u32()?,
            size: self.u64()?,
            mtime: (self.i64()?, self.u32()?),
            ctime: (self.i64()?, self.u32()?),
            ino: self.u64()?,
            dev: self.u64()?,
            links: self.u32()?,
        };
        let id = match self.take(1)? {
            [1] => Some(self.id()?),
            _ => None,
        };
        Some(EntryRef { path, stat, id })
    }

    /// The next change of a delta: the path, and its entry unless it was removed.
    pub(super) fn change(&mut self) -> Option<(&'a [u8], Option<EntryRef<'a>>)> {
        match self.take(1)? {
            [1] => {
                let entry = self.entry()?;
                Some((entry.path, Some(entry)))
            }
            _ => Some((self.path()?, None)),
        }
    }
}
