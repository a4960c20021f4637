//! Writing one snapshot path back into the work tree, only where that destroys nothing.

use std::ffi::{OsStr, OsString};
use std::io::Write as _;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use fs_err::os::unix::fs::OpenOptionsExt as _;
use git2::{ObjectType, Oid};

use crate::WorkTree;
use crate::error::GitError;
use agent_guard_fsops as fsops;

const MODE_EXECUTABLE: u32 = 0o100_755;
const MODE_FILE: u32 = 0o100_644;
const MODE_SYMLINK: u32 = 0o120_000;
const MODE_GITLINK: u32 = 0o160_000;

/// One path that differs between a snapshot and its base.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Change {
    /// Repository-relative path.
    pub(crate) path: Vec<u8>,
    /// Mode and blob in the base (`HEAD` when the snapshot was taken), if present.
    pub(crate) base: Option<(u32, Oid)>,
    /// Mode and blob in the snapshot's index commit, if present.
    pub(crate) index: Option<(u32, Oid)>,
    /// Mode and blob in the snapshot, if present.
    pub(crate) target: Option<(u32, Oid)>,
    /// Other versions the path may hold and still be overwritten, because git keeps them:
    /// the current `HEAD` and index entries, and the version of the revision the command
    /// wrote (`reset --hard REV`, `restore --source=REV`).
    pub(crate) also: Vec<(u32, Oid)>,
}

/// What applying one change did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// The snapshot's version was written (or the path deleted).
    Written,
    /// The path already held the snapshot's version.
    AlreadyThere,
    /// The path holds something else; it was left alone.
    Conflict,
}

/// What a work-tree path holds now.
#[derive(Debug)]
enum State {
    /// Nothing (possibly not even its parent directory).
    Absent,
    /// An ancestor is a file or a symlink: nothing can be written there without removing it.
    Blocked,
    /// A regular file.
    File { executable: bool },
    /// A symbolic link.
    Link,
    /// A directory.
    Directory,
    /// A FIFO, socket or device.
    Other,
}

/// Returns `true` if the path holds one of `versions`.
fn holds_any(
    tree: &WorkTree,
    path: &Path,
    state: &State,
    versions: &[(u32, Oid)],
    filemode: bool,
) -> Result<bool, GitError> {
    for version in versions {
        if holds(tree, path, state, Some(*version), filemode)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Applies one change: keep when the path holds the snapshot's version; write when it holds
/// nothing, the base version or the snapshot's index version (both are kept in the
/// snapshot's commits, so nothing is lost); report a conflict otherwise.
pub(crate) fn apply_change(
    tree: &WorkTree,
    change: &Change,
    filemode: bool,
) -> Result<Outcome, GitError> {
    let gitlink = |entry: Option<(u32, Oid)>| entry.is_some_and(|(mode, _)| mode == MODE_GITLINK);
    if gitlink(change.base) || gitlink(change.index) || gitlink(change.target) {
        // Submodule commits are not work-tree content this restore can write.
        return Ok(Outcome::AlreadyThere);
    }
    let path = tree.path_of(&change.path);
    let state = state(tree, &change.path)?;
    if holds(tree, &path, &state, change.target, filemode)? {
        return Ok(Outcome::AlreadyThere);
    }
    let absent = matches!(state, State::Absent);
    if !absent
        && !holds(tree, &path, &state, change.base, filemode)?
        && !holds(tree, &path, &state, change.index, filemode)?
        && !holds_any(tree, &path, &state, &change.also, filemode)?
    {
        return Ok(Outcome::Conflict);
    }
    let io = |action: &'static str| {
        let path = path.clone();
        move |source| GitError::GitWorktree {
            action,
            path,
            source,
        }
    };
    match change.target {
        None => {
            fsops::remove_file(&path).map_err(io("remove"))?;
            prune_empty_parents(&tree.root, &path);
        }
        Some((mode, id)) => {
            let blob = tree
                .repo
                .find_blob(id)
                .map_err(tree.error("read a snapshot blob"))?;
            if let Some(parent) = path.parent() {
                fs_err::create_dir_all(parent).map_err(io("create the parent of"))?;
            }
            let temporary = temporary_sibling(&path);
            write_entry(&temporary, mode, blob.content()).map_err(io("write"))?;
            let placed = if absent {
                fsops::rename_noreplace(&temporary, &path)
            } else {
                fsops::rename(&temporary, &path)
            };
            if let Err(error) = placed {
                let _ = fsops::remove_file(&temporary);
                if absent && error.kind() == std::io::ErrorKind::AlreadyExists {
                    // Something appeared meanwhile: never overwrite it.
                    return Ok(Outcome::Conflict);
                }
                return Err(io("write")(error));
            }
        }
    }
    Ok(Outcome::Written)
}

/// What the work tree holds at `relative`, not looking through symlinked directories.
fn state(tree: &WorkTree, relative: &[u8]) -> Result<State, GitError> {
    let mut current = tree.root.clone();
    let mut parts = relative.split(|b| *b == b'/').peekable();
    while let Some(part) = parts.next() {
        current.push(OsStr::from_bytes(part));
        let metadata = match fs_err::symlink_metadata(&current) {
            Ok(metadata) => metadata,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(State::Absent),
            Err(source) => {
                return Err(GitError::GitWorktree {
                    action: "inspect",
                    path: current,
                    source,
                });
            }
        };
        let file_type = metadata.file_type();
        if parts.peek().is_some() {
            if !file_type.is_dir() {
                return Ok(State::Blocked);
            }
            continue;
        }
        return Ok(if file_type.is_symlink() {
            State::Link
        } else if file_type.is_file() {
            State::File {
                executable: metadata.mode() & 0o100 != 0,
            }
        } else if file_type.is_dir() {
            State::Directory
        } else {
            State::Other
        });
    }
    Ok(State::Absent)
}

/// Returns `true` if `state` at `path` is the tree entry `entry` (`None`: no file there).
fn holds(
    tree: &WorkTree,
    path: &Path,
    state: &State,
    entry: Option<(u32, Oid)>,
    filemode: bool,
) -> Result<bool, GitError> {
    let Some((mode, id)) = entry else {
        // A directory or a blocked path holds no file, and is never deleted.
        return Ok(matches!(
            state,
            State::Absent | State::Blocked | State::Directory
        ));
    };
    let io = |source| GitError::GitWorktree {
        action: "read",
        path: path.to_path_buf(),
        source,
    };
    match state {
        State::Link if mode == MODE_SYMLINK => {
            let target = fs_err::read_link(path).map_err(io)?;
            let id_now = Oid::hash_object(ObjectType::Blob, target.as_os_str().as_bytes())
                .map_err(tree.error("hash a symlink"))?;
            Ok(id_now == id)
        }
        State::File { executable } if mode == MODE_FILE || mode == MODE_EXECUTABLE => {
            if filemode && *executable != (mode == MODE_EXECUTABLE) {
                return Ok(false);
            }
            let raw = Oid::hash_file(ObjectType::Blob, path)
                .map_err(tree.error("hash a work-tree file"))?;
            if raw == id {
                return Ok(true);
            }
            // Clean filters (end-of-line conversion, filter drivers) may make different
            // bytes the same content for git.
            let filtered = tree
                .repo
                .blob_path(path)
                .map_err(tree.error("hash a work-tree file"))?;
            Ok(filtered == id)
        }
        _ => Ok(false),
    }
}

/// Creates `temporary` as the entry: a symlink, or a file with git's permissions (the
/// umask applies, as for git's checkout). Smudge filters are not applied.
fn write_entry(temporary: &Path, mode: u32, content: &[u8]) -> std::io::Result<()> {
    if mode == MODE_SYMLINK {
        return fs_err::os::unix::fs::symlink(OsStr::from_bytes(content), temporary);
    }
    let permissions = if mode == MODE_EXECUTABLE {
        0o777
    } else {
        0o666
    };
    let mut file = fs_err::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(permissions)
        .open(temporary)?;
    let written = file.write_all(content);
    drop(file);
    if written.is_err() {
        let _ = fsops::remove_file(temporary);
    }
    written
}

/// A fresh hidden sibling name for writing `path` atomically.
fn temporary_sibling(path: &Path) -> PathBuf {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let mut name = OsString::from(".");
    name.push(path.file_name().unwrap_or_default());
    name.push(format!(
        ".agent-guard-restore.{}.{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    path.with_file_name(name)
}

/// Removes the directories a deletion left empty, up to (not including) the root.
fn prune_empty_parents(root: &Path, path: &Path) {
    let mut current = path.parent();
    while let Some(dir) = current {
        if dir == root || !dir.starts_with(root) || fsops::remove_dir(dir).is_err() {
            break;
        }
        current = dir.parent();
    }
}
