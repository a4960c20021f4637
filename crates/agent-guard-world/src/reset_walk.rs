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
//! The rules are those of the status-based path (`reset_preflight::others`) stated
//! directly: an untracked or ignored non-directory at a path of the tree collides; a
//! directory the index knows nothing below collides at a file of the tree if it holds any
//! content (a directory of empty directories is removed by git without loss), and is looked
//! into at a directory of the tree, unless it is a nested repository, which collides whole;
//! below a file of the tree, every untracked entry with content collides.

use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt as _;
use std::path::Path;

use agent_guard_git::{IndexCursor, IndexFile, IndexSpan};
use git2::{ObjectType, Repository, Tree};

use crate::reset_preflight::{GITLINK_MODE, SUBMODULES, Stop, UNREADABLE};

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
struct Pending<'r> {
    tree: Tree<'r>,
    /// Its repository-relative path (empty for the root).
    dir: Vec<u8>,
    /// The index entries below it.
    span: IndexSpan,
    /// It is a real directory in the work tree (else only gitlinks are looked for).
    present: bool,
}

/// The colliding paths of a reset to `root`, in git's byte form.
pub(crate) fn collisions<'r>(
    repo: &'r Repository,
    workspace: &Path,
    root: &Tree<'r>,
    index: &IndexFile,
) -> Result<BTreeSet<Vec<u8>>, Stop> {
    let mut found = BTreeSet::new();
    let mut pending = vec![Pending {
        tree: root.clone(),
        dir: Vec::new(),
        span: index.all(),
        present: true,
    }];
    while let Some(Pending {
        tree,
        dir,
        span,
        present,
    }) = pending.pop()
    {
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
            let visit = |present: bool, span: IndexSpan, subtree: Option<Tree<'r>>| {
                subtree.map(|tree| Pending {
                    tree,
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
                    if below.is_empty() {
                        if has_content(&absolute(workspace, &path))? {
                            found.insert(path.clone());
                        }
                    } else {
                        below_a_file(workspace, &path, index, below, &mut found)?;
                    }
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
    }
    Ok(found)
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
    listing.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    Ok(Some(listing))
}

fn lookup(listing: &[(OsString, Kind)], name: &[u8]) -> Option<Kind> {
    listing
        .binary_search_by(|(entry, _)| entry.as_bytes().cmp(name))
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
