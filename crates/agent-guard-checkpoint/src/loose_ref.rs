//! The store's checkpoint refs as loose ref files, written the way git writes one: the id
//! into `<ref>.lock` (which git and libgit2 skip when listing refs), then hard-linked into
//! place, which never replaces an existing ref, then the lock removed. No libgit2 handle
//! is opened for it: a checkpoint of an unchanged workspace opens none at all.
//!
//! The ref is not flushed: the journal records the checkpoint's commit, and gc keeps what a
//! recorded commit reaches even when its ref was lost in a crash.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use git2::Oid;

/// Whether `dir` holds a bare repository (the store), as libgit2 would find it.
pub(super) fn is_store(dir: &Path) -> bool {
    dir.join("HEAD").is_file() && dir.join("objects").is_dir() && dir.join("refs").is_dir()
}

/// Writes the loose ref at `path` naming `id`; `AlreadyExists` when a ref is there.
pub(super) fn write_loose(path: &Path, id: Oid) -> std::io::Result<()> {
    // No check first: the hard link fails with `AlreadyExists` when a ref is there.
    if let Some(parent) = path.parent() {
        fs_err::create_dir_all(parent)?;
    }
    let mut lock = path.as_os_str().to_owned();
    lock.push(".lock");
    let lock = PathBuf::from(lock);
    // Under the store's lock no other writer runs: a lock file left is a crash's, stale.
    let _ = agent_guard_fsops::remove_file(&lock);
    let written = fs_err::File::create_new(&lock)
        .and_then(|mut file| file.write_all(format!("{id}\n").as_bytes()))
        .and_then(|()| fs_err::hard_link(&lock, path));
    let _ = agent_guard_fsops::remove_file(&lock);
    written
}

/// The id the loose ref at `path` names, if it can be read.
pub(super) fn read_loose(path: &Path) -> Option<Oid> {
    let text = fs_err::read_to_string(path).ok()?;
    Oid::from_str(text.trim()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// libgit2 and the `git` CLI read the ref; an existing ref is never replaced; a stale
    /// lock file does not stop a write.
    #[test]
    fn writes_a_ref_git_reads_and_never_replaces_one() {
        let dir = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init_bare(dir.path()).unwrap();
        assert!(is_store(dir.path()));
        assert!(!is_store(&dir.path().join("refs")));
        let blob = repo.blob(b"x").unwrap();
        let other = repo.blob(b"y").unwrap();
        let path = dir.path().join("refs/checkpoints/tx1");
        fs_err::create_dir_all(path.parent().unwrap()).unwrap();
        fs_err::write(dir.path().join("refs/checkpoints/tx1.lock"), "").unwrap();
        write_loose(&path, blob).unwrap();
        assert!(!dir.path().join("refs/checkpoints/tx1.lock").exists());
        assert_eq!(
            repo.find_reference("refs/checkpoints/tx1")
                .unwrap()
                .target(),
            Some(blob)
        );
        let shown = std::process::Command::new("git")
            .arg("--git-dir")
            .arg(dir.path())
            .args(["rev-parse", "refs/checkpoints/tx1"])
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&shown.stdout).trim(),
            blob.to_string()
        );
        let again = write_loose(&path, other).unwrap_err();
        assert_eq!(again.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(read_loose(&path), Some(blob));
    }
}
