//! The low-level moves of a restore: one no-replace rename, or across filesystems a verified
//! copy renamed into place, and the creation of missing parents.

use std::path::Path;

use crate::copy::{Progress, copy_verified, remove_source};
use crate::faults::{FaultPoint, Faults};
use crate::relocate::partial_sibling;
use crate::restore::leftover::holds_nothing_new;
use agent_guard_fsops as fsops;

/// The result of moving one quarantined entry to a free target.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Transfer {
    /// It is at the target and gone from the quarantine.
    Moved,
    /// It is at the target, but its quarantine copy could not be removed (cross-device).
    MovedWithLeftover(String),
    /// The target became occupied meanwhile; nothing changed.
    Occupied,
    /// It could not be moved; nothing changed.
    Failed(String),
}

/// Moves `source` to `target` without ever replacing anything at `target`. Across
/// filesystems the entry is copied under a temporary sibling name, verified, renamed into
/// place (again without replacing) and only then removed from the quarantine.
pub(crate) fn transfer(
    source: &Path,
    target: &Path,
    progress: &dyn Progress,
    faults: Faults,
) -> Transfer {
    match fsops::rename_noreplace(source, target) {
        Ok(()) => Transfer::Moved,
        Err(error) if is_occupied(&error) => Transfer::Occupied,
        Err(error) if fsops::is_cross_device(&error) => copy_back(source, target, progress, faults),
        Err(error) => Transfer::Failed(format!("could not restore {}: {error}", target.display())),
    }
}

fn copy_back(source: &Path, target: &Path, progress: &dyn Progress, faults: Faults) -> Transfer {
    let partial = partial_sibling(target);
    if partial.symlink_metadata().is_ok() {
        // Left by an interrupted restore when it holds nothing the quarantine's copy does
        // not: made again. Anything else sits among the user's files: never removed, named.
        if holds_nothing_new(&partial, source) && remove_any(&partial).is_ok() {
            return copy_back(source, target, progress, faults);
        }
        return Transfer::Failed(format!(
            "could not restore {}: {} is in the way",
            target.display(),
            partial.display()
        ));
    }
    if let Err(error) = copy_verified(source, &partial, progress, faults) {
        return Transfer::Failed(format!(
            "could not restore {}: {}",
            target.display(),
            chain(&error)
        ));
    }
    if let Err(error) = fsops::rename_noreplace(&partial, target) {
        // Our own verified copy; the quarantine copy is intact.
        let _ = remove_any(&partial);
        if is_occupied(&error) {
            return Transfer::Occupied;
        }
        return Transfer::Failed(format!("could not restore {}: {error}", target.display()));
    }
    faults.hit(FaultPoint::RestoreAfterCopyBack);
    match remove_source(source, faults) {
        Ok(()) => Transfer::Moved,
        Err(error) => Transfer::MovedWithLeftover(format!(
            "restored {} but its quarantine copy could not be removed: {}",
            target.display(),
            chain(&error)
        )),
    }
}

pub(crate) use agent_guard_types::error_chain as chain;

/// Returns `true` if a no-replace rename failed because the target exists.
fn is_occupied(error: &std::io::Error) -> bool {
    error.kind() == std::io::ErrorKind::AlreadyExists
        || error.kind() == std::io::ErrorKind::DirectoryNotEmpty
}

/// Creates the missing parents of the physical `target`, one directory at a time, below
/// `base`. Each one must end up a real directory (not a link someone slipped in).
pub(crate) fn create_parents(target: &Path, base: &Path) -> std::io::Result<()> {
    let mut missing = Vec::new();
    let mut current = target.parent();
    while let Some(dir) = current {
        if dir.symlink_metadata().is_ok() || !dir.starts_with(base) {
            break;
        }
        missing.push(dir);
        current = dir.parent();
    }
    for dir in missing.into_iter().rev() {
        match fs_err::create_dir(dir) {
            Ok(()) => {}
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(error) => return Err(error),
        }
        if !dir.symlink_metadata()?.is_dir() {
            return Err(std::io::Error::other(format!(
                "{} is not a directory",
                dir.display()
            )));
        }
    }
    Ok(())
}

/// Removes our own temporary copy (a file, a link or a tree).
pub(crate) fn remove_any(path: &Path) -> std::io::Result<()> {
    if path.symlink_metadata()?.is_dir() {
        fsops::remove_tree(path)
    } else {
        fsops::remove_file(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::copy::NoProgress;

    #[test]
    fn a_transfer_never_replaces_and_creates_parents_below_the_base() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path();
        fs_err::write(base.join("a"), "a").unwrap();
        fs_err::write(base.join("b"), "b").unwrap();
        assert_eq!(
            transfer(
                &base.join("a"),
                &base.join("b"),
                &NoProgress,
                Faults::none()
            ),
            Transfer::Occupied
        );
        assert_eq!(fs_err::read_to_string(base.join("b")).unwrap(), "b");
        let deep = base.join("x/y/a");
        create_parents(&deep, base).unwrap();
        assert_eq!(
            transfer(&base.join("a"), &deep, &NoProgress, Faults::none()),
            Transfer::Moved
        );
        assert_eq!(fs_err::read_to_string(&deep).unwrap(), "a");
        let missing = transfer(
            &base.join("gone"),
            &base.join("c"),
            &NoProgress,
            Faults::none(),
        );
        assert!(matches!(missing, Transfer::Failed(_)), "{missing:?}");
        std::os::unix::fs::symlink(base.join("nowhere"), base.join("link")).unwrap();
        assert!(create_parents(&base.join("link/z/f"), base).is_err());
    }
}
