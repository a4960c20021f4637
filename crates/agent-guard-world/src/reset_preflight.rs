//! The read-only `git reset --hard [target]` preflight.
//!
//! A hard reset is compensated by a snapshot of *tracked* changes (`git stash create`). That
//! snapshot cannot preserve untracked or ignored content, so the reset is refused when the
//! target tree would overwrite or remove such content: when an untracked or ignored path is a
//! file of the target tree, a directory of it, or lies below one of its files. The quarantine
//! is checked the same way, because a reset must never write into the storage.

use std::collections::{BTreeSet, HashSet};
use std::ffi::OsStr;
use std::path::Path;

use agent_guard_git::IndexFile;
use agent_guard_types::ResetPreflight;
use git2::{ObjectType, Repository, Status, StatusOptions, StatusShow};

use crate::protect::TrashRoots;
use crate::repo::GitRepo;
use crate::reset_walk;
use crate::resolve::{git_path_bytes, is_within};
use crate::world::RealWorld;

/// The file mode of a gitlink (a submodule commit) in trees and the index.
pub(crate) const GITLINK_MODE: u32 = 0o160_000;

/// How many colliding paths are listed; more are summarised in one final entry.
pub(crate) const MAX_LISTED: usize = 20;

const STASH_RELATIVE: &str = "stash-relative reset target";
const NOT_A_REPOSITORY: &str = "not a git repository";
const BARE: &str = "bare repository";
const NOT_THE_ROOT: &str = "the workspace is not the repository's work-tree root";
const UNRESOLVABLE: &str = "unresolvable reset target";
pub(crate) const SUBMODULES: &str = "submodules";
const SPARSE_INDEX: &str = "sparse index";
pub(crate) const UNREADABLE: &str = "unreadable work-tree content";
const QUARANTINE_OVERLAP: &str = "quarantine overlaps the workspace root";
const UNKNOWN_EFFECTS: &str = "could not determine effects";

/// Why the analysis stopped early.
pub(crate) enum Stop {
    /// A known reason.
    Undeterminable(&'static str),
    /// Any git error.
    Git,
}

impl From<git2::Error> for Stop {
    fn from(_: git2::Error) -> Stop {
        Stop::Git
    }
}

/// Implements [`World::reset_preflight`](agent_guard_types::World::reset_preflight).
pub(crate) fn reset_preflight(
    world: &RealWorld,
    cwd: &Path,
    target: Option<&str>,
) -> ResetPreflight {
    let target = target.unwrap_or("HEAD");
    if is_stash_relative(target) {
        return undeterminable(STASH_RELATIVE);
    }
    // The repository that git would use from `cwd` must be the workspace's own.
    let Ok(git_dir) = Repository::discover_path(cwd, std::iter::empty::<&OsStr>()) else {
        return undeterminable(NOT_A_REPOSITORY);
    };
    let Some(repo) = world.repository() else {
        return undeterminable(NOT_THE_ROOT);
    };
    if git_dir.canonicalize().ok() != repo.repo.path().canonicalize().ok() {
        return undeterminable(NOT_THE_ROOT);
    }
    if repo.repo.is_bare() {
        return undeterminable(BARE);
    }
    if repo.workdir.as_deref() != Some(world.workspace.as_path()) {
        return undeterminable(NOT_THE_ROOT);
    }
    match analyse(&repo, &world.workspace, world.trash_roots(), target) {
        Ok(collisions) if collisions.is_empty() => ResetPreflight::Safe,
        Ok(collisions) => ResetPreflight::Collision(listing(collisions)),
        Err(Stop::Undeterminable(reason)) => undeterminable(reason),
        Err(Stop::Git) => undeterminable(UNKNOWN_EFFECTS),
    }
}

fn undeterminable(reason: &str) -> ResetPreflight {
    ResetPreflight::Undeterminable(reason.to_owned())
}

/// Matches `(refs/)?stash` followed by the end, `~`, `^` or `@`: such targets move when the
/// snapshot itself is stored on the stash. Case-insensitive, for case-insensitive ref stores.
fn is_stash_relative(target: &str) -> bool {
    let lower = target.to_ascii_lowercase();
    let rest = lower.strip_prefix("refs/").unwrap_or(&lower);
    rest.strip_prefix("stash")
        .is_some_and(|after| after.is_empty() || after.starts_with(['~', '^', '@']))
}

/// The paths that collide, sorted, in git's byte form.
fn analyse(
    repo: &GitRepo,
    workspace: &Path,
    trash: &TrashRoots,
    target: &str,
) -> Result<BTreeSet<Vec<u8>>, Stop> {
    let commit = repo
        .repo
        .revparse_single(target)
        .and_then(|object| object.peel_to_commit())
        .map_err(|_| Stop::Undeterminable(UNRESOLVABLE))?;
    let target_tree = commit.tree()?;
    // The tree walk compares names byte for byte; a case-folding repository takes the
    // status walk, which folds every comparison.
    let index = if repo.ignorecase {
        None
    } else {
        Some(IndexFile::load(&repo.repo)?)
    };
    let (mut collisions, tree_paths) = if let Some(index) = index {
        if index.has_gitlink() {
            return Err(Stop::Undeterminable(SUBMODULES));
        }
        if index.is_sparse() {
            // Whole directories stand as one entry: what the reset writes there is not
            // judged here (libgit2 could not read such an index before either).
            return Err(Stop::Undeterminable(SPARSE_INDEX));
        }
        let found = reset_walk::collisions(&repo.repo, workspace, &target_tree, &index)?;
        (found, None)
    } else {
        let tree_paths = TreePaths::of(&repo.repo, &target_tree, repo.ignorecase)?;
        (
            status_collisions(repo, workspace, &tree_paths)?,
            Some(tree_paths),
        )
    };

    // The quarantine, in both spellings: a reset must not write into (or replace) the storage,
    // even before it exists — a tracked `.agent-trash/user.txt` would be created inside it.
    let spellings = std::iter::once(&trash.physical).chain(trash.link.as_ref());
    for spelling in spellings {
        if is_within(workspace, spelling) {
            return Err(Stop::Undeterminable(QUARANTINE_OVERLAP));
        }
        let Ok(relative) = spelling.strip_prefix(workspace) else {
            continue;
        };
        let relative = git_path_bytes(relative);
        let holds = match &tree_paths {
            Some(paths) => paths.collides(&relative) || paths.has_leaf_under(&relative),
            None => reset_walk::tree_holds(&repo.repo, &target_tree, &relative)?,
        };
        if holds {
            collisions.insert(relative);
        }
    }
    Ok(collisions)
}

/// The collisions found from git's status of the work tree (case-folding repositories).
fn status_collisions(
    repo: &GitRepo,
    workspace: &Path,
    tree_paths: &TreePaths,
) -> Result<BTreeSet<Vec<u8>>, Stop> {
    let mut index = repo.repo.index()?;
    index.read(false)?;
    if index.iter().any(|entry| entry.mode == GITLINK_MODE) {
        return Err(Stop::Undeterminable(SUBMODULES));
    }
    let mut collisions = BTreeSet::new();
    for other in others(&repo.repo)? {
        let trimmed = other.strip_suffix(b"/").unwrap_or(&other);
        let is_dir = other.ends_with(b"/");
        if is_dir && tree_paths.is_dir_only(trimmed) {
            // The target tree has files below this untracked directory: look inside, so
            // that only what the reset would really overwrite counts.
            collisions.extend(inside(workspace, trimmed, tree_paths));
        } else if tree_paths.collides(trimmed) {
            collisions.insert(trimmed.to_vec());
        }
    }
    Ok(collisions)
}

/// Every untracked and ignored path of the work tree, as git reports them.
///
/// Untracked directories are recursed into, so an untracked file beside the target tree's
/// files does not count as a collision; an ignored directory is reported as itself (with a
/// trailing `/`), because enumerating `node_modules` would cost more than it is worth and a
/// target tree that has anything below an ignored, untracked directory is a collision in all
/// but contrived cases. A nested repository appears as its directory.
fn others(repo: &Repository) -> Result<Vec<Vec<u8>>, Stop> {
    let mut options = StatusOptions::new();
    options
        .show(StatusShow::Workdir)
        .include_untracked(true)
        .include_ignored(true)
        .recurse_untracked_dirs(false)
        .recurse_ignored_dirs(false)
        .exclude_submodules(true)
        .include_unreadable(true);
    let statuses = repo.statuses(Some(&mut options))?;
    let mut others = Vec::new();
    for entry in statuses.iter() {
        let status = entry.status();
        if status.contains(Status::WT_UNREADABLE) {
            return Err(Stop::Undeterminable(UNREADABLE));
        }
        if status.intersects(Status::WT_NEW | Status::IGNORED) {
            others.push(entry.path_bytes().to_vec());
        }
    }
    Ok(others)
}

/// The leaves (blobs and links) of the target tree and their proper ancestor directories,
/// case-folded when the repository ignores case.
struct TreePaths {
    leaves: HashSet<Vec<u8>>,
    dirs: HashSet<Vec<u8>>,
    ignorecase: bool,
}

impl TreePaths {
    fn of(repo: &Repository, root: &git2::Tree<'_>, ignorecase: bool) -> Result<TreePaths, Stop> {
        let mut paths = TreePaths {
            leaves: HashSet::new(),
            dirs: HashSet::new(),
            ignorecase,
        };
        // An explicit stack rather than `Tree::walk`, whose callback receives the directory as
        // `&str` and so cannot carry non-UTF-8 names faithfully.
        let mut pending = vec![(Vec::new(), root.clone())];
        while let Some((prefix, tree)) = pending.pop() {
            for entry in &tree {
                let mut path = prefix.clone();
                if !path.is_empty() {
                    path.push(b'/');
                }
                path.extend_from_slice(entry.name_bytes());
                if u32::try_from(entry.filemode()).ok() == Some(GITLINK_MODE) {
                    return Err(Stop::Undeterminable(SUBMODULES));
                }
                if entry.kind() == Some(ObjectType::Tree) {
                    let subtree = repo.find_tree(entry.id())?;
                    paths.dirs.insert(paths.fold(&path));
                    pending.push((path, subtree));
                } else {
                    paths.leaves.insert(paths.fold(&path));
                }
            }
        }
        Ok(paths)
    }

    fn fold(&self, path: &[u8]) -> Vec<u8> {
        if !self.ignorecase {
            return path.to_vec();
        }
        match std::str::from_utf8(path) {
            Ok(text) => text.to_lowercase().into_bytes(),
            Err(_) => path.to_ascii_lowercase(),
        }
    }

    /// An other path collides if it is a leaf, a tree directory, or lies below a leaf.
    fn collides(&self, path: &[u8]) -> bool {
        let path = self.fold(path);
        self.leaves.contains(&path)
            || self.dirs.contains(&path)
            || ancestors(&path).any(|ancestor| self.leaves.contains(ancestor))
    }

    /// `path` is a directory of the tree and neither a leaf nor below one.
    fn is_dir_only(&self, path: &[u8]) -> bool {
        let folded = self.fold(path);
        self.dirs.contains(&folded)
            && !self.leaves.contains(&folded)
            && !ancestors(&folded).any(|ancestor| self.leaves.contains(ancestor))
    }

    /// Some leaf lies strictly below `path`.
    fn has_leaf_under(&self, path: &[u8]) -> bool {
        let mut prefix = self.fold(path);
        prefix.push(b'/');
        self.leaves.iter().any(|leaf| leaf.starts_with(&prefix))
    }
}

/// The most entries [`inside`] examines before it gives up and reports the directory.
const MAX_WALK: usize = 100_000;

/// The colliding paths below the untracked directory `dir` (workspace-relative), found by
/// walking it. A nested repository, an unreadable directory or a walk longer than
/// [`MAX_WALK`] entries collides as a whole.
fn inside(workspace: &Path, dir: &[u8], tree: &TreePaths) -> Vec<Vec<u8>> {
    use std::os::unix::ffi::OsStrExt as _;

    let mut found = Vec::new();
    let mut pending = vec![dir.to_vec()];
    let mut examined = 0;
    while let Some(relative) = pending.pop() {
        let absolute = workspace.join(OsStr::from_bytes(&relative));
        let Ok(entries) = std::fs::read_dir(&absolute) else {
            return vec![dir.to_vec()];
        };
        if absolute.join(".git").symlink_metadata().is_ok() {
            return vec![dir.to_vec()];
        }
        for entry in entries {
            examined += 1;
            let Ok(entry) = entry else {
                return vec![dir.to_vec()];
            };
            if examined > MAX_WALK {
                return vec![dir.to_vec()];
            }
            let mut path = relative.clone();
            path.push(b'/');
            path.extend_from_slice(entry.file_name().as_bytes());
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            if is_dir && tree.is_dir_only(&path) {
                pending.push(path);
            } else if tree.collides(&path) {
                found.push(path);
            }
        }
    }
    found
}

/// The proper ancestors of a `/`-separated path, nearest last.
fn ancestors(path: &[u8]) -> impl Iterator<Item = &[u8]> {
    path.iter()
        .enumerate()
        .filter(|&(_, &byte)| byte == b'/')
        .map(move |(at, _)| &path[..at])
}

/// The collisions as strings, at most [`MAX_LISTED`], then one `… and N more` entry.
fn listing(collisions: BTreeSet<Vec<u8>>) -> Vec<String> {
    let total = collisions.len();
    let mut listed: Vec<String> = collisions
        .into_iter()
        .take(MAX_LISTED)
        .map(|path| String::from_utf8_lossy(&path).into_owned())
        .collect();
    if total > MAX_LISTED {
        listed.push(format!("… and {} more", total - MAX_LISTED));
    }
    listed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stash_relative_targets() {
        for stash in [
            "stash",
            "refs/stash",
            "stash@{0}",
            "stash~1",
            "stash^",
            "STASH",
        ] {
            assert!(is_stash_relative(stash), "{stash}");
        }
        for other in ["HEAD", "stashed", "my-stash", "refs/heads/stash", "main~1"] {
            assert!(!is_stash_relative(other), "{other}");
        }
    }

    #[test]
    fn ancestors_of_a_path() {
        let all: Vec<&[u8]> = ancestors(b"a/b/c").collect();
        assert_eq!(all, vec![b"a".as_slice(), b"a/b".as_slice()]);
        assert_eq!(ancestors(b"a").count(), 0);
    }

    #[test]
    fn collision_rule() {
        let paths = TreePaths {
            leaves: ["f", "d/x"].iter().map(|p| p.as_bytes().to_vec()).collect(),
            dirs: ["d"].iter().map(|p| p.as_bytes().to_vec()).collect(),
            ignorecase: false,
        };
        assert!(paths.collides(b"f"));
        assert!(paths.collides(b"d"));
        assert!(paths.collides(b"f/below"));
        assert!(paths.collides(b"d/x"));
        assert!(!paths.collides(b"d/y"));
        assert!(!paths.collides(b"F"));
        assert!(paths.has_leaf_under(b"d"));
        assert!(!paths.has_leaf_under(b"f"));
        let folded = TreePaths {
            ignorecase: true,
            ..paths
        };
        assert!(folded.collides(b"F"));
    }

    #[test]
    fn listing_is_capped() {
        let many: BTreeSet<Vec<u8>> = (0..25).map(|i| format!("p{i:02}").into_bytes()).collect();
        let listed = listing(many);
        assert_eq!(listed.len(), MAX_LISTED + 1);
        assert_eq!(listed[0], "p00");
        assert_eq!(listed[MAX_LISTED], "… and 5 more");
    }
}
