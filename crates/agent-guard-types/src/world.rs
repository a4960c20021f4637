//! The facts trait through which the policy reads the world.

use std::path::Path;

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

    /// Returns `true` if git ignores the path. Any failure (no repository, git error) is
    /// `false`, which can only make the verdict stricter.
    fn git_ignored(&self, path: &Path) -> bool;

    /// Checks whether `git reset --hard <target>` run from `cwd` would destroy content a
    /// snapshot of tracked changes cannot preserve.
    fn reset_preflight(&self, cwd: &Path, target: Option<&str>) -> ResetPreflight;
}
