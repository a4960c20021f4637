//! The quarantine lock: one lock file serialises writers across processes.
//!
//! Writers (relocate, restore, gc, reconcile) hold it exclusively; readers (list, status,
//! show) hold it shared, so they never see a half-applied batch. `std::fs::File::lock` is
//! released when the file is closed, including when a process dies.

use std::os::unix::fs::OpenOptionsExt as _;
use std::path::Path;

use crate::error::QuarantineError;

/// The lock file's name under the quarantine root.
pub const LOCK_FILE_NAME: &str = "lock";

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
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(&path)
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
