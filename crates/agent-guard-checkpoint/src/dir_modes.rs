//! Directories' permission bits: what a checkpoint recorded (`meta`'s `p` records, every
//! directory not `0755`), which of them differ now, and giving a directory its bits back
//! without following a symlink anywhere on the way (`chmod 700 private`, or a private
//! directory deleted and recreated by the restore with the default bits).

use std::collections::HashSet;
use std::ffi::OsStr;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt as _;
use std::path::Path;

use rustix::fs::{Mode, OFlags};

use super::CheckpointStore;
use super::meta::Meta;
use super::walk::USUAL_DIR_MODE;
use agent_guard_git::GitError;

/// A directory of a checkpoint whose permission bits differ now, or which is missing (the
/// restore creates it, then gives it its bits).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirMode {
    /// Workspace-relative, `/`-separated bytes.
    pub path: Vec<u8>,
    /// Its bits in the checkpoint.
    pub bits: u32,
    /// Its bits now; `None` when it is missing.
    pub now: Option<u32>,
}

/// The directories of `directories` (in scope) whose bits differ from what `meta` recorded,
/// deepest first (a parent made private last). Nothing for a checkpoint that recorded no
/// directory bits.
pub(crate) fn changed(
    workspace: &Path,
    meta: &Meta,
    directories: &HashSet<Vec<u8>>,
    in_scope: &dyn Fn(&[u8]) -> bool,
) -> Vec<DirMode> {
    if !meta.dir_modes_recorded {
        return Vec::new();
    }
    let mut changed: Vec<DirMode> = directories
        .iter()
        .filter(|dir| !dir.is_empty() && in_scope(dir))
        .filter_map(|dir| {
            let bits = meta.dir_modes.get(dir).copied().unwrap_or(USUAL_DIR_MODE);
            let now = match workspace.join(OsStr::from_bytes(dir)).symlink_metadata() {
                Ok(m) if m.is_dir() => {
                    Some(std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o7777)
                }
                // A file or a link in its place: the files' restore reports it.
                Ok(_) => return None,
                Err(_) => None,
            };
            (now != Some(bits)).then(|| DirMode {
                path: dir.clone(),
                bits,
                now,
            })
        })
        .collect();
    changed.sort_by(|a, b| b.path.len().cmp(&a.path.len()).then(a.path.cmp(&b.path)));
    changed
}

impl CheckpointStore {
    /// Gives directory `mode.path` its checkpointed bits; `false` when it is not a real
    /// directory reached through real directories (left alone).
    ///
    /// # Errors
    /// The bits cannot be set.
    pub fn restore_dir_mode(&self, workspace: &Path, mode: &DirMode) -> Result<bool, GitError> {
        let target = workspace.join(OsStr::from_bytes(&mode.path));
        let Ok(dir) = open_beneath(workspace, &mode.path) else {
            return Ok(false);
        };
        rustix::fs::fchmod(&dir, Mode::from_raw_mode(mode.bits)).map_err(|source| {
            GitError::GitWorktree {
                action: "set the permissions of",
                path: target,
                source: source.into(),
            }
        })?;
        Ok(true)
    }
}

/// Opens directory `relative` below `workspace` one component at a time, never through a
/// symlink.
fn open_beneath(workspace: &Path, relative: &[u8]) -> rustix::io::Result<OwnedFd> {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC | OFlags::NOFOLLOW;
    let mut dir = rustix::fs::open(workspace, flags, Mode::empty())?;
    for name in relative.split(|b| *b == b'/').filter(|n| !n.is_empty()) {
        if name == b".." || name == b"." {
            return Err(rustix::io::Errno::INVAL);
        }
        dir = rustix::fs::openat(&dir, OsStr::from_bytes(name), flags, Mode::empty())?;
    }
    Ok(dir)
}
