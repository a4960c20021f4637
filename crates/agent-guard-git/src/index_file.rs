//! Git's index file (`.git/index`), read on `gix-index`, for the paths that look at every
//! entry's name in a large index: the `git clean` walk and the hard-reset preflight. (The
//! snapshot scan, which needs the stat data too, keeps libgit2's index.)
//!
//! `gix-index` reads versions 2 to 4 and dissolves a split index (`link`, with its
//! `sharedindex.*` file) into one list, which libgit2 cannot read at all; like git on an
//! ordinary read, the trailing checksum is not verified (the file is written by a lock and
//! a rename, so a reader never sees it torn). A sparse index is read as it is: one entry
//! (`dir/`) for a whole directory outside the sparse checkout ([`IndexFile::is_sparse`]).
//! The clean walk looks inside such a directory when it exists, as git does (it expands
//! the index then), and counts nothing there as tracked: where a file git would know from
//! the expanded tree is on disk, the guard lists more than git removes (kept, never lost);
//! the reset preflight does not judge a sparse index at all. What `gix-index` cannot decode is left to libgit2
//! ([`IndexFile::read`] returns `Ok(None)`, and [`IndexFile::load`] falls back; libgit2
//! then reports what is wrong). A missing index is an empty one, as for git. (Until issue
//! 36 this was a hand-written parser that refused split and sparse indexes, which libgit2
//! cannot read either.)

use std::cmp::Ordering;
use std::path::Path;

use gix_index::entry::Mode;

/// One index entry, as the lookups need it: twelve bytes where `gix_index::Entry` (with its
/// stat data and id) takes about ninety, so the binary searches of a walk over a
/// 100,000-entry index stay in the cache.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Entry {
    /// Where the path lies in [`IndexFile::paths`].
    start: u32,
    len: u32,
    /// The file mode's bits (`gix_index::entry::Mode`).
    mode: u32,
    /// The merge stage (0 when resolved).
    pub(crate) stage: u8,
}

impl Entry {
    /// The merge stage (0 when resolved).
    #[cfg(test)]
    pub(crate) fn stage(&self) -> u8 {
        self.stage
    }
}

/// The entries of an index file, in the file's order (sorted by path, then stage).
///
/// Lookups narrow a [`IndexSpan`] (a run of consecutive entries) directory by directory,
/// so a walk that descends the tree searches only the entries of the directory it is in.
#[derive(Debug, Default)]
pub struct IndexFile {
    paths: Vec<u8>,
    pub(crate) entries: Vec<Entry>,
    sparse: bool,
    /// The `TREE` extension (see `index_tree.rs`).
    pub(crate) cache_tree: Option<gix_index::extension::Tree>,
}

impl IndexFile {
    /// Reads the index at `path` (`<git dir>/index`); `Ok(None)` for what `gix-index`
    /// cannot decode. A missing file is an empty index.
    ///
    /// # Errors
    /// The file exists but cannot be inspected.
    pub fn read(path: &Path) -> std::io::Result<Option<IndexFile>> {
        match fs_err::metadata(path) {
            Ok(_) => {}
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Some(IndexFile::default()));
            }
            Err(error) => return Err(error),
        }
        let options = gix_index::decode::Options::default();
        let Ok(file) = gix_index::File::at(path, gix_hash::Kind::Sha1, true, options) else {
            return Ok(None);
        };
        let mut state = gix_index::State::from(file);
        let sparse = state.is_sparse();
        let cache_tree = state.remove_tree();
        let (entries, paths) = state.into_entries();
        let base = paths.as_ptr() as usize;
        let entries = entries
            .iter()
            .map(|e| {
                let path = e.path_in(&paths);
                Entry {
                    start: u32::try_from(path.as_ptr() as usize - base).unwrap_or(u32::MAX),
                    len: u32::try_from(path.len()).unwrap_or(0),
                    mode: e.mode.bits(),
                    stage: u8::try_from(e.stage_raw()).unwrap_or(0),
                }
            })
            .collect();
        Ok(Some(IndexFile {
            paths,
            entries,
            sparse,
            cache_tree,
        }))
    }

    /// Reads the index of `repo`: on `gix-index` when it can, else through libgit2 (which
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
                stage: u8::try_from(stage(&entry)).unwrap_or(0),
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
            .any(|e| e.mode == Mode::COMMIT.bits())
    }

    /// Returns `true` if an entry is at `path` or below it, comparing without case (ASCII,
    /// as git's `core.ignorecase` does): for a case-folding repository.
    pub fn folded_at_or_below(&self, path: &[u8]) -> bool {
        self.entries.iter().any(|e| {
            let entry = self.path(e);
            entry.len() >= path.len()
                && entry[..path.len()].eq_ignore_ascii_case(path)
                && matches!(entry.get(path.len()), None | Some(b'/'))
        })
    }

    /// Returns `true` if the index is sparse: some entries stand for whole directories.
    pub fn is_sparse(&self) -> bool {
        self.sparse
    }

    /// Returns `true` if some entry is a submodule (a gitlink).
    pub fn has_gitlink(&self) -> bool {
        self.entries.iter().any(|e| e.mode == Mode::COMMIT.bits())
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
    pub(crate) start: usize,
    pub(crate) end: usize,
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

/// The merge stage of a libgit2 entry (0 when resolved).
fn stage(entry: &git2::IndexEntry) -> u16 {
    (entry.flags >> 12) & 3
}

#[cfg(test)]
#[path = "index_file_tests.rs"]
mod tests;
