//! Hashing the tracked files of a work tree into trees, without touching the user's index.
//!
//! This is what `git stash create` records: the index's tree, and the tree of the tracked
//! files as they are in the work tree. The work-tree tree is derived from the index's tree
//! by updating only the paths that changed (`git_tree_create_updated`), so the user's index
//! file is never rewritten or locked (a `.git/index.lock` left by another process does not
//! get in the way). Files whose stat data still matches their index entry are not read: the
//! cost is dominated by one `lstat` per tracked file, done in parallel.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::MetadataExt as _;

use git2::build::TreeUpdateBuilder;
use git2::{Delta, FileMode, IndexEntry, ObjectType, Odb, Oid, Tree};

use crate::WorkTree;
use crate::error::GitError;
use crate::scan::{
    Lstat, MODE_EXECUTABLE, MODE_GITLINK, MODE_SYMLINK, Seen, Settings, read_content, scan,
    worktree_mode,
};

/// The two trees of a snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Captured {
    /// The index's tree.
    pub(crate) index_tree: Oid,
    /// The tracked files as they are in the work tree.
    pub(crate) worktree_tree: Oid,
}

/// Hashes the index and the tracked work-tree files into trees (objects are written; no
/// other file of the repository is).
pub(crate) fn capture(tree: &WorkTree, head_tree: &Tree<'_>) -> Result<Captured, GitError> {
    let repo = &tree.repo;
    let mut index = repo.index().map_err(tree.error("read the index"))?;
    if index.has_conflicts() {
        return Err(GitError::UnmergedIndex {
            path: tree.root.clone(),
        });
    }
    let index_tree_id = index
        .write_tree()
        .map_err(tree.error("write the index tree"))?;
    let index_tree = repo
        .find_tree(index_tree_id)
        .map_err(tree.error("read the index tree"))?;
    let entries: Vec<IndexEntry> = index
        .iter()
        .filter(|e| e.mode != MODE_GITLINK && e.flags & 0x3000 == 0)
        .collect();
    let settings = settings(tree, &entries);
    let seen = scan(&tree.root, repo.path(), &entries, settings)?;

    let odb = repo.odb().map_err(tree.error("open the object database"))?;
    let mut updates = TreeUpdateBuilder::new();
    let mut changed = false;
    for (entry, seen) in entries.iter().zip(seen) {
        match seen {
            Seen::Unchanged => {}
            Seen::Removed => {
                updates.remove(entry.path.as_slice());
                changed = true;
            }
            Seen::Changed { mode, id } => {
                let id = match id {
                    Some(id) => id,
                    // Clean filters may apply (attributes, `core.autocrlf`): libgit2 runs them.
                    None => repo
                        .blob_path(&tree.path_of(&entry.path))
                        .map_err(tree.error("store a work-tree file"))?,
                };
                if id != entry.id || mode != entry.mode {
                    updates.upsert(entry.path.as_slice(), id, file_mode(mode));
                    changed = true;
                }
            }
        }
    }
    changed |=
        add_unindexed_head_paths(tree, &odb, head_tree, &index_tree, &mut updates, settings)?;
    let worktree_tree = if changed {
        updates
            .create_updated(repo, &index_tree)
            .map_err(tree.error("write the work-tree tree"))?
    } else {
        index_tree_id
    };
    Ok(Captured {
        index_tree: index_tree_id,
        worktree_tree,
    })
}

/// Paths in `HEAD` but not in the index (`git rm --cached`) that still exist in the work
/// tree: `git stash create` records them (it updates every path `git diff HEAD` names).
fn add_unindexed_head_paths(
    tree: &WorkTree,
    odb: &Odb<'_>,
    head_tree: &Tree<'_>,
    index_tree: &Tree<'_>,
    updates: &mut TreeUpdateBuilder,
    settings: Settings,
) -> Result<bool, GitError> {
    if head_tree.id() == index_tree.id() {
        return Ok(false);
    }
    let diff = tree
        .repo
        .diff_tree_to_tree(Some(head_tree), Some(index_tree), None)
        .map_err(tree.error("compare HEAD with the index"))?;
    let mut changed = false;
    for delta in diff.deltas().filter(|d| d.status() == Delta::Deleted) {
        let file = delta.old_file();
        let Some(relative) = file.path_bytes() else {
            continue;
        };
        let head_mode = u32::from(file.mode());
        if head_mode == MODE_GITLINK {
            continue;
        }
        let path = tree.path_of(relative);
        let Ok(metadata) = fs_err::symlink_metadata(&path) else {
            continue;
        };
        if metadata.is_dir() {
            continue;
        }
        let mode = worktree_mode(&Lstat::of(&metadata), head_mode, settings);
        let id = if settings.plain || metadata.file_type().is_symlink() {
            let content =
                read_content(&path, metadata.file_type().is_symlink()).map_err(|source| {
                    GitError::GitWorktree {
                        action: "hash",
                        path: path.clone(),
                        source,
                    }
                })?;
            odb.write(ObjectType::Blob, &content)
                .map_err(tree.error("store a work-tree file"))?
        } else {
            tree.repo
                .blob_path(&path)
                .map_err(tree.error("store a work-tree file"))?
        };
        updates.upsert(relative, id, file_mode(mode));
        changed = true;
    }
    Ok(changed)
}

fn file_mode(mode: u32) -> FileMode {
    match mode {
        MODE_EXECUTABLE => FileMode::BlobExecutable,
        MODE_SYMLINK => FileMode::Link,
        _ => FileMode::Blob,
    }
}

fn settings(tree: &WorkTree, entries: &[IndexEntry]) -> Settings {
    let config = tree.repo.config().ok();
    let flag = |name: &str| {
        config
            .as_ref()
            .and_then(|c| c.get_bool(name).ok())
            .unwrap_or(true)
    };
    let racy_limit = fs_err::metadata(tree.repo.path().join("index"))
        .ok()
        .map(|m| (m.mtime(), m.mtime_nsec()));
    Settings {
        filemode: flag("core.filemode"),
        symlinks: flag("core.symlinks"),
        plain: !filters_possible(tree, entries),
        racy_limit,
    }
}

/// Returns `true` if a clean filter might change what git stores for a file: end-of-line
/// conversion by `core.autocrlf`, or any attributes file (which may set `text`, `eol`,
/// `filter`, `ident` or `working-tree-encoding`). Conservative: then libgit2 runs its
/// filters for every changed file.
fn filters_possible(tree: &WorkTree, entries: &[IndexEntry]) -> bool {
    let config = tree.repo.config().ok();
    let autocrlf = config
        .as_ref()
        .and_then(|c| c.get_string("core.autocrlf").ok())
        .is_some_and(|v| !v.eq_ignore_ascii_case("false"));
    let attributes_file = config
        .as_ref()
        .and_then(|c| c.get_path("core.attributesFile").ok())
        .or_else(|| tree.user_file("attributes"));
    if autocrlf
        || tree
            .repo
            .commondir()
            .join("info")
            .join("attributes")
            .exists()
        || attributes_file.is_some_and(|f| f.exists())
    {
        return true;
    }
    let mut directories: HashSet<&[u8]> = HashSet::from([&b""[..]]);
    for entry in entries {
        let path = entry.path.as_slice();
        if path == b".gitattributes" || path.ends_with(b"/.gitattributes") {
            return true;
        }
        let mut end = path.len();
        while let Some(slash) = path[..end].iter().rposition(|b| *b == b'/') {
            if !directories.insert(&path[..slash]) {
                break;
            }
            end = slash;
        }
    }
    directories.into_iter().any(|directory| {
        tree.root
            .join(OsStr::from_bytes(directory))
            .join(".gitattributes")
            .exists()
    })
}
