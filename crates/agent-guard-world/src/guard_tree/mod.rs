//! Which guard files a git command would change by writing another commit into the work
//! tree (`git checkout other`, `git merge topic`, `git pull`, `git cherry-pick X`, `git stash
//! apply`): the fact behind refusing a branch switch that brings a
//! `.claude/settings.local.json` with `disableAllHooks` (issue 35).
//!
//! Only trees are read, never the work tree: what git keeps (a local change to a file both
//! commits agree on) is not a change, and what git would refuse to overwrite is counted as
//! changed. A guard path is compared at itself and at every directory above it, so a commit
//! that makes `.claude` a symlink counts; below a guard directory (`.github/hooks/`) each
//! file is compared.

mod revisions;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use agent_guard_types::{GuardTreeChanges, TreePart, TreeSource};
use git2::{Commit, ObjectType, Oid, Repository, Tree, TreeWalkMode, TreeWalkResult};

use crate::repo::GitRepo;
use crate::world::RealWorld;
use revisions::{commits, pull_rebases, resolve};

/// The most files compared below one guard directory; past it the directory itself is
/// reported.
const MAX_PER_DIRECTORY: usize = 256;

/// The most refs looked at by [`guard_files_committed`]; more count as holding one.
const MAX_REFS: usize = 2_000;

/// Why the guard cannot say what a commit would change (git itself can).
struct Unknown(String);

/// Implements [`World::guard_tree_changes`](agent_guard_types::World::guard_tree_changes).
pub(crate) fn guard_tree_changes(
    world: &RealWorld,
    dir: &Path,
    source: &TreeSource,
) -> GuardTreeChanges {
    let Some((repo, workdir, guards)) = open(world, dir) else {
        return GuardTreeChanges::Unresolved(format!("no git work tree at `{}`", dir.display()));
    };
    if guards.is_empty() {
        return GuardTreeChanges::Unchanged;
    }
    let repo = &repo.repo;
    let head = repo.head().ok().and_then(|head| head.peel_to_commit().ok());
    let changed = match source.part {
        TreePart::Whole => whole(repo, head.as_ref(), source, &guards),
        TreePart::Merged if source.fetched && pull_rebases(repo) => {
            whole(repo, head.as_ref(), source, &guards)
        }
        TreePart::Merged => merged(repo, head.as_ref(), source, &guards),
        TreePart::Change => change(repo, source, &guards),
        TreePart::Stash => stash(repo, source, &guards),
        _ => Err(Resolve::Unknown(Unknown(
            "a kind of git change the guard does not know".to_owned(),
        ))),
    };
    match changed {
        Ok(paths) if paths.is_empty() => GuardTreeChanges::Unchanged,
        Ok(paths) => GuardTreeChanges::Changed(paths.iter().map(|p| workdir.join(p)).collect()),
        Err(Resolve::Missing(why)) => GuardTreeChanges::Unresolved(why),
        Err(Resolve::Unknown(Unknown(why))) => GuardTreeChanges::Unknown(why),
        Err(Resolve::Fails) => GuardTreeChanges::Unchanged,
    }
}

/// Implements [`World::guard_files_committed`](agent_guard_types::World::guard_files_committed).
pub(crate) fn guard_files_committed(world: &RealWorld, dir: &Path) -> bool {
    let Some((repo, _, guards)) = open(world, dir) else {
        return false;
    };
    if guards.is_empty() {
        return false;
    }
    let repo = &repo.repo;
    let holds = |tree: &Tree<'_>| {
        guards
            .iter()
            .any(|guard| slot(Some(tree), guard) != Slot::Missing)
    };
    if let Ok(tree) = repo.head().and_then(|head| head.peel_to_tree())
        && holds(&tree)
    {
        return true;
    }
    let Ok(references) = repo.references() else {
        return true;
    };
    let mut seen = BTreeSet::new();
    for (count, reference) in references.enumerate() {
        if count >= MAX_REFS {
            return true;
        }
        let Ok(tree) = reference.and_then(|r| r.peel_to_tree()) else {
            continue;
        };
        if seen.insert(tree.id()) && holds(&tree) {
            return true;
        }
    }
    false
}

/// How resolving a source failed.
enum Resolve {
    /// The revision does not resolve: git fails on it (or fetches it first). Says why.
    Missing(String),
    /// git would fail before writing anything (a pull without an upstream).
    Fails,
    /// git can read it but the guard cannot tell what it changes.
    Unknown(Unknown),
}

impl From<git2::Error> for Resolve {
    fn from(error: git2::Error) -> Resolve {
        Resolve::Unknown(Unknown(format!("git: {}", error.message())))
    }
}

/// The repository git would use from `dir` (the nearest existing directory at or above it),
/// its work tree, and the guard files in it, relative to the work tree.
fn open(world: &RealWorld, dir: &Path) -> Option<(GitRepo, PathBuf, Vec<PathBuf>)> {
    let existing = dir.ancestors().find(|d| d.is_dir())?;
    let repo = GitRepo::open(existing)?;
    let workdir = repo.workdir.clone()?;
    let mut guards: Vec<PathBuf> = world
        .guard_files()
        .iter()
        .filter_map(|file| file.strip_prefix(&workdir).ok())
        .filter(|relative| !relative.as_os_str().is_empty())
        .map(Path::to_path_buf)
        .collect();
    guards.sort();
    guards.dedup();
    Some((repo, workdir, guards))
}

/// The work tree becomes (or passes through) the source's tree.
fn whole(
    repo: &Repository,
    head: Option<&Commit<'_>>,
    source: &TreeSource,
    guards: &[PathBuf],
) -> Result<BTreeSet<PathBuf>, Resolve> {
    let target = match &source.rev {
        None => None,
        Some(_) => Some(resolve(repo, source)?.peel_to_tree()?),
    };
    let head = head.map(Commit::tree).transpose()?;
    Ok(differing(
        repo,
        head.as_ref(),
        target.as_ref(),
        Since::Old,
        guards,
    ))
}

/// What a merge of the source brings: its side's changes since the merge base, where the
/// work tree's commit does not have them already.
fn merged(
    repo: &Repository,
    head: Option<&Commit<'_>>,
    source: &TreeSource,
    guards: &[PathBuf],
) -> Result<BTreeSet<PathBuf>, Resolve> {
    let theirs = resolve(repo, source)?.peel_to_commit()?;
    let base = head
        .and_then(|head| repo.merge_base(head.id(), theirs.id()).ok())
        .map(|base| repo.find_commit(base).and_then(|c| c.tree()))
        .transpose()?;
    let head = head.map(Commit::tree).transpose()?;
    let theirs = theirs.tree()?;
    Ok(differing(
        repo,
        head.as_ref(),
        Some(&theirs),
        Since::MergeBase(base.as_ref()),
        guards,
    ))
}

/// What each picked or reverted commit changes against its first parent.
fn change(
    repo: &Repository,
    source: &TreeSource,
    guards: &[PathBuf],
) -> Result<BTreeSet<PathBuf>, Resolve> {
    let mut found = BTreeSet::new();
    for commit in commits(repo, source)? {
        let commit = repo.find_commit(commit)?;
        let parent = commit.parents().next().map(|p| p.tree()).transpose()?;
        found.extend(differing(
            repo,
            parent.as_ref(),
            Some(&commit.tree()?),
            Since::Old,
            guards,
        ));
    }
    Ok(found)
}

/// What applying a stash entry writes: its change against the commit it was made on, its
/// index's, and every untracked file it holds.
fn stash(
    repo: &Repository,
    source: &TreeSource,
    guards: &[PathBuf],
) -> Result<BTreeSet<PathBuf>, Resolve> {
    let entry = resolve(repo, source)?.peel_to_commit()?;
    let parents: Vec<Commit<'_>> = entry.parents().collect();
    let base = parents.first().map(Commit::tree).transpose()?;
    let mut found = differing(
        repo,
        base.as_ref(),
        Some(&entry.tree()?),
        Since::Old,
        guards,
    );
    if let Some(index) = parents.get(1) {
        found.extend(differing(
            repo,
            base.as_ref(),
            Some(&index.tree()?),
            Since::Old,
            guards,
        ));
    }
    if let Some(untracked) = parents.get(2) {
        found.extend(differing(
            repo,
            None,
            Some(&untracked.tree()?),
            Since::Old,
            guards,
        ));
    }
    Ok(found)
}

/// What a tree has at a guard path: nothing, the entry there, or a file or link at a
/// directory above it (which a checkout would write instead of the directory).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Slot {
    Missing,
    Entry(Oid, i32),
    Above(PathBuf, Oid, i32),
}

/// The slot of `path` in `tree` (`None`: the empty tree).
fn slot(tree: Option<&Tree<'_>>, path: &Path) -> Slot {
    let Some(tree) = tree else {
        return Slot::Missing;
    };
    for above in path.ancestors().skip(1) {
        if above.as_os_str().is_empty() {
            break;
        }
        match tree.get_path(above) {
            Ok(entry) if entry.kind() != Some(ObjectType::Tree) => {
                return Slot::Above(above.to_path_buf(), entry.id(), entry.filemode());
            }
            Ok(_) => {}
            Err(_) => return Slot::Missing,
        }
    }
    tree.get_path(path).map_or(Slot::Missing, |entry| {
        Slot::Entry(entry.id(), entry.filemode())
    })
}

/// Which differences between two trees [`differing`] counts.
#[derive(Clone, Copy)]
enum Since<'a, 'r> {
    /// Every one.
    Old,
    /// Only those the merged side made since the merge base (`None`: the sides have no
    /// common ancestor, the empty tree).
    MergeBase(Option<&'a Tree<'r>>),
}

/// The guard paths (and the files below guard directories) whose slots differ between
/// `old` and `new`; with [`Since::MergeBase`] (a merge), only those that also differ
/// between the base and `new`, the merged side's changes.
fn differing(
    repo: &Repository,
    old: Option<&Tree<'_>>,
    new: Option<&Tree<'_>>,
    since: Since<'_, '_>,
    guards: &[PathBuf],
) -> BTreeSet<PathBuf> {
    let mut found = BTreeSet::new();
    for guard in guards {
        let mut candidates = BTreeSet::new();
        let mut crowded = false;
        for tree in [old, new].into_iter().flatten() {
            crowded |= !files_below(repo, tree, guard, &mut candidates);
        }
        if crowded {
            candidates.clear();
        }
        candidates.insert(guard.clone());
        for path in candidates {
            let now = slot(new, &path);
            let changed = slot(old, &path) != now
                && match since {
                    Since::Old => true,
                    Since::MergeBase(base) => slot(base, &path) != now,
                };
            let directory = matches!(&now, Slot::Entry(_, mode) if *mode == 0o040_000)
                && !crowded
                && path == *guard;
            if changed && !directory {
                found.insert(path);
            }
        }
    }
    found
}

/// Adds the files below `guard` in `tree` when it is a directory there; `false` when they
/// are more than [`MAX_PER_DIRECTORY`].
fn files_below(
    repo: &Repository,
    tree: &Tree<'_>,
    guard: &Path,
    into: &mut BTreeSet<PathBuf>,
) -> bool {
    let Ok(entry) = tree.get_path(guard) else {
        return true;
    };
    let Ok(below) = repo.find_tree(entry.id()) else {
        return true;
    };
    let mut count = 0;
    let mut fits = true;
    let _ = below.walk(TreeWalkMode::PreOrder, |root, entry| {
        if entry.kind() == Some(ObjectType::Tree) {
            return TreeWalkResult::Ok;
        }
        count += 1;
        if count > MAX_PER_DIRECTORY {
            fits = false;
            return TreeWalkResult::Abort;
        }
        if let Some(name) = entry.name() {
            into.insert(guard.join(root).join(name));
        }
        TreeWalkResult::Ok
    });
    fits
}

#[cfg(test)]
mod tests;
