//! A read-only parser of git's index file (`.git/index`, versions 2, 3 and 4), for the
//! paths that look at every entry's name in a large index: the `git clean` walk and the
//! hard-reset preflight. (The snapshot scan, which needs the stat data too, keeps libgit2's
//! index.)
//!
//! libgit2 hashes the whole file on every load (the trailing checksum), allocates each
//! entry and builds a path map; `git2::Index::iter` then copies every entry again. On a
//! 100,000-entry index that is most of the cost of a `git clean -n`. Git itself does not
//! verify the checksum on ordinary reads (only `fsck` does), and neither does this parser:
//! the file is written by a lock and a rename, so a reader never sees it torn.
//!
//! What it refuses ([`IndexFile::read`] returns `Ok(None)`, and the caller falls back to
//! libgit2): a split index (`link`), a sparse index (`sdir`), any other extension git would
//! refuse to ignore, an unknown version, and anything malformed. A missing index is an
//! empty one, as for git.

use std::cmp::Ordering;
use std::path::Path;

use parse::{Stop, parse};

mod parse;

/// The size of an object id in a SHA-1 repository.
const OID_SIZE: usize = 20;
/// The fixed part of an entry: ten 32-bit stat and mode fields, the id and the flags.
const ENTRY_FIXED: usize = 40 + OID_SIZE + 2;
/// The mode of a gitlink (a submodule commit).
const MODE_GITLINK: u32 = 0o160_000;
/// The flag of an entry that has a second flags word (version 3 and later).
const FLAG_EXTENDED: u16 = 0x4000;
/// The stage bits of the flags.
const FLAG_STAGE: u16 = 0x3000;
/// The name-length bits of the flags.
const FLAG_NAME: u16 = 0x0fff;

/// One index entry.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Entry {
    /// Where the path lies in [`IndexFile::paths`].
    start: u32,
    len: u32,
    /// The file mode (`0o100644`, `0o100755`, `0o120000`, `0o160000`).
    pub(crate) mode: u32,
    /// The merge stage (0 when resolved).
    pub(crate) stage: u8,
}

/// The entries of an index file, in the file's order (sorted by path, then stage).
///
/// Lookups narrow a [`IndexSpan`] (a run of consecutive entries) directory by directory,
/// so a walk that descends the tree searches only the entries of the directory it is in.
#[derive(Debug, Default)]
pub struct IndexFile {
    paths: Vec<u8>,
    entries: Vec<Entry>,
}

impl IndexFile {
    /// Reads the index at `path` (`<git dir>/index`); `Ok(None)` for a format this parser
    /// leaves to libgit2 (split or sparse index, unknown extensions or versions, anything
    /// malformed). A missing file is an empty index.
    ///
    /// # Errors
    /// The file exists but cannot be read.
    pub fn read(path: &Path) -> std::io::Result<Option<IndexFile>> {
        let file = match fs_err::File::open(path) {
            Ok(file) => file,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Some(IndexFile::default()));
            }
            Err(error) => return Err(error),
        };
        let total = usize::try_from(file.metadata()?.len()).unwrap_or(usize::MAX);
        match parse(file, total) {
            Ok(index) => Ok(Some(index)),
            Err(Stop::Unsupported) => Ok(None),
            Err(Stop::Io(error)) => Err(error),
        }
    }

    /// Reads the index of `repo`: with this parser when it can, else through libgit2 (which
    /// then also reports what is wrong with the file).
    ///
    /// # Errors
    /// The index cannot be read or parsed.
    pub fn load(repo: &git2::Repository) -> Result<IndexFile, git2::Error> {
        if let Ok(Some(index)) = IndexFile::read(&repo.path().join("index")) {
            return Ok(index);
        }
        let mut index = repo.index()?;
        index.read(false)?;
        Ok(IndexFile::from_libgit2(&index))
    }

    /// Copies libgit2's entries, sorted by path bytes (libgit2 sorts case-insensitively when
    /// the repository ignores case).
    fn from_libgit2(index: &git2::Index) -> IndexFile {
        let mut file = IndexFile::default();
        for entry in index.iter() {
            let start = file.paths.len();
            file.paths.extend_from_slice(&entry.path);
            file.entries.push(Entry {
                start: u32::try_from(start).unwrap_or(u32::MAX),
                len: u32::try_from(entry.path.len()).unwrap_or(0),
                mode: entry.mode,
                stage: u8::try_from((entry.flags & FLAG_STAGE) >> 12).unwrap_or(0),
            });
        }
        let paths = std::mem::take(&mut file.paths);
        let path = |e: &Entry| &paths[e.start as usize..(e.start + e.len) as usize];
        file.entries
            .sort_by(|a, b| path(a).cmp(path(b)).then(a.stage.cmp(&b.stage)));
        file.paths = paths;
        file
    }

    /// The span of every entry.
    pub fn all(&self) -> IndexSpan {
        IndexSpan {
            start: 0,
            end: self.entries.len(),
        }
    }

    /// The entries inside `within` whose path lies below the directory `dir` (no trailing
    /// `/`; empty for the root).
    pub fn below(&self, within: IndexSpan, dir: &[u8]) -> IndexSpan {
        if dir.is_empty() {
            return within;
        }
        let entries = &self.entries[within.start..within.end];
        let mut key = Vec::with_capacity(dir.len() + 1);
        key.extend_from_slice(dir);
        key.push(b'/');
        let start = entries.partition_point(|e| self.path(e) < key.as_slice());
        let end = start + entries[start..].partition_point(|e| self.path(e).starts_with(&key));
        IndexSpan {
            start: within.start + start,
            end: within.start + end,
        }
    }

    /// Returns `true` if an entry inside `within` (any stage) has exactly the path `path`.
    pub fn contains(&self, within: IndexSpan, path: &[u8]) -> bool {
        let entries = &self.entries[within.start..within.end];
        let at = entries.partition_point(|e| self.path(e) < path);
        entries.get(at).is_some_and(|e| self.path(e) == path)
    }

    /// Like [`IndexFile::contains`], when every entry inside `within` and `path` share their
    /// first `shared` bytes (the span of a directory whose path with its `/` is that long):
    /// only the names inside the directory are compared. The walks look up every name they
    /// read this way, so this is the innermost loop of a `git clean` over a large tree.
    pub(crate) fn contains_in(&self, within: IndexSpan, shared: usize, path: &[u8]) -> bool {
        let entries = &self.entries[within.start..within.end];
        let name = &path[shared.min(path.len())..];
        let rest = |e: &Entry| self.path(e).get(shared..).unwrap_or_default();
        let at = entries.partition_point(|e| compare(rest(e), name) == Ordering::Less);
        entries.get(at).is_some_and(|e| rest(e) == name)
    }

    /// A cursor over `within`, for lookups in increasing path order.
    pub fn cursor(&self, within: IndexSpan) -> IndexCursor {
        IndexCursor {
            at: within.start,
            end: within.end,
        }
    }

    /// Like [`IndexFile::contains`], for paths given in increasing order (as a tree lists
    /// its entries, which is the index's order): the common case, the very next entry,
    /// costs one comparison.
    pub fn seek(&self, cursor: &mut IndexCursor, path: &[u8]) -> bool {
        let entries = &self.entries[cursor.at..cursor.end];
        let skip = match entries.first() {
            Some(first) if self.path(first) >= path => 0,
            _ => entries.partition_point(|e| self.path(e) < path),
        };
        cursor.at += skip;
        let mut found = false;
        while cursor.at < cursor.end && self.path(&self.entries[cursor.at]) == path {
            cursor.at += 1;
            found = true;
        }
        found
    }

    /// Like [`IndexFile::below`], for directories given in increasing order; the cursor
    /// moves past the directory's entries.
    pub fn seek_below(&self, cursor: &mut IndexCursor, dir: &[u8]) -> IndexSpan {
        let span = self.below(
            IndexSpan {
                start: cursor.at,
                end: cursor.end,
            },
            dir,
        );
        if !span.is_empty() {
            cursor.at = span.end;
        }
        span
    }

    /// Returns `true` if an entry inside `within` with exactly the path `path` is a
    /// submodule (a gitlink).
    pub(crate) fn is_gitlink(&self, within: IndexSpan, path: &[u8]) -> bool {
        let entries = &self.entries[within.start..within.end];
        let at = entries.partition_point(|e| self.path(e) < path);
        entries[at..]
            .iter()
            .take_while(|e| self.path(e) == path)
            .any(|e| e.mode == MODE_GITLINK)
    }

    /// Returns `true` if some entry is a submodule (a gitlink).
    pub fn has_gitlink(&self) -> bool {
        self.entries.iter().any(|e| e.mode == MODE_GITLINK)
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Returns `true` if the index has no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Every entry, in order.
    #[cfg(test)]
    pub(crate) fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The path of `entry` (repository-relative, `/`-separated).
    pub(crate) fn path(&self, entry: &Entry) -> &[u8] {
        &self.paths[entry.start as usize..(entry.start + entry.len) as usize]
    }
}

/// Byte-wise order, as a loop: the names compared are short and differ early, where a call
/// into `memcmp` costs more than the comparison.
fn compare(a: &[u8], b: &[u8]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        if x != y {
            return x.cmp(y);
        }
    }
    a.len().cmp(&b.len())
}

/// A run of consecutive index entries (see [`IndexFile::below`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexSpan {
    start: usize,
    end: usize,
}

impl IndexSpan {
    /// A span of no entry.
    pub const EMPTY: IndexSpan = IndexSpan { start: 0, end: 0 };

    /// Returns `true` if the span holds no entry.
    pub fn is_empty(self) -> bool {
        self.start == self.end
    }
}

/// A forward-only position in an [`IndexSpan`] (see [`IndexFile::seek`]).
#[derive(Debug, Clone, Copy)]
pub struct IndexCursor {
    at: usize,
    end: usize,
}

#[cfg(test)]
mod tests {
    use super::parse::BUFFER;
    use super::*;

    /// An index with awkward names, a conflict stage and a gitlink, written by libgit2 at
    /// `version`.
    fn written(version: u32) -> (tempfile::TempDir, git2::Repository) {
        let dir = tempfile::tempdir().expect("temporary directory");
        let repo = git2::Repository::init(dir.path()).expect("init");
        let blob = repo.blob(b"content").expect("blob");
        let mut index = repo.index().expect("index");
        let names: [&[u8]; 7] = [
            b"a-b",
            b"a/x",
            b"a/y/z",
            b"b",
            "中文/笔记.txt".as_bytes(),
            b"with space/and\nnewline",
            b"zz/a-very-long-directory-name-that-shares-its-prefix/file",
        ];
        for (n, name) in names.iter().enumerate() {
            index
                .add(&git2::IndexEntry {
                    ctime: git2::IndexTime::new(0, 0),
                    mtime: git2::IndexTime::new(0, 0),
                    dev: 0,
                    ino: 0,
                    mode: if n == 6 { MODE_GITLINK } else { 0o100_644 },
                    uid: 0,
                    gid: 0,
                    file_size: 7,
                    id: blob,
                    flags: if n == 3 { 2 << 12 } else { 0 },
                    flags_extended: 0,
                    path: name.to_vec(),
                })
                .expect("add");
        }
        index.set_version(version).expect("version");
        index.write().expect("write");
        drop(index);
        (dir, repo)
    }

    fn paths(index: &IndexFile) -> Vec<Vec<u8>> {
        index
            .entries()
            .iter()
            .map(|e| index.path(e).to_vec())
            .collect()
    }

    #[test]
    fn every_version_reads_like_libgit2() {
        for version in [2, 3, 4] {
            let (_dir, repo) = written(version);
            let ours = IndexFile::read(&repo.path().join("index"))
                .expect("readable")
                .expect("a format this parser reads");
            let mut theirs = repo.index().expect("index");
            theirs.read(true).expect("read");
            let expected: Vec<Vec<u8>> = theirs.iter().map(|e| e.path).collect();
            assert_eq!(paths(&ours), expected, "version {version}");
            assert_eq!(paths(&IndexFile::from_libgit2(&theirs)), expected);
            assert!(ours.has_gitlink());
            assert_eq!(ours.entries()[3].stage, 2, "version {version}");
        }
    }

    #[test]
    fn spans_and_cursors_find_directories_and_names() {
        let (_dir, repo) = written(4);
        let index = IndexFile::load(&repo).expect("load");
        let a = index.below(index.all(), b"a");
        assert_eq!(a.end - a.start, 2);
        assert!(index.contains(a, b"a/y/z"));
        assert!(!index.contains(a, b"a-b"));
        let y = index.below(a, b"a/y");
        assert_eq!(y.end - y.start, 1);
        assert!(index.below(index.all(), b"nothing").is_empty());
        let mut cursor = index.cursor(index.all());
        assert!(index.seek(&mut cursor, b"a-b"));
        assert!(!index.seek_below(&mut cursor, b"a").is_empty());
        assert!(index.seek(&mut cursor, b"b"));
        assert!(!index.seek(&mut cursor, b"c"));
        assert!(index.contains(index.all(), b"with space/and\nnewline"));
        let zz = index.below(index.all(), b"zz");
        assert!(index.is_gitlink(
            zz,
            b"zz/a-very-long-directory-name-that-shares-its-prefix/file"
        ));
        assert!(!index.is_gitlink(index.all(), b"b"));
        assert!(index.contains_in(a, 2, b"a/x"));
        assert!(!index.contains_in(a, 2, b"a/y"));
        assert!(index.contains_in(index.all(), 0, b"a-b"));
        assert!(!index.contains_in(index.all(), 0, b"a"));
        assert_eq!(compare(b"ab", b"abc"), Ordering::Less);
        assert_eq!(compare(b"b", b"abc"), Ordering::Greater);
        assert_eq!(compare(b"", b""), Ordering::Equal);
    }

    #[test]
    fn a_large_index_reads_across_buffers() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let repo = git2::Repository::init(dir.path()).expect("init");
        let blob = repo.blob(b"content").expect("blob");
        let mut index = repo.index().expect("index");
        for n in 0..6_000 {
            let name = format!("dir{:02}/{}/file-{n:05}.txt", n % 37, "x".repeat(n % 90));
            index
                .add_frombuffer(
                    &git2::IndexEntry {
                        ctime: git2::IndexTime::new(0, 0),
                        mtime: git2::IndexTime::new(0, 0),
                        dev: 0,
                        ino: 0,
                        mode: 0o100_644,
                        uid: 0,
                        gid: 0,
                        file_size: 7,
                        id: blob,
                        flags: 0,
                        flags_extended: 0,
                        path: name.into_bytes(),
                    },
                    b"content",
                )
                .expect("add");
        }
        for version in [2, 4] {
            index.set_version(version).expect("version");
            index.write().expect("write");
            let path = repo.path().join("index");
            assert!(fs_err::metadata(&path).expect("index").len() > 2 * BUFFER as u64 / 4);
            let ours = IndexFile::read(&path).expect("readable").expect("parsed");
            let expected: Vec<Vec<u8>> = index.iter().map(|e| e.path).collect();
            assert_eq!(paths(&ours), expected, "version {version}");
        }
    }

    #[test]
    fn a_missing_index_is_empty_and_other_formats_are_left_to_libgit2() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let missing = IndexFile::read(&dir.path().join("index")).expect("readable");
        assert!(missing.is_some_and(|index| index.is_empty()));
        for garbage in [
            &b"DIRC"[..],
            b"DIRC\0\0\0\x05\0\0\0\0",
            b"not an index at all",
        ] {
            let path = dir.path().join("garbage");
            fs_err::write(&path, garbage).expect("write");
            assert!(IndexFile::read(&path).expect("readable").is_none());
        }
        // A split index (a lower-case `link` extension) is left to libgit2 too.
        let (_repo_dir, repo) = written(2);
        let mut data = fs_err::read(repo.path().join("index")).expect("read");
        let checksum = data.split_off(data.len() - OID_SIZE);
        data.extend_from_slice(b"link");
        data.extend_from_slice(&u32::try_from(OID_SIZE).expect("small").to_be_bytes());
        data.extend_from_slice(&[0; OID_SIZE]);
        data.extend_from_slice(&checksum);
        let path = dir.path().join("split");
        fs_err::write(&path, &data).expect("write");
        assert!(IndexFile::read(&path).expect("readable").is_none());
    }
}
