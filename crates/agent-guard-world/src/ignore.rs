//! Git ignore probe: is a path ignored, and untracked, so that git could regenerate it?

use std::path::Path;

use crate::resolve::{fold_lexical, git_path_bytes};
use crate::world::RealWorld;

/// Implements [`RealWorld::git_ignored`](crate::RealWorld::git_ignored), the git half of [`World::regenerable`](agent_guard_types::World::regenerable).
///
/// `true` iff the workspace is (inside) a git work tree, git's ignore rules (every source:
/// `.gitignore` files, `info/exclude`, `core.excludesFile`) ignore the path as
/// `git check-ignore` would — a real directory is tested as a directory, a path below an
/// excluded directory is ignored — and no index entry is at or under the path: tracked
/// content is never regenerable. A relative `path` is taken relative to the workspace. Any
/// failure is `false`. The rules are `agent_guard_git::Excludes`, the engine `git clean`'s
/// enumeration and the checkpoint walk use too. A path in or holding another repository
/// (a `.git` above it up to the work tree's root, at it or below it) is never ignored here.
pub(crate) fn git_ignored(world: &RealWorld, path: &Path) -> bool {
    let absolute = fold_lexical(&world.workspace.join(path));
    let Some(mut repo) = world.repository() else {
        return false;
    };
    let Some(workdir) = repo.workdir.clone() else {
        return false;
    };
    let Ok(relative) = absolute.strip_prefix(&workdir) else {
        return false;
    };
    if relative.as_os_str().is_empty() {
        return false;
    }
    // Only a real directory (`lstat`) is matched by directory-only patterns
    // (`node_modules/`): a symlink to one is a file to git.
    let is_dir = absolute
        .symlink_metadata()
        .is_ok_and(|metadata| metadata.is_dir());
    let spelled = git_path_bytes(relative);
    let repo = &mut *repo;
    let excludes = repo.excludes.get_or_insert_with(|| {
        agent_guard_git::Excludes::open(&repo.repo, &workdir, world.git_user_dir.as_deref())
    });
    if !excludes.is_ignored(&spelled, is_dir) {
        return false;
    }
    // The index as it is now (a read, never a write), on the same reader as `git clean`'s
    // enumeration; any failure is "tracked".
    let ignorecase = repo.ignorecase;
    let Some(index) = repo.index_file() else {
        return false;
    };
    let tracked = if ignorecase {
        index.folded_at_or_below(&spelled)
    } else {
        index.contains(index.all(), &spelled) || !index.below(index.all(), &spelled).is_empty()
    };
    // Another repository (a nested clone, a linked worktree, a submodule) at, below or
    // above the path keeps a history the outer index does not see.
    !(tracked || agent_guard_git::in_or_holds_a_repository(&workdir, &spelled))
}
