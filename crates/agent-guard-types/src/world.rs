//! The facts trait through which the policy reads the world.

use std::path::{Path, PathBuf};

use crate::{PathSpec, Target};

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
