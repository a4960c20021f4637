//! The checkpoint store's private stat index: what every kept path looked like (`lstat`
//! data) and which blob holds it, so that the next checkpoint reads and hashes only the
//! files whose stat data changed, and rebuilds only the trees above them.
//!
//! The file is a cache. It is replaced atomically (temporary file, rename); a missing, torn
//! or corrupt one is ignored, which costs one full hash of the workspace and nothing else.
//! It never refers to the user's index: the user's repository is only read.
//!
//! Layout (little-endian): magic, version, tree count, trees (directory, tree id), entry
//! count, entries (`path`, `st_mode`, size, mtime, ctime, inode, device, blob id or none),
//! and a 64-bit checksum of everything before it. An index of another version is ignored.

use std::os::unix::fs::MetadataExt as _;
use std::path::Path;

use git2::Oid;

const MAGIC: &[u8; 8] = b"AGCKPTIX";
/// 2: trees before entries, so that the entries can be read in place and in order.
const VERSION: u32 = 2;

/// The stat data a checkpoint compares (git's `ie_match_stat` fields, untruncated).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Stat {
    /// `st_mode`: type and permission bits.
    pub(crate) mode: u32,
    /// Size in bytes.
    pub(crate) size: u64,
    /// Modification time (seconds, nanoseconds).
    pub(crate) mtime: (i64, u32),
    /// Status change time (seconds, nanoseconds).
    pub(crate) ctime: (i64, u32),
    /// Inode number.
    pub(crate) ino: u64,
    /// Device number.
    pub(crate) dev: u64,
}

impl Stat {
    /// The stat data of `metadata` (from `lstat`).
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "nanoseconds are always in 0..1e9"
    )]
    pub(crate) fn of(metadata: &std::fs::Metadata) -> Stat {
        Stat {
            mode: metadata.mode(),
            size: metadata.len(),
            mtime: (metadata.mtime(), metadata.mtime_nsec() as u32),
            ctime: (metadata.ctime(), metadata.ctime_nsec() as u32),
            ino: metadata.ino(),
            dev: metadata.dev(),
        }
    }

    /// The stat data of `now` (from `statx` without following a link): the same values as
    /// [`Stat::of`] gives for the same file.
    pub(crate) fn of_statx(now: &rustix::fs::Statx) -> Stat {
        Stat {
            mode: u32::from(now.stx_mode),
            size: now.stx_size,
            mtime: (now.stx_mtime.tv_sec, now.stx_mtime.tv_nsec),
            ctime: (now.stx_ctime.tv_sec, now.stx_ctime.tv_nsec),
            ino: now.stx_ino,
            dev: rustix::fs::makedev(now.stx_dev_major, now.stx_dev_minor),
        }
    }

    /// Whether it is a symbolic link.
    pub(crate) const fn is_symlink(self) -> bool {
        self.mode & 0o170_000 == 0o120_000
    }

    /// Whether it is a regular file.
    pub(crate) const fn is_file(self) -> bool {
        self.mode & 0o170_000 == 0o100_000
    }

    /// The mode git records: a link, an executable or a plain file.
    pub(crate) const fn git_mode(self) -> u32 {
        if self.is_symlink() {
            0o120_000
        } else if self.mode & 0o100 != 0 {
            0o100_755
        } else {
            0o100_644
        }
    }

    /// The permission bits when git's mode does not imply them (`0600` for a `.env`), which
    /// the checkpoint records beside the tree so that a restore puts them back exactly.
    pub(crate) const fn unusual_permissions(self) -> Option<u32> {
        let bits = self.mode & 0o7777;
        let usual = if self.git_mode() == 0o100_755 {
            0o755
        } else {
            0o644
        };
        if self.is_symlink() || bits == usual {
            None
        } else {
            Some(bits)
        }
    }
}

/// One path of a checkpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// Workspace-relative, `/`-separated.
    pub(crate) path: Vec<u8>,
    /// Its stat data when it was hashed.
    pub(crate) stat: Stat,
    /// The blob that holds it; `None` when it was not kept (too large, not a file).
    pub(crate) id: Option<Oid>,
}

/// One path of the last checkpoint, read in place from the index file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EntryRef<'a> {
    /// Workspace-relative, `/`-separated.
    pub(crate) path: &'a [u8],
    /// Its stat data when it was hashed.
    pub(crate) stat: Stat,
    /// The blob that holds it, if it was kept.
    pub(crate) id: Option<Oid>,
}

impl Entry {
    /// This entry, borrowed.
    pub(crate) fn as_ref(&self) -> EntryRef<'_> {
        EntryRef {
            path: &self.path,
            stat: self.stat,
            id: self.id,
        }
    }
}

impl EntryRef<'_> {
    /// This entry, owned.
    pub(crate) fn to_owned(self) -> Entry {
        Entry {
            path: self.path.to_vec(),
            stat: self.stat,
            id: self.id,
        }
    }
}

/// The private index as read: the file's bytes, its trees parsed, its entries parsed on
/// demand ([`Index::entries`]) — a checkpoint reads them once, in order, beside the walk,
/// so they are never copied into a list of their own.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Index {
    /// The file's bytes (empty when there was no usable file).
    bytes: Vec<u8>,
    /// Where the entries start in `bytes`, and how many there are.
    entries_at: usize,
    count: usize,
    /// Tree ids of the directories of the last checkpoint (`""` is the root), in
    /// [`path_order`].
    pub(crate) trees: Vec<(Vec<u8>, Oid)>,
    /// The index file's modification time when it was read: an entry modified at or after
    /// it may have changed within the same tick without its stat data changing (git's racy
    /// timestamps), so it is hashed again.
    pub(crate) written: Option<(i64, u32)>,
}

/// Orders paths component by component (`a/b` before `a.b`), so that everything below a
/// directory is contiguous: `/` sorts below every byte a name can hold.
pub(crate) fn path_order(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    let key = |byte: &u8| if *byte == b'/' { 0 } else { *byte };
    a.iter().map(key).cmp(b.iter().map(key))
}

impl Index {
    /// Reads the index at `path`; anything unreadable is an empty index.
    pub(crate) fn load(path: &Path) -> Index {
        let Ok(bytes) = fs_err::read(path) else {
            return Index::default();
        };
        let written = fs_err::metadata(path).ok().map(|m| Stat::of(&m).mtime);
        match parse(bytes) {
            Some(mut index) => {
                index.written = written;
                index
            }
            None => Index::default(),
        }
    }

    /// How many entries the index holds.
    pub(crate) fn len(&self) -> usize {
        self.count
    }

    /// The entries, in [`path_order`], read from the file's bytes. A damaged entry ends
    /// the list (the checksum makes that a bug, not a disk fault): what is missing is only
    /// hashed again.
    pub(crate) fn entries(&self) -> Entries<'_> {
        Entries {
            reader: Reader {
                bytes: self
                    .bytes
                    .get(..self.bytes.len().saturating_sub(8))
                    .unwrap_or_default(),
                at: self.entries_at,
            },
            left: self.count,
        }
    }

    /// The entries as a list of their own (for lookups by path).
    pub(crate) fn to_vec(&self) -> Vec<Entry> {
        self.entries().map(EntryRef::to_owned).collect()
    }

    /// Whether `entry`'s stat data proves its content unchanged when the file shows `now`.
    pub(crate) fn unchanged(&self, entry: &Stat, now: &Stat) -> bool {
        let racy = self.written.is_none_or(|written| entry.mtime >= written);
        !racy && entry == now
    }
}

/// The entries of an [`Index`], parsed one by one.
pub(crate) struct Entries<'a> {
    reader: Reader<'a>,
    left: usize,
}

impl<'a> Iterator for Entries<'a> {
    type Item = EntryRef<'a>;

    fn next(&mut self) -> Option<EntryRef<'a>> {
        if self.left == 0 {
            return None;
        }
        let entry = self.reader.entry();
        self.left = if entry.is_some() { self.left - 1 } else { 0 };
        entry
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.left))
    }
}

/// Writes an index of `entries` and `trees` to `path` atomically.
pub(crate) fn save<'a>(
    path: &Path,
    entries: impl ExactSizeIterator<Item = EntryRef<'a>>,
    trees: &[(Vec<u8>, Oid)],
) -> std::io::Result<()> {
    let mut out = Vec::with_capacity(64 + entries.len() * 96 + trees.len() * 48);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&(trees.len() as u64).to_le_bytes());
    for (path, id) in trees {
        put_path(&mut out, path);
        out.extend_from_slice(id.as_bytes());
    }
    out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    for entry in entries {
        put_path(&mut out, entry.path);
        let stat = &entry.stat;
        out.extend_from_slice(&stat.mode.to_le_bytes());
        out.extend_from_slice(&stat.size.to_le_bytes());
        out.extend_from_slice(&stat.mtime.0.to_le_bytes());
        out.extend_from_slice(&stat.mtime.1.to_le_bytes());
        out.extend_from_slice(&stat.ctime.0.to_le_bytes());
        out.extend_from_slice(&stat.ctime.1.to_le_bytes());
        out.extend_from_slice(&stat.ino.to_le_bytes());
        out.extend_from_slice(&stat.dev.to_le_bytes());
        match entry.id {
            Some(id) => {
                out.push(1);
                out.extend_from_slice(id.as_bytes());
            }
            None => out.push(0),
        }
    }
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    let temporary = path.with_extension("tmp");
    fs_err::write(&temporary, &out)?;
    agent_guard_fsops::rename(&temporary, path)
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
fn checksum(bytes: &[u8]) -> u64 {
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

/// A cursor over the index bytes.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
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

    fn entry(&mut self) -> Option<EntryRef<'a>> {
        let path = self.path()?;
        let stat = Stat {
            mode: self.u32()?,
            size: self.u64()?,
            mtime: (self.i64()?, self.u32()?),
            ctime: (self.i64()?, self.u32()?),
            ino: self.u64()?,
            dev: self.u64()?,
        };
        let id = match self.take(1)? {
            [1] => Some(self.id()?),
            _ => None,
        };
        Some(EntryRef { path, stat, id })
    }
}

/// Checks the file's checksum and header and reads its trees; the entries stay in the bytes.
fn parse(bytes: Vec<u8>) -> Option<Index> {
    let body_len = bytes.len().checked_sub(8)?;
    let (body, sum) = bytes.split_at(body_len);
    if u64::from_le_bytes(sum.try_into().ok()?) != checksum(body) {
        return None;
    }
    let mut reader = Reader { bytes: body, at: 0 };
    if reader.take(8)? != MAGIC || reader.u32()? != VERSION {
        return None;
    }
    reader.u32()?;
    let count = usize::try_from(reader.u64()?).ok()?;
    let mut trees = Vec::with_capacity(count.min(body.len() / 24));
    for _ in 0..count {
        let path = reader.path()?.to_vec();
        trees.push((path, reader.id()?));
    }
    let count = usize::try_from(reader.u64()?).ok()?;
    let entries_at = reader.at;
    Some(Index {
        bytes,
        entries_at,
        count,
        trees,
        written: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_rejects_damage() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index");
        let id = Oid::hash_object(git2::ObjectType::Blob, b"x").unwrap();
        let entries = vec![
            Entry {
                path: b"a/b".to_vec(),
                stat: Stat {
                    mode: 0o100_600,
                    size: 1,
                    mtime: (5, 6),
                    ctime: (7, 8),
                    ino: 9,
                    dev: 10,
                },
                id: Some(id),
            },
            Entry {
                path: b"big".to_vec(),
                stat: Stat::default(),
                id: None,
            },
        ];
        let trees = vec![(Vec::new(), id)];
        save(&path, entries.iter().map(Entry::as_ref), &trees).unwrap();
        let loaded = Index::load(&path);
        assert_eq!(loaded.to_vec(), entries);
        assert_eq!(loaded.len(), 2);
        assert_eq!(loaded.trees, trees);
        assert!(loaded.written.is_some());
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[20] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(Index::load(&path).to_vec(), Vec::new());
        assert_eq!(Index::load(&dir.path().join("missing")), Index::default());
    }

    #[test]
    fn an_index_of_another_version_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index");
        let entry = Entry {
            path: b"a".to_vec(),
            stat: Stat::default(),
            id: None,
        };
        save(&path, [entry.as_ref()].into_iter(), &[]).unwrap();
        assert_eq!(Index::load(&path).len(), 1);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[8..12].copy_from_slice(&1u32.to_le_bytes());
        let body = bytes.len() - 8;
        let sum = checksum(&bytes[..body]);
        bytes[body..].copy_from_slice(&sum.to_le_bytes());
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(Index::load(&path), Index::default());
    }

    #[test]
    fn statx_gives_what_lstat_gives() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "twelve bytes").unwrap();
        let link = dir.path().join("l");
        std::os::unix::fs::symlink("f", &link).unwrap();
        for path in [&file, &link, &dir.path().to_path_buf()] {
            let now = rustix::fs::statx(
                rustix::fs::CWD,
                path.as_path(),
                rustix::fs::AtFlags::SYMLINK_NOFOLLOW,
                rustix::fs::StatxFlags::BASIC_STATS,
            )
            .unwrap();
            let lstat = std::fs::symlink_metadata(path).unwrap();
            assert_eq!(Stat::of_statx(&now), Stat::of(&lstat), "{}", path.display());
        }
    }

    #[test]
    fn orders_components_first() {
        let mut paths: Vec<&[u8]> = vec![b"a.b", b"a/c", b"a", b"a/b/c", b"a-b"];
        paths.sort_by(|a, b| path_order(a, b));
        assert_eq!(paths, [&b"a"[..], b"a/b/c", b"a/c", b"a-b", b"a.b"]);
    }

    #[test]
    fn permissions_git_cannot_say_are_recorded() {
        let stat = |mode| Stat {
            mode,
            ..Stat::default()
        };
        assert_eq!(stat(0o100_644).unusual_permissions(), None);
        assert_eq!(stat(0o100_755).unusual_permissions(), None);
        assert_eq!(stat(0o100_600).unusual_permissions(), Some(0o600));
        assert_eq!(stat(0o100_600).git_mode(), 0o100_644);
        assert_eq!(stat(0o100_700).git_mode(), 0o100_755);
        assert_eq!(stat(0o120_777).unusual_permissions(), None);
    }
}
