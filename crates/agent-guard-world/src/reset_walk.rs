//! The hard-reset preflight's fast path: the target tree walked against the work tree.
//!
//! Only what the reset writes can collide, so only the target tree's paths are looked at:
//! one `readdir` per directory that both the tree and the work tree have, and the index
//! (read once, by `agent-guard-git`'s own parser) to tell tracked from untracked. There is no
//! status walk and no ignore rule: an ignored path collides exactly like an untracked one,
//! and untracked content away from the tree's paths (a large `build/`) is never visited.
//! On a 100,000-file repository this is one `readdir` per tracked directory instead of a
//! `lstat` per tracked file plus a `readdir` per directory.
//!
//! Where the index's tree cache holds a directory's target tree (the common `git reset
//! --hard` to HEAD), the directory's names come from the index instead of the tree objects,
//! as in git's own reset, and its subdirectories are read on every core.
//!
//! The rules are those of the status-based path (`reset_preflight::others`) stated
//! directly: an untracked or ignored non-directory at a path of the tree collides; a
//! directory the index knows nothing below collides at a file of the tree if it holds any
//! content (a directory of empty directories is removed by git without loss), and is looked
//! into at a directory of the tree, unless it is a nested repository, which collides whole;
//! below a file of the tree, every untracked entry with content collides.

use std::cmp::Ordering;
use std::collections::{BTreeSet, VecDeque};
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt as _;
use std::path::Path;

use agent_guard_git::{CachedTree, IndexChild, IndexCursor, IndexFile, IndexSpan};
use git2::{ObjectType, Repository, Tree};

use crate::reset_preflight::{GITLINK_MODE, SUBMODULES, Stop, UNREADABLE};

/// The index's tree cache names the target tree for a directory but counts other entries
/// below it than the index holds: git's own reset would follow the cache, so what it writes
/// is not known.
const CACHE_MISMATCH: &str = "the index's tree cache disagrees with its entries";

/// Below this many index entries the walk stays on one thread.
const PARALLEL_THRESHOLD: usize = 2_000;

/// The most entries [`has_content`] examines before it assumes the directory holds some.
const MAX_WALK: usize = 100_000;

/// What `readdir` says a work-tree entry is (symlinks are not followed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Directory,
    /// A regular file or a symlink: content git would replace.
    File,
    /// A FIFO, socket or device.
    Other,
}

/// A tree directory still to visit.
struct Pending<'r, 'i> {
    tree: Tree<'r>,
    /// The index's tree cache for this directory, if it has one.
    cache: Option<CachedTree<'i>>,
    /// Its repository-relative path (empty for the root).
    dir: Vec<u8>,
    /// The index entries below it.
    span: IndexSpan,
    /// It is a real directory in the work tree (else only gitlinks are looked for).
    present: bool,
}

/// The colliding paths of a reset to `root`, in git's byte form.
///
/// Where the index's tree cache holds a directory's target tree, the directory's names come
/// from the index ([`index_directory`]), as git's own reset takes them; elsewhere the tree
/// objects are read.
pub(crate) fn collisions<'r>(
    repo: &'r Repository,
    workspace: &Path,
    root: &Tree<'r>,
    index: &IndexFile,
) -> Result<BTreeSet<Vec<u8>>, Stop> {
    let mut found = BTreeSet::new();
    let mut pending = vec![Pending {
        tree: root.clone(),
        cache: index.cached_root(),
        dir: Vec::new(),
        span: index.all(),
        present: true,
    }];
    while let Some(next) = pending.pop() {
        if let Some(cache) = next.cache
            && cache.id() == Some(next.tree.id().as_bytes())
        {
            // A directory absent from the work tree is visited only for gitlinks, which
            // the index (and so this tree) has none of; its span is its parent's.
            if next.present {
                if cache.entries() != Some(next.span.len()) || !index.resolved(next.span) {
                    return Err(Stop::Undeterminable(CACHE_MISMATCH));
                }
                index_directory(workspace, &next.dir, next.span, index, &mut found)?;
            }
            continue;
        }
        tree_directory(repo, workspace, next, index, &mut found, &mut pending)?;
    }
    Ok(found)
}

/// One directory of the target tree, read from its tree object.
fn tree_directory<'r, 'i>(
    repo: &'r Repository,
    workspace: &Path,
    Pending {
        tree,
        cache,
        dir,
        span,
        present,
    }: Pending<'r, 'i>,
    index: &IndexFile,
    found: &mut BTreeSet<Vec<u8>>,
    pending: &mut Vec<Pending<'r, 'i>>,
) -> Result<(), Stop> {
    let listing = if present {
        list(&absolute(workspace, &dir))?
    } else {
        None
    };
    let mut cursor = index.cursor(span);
    for entry in &tree {
        if u32::try_from(entry.filemode()).ok() == Some(GITLINK_MODE) {
            return Err(Stop::Undeterminable(SUBMODULES));
        }
        let path = join(&dir, entry.name_bytes());
        let subtree = if entry.kind() == Some(ObjectType::Tree) {
            Some(repo.find_tree(entry.id())?)
        } else {
            None
        };
        let there = listing
            .as_ref()
            .and_then(|listing| lookup(listing, entry.name_bytes()));
        let cache = cache.and_then(|cache| cache.child(entry.name_bytes()));
        let visit = |present: bool, span: IndexSpan, subtree: Option<Tree<'r>>| {
            subtree.map(|tree| Pending {
                tree,
                cache,
                dir: path.clone(),
                span,
                present,
            })
        };
        let next = match (there, subtree) {
            (Some(Kind::File), subtree) => {
                if !tracked(index, &mut cursor, span, &path) {
                    found.insert(path.clone());
                }
                visit(false, span, subtree)
            }
            (Some(Kind::Directory), None) => {
                let below = tracked_below(index, &mut cursor, span, &path);
                directory_at_a_file(workspace, &path, index, below, found)?;
                None
            }
            (Some(Kind::Directory), Some(subtree)) => {
                let below = tracked_below(index, &mut cursor, span, &path);
                if below.is_empty() && is_repository(&absolute(workspace, &path)) {
                    found.insert(path.clone());
                    visit(false, below, Some(subtree))
                } else {
                    visit(true, below, Some(subtree))
                }
            }
            (Some(Kind::Other) | None, subtree) => visit(false, span, subtree),
        };
        pending.extend(next);
    }
    Ok(())
}

/// One directory whose target tree is the index's: every name the index has there is
/// what the reset writes, tracked by definition, so only the work tree's own entries of
/// the same names are looked at. The directories below are walked here too (the cache of a
/// directory is valid only when the caches below it are): breadth first until there is
/// work for every core, then on as many threads, as git refreshes its index.
fn index_directory(
    workspace: &Path,
    dir: &[u8],
    span: IndexSpan,
    index: &IndexFile,
    found: &mut BTreeSet<Vec<u8>>,
) -> Result<(), Stop> {
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let mut pending = VecDeque::from([(dir.to_vec(), span)]);
    if threads == 1 || span.len() < PARALLEL_THRESHOLD {
        return index_directories(workspace, index, Vec::from(pending), found);
    }
    while pending.len() < threads * 8
        && let Some((dir, span)) = pending.pop_front()
    {
        index_entries(workspace, index, &dir, span, found, &mut pending)?;
    }
    let mut shares = vec![Vec::new(); threads];
    for (at, directory) in pending.into_iter().enumerate() {
        shares[at % threads].push(directory);
    }
    let results: Vec<Result<BTreeSet<Vec<u8>>, Stop>> = std::thread::scope(|scope| {
        let handles: Vec<_> = shares
            .into_iter()
            .map(|share| {
                scope.spawn(move || {
                    let mut found = BTreeSet::new();
                    index_directories(workspace, index, share, &mut found).map(|()| found)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| {
                handle
                    .join()
                    .unwrap_or(Err(Stop::Undeterminable(UNREADABLE)))
            })
            .collect()
    });
    for result in results {
        found.append(&mut result?);
    }
    Ok(())
}

/// [`index_directory`]'s walk, depth first on one thread.
fn index_directories(
    workspace: &Path,
    index: &IndexFile,
    mut pending: Vec<(Vec<u8>, IndexSpan)>,
    found: &mut BTreeSet<Vec<u8>>,
) -> Result<(), Stop> {
    while let Some((dir, span)) = pending.pop() {
        index_entries(workspace, index, &dir, span, found, &mut pending)?;
    }
    Ok(())
}

/// The names of one directory of [`index_directory`]'s walk; its subdirectories present in
/// the work tree are added to `pending`.
fn index_entries(
    workspace: &Path,
    index: &IndexFile,
    dir: &[u8],
    span: IndexSpan,
    found: &mut BTreeSet<Vec<u8>>,
    pending: &mut impl Extend<(Vec<u8>, IndexSpan)>,
) -> Result<(), Stop> {
    let Some(listing) = list(&absolute(workspace, dir))? else {
        return Ok(());
    };
    let prefix = if dir.is_empty() { 0 } else { dir.len() + 1 };
    for (name, child) in index.children(span, prefix) {
        let Some(there) = lookup(&listing, name) else {
            continue;
        };
        let path = join(dir, name);
        match (there, child) {
            (Kind::File, IndexChild::Directory(_)) => {
                found.insert(path);
            }
            (Kind::Directory, IndexChild::File) => {
                directory_at_a_file(workspace, &path, index, IndexSpan::EMPTY, found)?;
            }
            (Kind::Directory, IndexChild::Directory(below)) => {
                pending.extend(std::iter::once((path, below)));
            }
            (Kind::File, IndexChild::File) | (Kind::Other, _) => {}
        }
    }
    Ok(())
}

/// A work-tree directory at `path`, where the target tree has a file: its untracked content
/// collides (the whole directory when the index knows nothing below it).
fn directory_at_a_file(
    workspace: &Path,
    path: &[u8],
    index: &IndexFile,
    below: IndexSpan,
    found: &mut BTreeSet<Vec<u8>>,
) -> Result<(), Stop> {
    if below.is_empty() {
        if has_content(&absolute(workspace, path))? {
            found.insert(path.to_vec());
        }
        Ok(())
    } else {
        below_a_file(workspace, path, index, below, found)
    }
}

/// Returns `true` if the index has `path` (inside `span`, its directory's entries).
///
/// The cursor makes the common case one comparison, but it follows the tree's order, which
/// sorts a directory `a` as `a/`: where the index has a file `a` and the tree a directory
/// (or the other way round), a sibling such as `a-b` moves the cursor past it. A miss is
/// therefore checked by a search of the directory's entries, so a type change is never
/// taken for untracked content.
fn tracked(index: &IndexFile, cursor: &mut IndexCursor, span: IndexSpan, path: &[u8]) -> bool {
    index.seek(cursor, path) || index.contains(span, path)
}

/// The index entries below the directory `path` (inside `span`), with the same fallback as
/// [`tracked`].
fn tracked_below(
    index: &IndexFile,
    cursor: &mut IndexCursor,
    span: IndexSpan,
    path: &[u8],
) -> IndexSpan {
    let below = index.seek_below(cursor, path);
    if below.is_empty() {
        index.below(span, path)
    } else {
        below
    }
}

/// Every untracked entry with content below `dir`, a directory where the tree has a file:
/// the reset removes the whole directory.
fn below_a_file(
    workspace: &Path,
    dir: &[u8],
    index: &IndexFile,
    span: IndexSpan,
    found: &mut BTreeSet<Vec<u8>>,
) -> Result<(), Stop> {
    let mut pending = vec![(dir.to_vec(), span)];
    while let Some((dir, span)) = pending.pop() {
        let Some(listing) = list(&absolute(workspace, &dir))? else {
            continue;
        };
        for (name, kind) in listing {
            let path = join(&dir, name.as_bytes());
            match kind {
                Kind::File if !index.contains(span, &path) => {
                    found.insert(path);
                }
                Kind::Directory => {
                    let below = index.below(span, &path);
                    if !below.is_empty() {
                        pending.push((path, below));
                    } else if has_content(&absolute(workspace, &path))? {
                        found.insert(path);
                    }
                }
                Kind::File | Kind::Other => {}
            }
        }
    }
    Ok(())
}

/// Returns `true` if `dir` holds anything but empty directories (or is too large to tell).
fn has_content(dir: &Path) -> Result<bool, Stop> {
    let mut pending = vec![dir.to_path_buf()];
    let mut examined = 0;
    while let Some(dir) = pending.pop() {
        let Some(listing) = list(&dir)? else {
            continue;
        };
        for (name, kind) in listing {
            examined += 1;
            if kind != Kind::Directory || examined > MAX_WALK {
                return Ok(true);
            }
            pending.push(dir.join(name));
        }
    }
    Ok(false)
}

/// A directory with a `.git` of its own: a nested repository collides as a whole.
fn is_repository(dir: &Path) -> bool {
    dir.join(".git").symlink_metadata().is_ok()
}

/// The entries of a directory, sorted by name; `None` if it is not (or no longer) there.
fn list(dir: &Path) -> Result<Option<Vec<(OsString, Kind)>>, Stop> {
    let unreadable = |_| Stop::Undeterminable(UNREADABLE);
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error)
            if matches!(
                error.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(None);
        }
        Err(error) => return Err(unreadable(error)),
    };
    let mut listing = Vec::new();
    for entry in entries {
        let entry = entry.map_err(unreadable)?;
        // `file_type` comes from `readdir` (an `lstat` only where the filesystem has no
        // `d_type`), and never follows a symlink.
        let kind = match entry.file_type().map_err(unreadable)? {
            kind if kind.is_dir() => Kind::Directory,
            kind if kind.is_file() || kind.is_symlink() => Kind::File,
            _ => Kind::Other,
        };
        listing.push((entry.file_name(), kind));
    }
    listing.sort_unstable_by(|a, b| compare(a.0.as_bytes(), b.0.as_bytes()));
    Ok(Some(listing))
}

fn lookup(listing: &[(OsString, Kind)], name: &[u8]) -> Option<Kind> {
    listing
        .binary_search_by(|(entry, _)| compare(entry.as_bytes(), name))
        .ok()
        .map(|at| listing[at].1)
}

/// Returns `true` if the tree has `path` (repository-relative): as a file, as a directory,
/// or as a path below one of its files.
pub(crate) fn tree_holds(repo: &Repository, root: &Tree<'_>, path: &[u8]) -> Result<bool, Stop> {
    let mut tree = root.clone();
    let mut components = path.split(|b| *b == b'/').peekable();
    while let Some(component) = components.next() {
        let Some((kind, id)) = tree
            .iter()
            .find(|entry| entry.name_bytes().cmp(component) == Ordering::Equal)
            .map(|entry| (entry.kind(), entry.id()))
        else {
            return Ok(false);
        };
        if kind != Some(ObjectType::Tree) || components.peek().is_none() {
            return Ok(true);
        }
        tree = repo.find_tree(id)?;
    }
    Ok(false)
}

/// Byte-wise order, as a loop: file names are short and differ early, where a call into
/// `memcmp` costs more than the comparison.
fn compare(a: &[u8], b: &[u8]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        if x != y {
            return x.cmp(y);
        }
    }
    a.len().cmp(&b.len())
}

fn join(dir: &[u8], name: &[u8]) -> Vec<u8> {
    let mut path = Vec::with_capacity(dir.len() + 1 + name.len());
    path.extend_from_slice(dir);
    if !dir.is_empty() {
        path.push(b'/');
    }
    path.extend_from_slice(name);
    path
}

fn absolute(workspace: &Path, relative: &[u8]) -> std::path::PathBuf {
    workspace.join(OsStr::from_bytes(relative))
}
