//! Versions kept by a hard link whose command may not have replaced the name.
//!
//! A version kept by a hard link shares its inode with the file until the command renames
//! something over the name (`mv h f`). When it does not — `mv -n`, a command that failed or
//! never ran — the file keeps a second name in the store, which programs can see (`gzip f`
//! refuses a file with two links) and which a later in-place write would change. So every
//! such link is noted in `links.pending` before it is made, and the next writer of the store
//! (every compensation, restore and gc reconciles first) settles the notes: a link whose name
//! was replaced is dropped from the list; one whose file is still the same inode is turned
//! into a copy of its own (reflinked where the filesystem can), and the file has one name
//! again.

use std::io::Write as _;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::MetadataExt as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};

use crate::copy::clone_file;
use crate::faults::Faults;
use crate::relocate::partial_sibling;
use agent_guard_fsops as fsops;

/// The list of links to settle, at the store's root.
pub const PENDING_LINKS: &str = "links.pending";

/// Notes that `kept` will be a second name of `origin`; returns the list, for the caller to
/// flush with its other records.
pub(crate) fn note(trash: &Path, origin: &Path, kept: &Path) -> std::io::Result<std::fs::File> {
    let mut line = Vec::new();
    line.extend_from_slice(kept.as_os_str().as_bytes());
    line.push(0);
    line.extend_from_slice(origin.as_os_str().as_bytes());
    line.push(b'\n');
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(trash.join(PENDING_LINKS))?;
    file.write_all(&line)?;
    Ok(file)
}

/// Settles every noted link (see the module docs). Best effort: what cannot be settled now
/// stays noted.
pub(crate) fn settle(trash: &Path) {
    let list = trash.join(PENDING_LINKS);
    let Ok(bytes) = std::fs::read(&list) else {
        return;
    };
    let mut left: Vec<u8> = Vec::new();
    for line in bytes.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        let Some(split) = line.iter().position(|b| *b == 0) else {
            continue;
        };
        let kept = PathBuf::from(std::ffi::OsStr::from_bytes(&line[..split]));
        let origin = PathBuf::from(std::ffi::OsStr::from_bytes(&line[split + 1..]));
        if !settle_one(&kept, &origin) {
            left.extend_from_slice(line);
            left.push(b'\n');
        }
    }
    let _ = if left.is_empty() {
        fsops::remove_file(&list)
    } else if left != bytes {
        fsops::replace_file(&list, &left)
    } else {
        Ok(())
    };
}

/// Returns `true` when `kept` no longer shares its inode with `origin` (or is gone).
fn settle_one(kept: &Path, origin: &Path) -> bool {
    let Ok(meta) = kept.symlink_metadata() else {
        return true;
    };
    let same = origin
        .symlink_metadata()
        .is_ok_and(|o| o.dev() == meta.dev() && o.ino() == meta.ino());
    if !same || meta.nlink() < 2 {
        return true;
    }
    // The name was not replaced: the version becomes a file of its own.
    let partial = partial_sibling(kept);
    let _ = fsops::remove_file(&partial);
    if clone_file(kept, &partial, None, Faults::none()).is_err() {
        let _ = fsops::remove_file(&partial);
        return false;
    }
    let durable = std::fs::File::open(&partial).and_then(|f| f.sync_all());
    if durable.is_err() || fsops::rename(&partial, kept).is_err() {
        let _ = fsops::remove_file(&partial);
        return false;
    }
    kept.parent().is_none_or(|dir| fsops::sync_dir(dir).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file `f` and a second name `kept` for it, noted as pending.
    fn linked() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let origin = dir.path().join("f");
        let kept = dir.path().join("kept");
        std::fs::write(&origin, "f\n").unwrap();
        let _ = note(dir.path(), &origin, &kept).unwrap();
        std::fs::hard_link(&origin, &kept).unwrap();
        (dir, origin, kept)
    }

    #[test]
    fn a_link_whose_name_was_not_replaced_becomes_a_copy() {
        let (dir, origin, kept) = linked();
        settle(dir.path());
        assert_eq!(std::fs::metadata(&origin).unwrap().nlink(), 1);
        assert_eq!(std::fs::read(&kept).unwrap(), b"f\n");
        assert!(!dir.path().join(PENDING_LINKS).exists());
    }

    #[test]
    fn a_replaced_name_leaves_the_link_alone() {
        let (dir, origin, kept) = linked();
        let ino = std::fs::metadata(&kept).unwrap().ino();
        let other = dir.path().join("h");
        std::fs::write(&other, "h\n").unwrap();
        fsops::rename(&other, &origin).unwrap();
        settle(dir.path());
        assert_eq!(std::fs::metadata(&kept).unwrap().ino(), ino);
        assert!(!dir.path().join(PENDING_LINKS).exists());
    }
}
