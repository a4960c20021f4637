//! What an interrupted restore leaves, told apart from the user's files, so that the next
//! restore finishes it instead of reporting it as in the way (issue 34, point 5).
//!
//! Across filesystems an entry goes back as a copy under `.agent-guard-partial-<name>`
//! beside its target, renamed into place once verified; only then is the quarantine's copy
//! removed. A kill at any step leaves one of two things, and the quarantine's copy is whole
//! in both:
//!
//! - a **partial copy** (killed while copying): every entry it holds is in the quarantine's
//!   copy with the same kind, each file's bytes a prefix of the kept file's, each link's
//!   target the same. Such a partial holds nothing that is not kept, so it is removed and the
//!   copy made again. Anything else under that name stays, and is named.
//! - the **restored entry at its target**, with the quarantine's copy (or what is left of
//!   it) still there (killed before or while removing it): an entry at the target that is
//!   the kept one — a file with the same bytes and permission bits, a link with the same
//!   target — is back already; only the quarantine's copy goes.

use std::io::Read as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

/// Whether everything below `partial` is also in `source`, unchanged or cut short (see the
/// module docs). `false` when anything cannot be read.
pub(crate) fn holds_nothing_new(partial: &Path, source: &Path) -> bool {
    let mut stack: Vec<(PathBuf, PathBuf)> = vec![(partial.to_path_buf(), source.to_path_buf())];
    while let Some((left, kept)) = stack.pop() {
        let (Ok(here), Ok(there)) = (left.symlink_metadata(), kept.symlink_metadata()) else {
            return false;
        };
        if here.file_type().is_symlink() {
            if !there.file_type().is_symlink()
                || std::fs::read_link(&left).ok() != std::fs::read_link(&kept).ok()
            {
                return false;
            }
        } else if here.is_dir() {
            if !there.is_dir() {
                return false;
            }
            let Ok(entries) = std::fs::read_dir(&left) else {
                return false;
            };
            for entry in entries {
                let Ok(entry) = entry else {
                    return false;
                };
                let name = entry.file_name();
                stack.push((left.join(&name), kept.join(&name)));
            }
        } else if !(here.is_file()
            && there.is_file()
            && here.len() <= there.len()
            && prefix_of(&left, &kept))
        {
            return false;
        }
    }
    true
}

/// Whether `target` is the kept entry `source` already: a file with the same bytes and
/// permission bits, or a link with the same target.
pub(crate) fn is_back(source: &Path, target: &Path) -> bool {
    let (Ok(kept), Ok(there)) = (source.symlink_metadata(), target.symlink_metadata()) else {
        return false;
    };
    if kept.file_type().is_symlink() {
        return there.file_type().is_symlink()
            && std::fs::read_link(source).ok() == std::fs::read_link(target).ok();
    }
    kept.is_file()
        && there.is_file()
        && kept.len() == there.len()
        && kept.mode() & 0o7777 == there.mode() & 0o7777
        && prefix_of(target, source)
}

/// Whether the bytes of the file `short` are the first bytes of the file `long`.
fn prefix_of(short: &Path, long: &Path) -> bool {
    let (Ok(mut a), Ok(mut b)) = (std::fs::File::open(short), std::fs::File::open(long)) else {
        return false;
    };
    let mut left = vec![0_u8; 64 * 1024];
    let mut right = vec![0_u8; 64 * 1024];
    loop {
        let n = match a.read(&mut left) {
            Ok(0) => return true,
            Ok(n) => n,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return false,
        };
        if b.read_exact(&mut right[..n]).is_err() || left[..n] != right[..n] {
            return false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_guard_fsops as fsops;

    #[test]
    fn a_cut_copy_holds_nothing_new_and_anything_else_does() {
        let dir = tempfile::tempdir().unwrap();
        let kept = dir.path().join("kept");
        let partial = dir.path().join("partial");
        std::fs::create_dir_all(kept.join("d")).unwrap();
        std::fs::write(kept.join("d/a"), "abcdef").unwrap();
        std::fs::write(kept.join("b"), "xyz").unwrap();
        std::os::unix::fs::symlink("b", kept.join("l")).unwrap();
        std::fs::create_dir_all(partial.join("d")).unwrap();
        std::fs::write(partial.join("d/a"), "abc").unwrap();
        std::os::unix::fs::symlink("b", partial.join("l")).unwrap();
        assert!(holds_nothing_new(&partial, &kept));
        // A byte that is not the kept one's.
        std::fs::write(partial.join("d/a"), "abX").unwrap();
        assert!(!holds_nothing_new(&partial, &kept));
        std::fs::write(partial.join("d/a"), "abc").unwrap();
        // A name the kept copy does not have.
        std::fs::write(partial.join("new"), "").unwrap();
        assert!(!holds_nothing_new(&partial, &kept));
        fsops::remove_file(&partial.join("new")).unwrap();
        // Longer than the kept file.
        std::fs::write(partial.join("b"), "xyzz").unwrap();
        assert!(!holds_nothing_new(&partial, &kept));
        fsops::remove_file(&partial.join("b")).unwrap();
        // Another link target.
        fsops::remove_file(&partial.join("l")).unwrap();
        std::os::unix::fs::symlink("elsewhere", partial.join("l")).unwrap();
        assert!(!holds_nothing_new(&partial, &kept));
    }

    #[test]
    fn an_entry_is_back_only_with_its_bytes_and_bits() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let (kept, target) = (dir.path().join("kept"), dir.path().join("target"));
        std::fs::write(&kept, "abc").unwrap();
        std::fs::write(&target, "abc").unwrap();
        std::fs::set_permissions(&kept, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert!(is_back(&kept, &target));
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(!is_back(&kept, &target));
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::fs::write(&target, "ab").unwrap();
        assert!(!is_back(&kept, &target));
    }
}
