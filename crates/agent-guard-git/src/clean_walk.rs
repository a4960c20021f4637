//! The directory walk of `git clean`: a port of git's `fill_directory` (`dir.c`) for the
//! flag combinations `git clean` uses, so that its quirks are reproduced too (a pathspec is
//! tested character-wise before it is tested per component; an ignored directory skips the
//! pathspec test under `-X`; a directory holding an ignored path is not removed as a whole).
//!
//! Result lists hold repository-relative paths; directories end with `/`.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};

use crate::WorkTree;
use crate::error::GitError;
use crate::ignore::Excludes;
use crate::index_file::{IndexFile, IndexSpan};
use crate::pathspec::{IgnoreMode, Match, Pathspec};
use crate::repo_dir::is_nonbare_repository_dir;

/// Git's `path_treatment`, ordered: a directory's state is the greatest of its children's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Treatment {
    None,
    Recurse,
    Excluded,
    Untracked,
}

/// The `dir_struct` flags `git clean` sets (besides `SHOW_OTHER_DIRECTORIES` and
/// `SKIP_NESTED_GIT`, which it always sets, and `HIDE_EMPTY_DIRECTORIES`, which it never
/// does).
#[derive(Debug, Clone, Copy)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "git's independent dir_struct flags"
)]
struct Flags {
    /// Ignore rules are consulted (not `-x`).
    excludes: bool,
    /// `DIR_SHOW_IGNORED`: only ignored paths are results (`-X`).
    show_ignored: bool,
    /// `DIR_SHOW_IGNORED_TOO` (with `KEEP_UNTRACKED_CONTENTS`): directories are removed, so
    /// ignored paths inside untracked directories must be known.
    show_ignored_too: bool,
    /// `DIR_SHOW_IGNORED_TOO_MODE_MATCHING`: ignored directories are not entered.
    mode_matching: bool,
}

/// The paths the index knows: lookups in the sorted [`IndexFile`], narrowed to the entries
/// of the directory being read, so no set of 100,000 names is built and a lookup compares
/// a handful of names of that directory.
#[derive(Debug)]
pub(crate) struct Tracked<'i> {
    index: &'i IndexFile,
}

impl<'i> Tracked<'i> {
    /// The paths of `index`.
    pub(crate) fn new(index: &'i IndexFile) -> Tracked<'i> {
        Tracked { index }
    }

    /// Git's `index_name_is_other`: the name (a trailing `/` ignored) is not an entry.
    pub(crate) fn is_other(&self, name: &[u8]) -> bool {
        let name = name.strip_suffix(b"/").unwrap_or(name);
        !self.index.contains(self.index.all(), name)
    }

    /// The entries below the directory `dir` (with or without its trailing `/`), within
    /// `within` (the entries of one of its ancestors).
    fn below(&self, within: IndexSpan, dir: &[u8]) -> IndexSpan {
        self.index
            .below(within, dir.strip_suffix(b"/").unwrap_or(dir))
    }

    /// Git's `directory_exists_in_index` for a directory the index has nothing below: the
    /// name is a submodule entry.
    fn is_gitlink(&self, within: IndexSpan, name: &[u8]) -> bool {
        self.index.is_gitlink(within, name)
    }
}

/// One walk of the work tree.
pub(crate) struct Walk<'a> {
    /// The work tree's root.
    root: &'a Path,
    index: &'a IndexFile,
    tracked: &'a Tracked<'a>,
    pathspec: &'a Pathspec,
    flags: Flags,
    excludes: Excludes,
    own_git_dir: Option<PathBuf>,
    entries: Vec<Vec<u8>>,
    ignored: Vec<Vec<u8>>,
    /// When set, tracked directories met by [`Walk::read_directory`] are collected here
    /// instead of read (see `threads.rs`).
    deferred: Option<Vec<Deferred>>,
}

/// A tracked directory still to read: its path (ending with `/`), whether it is excluded,
/// and its index entries.
type Deferred = (Vec<u8>, bool, IndexSpan);

mod threads;

impl std::fmt::Debug for Walk<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Walk")
            .field("entries", &self.entries.len())
            .finish_non_exhaustive()
    }
}

impl<'a> Walk<'a> {
    /// Prepares a walk for `mode`; `directories` is `-d` or an explicit pathspec.
    pub(crate) fn new(
        tree: &'a WorkTree,
        tracked: &'a Tracked<'a>,
        pathspec: &'a Pathspec,
        mode: IgnoreMode,
        directories: bool,
    ) -> Walk<'a> {
        let show_ignored_too = directories && mode != IgnoreMode::Only;
        let flags = Flags {
            excludes: mode != IgnoreMode::All,
            show_ignored: mode == IgnoreMode::Only,
            show_ignored_too,
            mode_matching: show_ignored_too && mode == IgnoreMode::Standard,
        };
        let own_git_dir = fs_err::canonicalize(tree.repo.path()).ok();
        let excludes = Excludes::load(tree);
        Walk {
            root: &tree.root,
            index: tracked.index,
            tracked,
            pathspec,
            flags,
            excludes,
            own_git_dir,
            entries: Vec::new(),
            ignored: Vec::new(),
            deferred: None,
        }
    }

    /// Walks the whole work tree and returns git's result list after
    /// `correct_untracked_entries`: sorted, no entry inside another, no directory that holds
    /// an ignored path.
    pub(crate) fn run(mut self) -> Result<Vec<Vec<u8>>, GitError> {
        let prefix = self.pathspec.common_prefix().to_vec();
        if !self.has_symlink_leading_path(&prefix)
            && let Some((excluded, span)) = self.treat_leading_path(&prefix)?
        {
            self.read_tracked(prefix, excluded, span)?;
        }
        self.entries.sort();
        self.ignored.sort();
        Ok(correct_untracked_entries(&self.entries, &self.ignored))
    }

    /// Git's `has_symlink_leading_path`: a component of the walk's start is a symlink.
    fn has_symlink_leading_path(&self, prefix: &[u8]) -> bool {
        let mut end = 0;
        while let Some(slash) = prefix[end..].iter().position(|b| *b == b'/') {
            end += slash + 1;
            if fs_err::symlink_metadata(self.path_of(&prefix[..end - 1]))
                .is_ok_and(|m| m.file_type().is_symlink())
            {
                return true;
            }
        }
        false
    }

    /// Git's `treat_leading_path`: each component of the walk's start must be a directory
    /// the walk would enter; a component that is a result in itself is recorded. Returns
    /// whether the start is ignored and the index entries below it, or `None` if the walk
    /// stops here.
    fn treat_leading_path(&mut self, prefix: &[u8]) -> Result<Option<(bool, IndexSpan)>, GitError> {
        let prefix = prefix.strip_suffix(b"/").unwrap_or(prefix);
        let mut span = self.index.all();
        if prefix.is_empty() {
            return Ok(Some((false, span)));
        }
        let mut excluded = false;
        let mut start = 0;
        loop {
            let end = prefix[start..]
                .iter()
                .position(|b| *b == b'/')
                .map_or(prefix.len(), |i| start + i);
            if !self.path_of(&prefix[..end]).is_dir() {
                return Ok(None);
            }
            let mut path = prefix[..end].to_vec();
            let (treatment, component_excluded, below) = self.treat_path(
                &mut path,
                &prefix[start..end],
                Kind::Directory,
                excluded,
                span,
            )?;
            if treatment != Treatment::Recurse {
                self.add_result(treatment, &path);
                return Ok(None);
            }
            excluded = component_excluded;
            span = below;
            if end >= prefix.len() {
                return Ok(Some((excluded, span)));
            }
            start = end + 1;
        }
    }

    /// Git's `read_directory_recursive` over `base` (empty or ending with `/`), whose index
    /// entries are `span`.
    fn read_directory(
        &mut self,
        base: &[u8],
        base_excluded: bool,
        span: IndexSpan,
    ) -> Result<Treatment, GitError> {
        let Ok(listing) = fs_err::read_dir(self.path_of(base)) else {
            return Ok(Treatment::None);
        };
        let mut children = Vec::new();
        for entry in listing {
            let Ok(entry) = entry else { break };
            let kind = match entry.file_type() {
                Ok(kind) if kind.is_dir() => Kind::Directory,
                Ok(kind) if kind.is_file() || kind.is_symlink() => Kind::File,
                Ok(_) => Kind::Other,
                Err(_) => continue,
            };
            children.push((entry.file_name(), kind));
        }
        let mut state = Treatment::None;
        // One buffer for every child's path: a directory of 100,000 files costs no
        // allocation per file (results are copied out, and they are few).
        let mut path = Vec::with_capacity(base.len() + 64);
        for (name, kind) in children {
            path.clear();
            path.extend_from_slice(base);
            path.extend_from_slice(name.as_bytes());
            let (treatment, excluded, below) =
                self.treat_path(&mut path, name.as_bytes(), kind, base_excluded, span)?;
            state = state.max(treatment);
            if treatment == Treatment::Recurse {
                // A tracked directory's state is never read (only an untracked
                // directory's is, and none lies above a tracked one): it may be read
                // later, on another thread.
                match self.deferred.as_mut() {
                    Some(deferred) if !below.is_empty() => {
                        deferred.push((path.clone(), excluded, below));
                    }
                    _ => state = state.max(self.read_directory(&path, excluded, below)?),
                }
            }
            self.add_result(treatment, &path);
        }
        Ok(state)
    }

    /// Git's `treat_path` for `path`, a child of the directory whose index entries are
    /// `span`. Appends `/` to `path` for directories. Returns the treatment, whether the
    /// path is ignored, and the index entries below it (empty unless a directory).
    fn treat_path(
        &mut self,
        path: &mut Vec<u8>,
        name: &[u8],
        kind: Kind,
        parent_excluded: bool,
        span: IndexSpan,
    ) -> Result<(Treatment, bool, IndexSpan), GitError> {
        let nothing = IndexSpan::EMPTY;
        if name == b".git" || self.pathspec.simplify_away(path) {
            return Ok((Treatment::None, false, nothing));
        }
        if kind != Kind::Directory && self.index.contains_in(span, path.len() - name.len(), path) {
            return Ok((Treatment::None, false, nothing));
        }
        let excluded = self.flags.excludes
            && (parent_excluded || self.excludes.is_excluded(path, kind == Kind::Directory));
        if excluded && !(self.flags.show_ignored || self.flags.show_ignored_too) {
            return Ok((Treatment::Excluded, true, nothing));
        }
        let mut below = nothing;
        let treatment = match kind {
            Kind::Other => Treatment::None,
            Kind::Directory => {
                below = self.tracked.below(span, path);
                path.push(b'/');
                self.treat_directory(path, excluded, span, below)?
            }
            Kind::File if self.pathspec.matches(path, false) == Match::None => Treatment::None,
            Kind::File if excluded => Treatment::Excluded,
            Kind::File => Treatment::Untracked,
        };
        Ok((treatment, excluded, below))
    }

    /// Git's `treat_directory` for `dirname` (ending with `/`), a child of the directory
    /// whose index entries are `span`; `below` are its own.
    fn treat_directory(
        &mut self,
        dirname: &[u8],
        excluded: bool,
        span: IndexSpan,
        below: IndexSpan,
    ) -> Result<Treatment, GitError> {
        let bare = &dirname[..dirname.len() - 1];
        if !below.is_empty() {
            return Ok(Treatment::Recurse);
        }
        if self.tracked.is_gitlink(span, bare) {
            return Ok(Treatment::None);
        }
        let mut matched = Match::None;
        if !excluded {
            matched = self.pathspec.matches(dirname, true);
            if matched == Match::None {
                return Ok(Treatment::None);
            }
        }
        if self.is_nested_repository(dirname) {
            return Ok(Treatment::None);
        }
        if matched == Match::Leading {
            return Ok(Treatment::Recurse);
        }
        if excluded {
            return Ok(Treatment::Excluded);
        }
        if !(self.flags.show_ignored || self.flags.show_ignored_too) {
            return Ok(Treatment::Untracked);
        }
        let ignored_before = self.ignored.len();
        // Nothing below an untracked directory is in the index.
        let mut state = self.read_directory(dirname, false, below)?;
        if state == Treatment::Excluded {
            if self.flags.show_ignored_too && self.flags.mode_matching {
                state = Treatment::None;
            } else {
                self.ignored.truncate(ignored_before);
            }
        }
        Ok(if state == Treatment::None {
            Treatment::Untracked
        } else {
            state
        })
    }

    /// Git's `add_path_to_appropriate_result_list`.
    fn add_result(&mut self, treatment: Treatment, path: &[u8]) {
        match treatment {
            Treatment::Excluded if self.flags.show_ignored => self.add_entry(path),
            Treatment::Excluded if self.flags.show_ignored_too && self.tracked.is_other(path) => {
                self.ignored.push(path.to_vec());
            }
            Treatment::Untracked if !self.flags.show_ignored => self.add_entry(path),
            _ => {}
        }
    }

    fn add_entry(&mut self, path: &[u8]) {
        if !self.index.contains(self.index.all(), path) {
            self.entries.push(path.to_vec());
        }
    }

    /// The absolute path of a repository-relative path.
    fn path_of(&self, relative: &[u8]) -> PathBuf {
        self.root.join(OsStr::from_bytes(relative))
    }

    /// A directory with its own repository (not the one being cleaned).
    fn is_nested_repository(&self, dirname: &[u8]) -> bool {
        let directory = self.path_of(dirname);
        if !is_nonbare_repository_dir(&directory) {
            return false;
        }
        match (
            fs_err::canonicalize(directory.join(".git")),
            &self.own_git_dir,
        ) {
            (Ok(nested), Some(own)) => nested != *own,
            _ => true,
        }
    }
}

/// A directory entry's type, as `readdir` reports it (symlinks are not followed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Directory,
    File,
    Other,
}

/// Git's `correct_untracked_entries` over sorted lists: drops an entry that contains an
/// ignored path, and entries inside a kept entry.
fn correct_untracked_entries(entries: &[Vec<u8>], ignored: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut kept: Vec<Vec<u8>> = Vec::new();
    let mut ignored_at = 0;
    let mut at = 0;
    while at < entries.len() {
        let entry = &entries[at];
        while ignored_at < ignored.len() && entry.as_slice() >= ignored[ignored_at].as_slice() {
            ignored_at += 1;
        }
        at += 1;
        if ignored_at < ignored.len() && contains(entry, &ignored[ignored_at]) {
            continue;
        }
        while at < entries.len() && contains(entry, &entries[at]) {
            at += 1;
        }
        kept.push(entry.clone());
    }
    kept
}

/// Git's `check_dir_entry_contains`.
fn contains(outer: &[u8], inner: &[u8]) -> bool {
    outer.len() < inner.len() && outer.last() == Some(&b'/') && inner.starts_with(outer)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(items: &[&str]) -> Vec<Vec<u8>> {
        items.iter().map(|i| i.as_bytes().to_vec()).collect()
    }

    #[test]
    fn directories_holding_ignored_paths_are_dropped() {
        let entries = list(&[
            "a.txt",
            "mix/",
            "mix/a.txt",
            "mix/sub/",
            "mix/sub/x",
            "u/",
            "u/f",
        ]);
        let ignored = list(&["mix/b.log", "top.log"]);
        assert_eq!(
            correct_untracked_entries(&entries, &ignored),
            list(&["a.txt", "mix/a.txt", "mix/sub/", "u/"])
        );
    }
}
