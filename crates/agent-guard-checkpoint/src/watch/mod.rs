//! The checkpoint watcher: a change-notification source, so that a checkpoint need not
//! `statx` every file of the workspace to learn that almost none changed.
//!
//! A watcher is a small background process per checkpoint store ([`serve`]) that holds an
//! inotify watch on every directory of the workspace (never `.git`, never the quarantine)
//! and numbers what it hears: each path named by an event gets the number of that event.
//! A checkpoint asks it over a Unix socket in the store ([`ask`]) for everything heard
//! since the number the last checkpoint was taken at (its *token*), and then:
//!
//! - nothing heard: the workspace is the last checkpoint, whose commit the small token
//!   file names, and no directory is listed, no file stat'ed, no index read;
//! - some paths heard: the workspace is listed as always, but only the heard paths (and
//!   everything below a directory created or moved in) are stat'ed; every other file is
//!   its private index entry, unchanged;
//! - anything in doubt (no watcher, another watcher, an overflowed queue, a token the
//!   watcher did not give, the user's git index or ignore files changed, a different
//!   selection): the full walk, as without a watcher.
//!
//! Why it is sound: the kernel queues an inotify event before the system call that caused
//! it returns, and the watcher reads its whole queue *after* it has received the request.
//! So every change finished before the checkpoint asked is in the answer, or in the number
//! the answer carries; a change made after the answer is heard the next time. A directory
//! is watched before it is listed, so a file created while a new directory is being
//! watched is either listed or heard.
//!
//! What inotify does not see, and so a watcher cannot either (docs/checkpoints.md): writes
//! through a shared memory map, writes through a hard link in a directory outside the
//! workspace, and changes made by another machine to a network file system (a watcher
//! refuses to run on network and FUSE file systems).

mod client;
mod request;
mod server;
mod token;
mod watches;

use std::path::{Path, PathBuf};

pub use client::{Asked, Heard, Probe, ask, probe};
pub use server::{Ended, Watched, serve};
pub(crate) use token::FastToken;
pub use token::{Token, filter_digest, fingerprint};
pub use watches::RULE_NAMES;

/// The directories whose files decide what git ignores or tracks in `workspace`, outside
/// it: the repository's git directory and its `info` (a linked worktree's and the shared
/// one's), and the directories between the work tree's root and the workspace (their
/// `.gitignore`).
pub fn rule_dirs(workspace: &Path) -> Vec<PathBuf> {
    let Ok(repo) = git2::Repository::discover(workspace) else {
        return Vec::new();
    };
    let mut dirs = vec![repo.path().to_path_buf(), repo.path().join("info")];
    // A linked worktree's git directory holds its index; the shared one its excludes.
    if repo.commondir() != repo.path() {
        dirs.push(repo.commondir().to_path_buf());
        dirs.push(repo.commondir().join("info"));
    }
    if let Some(workdir) = repo.workdir().and_then(|w| fs_err::canonicalize(w).ok()) {
        let mut dir = workspace.parent();
        while let Some(at) = dir.filter(|d| d.starts_with(&workdir)) {
            dirs.push(at.to_path_buf());
            dir = at.parent();
        }
    }
    dirs
}

/// The watcher's directory, beside the store (`<trash>/watch`): a store deleted by hand
/// takes its token file with it, but not the socket of the watcher still running.
pub const WATCH_DIR: &str = "watch";

/// The socket a watcher listens on, in [`WATCH_DIR`].
pub const SOCKET_FILE: &str = "sock";

/// The lock a watcher holds for as long as it runs (one watcher per store), in
/// [`WATCH_DIR`].
pub const LOCK_FILE: &str = "lock";

/// Why a watcher could not run, written by the watcher that gave up (the next checkpoints
/// do not start another for an hour), in [`WATCH_DIR`].
pub const OFF_FILE: &str = "off";

/// Written when a watcher did not answer in time: for a minute, checkpoints walk without
/// asking (in [`WATCH_DIR`]).
pub const STUCK_FILE: &str = "stuck";

/// The token of the last checkpoint, its commit and what it kept (the unchanged case's
/// answer without the index), in the store itself: it names a commit of that store.
pub const TOKEN_FILE: &str = "agent-guard-watch.token";

/// The watcher's directory of the store at `store` ([`WATCH_DIR`] beside it).
pub fn dir_of(store: &Path) -> PathBuf {
    store.parent().unwrap_or(store).join(WATCH_DIR)
}

/// The longest socket path a Unix socket address holds (`sun_path`, less its NUL).
const SOCKET_PATH_MAX: usize = 107;

#[cfg(test)]
mod tests;
