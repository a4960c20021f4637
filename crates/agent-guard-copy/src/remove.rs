//! Removing a verified source, and discarding a failed copy.

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

use super::walk::{self, Kind, Specials, under};
use super::{CopyError, io_error};
use crate::faults::{FaultPoint, Faults};
use agent_guard_fsops as fsops;

/// Removes `src` (file, symlink or whole tree, never following symlinks) after a verified
/// copy. On failure it stops and reports the error; what was not yet removed stays.
///
/// Entries go bottom-up, one `unlink`/`rmdir` each, so the error names the exact path that
/// could not be removed; the parent of `src` is `fsync`ed at the end.
pub fn remove_source(src: &Path, faults: Faults) -> Result<(), CopyError> {
    let nodes = walk::walk(src, Specials::Allow)?;
    let total = nodes.len();
    if total == 1 {
        faults.hit(FaultPoint::DuringRemoval);
    }
    for (removed, node) in nodes.iter().rev().enumerate() {
        let path = under(src, &node.rel);
        let result = match node.kind {
            Kind::Dir => fsops::remove_dir(&path),
            Kind::File | Kind::Symlink | Kind::Special(_) => fsops::remove_file(&path),
        };
        result.map_err(|e| io_error(&path, e))?;
        if total > 1 && removed + 1 == total / 2 {
            faults.hit(FaultPoint::DuringRemoval);
        }
    }
    let parent = match src.parent() {
        Some(parent) if parent.as_os_str().is_empty() => Path::new("."),
        Some(parent) => parent,
        None => return Ok(()),
    };
    fsops::sync_dir(parent).map_err(|e| io_error(parent, e))
}

/// Removes the source of a verified cross-device move, but only what the copy holds
/// unchanged: an entry created or modified in `src` after the copy was taken (same relative
/// path absent in `copy`, or a different kind, size or mtime) is left in place, so its parent
/// directory cannot be removed either and the move is reported incomplete — with both halves
/// kept. A concurrent writer can therefore never lose data to the removal.
pub fn remove_copied_source(src: &Path, copy: &Path, faults: Faults) -> Result<(), CopyError> {
    let nodes = walk::walk(src, Specials::Allow)?;
    let copied = walk::walk(copy, Specials::Allow)?;
    let copied: std::collections::HashMap<&std::path::Path, &walk::Node> =
        copied.iter().map(|n| (n.rel.as_path(), n)).collect();
    let total = nodes.len();
    if total == 1 {
        faults.hit(FaultPoint::DuringRemoval);
    }
    let mut kept: Option<std::path::PathBuf> = None;
    for (removed, node) in nodes.iter().rev().enumerate() {
        let path = under(src, &node.rel);
        let same = copied.get(node.rel.as_path()).is_some_and(|c| {
            c.kind == node.kind
                && (node.kind == Kind::Dir
                    || (c.meta.size == node.meta.size && c.meta.mtime == node.meta.mtime))
        });
        if !same {
            kept.get_or_insert(path);
            continue;
        }
        let result = match node.kind {
            Kind::Dir => fsops::remove_dir(&path),
            Kind::File | Kind::Symlink | Kind::Special(_) => fsops::remove_file(&path),
        };
        if let Err(error) = result {
            if node.kind == Kind::Dir && kept.is_some() {
                // Not empty: it holds an entry we keep.
                continue;
            }
            return Err(io_error(&path, error));
        }
        if total > 1 && removed + 1 == total / 2 {
            faults.hit(FaultPoint::DuringRemoval);
        }
    }
    if let Some(path) = kept {
        return Err(io_error(
            &path,
            std::io::Error::other("changed after it was copied; kept in place"),
        ));
    }
    let parent = match src.parent() {
        Some(parent) if parent.as_os_str().is_empty() => Path::new("."),
        Some(parent) => parent,
        None => return Ok(()),
    };
    fsops::sync_dir(parent).map_err(|e| io_error(parent, e))
}

/// Removes the partial destination of a failed copy, best-effort: it is our own copy, and the
/// error that made it useless is what the caller reports.
///
/// Directories already given a read-only mode are made writable first, so that the removal
/// also works for users without `CAP_DAC_OVERRIDE`.
pub(super) fn discard(dst: &Path) {
    let Ok(metadata) = dst.symlink_metadata() else {
        return;
    };
    if metadata.is_dir() {
        make_writable(dst);
        let _ = fsops::remove_tree(dst);
    } else {
        let _ = fsops::remove_file(dst);
    }
}

/// Gives the owner full access to `dir` and every directory below it (never following a
/// symlink).
fn make_writable(dir: &Path) {
    let Ok(metadata) = dir.symlink_metadata() else {
        return;
    };
    if !metadata.is_dir() {
        return;
    }
    let mode = metadata.permissions().mode();
    if mode & 0o700 != 0o700 {
        let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode | 0o700));
    }
    let Ok(children) = std::fs::read_dir(dir) else {
        return;
    };
    for child in children.flatten() {
        if child.file_type().is_ok_and(|kind| kind.is_dir()) {
            make_writable(&child.path());
        }
    }
}
