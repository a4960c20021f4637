//! What `git clean` does with a directory it removes (`remove_dirs`): everything inside
//! goes, except nested repositories and mount points; a directory that keeps something is
//! not removed, and its removable contents are reported one by one instead.

use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

use crate::repo_dir::is_nonbare_repository_dir;

/// A directory's identity (device and inode).
pub(crate) type Identity = (u64, u64);

/// Expands removed directories into what `git clean -n` reports.
#[derive(Debug)]
pub(crate) struct Expander {
    /// The directory git runs in: git refuses to remove it.
    pub(crate) cwd: Option<Identity>,
    /// The quarantine: never reported, like a nested repository.
    pub(crate) trash: Option<Identity>,
}

impl Expander {
    /// Appends what removing `dir` reports: `dir` itself if it would be removed entirely,
    /// else its removable contents.
    pub(crate) fn expand(&self, dir: &Path, out: &mut Vec<PathBuf>) {
        if self.remove_dir(dir, out) {
            out.push(dir.to_path_buf());
        }
    }

    /// Returns `true` if `dir` would be gone; otherwise appends its removable contents.
    fn remove_dir(&self, dir: &Path, out: &mut Vec<PathBuf>) -> bool {
        let Ok(metadata) = fs_err::symlink_metadata(dir) else {
            return false;
        };
        let identity = (metadata.dev(), metadata.ino());
        if self.trash == Some(identity)
            || is_nonbare_repository_dir(dir)
            || is_mount_point(dir, metadata.dev())
        {
            return false;
        }
        let Ok(listing) = fs_err::read_dir(dir) else {
            // An unreadable directory can still be removed if it is empty.
            return true;
        };
        let mut gone = true;
        let mut removed = Vec::new();
        for entry in listing {
            let Ok(entry) = entry else { break };
            let path = entry.path();
            match fs_err::symlink_metadata(&path) {
                Ok(child) if child.is_dir() => {
                    if self.remove_dir(&path, out) {
                        removed.push(path);
                    } else {
                        gone = false;
                    }
                }
                Ok(_) => removed.push(path),
                Err(_) => {
                    gone = false;
                    break;
                }
            }
        }
        if gone && self.cwd == Some(identity) {
            gone = false;
        }
        if !gone {
            out.extend(removed);
        }
        gone
    }
}

/// Git's `is_mount_point_via_stat`: the parent is on another device.
fn is_mount_point(dir: &Path, device: u64) -> bool {
    fs_err::symlink_metadata(dir.join("..")).is_ok_and(|parent| parent.dev() != device)
}
