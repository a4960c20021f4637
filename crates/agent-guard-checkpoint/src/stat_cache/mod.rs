//! The checkpoint store's stat cache (the file keeps its name, `agent-guard-index`; in the
//! code "index" means git's index only): what every kept path looked like (`lstat` data)
//! and which blob holds it, so that the next checkpoint reads and hashes only the
//! files whose stat data changed, and rebuilds only the trees above them.
//!
//! It also remembers the last checkpoint's commit and meta, so that a checkpoint of an
//! unchanged workspace is known to be the last one without reading the object store.
//!
//! The cache is in two files ([`mod@file`]): a base holding every entry, and a delta
//! holding what changed since the base, so that a checkpoint of a hundred changed files
//! writes a hundred entries and not the whole workspace's; a new base is written once the
//! delta has grown past an eighth of it. Both are replaced atomically (temporary file,
//! rename); a missing, torn or corrupt one is ignored, which costs at most one full hash of
//! the workspace and nothing else (a lost delta leaves the base's older stat data, so the
//! files it amended are hashed again). It never refers to the user's index: the user's
//! repository is only read.

mod file;

use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

use git2::Oid;

use self::file::Reader;
pub(crate) use self::file::{Head, finish, verify};

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
    /// Hard links to it (`st_nlink`): a file with more than one name can change through a
    /// name the watcher does not hear, so it is always stat'ed ([`super::watch`]).
    pub(crate) links: u32,
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
            links: u32::try_from(metadata.nlink()).unwrap_or(u32::MAX),
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
            links: now.stx_nlink,
        }
    }

    /// Stat data the walk did not read (the watcher heard nothing of the file): all zero,
    /// which no file's `lstat` gives (its mode has a type).
    pub(crate) const UNKNOWN: Stat = Stat {
        mode: 0,
        size: 0,
        mtime: (0, 0),
        ctime: (0, 0),
        ino: 0,
        dev: 0,
        links: 0,
    };

    /// Whether these are [`Stat::UNKNOWN`].
    pub(crate) const fn is_unknown(self) -> bool {
        self.mode == 0
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

/// The private index as read: the base file and, when there is one, the delta amending it;
/// the entries are parsed on demand ([`Index::entries`]) — a checkpoint reads them once, in
/// order, beside the walk, so they are never copied into a list of their own.
#[derive(Default)]
pub(crate) struct Index {
    base: Option<file::Base>,
    delta: Option<file::Delta>,
    /// The last checkpoint: its commit, meta and trees.
    pub(crate) head: Head,
    /// When the index was last written: an entry modified at or after it may have changed
    /// within the same tick without its stat data changing (git's racy timestamps), so it
    /// is hashed again.
    pub(crate) written: Option<(i64, u32)>,
}

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index")
            .field("entries", &self.len())
            .field("head", &self.head)
            .field("written", &self.written)
            .finish_non_exhaustive()
    }
}

/// Orders paths component by component (`a/b` before `a.b`), so that everything below a
/// directory is contiguous: `/` sorts below every byte a name can hold.
pub(crate) fn path_order(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    let key = |byte: u8| if byte == b'/' { 0 } else { byte };
    let common = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    match (a.get(common), b.get(common)) {
        (Some(x), Some(y)) => key(*x).cmp(&key(*y)),
        _ => a.len().cmp(&b.len()),
    }
}

/// The delta file beside the base at `path`.
fn delta_path(path: &Path) -> PathBuf {
    let mut delta = path.as_os_str().to_owned();
    delta.push(".delta");
    PathBuf::from(delta)
}

impl Index {
    /// Reads the index at `path` (and its delta); anything unreadable is an empty index.
    pub(crate) fn load(path: &Path) -> Index {
        let Some(mut base) = file::read_base(path) else {
            return Index::default();
        };
        let mtime = |path: &Path| fs_err::metadata(path).ok().map(|m| Stat::of(&m).mtime);
        let mut written = mtime(path);
        let delta_path = delta_path(path);
        let mut delta = file::read_delta(&delta_path, base.sum);
        let head = match &mut delta {
            Some(delta) => {
                // The later write; unknown makes every entry racy, which is only slower.
                written = written.zip(mtime(&delta_path)).map(|(a, b)| a.max(b));
                std::mem::take(&mut delta.head)
            }
            None => std::mem::take(&mut base.head),
        };
        Index {
            base: Some(base),
            delta,
            head,
            written,
        }
    }

    /// The most changes a delta against this index's base may hold (an eighth of the
    /// base, 256 at least), or `None` without a base: past it, a new base is written.
    pub(crate) fn delta_limit(&self) -> Option<usize> {
        self.base.as_ref().map(|base| (base.count / 8).max(256))
    }

    /// How many entries the index holds.
    pub(crate) fn len(&self) -> usize {
        match (&self.delta, &self.base) {
            (Some(delta), _) => delta.count,
            (None, Some(base)) => base.count,
            (None, None) => 0,
        }
    }

    /// The entries, in [`path_order`]: the base's, amended by the delta's changes. A
    /// damaged entry ends its file's list (the checksum makes that a bug, not a disk
    /// fault): what is missing is only hashed again.
    pub(crate) fn entries(&self) -> Entries<'_> {
        let (base, base_left) = self.base.as_ref().map_or((Reader::at(&[], 0), 0), |base| {
            (Reader::at(&base.bytes, base.entries_at), base.count)
        });
        let (changes, changes_left) = self
            .delta
            .as_ref()
            .map_or((Reader::at(&[], 0), 0), |delta| {
                (Reader::at(&delta.bytes, delta.changes_at), delta.changes)
            });
        Entries {
            base,
            base_left,
            changes,
            changes_left,
            next_base: None,
            next_change: None,
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

    /// Whether a delta amends the base.
    pub(crate) fn has_delta(&self) -> bool {
        self.delta.is_some()
    }

    /// The delta's changes, in [`path_order`] (none without a delta).
    fn delta_changes(&self) -> Vec<(&[u8], Option<EntryRef<'_>>)> {
        let Some(delta) = &self.delta else {
            return Vec::new();
        };
        let mut reader = Reader::at(&delta.bytes, delta.changes_at);
        (0..delta.changes).map_while(|_| reader.change()).collect()
    }

    /// The base's entries alone.
    fn base_entries(&self) -> Entries<'_> {
        let mut entries = self.entries();
        entries.changes_left = 0;
        entries
    }
}

/// The entries of an [`Index`], parsed one by one: the base's and the delta's, merged.
pub(crate) struct Entries<'a> {
    base: Reader<'a>,
    base_left: usize,
    changes: Reader<'a>,
    changes_left: usize,
    next_base: Option<EntryRef<'a>>,
    next_change: Option<(&'a [u8], Option<EntryRef<'a>>)>,
}

impl<'a> Iterator for Entries<'a> {
    type Item = EntryRef<'a>;

    fn next(&mut self) -> Option<EntryRef<'a>> {
        loop {
            if self.next_base.is_none() && self.base_left > 0 {
                self.next_base = self.base.entry();
                self.base_left = if self.next_base.is_some() {
                    self.base_left - 1
                } else {
                    0
                };
            }
            if self.next_change.is_none() && self.changes_left > 0 {
                self.next_change = self.changes.change();
                self.changes_left = if self.next_change.is_some() {
                    self.changes_left - 1
                } else {
                    0
                };
            }
            let order = match (&self.next_base, &self.next_change) {
                (None, None) => return None,
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (Some(base), Some((path, _))) => path_order(base.path, path),
            };
            if order.is_lt() {
                return self.next_base.take();
            }
            if order.is_eq() {
                self.next_base = None;
            }
            if let Some((_, Some(entry))) = self.next_change.take() {
                return Some(entry);
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, None)
    }
}

/// One path's change: its new entry, or `None` when it is gone.
pub(crate) type Change = (Vec<u8>, Option<Entry>);

/// Writes the index of a checkpoint: `head`, and its `count` `entries` in [`path_order`].
/// When few entries changed since the base `previous` was read from, only a delta is
/// written; otherwise a new base (the stale delta removed first, so that it can never
/// amend a base it was not made for). `recent`, when the caller knows it, is what changed
/// since `previous` (in [`path_order`]; an unchanged entry listed is harmless): the delta is
/// then `previous`'s delta amended by it, without a pass over every entry.
pub(crate) fn save<'a, I>(
    path: &Path,
    previous: &Index,
    head: &Head,
    entries: (usize, I),
    recent: Option<&[Change]>,
) -> std::io::Result<()>
where
    I: Iterator<Item = EntryRef<'a>> + Clone,
{
    let (count, entries) = entries;
    if let (Some(base), Some(limit)) = (&previous.base, previous.delta_limit()) {
        let changes = match recent {
            Some(recent) => amend(previous.delta_changes(), recent, limit),
            None => changes(previous.base_entries(), entries.clone(), limit),
        };
        if let Some(changes) = changes {
            return file::write_delta(&delta_path(path), base.sum, head, count, &changes);
        }
    }
    remove_present(&delta_path(path))?;
    file::write_base(path, head, count, entries, false)
}

/// The changes of `delta` (against the base), amended by `recent` (against the base and
/// `delta`): on the same path, `recent` wins. `None` past `limit` changes.
fn amend<'x>(
    delta: Vec<(&'x [u8], Option<EntryRef<'x>>)>,
    recent: &'x [Change],
    limit: usize,
) -> Option<Vec<(&'x [u8], Option<EntryRef<'x>>)>> {
    let mut out = Vec::with_capacity(delta.len() + recent.len());
    let mut old = delta.into_iter().peekable();
    let mut new = recent
        .iter()
        .map(|(path, entry)| (path.as_slice(), entry.as_ref().map(Entry::as_ref)))
        .peekable();
    loop {
        let order = match (old.peek(), new.peek()) {
            (None, None) => break,
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (Some(a), Some(b)) => path_order(a.0, b.0),
        };
        if order.is_eq() {
            old.next();
        }
        out.extend(if order.is_lt() {
            old.next()
        } else {
            new.next()
        });
        if out.len() > limit {
            return None;
        }
    }
    Some(out)
}

/// Writes a whole base of `entries` and `head` at `path`, flushed, the delta removed first
/// (gc's rewrite: afterwards neither file names what the base does not).
pub(crate) fn save_base_durably<'a>(
    path: &Path,
    head: &Head,
    entries: (usize, impl Iterator<Item = EntryRef<'a>>),
) -> std::io::Result<()> {
    remove_present(&delta_path(path))?;
    file::write_base(path, head, entries.0, entries.1, true)
}

/// Removes the index at `path`, its delta first.
pub(crate) fn remove(path: &Path) -> std::io::Result<()> {
    remove_present(&delta_path(path))?;
    remove_present(path)
}

/// Removes the file at `path`; a file already gone is no error.
fn remove_present(path: &Path) -> std::io::Result<()> {
    match agent_guard_fsops::remove_file(path) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => Err(error),
        _ => Ok(()),
    }
}

/// What turns `old` into `new` (both in [`path_order`]): each path added, replaced or
/// removed; `None` past `limit` changes.
fn changes<'x, 'a: 'x, 'b: 'x>(
    old: impl Iterator<Item = EntryRef<'a>>,
    new: impl Iterator<Item = EntryRef<'b>>,
    limit: usize,
) -> Option<Vec<(&'x [u8], Option<EntryRef<'x>>)>> {
    let mut out = Vec::new();
    let mut old = old.peekable();
    let mut new = new.peekable();
    loop {
        let order = match (old.peek(), new.peek()) {
            (None, None) => return Some(out),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (Some(a), Some(b)) if a.path == b.path => std::cmp::Ordering::Equal,
            (Some(a), Some(b)) => path_order(a.path, b.path),
        };
        match order {
            std::cmp::Ordering::Less => out.extend(old.next().map(|a| (a.path, None))),
            std::cmp::Ordering::Greater => out.extend(new.next().map(|b| (b.path, Some(b)))),
            std::cmp::Ordering::Equal => {
                if let (Some(a), Some(b)) = (old.next(), new.next())
                    && a != b
                {
                    out.push((b.path, Some(b)));
                }
            }
        }
        if out.len() > limit {
            return None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &str, size: u64) -> Entry {
        Entry {
            path: path.as_bytes().to_vec(),
            stat: Stat {
                mode: 0o100_644,
                size,
                mtime: (5, 6),
                ctime: (7, 8),
                ino: 9,
                dev: 10,
                links: 1,
            },
            id: Some(Oid::hash_object(git2::ObjectType::Blob, path.as_bytes()).unwrap()),
        }
    }

    fn head(id: Oid) -> Head {
        Head {
            commit: Some(id),
            meta: b"meta".to_vec(),
            trees: vec![(Vec::new(), id)],
            watch: None,
        }
    }

    fn store(path: &Path, previous: &Index, head: &Head, entries: &[Entry]) {
        save(
            path,
            previous,
            head,
            (entries.len(), entries.iter().map(Entry::as_ref)),
            None,
        )
        .unwrap();
    }

    #[test]
    fn round_trips_and_rejects_damage() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index");
        let id = Oid::hash_object(git2::ObjectType::Blob, b"x").unwrap();
        let mut private = entry("a/b", 1);
        private.stat.mode = 0o100_600;
        let entries = vec![
            private,
            Entry {
                path: b"big".to_vec(),
                stat: Stat::default(),
                id: None,
            },
        ];
        store(&path, &Index::default(), &head(id), &entries);
        let loaded = Index::load(&path);
        assert_eq!(loaded.to_vec(), entries);
        assert_eq!(loaded.len(), 2);
        assert_eq!(loaded.head, head(id));
        assert!(loaded.written.is_some());
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[20] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(Index::load(&path).to_vec(), Vec::new());
        let missing = Index::load(&dir.path().join("missing"));
        assert_eq!((missing.len(), missing.head), (0, Head::default()));
    }

    #[test]
    fn an_index_of_another_version_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index");
        store(&path, &Index::default(), &Head::default(), &[entry("a", 1)]);
        assert_eq!(Index::load(&path).len(), 1);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[8..12].copy_from_slice(&2u32.to_le_bytes());
        let body = bytes.len() - 8;
        let sum = file::checksum(&bytes[..body]);
        bytes[body..].copy_from_slice(&sum.to_le_bytes());
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(Index::load(&path).len(), 0);
    }

    /// A few changes are a delta beside the unchanged base; many are a new base, and the
    /// delta is gone.
    #[test]
    fn few_changes_are_a_delta_and_many_a_new_base() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index");
        let delta = delta_path(&path);
        let first: Vec<Entry> = (0..1000).map(|i| entry(&format!("d/f{i:04}"), 1)).collect();
        let id = first[0].id.unwrap();
        store(&path, &Index::default(), &Head::default(), &first);
        let base = std::fs::read(&path).unwrap();

        // Ten replaced, one removed, one added (at the front, in the middle, at the end).
        let mut second = first.clone();
        for e in second.iter_mut().step_by(100) {
            e.stat.size = 2;
        }
        second.remove(500);
        second.insert(0, entry("a", 3));
        second.push(entry("e", 3));
        second.insert(300, entry("d/f0299/x", 3));
        store(&path, &Index::load(&path), &head(id), &second);
        assert_eq!(
            std::fs::read(&path).unwrap(),
            base,
            "the base is not rewritten"
        );
        assert!(delta.exists());
        assert!(std::fs::metadata(&delta).unwrap().len() < 2000);
        let loaded = Index::load(&path);
        assert_eq!(loaded.to_vec(), second);
        assert_eq!(loaded.len(), second.len());
        assert_eq!(loaded.head, head(id));

        // A delta is always against the base: undoing a change shrinks it.
        store(&path, &loaded, &head(id), &first);
        assert_eq!(Index::load(&path).to_vec(), first);
        assert_eq!(std::fs::read(&path).unwrap(), base);

        let third: Vec<Entry> = first
            .iter()
            .map(|e| Entry {
                stat: Stat { size: 4, ..e.stat },
                ..e.clone()
            })
            .collect();
        store(&path, &Index::load(&path), &Head::default(), &third);
        assert!(!delta.exists());
        assert_ne!(std::fs::read(&path).unwrap(), base);
        assert_eq!(Index::load(&path).to_vec(), third);
    }

    /// A torn or damaged delta, or one made for another base, is ignored: the base's older
    /// stat data remains, so the files the delta amended are only hashed again.
    #[test]
    fn a_damaged_or_foreign_delta_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index");
        let delta = delta_path(&path);
        let first: Vec<Entry> = (0..100).map(|i| entry(&format!("f{i:03}"), 1)).collect();
        store(&path, &Index::default(), &Head::default(), &first);
        let mut second = first.clone();
        second[7].stat.size = 2;
        store(&path, &Index::load(&path), &Head::default(), &second);
        assert_eq!(Index::load(&path).to_vec(), second);

        let good = std::fs::read(&delta).unwrap();
        let mut bad = good.clone();
        bad[30] ^= 1;
        std::fs::write(&delta, &bad).unwrap();
        assert_eq!(Index::load(&path).to_vec(), first);
        std::fs::write(&delta, &good[..good.len() - 3]).unwrap();
        assert_eq!(Index::load(&path).to_vec(), first);

        // Another base under the same delta.
        std::fs::write(&delta, &good).unwrap();
        let other: Vec<Entry> = (0..100).map(|i| entry(&format!("g{i:03}"), 1)).collect();
        store(&path, &Index::default(), &Head::default(), &other);
        std::fs::write(&delta, &good).unwrap();
        assert_eq!(Index::load(&path).to_vec(), other);
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
