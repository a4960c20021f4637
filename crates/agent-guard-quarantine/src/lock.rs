//! The quarantine lock: one lock file serialises writers across processes.
//!
//! Writers (relocate, restore, gc, reconcile) hold it exclusively; readers (list, status,
//! show) hold it shared, so they never see a half-applied batch. `std::fs::File::lock` is
//! released when the file is closed, including when a process dies.

use std::path::Path;

use crate::error::QuarantineError;

/// The lock file's name under the quarantine root.
pub const LOCK_FILE_NAME: &str = "lock";

/// The store's entries of fixed name, and whether each is a directory: none may be a
/// symbolic link or of the wrong kind (issue 35, point 4). The watcher's socket is left to
/// the watcher, which replaces it.
const STORE_ENTRIES: &[(&str, bool)] = &[
    (LOCK_FILE_NAME, false),
    (crate::manifest::MANIFEST_FILE_NAME, false),
    (agent_guard_audit::AUDIT_FILE_NAME, false),
    (crate::layout::STATE_FILE_NAME, false),
    (crate::links::PENDING_LINKS, false),
    (crate::layout::SESSIONS_DIR_NAME, true),
    (crate::layout::CHECKPOINTS_DIR_NAME, true),
    ("approvals", true),
    ("watch", true),
    ("watch/lock", false),
    ("watch/off", false),
    ("watch/stuck", false),
    (crate::read_from::READ_FROM_FILE_NAME, false),
    // The checkpoint store's own files and directories (a bare git directory): a FIFO there
    // would stall a checkpoint, a link would put its objects where the agent can reach them.
    ("checkpoints/agent-guard-index", false),
    ("checkpoints/agent-guard-index.lock", false),
    ("checkpoints/agent-guard-watch.token", false),
    ("checkpoints/agent-guard-packs", false),
    ("checkpoints/git-objects.seen", false),
    ("checkpoints/HEAD", false),
    ("checkpoints/config", false),
    ("checkpoints/packed-refs", false),
    ("checkpoints/objects", true),
    ("checkpoints/objects/pack", true),
    ("checkpoints/refs", true),
    ("checkpoints/git-objects", true),
    ("checkpoints/agent-guard-staging", true),
    ("checkpoints/damaged", true),
];

/// Checks the store at `trash` before a writer uses it: the root a directory of the
/// user's (possibly reached through a link the user made), and no entry of fixed name a link or of the wrong kind. Nothing is changed.
///
/// # Errors
/// A [`agent_guard_fsops::state::StateError`] (as an I/O error) naming the first bad entry.
pub fn check_store(trash: &Path) -> std::io::Result<()> {
    agent_guard_fsops::state::check_root(trash)?;
    STORE_ENTRIES
        .iter()
        .try_for_each(|(name, dir)| agent_guard_fsops::state::check_entry(&trash.join(name), *dir))
}

/// A held quarantine lock; released on drop.
#[derive(Debug)]
pub struct StoreLock {
    file: std::fs::File,
}

impl StoreLock {
    /// Takes the lock on `<trash>/lock`, exclusively or shared, waiting for it.
    pub fn acquire(trash: &Path, exclusive: bool) -> Result<StoreLock, QuarantineError> {
        let path = trash.join(LOCK_FILE_NAME);
        let error = |source| QuarantineError::Lock {
            path: path.clone(),
            source,
        };
        check_store(trash).map_err(error)?;
        let file =
            agent_guard_fsops::state::open_file(&path, agent_guard_fsops::state::Access::Update)
                .map_err(error)?;
        if exclusive {
            file.lock().map_err(error)?;
        } else {
            file.lock_shared().map_err(error)?;
        }
        Ok(StoreLock { file })
    }
}

impl Drop for StoreLock {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}
