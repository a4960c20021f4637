//! The facts trait through which the policy reads the world.

use std::path::{Path, PathBuf};

use crate::{PathSpec, Target, TreeSource};

/// The result of the read-only `git reset --hard` preflight.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResetPreflight {
    /// The reset only touches content a tracked-changes snapshot preserves.
    Safe,
    /// Untracked or ignored content (or the quarantine) collides with the target tree.
    Collision(Vec<String>),
    /// The effect cannot be determined (not a repository, bad revision, submodules, …).
    Undeterminable(String),
}

/// Which entries below a directory a delete confined to it removes, for
/// [`World::checkpoint_reach`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach<'a> {
    /// Its direct children whose names match a shell pattern (`rm -rf build/*`): with
    /// `dot_rule`, a leading `.` must be matched literally (POSIX shells); with `recursive`,
    /// a matched directory goes with everything below it.
    Children {
        /// The pattern of the last component.
        pattern: &'a str,
        /// A leading dot is only matched by a literal dot.
        dot_rule: bool,
        /// Matched directories are removed whole.
        recursive: bool,
    },
    /// Entries at any depth whose names match every pattern (`find -name`); with
    /// `whole_matches`, a matched directory goes with everything below it.
    Names {
        /// The name patterns (every one must match).
        patterns: &'a [String],
        /// Match ignoring case.
        ignore_case: bool,
        /// Matched directories are removed whole.
        whole_matches: bool,
        /// Matches lie at most this many levels below the directory (`-maxdepth`).
        max_depth: Option<u32>,
        /// Only entries that are not directories match (`-type f`).
        files_only: bool,
    },
    /// Anything below it.
    Everything,
}

/// Read-only facts about the workspace, answered by the world crate (or a fake in tests).
///
/// The policy stays pure: it performs no I/O itself and asks this trait instead, lazily, so
/// that a git repository is opened only when a rule needs it.
pub trait World {
    /// Returns the physical workspace root.
    fn workspace(&self) -> &Path;

    /// Returns the quarantine root as configured (it need not exist yet).
    fn trash(&self) -> &Path;

    /// Resolves one target against `base` and returns its facts: one `lstat` and one
    /// `realpath` of the parent, at most.
    fn path(&self, target: &Target, base: &Path) -> PathSpec;

    /// Returns `true` if every one of `paths` (physical, non-empty) is a regenerable
    /// artifact: a component of it matches an artifact pattern (`node_modules`, `*.pyc`…),
    /// git ignores it, and nothing at or below it is tracked. The names are matched first,
    /// so git is asked only when every path looks like an artifact. Any failure (no
    /// repository, git error) is `false`, which can only make the verdict stricter.
    fn regenerable(&self, paths: &[&Path]) -> bool;

    /// Checks whether `git reset --hard <target>` run from `cwd` would destroy content a
    /// snapshot of tracked changes cannot preserve.
    fn reset_preflight(&self, cwd: &Path, target: Option<&str>) -> ResetPreflight;

    /// Returns `true` if a delete confined to directory `dir` (physical, inside the
    /// workspace), removing what `reach` says, could remove something no checkpoint keeps:
    /// the workspace's `.git` or the quarantine. The default (a world that cannot look)
    /// says it could, which keeps such deletes refused.
    fn checkpoint_reach(&self, dir: &Path, reach: Reach<'_>) -> bool {
        let _ = (dir, reach);
        true
    }

    /// Returns `true` if a rewrite confined to directory `dir` (physical, inside the
    /// workspace), writing what `reach` says, could write through a link: a symbolic link
    /// among what it can match (or below it), or a file with another name elsewhere (a hard
    /// link). A checkpoint keeps the workspace's names, not what they lead to. The default
    /// says it could.
    fn write_reaches_link(&self, dir: &Path, reach: Reach<'_>) -> bool {
        let _ = (dir, reach);
        true
    }

    /// Returns `true` if the name of `dir` (physical) or of anything below it holds a byte
    /// that `xargs` without `-0` splits on or unquotes (a blank, a newline, a quote, a
    /// backslash), or the tree is too big to tell: a `find | xargs` word could then be
    /// something other than a match (`a /etc` gives `/etc`). The default says it could.
    fn names_split(&self, dir: &Path) -> bool {
        let _ = dir;
        true
    }

    /// Returns `true` if a name that `reach` allows, written right in directory `dir`
    /// (physical, inside the workspace), could be `.git`, the quarantine or a guard file
    /// there, whether or not it exists yet (a copy into `dir` creates it). The default says
    /// it could.
    fn creates_guarded(&self, dir: &Path, reach: Reach<'_>) -> bool {
        let _ = (dir, reach);
        true
    }

    /// The first regular file larger than `cap` bytes that a delete or rewrite confined to
    /// directory `dir` (physical, inside the workspace), acting on what `reach` says, could
    /// remove or rewrite: a checkpoint lists such a file as not kept, so the op cannot be
    /// undone by one. `dir` itself when the tree is too big to tell; the default (a world
    /// that cannot look) says `dir`.
    fn over_cap(&self, dir: &Path, reach: Reach<'_>, cap: u64) -> Option<PathBuf> {
        let _ = (reach, cap);
        Some(dir.to_path_buf())
    }

    /// Returns `true` if a process may make directory `dir` (physical) its working
    /// directory: `cd` into it cannot fail. The default (a world that cannot look) says it
    /// may not, which keeps a line's directory changes unfollowed.
    fn enterable(&self, dir: &Path) -> bool {
        let _ = dir;
        false
    }

    /// Returns `true` if the quarantine can keep a version of the file at `path` (physical)
    /// by sharing its extents (a reflink: Btrfs, XFS with reflinks, bcachefs, …) rather than
    /// copying its bytes. A guess from the filesystem types: the copy itself finds out for
    /// sure. The default (a world that cannot look) says it cannot.
    fn shares_extents(&self, path: &Path) -> bool {
        let _ = path;
        false
    }

    /// The workspace's guard files ([`guard_files`](crate::guard_files)) whose content a
    /// git command that rewrites the work tree would change: each with how git sees it. A
    /// world that cannot look (the default) says none, and git commands are judged as before.
    fn guard_files_in_git(&self) -> Vec<(PathBuf, GuardFileState)> {
        Vec::new()
    }

    /// Which guard files ([`guard_files`](crate::guard_files)) a git command run in `dir`
    /// would add, remove or change by writing `source` into the work tree of the
    /// repository there: the whole tree of the commit against `HEAD`'s, a merge's side since
    /// the merge base, a commit's own change, a stash entry's. A world that cannot look
    /// (the default) says none.
    fn guard_tree_changes(&self, dir: &Path, source: &TreeSource) -> GuardTreeChanges {
        let _ = (dir, source);
        GuardTreeChanges::Unchanged
    }

    /// Returns `true` if a commit of the repository in `dir` that the guard can see holds a
    /// guard file: `HEAD`, a branch, a remote-tracking branch or a tag (and when they are too
    /// many to look at). Then a git command that writes a commit the guard cannot name into
    /// the work tree could change one. The default (a world that cannot look) says not.
    fn guard_files_committed(&self, dir: &Path) -> bool {
        let _ = dir;
        false
    }

    /// The paths the patch or archive `listed` names, as written in it (before any leading
    /// components are stripped), read from `base`; `None` when the file cannot be read or
    /// listed (a stream, a variable, a missing file, an archive `tar` cannot list). A world
    /// that cannot look (the default) reads nothing.
    fn listed_paths(&self, listed: &crate::ListedWrites, base: &Path) -> Option<Vec<String>> {
        let _ = (listed, base);
        None
    }
}

/// The guard files a git command would change by writing a commit into the work tree (see
/// [`World::guard_tree_changes`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GuardTreeChanges {
    /// None would change.
    Unchanged,
    /// These (physical paths in the work tree) would be added, removed or changed.
    Changed(Vec<PathBuf>),
    /// The revision does not resolve, or there is no work tree: git fails on it, unless it
    /// fetches the commit first. Says why.
    Unresolved(String),
    /// git can read the commit but the guard cannot tell what it changes: a revision that
    /// is not literal, a range of too many commits, an object it cannot read. Says why.
    Unknown(String),
}

/// How git sees a guard file of the work tree (see [`World::guard_files_in_git`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GuardFileState {
    /// Tracked, and changed in the work tree or the index: a reset, a discard or a stash
    /// puts the committed version back.
    Modified,
    /// Not tracked and not ignored: `git clean` removes it, `git stash -u` takes it.
    Untracked,
    /// Ignored: `git clean -x` removes it.
    Ignored,
}
