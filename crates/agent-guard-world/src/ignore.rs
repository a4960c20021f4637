//! Git ignore probe: is a path ignored, and untracked, so that git could regenerate it?

use std::ffi::OsString;
use std::path::Path;

use crate::resolve::{fold_lexical, git_path_bytes};
use crate::world::RealWorld;

/// Implements [`World::git_ignored`](agent_guard_types::World::git_ignored).
///
/// `true` iff the workspace is (inside) a git work tree, git's ignore rules (every source:
/// `.gitignore` files, `info/exclude`, `core.excludesFile`) ignore the path — a real directory is
/// tested as a directory — and no index entry is at or under the path: tracked content is never
/// regenerable. A relative `path` is taken relative to the workspace. Any failure is `false`.
///
/// Known difference from `git check-ignore`: for a *symlink* to a directory, libgit2 probes the
/// link's target and may apply a directory-only pattern (`node_modules/`) to it, where git would
/// treat the link as a file. Deleting a link never touches what it points to, so this can only
/// make an ignored link count as regenerable.
pub(crate) fn git_ignored(world: &RealWorld, path: &Path) -> bool {
    let absolute = fold_lexical(&world.workspace.join(path));
    let Some(repo) = world.repository() else {
        return false;
    };
    let Some(relative) = repo
        .workdir
        .as_deref()
        .and_then(|dir| absolute.strip_prefix(dir).ok())
    else {
        return false;
    };
    if relative.as_os_str().is_empty() {
        return false;
    }
    // Only a real directory (`lstat`) is spelled with the trailing slash that makes
    // directory-only patterns (`node_modules/`) match.
    let is_dir = absolute
        .symlink_metadata()
        .is_ok_and(|metadata| metadata.is_dir());
    let mut spelled = OsString::from(relative.as_os_str());
    if is_dir {
        spelled.push("/");
    }
    if !repo
        .repo
        .is_path_ignored(Path::new(&spelled))
        .unwrap_or(false)
    {
        return false;
    }
    let Ok(mut index) = repo.repo.index() else {
        return false;
    };
    // Pick up an index written since the repository was opened (a read, never a write).
    if index.read(false).is_err() {
        return false;
    }
    let tracked_here = (0..=3).any(|stage| index.get_path(relative, stage).is_some());
    let mut under = git_path_bytes(relative);
    under.push(b'/');
    let tracked_below = index.find_prefix(under.as_slice()).is_ok();
    !(tracked_here || tracked_below)
}
