//! [`SyncInFlight`]: a file's `fdatasync` started on a helper thread, waited for later.
//!
//! A relocation must not move anything before both its audit intent and its manifest intent
//! are on disk. Synced one after the other, that is two flushes in a row; started together,
//! the two `fdatasync`s share the filesystem's journal commit and the relocation waits for
//! one. The audit log starts its sync in flight; the quarantine waits for it just before its
//! first destructive step, after its own durable intent (`docs/PERFORMANCE.md`, "One flush").

use std::fs::File;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

/// An `fdatasync` in progress. Cloning shares it; [`SyncInFlight::wait`] may be called any
/// number of times and from any clone: the first waits, later ones repeat its result.
#[derive(Debug, Clone)]
pub struct SyncInFlight {
    state: Arc<Mutex<State>>,
}

#[derive(Debug)]
enum State {
    Running(JoinHandle<std::io::Result<()>>),
    Done(Result<(), String>),
}

impl SyncInFlight {
    /// Starts `fdatasync` of `file` on a new thread. When no thread can be started, the file
    /// is synced here instead, before returning.
    pub fn start(file: File) -> SyncInFlight {
        SyncInFlight::spawn(move || file.sync_data())
    }

    /// Starts `fsync` (content and metadata) of every file in `files`, one after the other,
    /// on one new thread: a new copy, then the directory that names it. The first failure
    /// ends it. When no thread can be started, the sync is reported as failed.
    pub fn start_all(files: Vec<File>) -> SyncInFlight {
        SyncInFlight::spawn(move || files.iter().try_for_each(File::sync_all))
    }

    fn spawn(sync: impl FnOnce() -> std::io::Result<()> + Send + 'static) -> SyncInFlight {
        let spawned = std::thread::Builder::new()
            .name("agent-guard-sync".into())
            .spawn(sync);
        let state = match spawned {
            Ok(handle) => State::Running(handle),
            // The closure (and the file) is gone with the failed spawn: report it as a failed
            // sync rather than pretend the data is on disk.
            Err(error) => State::Done(Err(format!("no thread for the sync: {error}"))),
        };
        SyncInFlight {
            state: Arc::new(Mutex::new(state)),
        }
    }

    /// A sync that has already completed with `result` (an unsynced write has nothing to
    /// wait for: `Ok`).
    pub fn done(result: Result<(), String>) -> SyncInFlight {
        SyncInFlight {
            state: Arc::new(Mutex::new(State::Done(result))),
        }
    }

    /// Waits until the data is on disk. `Err` says why it may not be.
    pub fn wait(&self) -> Result<(), String> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if let State::Running(_) = &*state {
            let State::Running(handle) =
                std::mem::replace(&mut *state, State::Done(Err(String::new())))
            else {
                unreachable!("checked above")
            };
            let result = match handle.join() {
                Ok(Ok(())) => Ok(()),
                Ok(Err(error)) => Err(format!("the disk flush failed: {error}")),
                Err(_) => Err("the sync thread panicked".to_owned()),
            };
            *state = State::Done(result);
        }
        match &*state {
            State::Done(result) => result.clone(),
            State::Running(_) => unreachable!("replaced above"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sync_is_waited_for_once_and_its_result_repeated() {
        let dir = tempfile::tempdir().unwrap();
        let file = File::create(dir.path().join("log")).unwrap();
        let sync = SyncInFlight::start(file);
        let other = sync.clone();
        assert_eq!(sync.wait(), Ok(()));
        assert_eq!(other.wait(), Ok(()));
        let failed = SyncInFlight::done(Err("disk gone".to_owned()));
        assert_eq!(failed.wait(), Err("disk gone".to_owned()));
        assert_eq!(failed.clone().wait(), Err("disk gone".to_owned()));
    }

    #[test]
    fn every_file_of_a_batch_is_synced_and_the_first_failure_reported() {
        let dir = tempfile::tempdir().unwrap();
        let file = File::create(dir.path().join("copy")).unwrap();
        let parent = File::open(dir.path()).unwrap();
        assert_eq!(SyncInFlight::start_all(vec![file, parent]).wait(), Ok(()));
        let (reader, _writer) = std::io::pipe().unwrap();
        let pipe = File::from(std::os::fd::OwnedFd::from(reader));
        let file = File::create(dir.path().join("other")).unwrap();
        assert!(SyncInFlight::start_all(vec![file, pipe]).wait().is_err());
    }

    #[test]
    fn a_failing_sync_is_reported() {
        // fdatasync of a descriptor opened read-only on a directory fails with EINVAL on
        // some filesystems and succeeds on others; a pipe always fails.
        let (reader, _writer) = std::io::pipe().unwrap();
        let file = File::from(std::os::fd::OwnedFd::from(reader));
        let sync = SyncInFlight::start(file);
        assert!(sync.wait().is_err(), "fdatasync of a pipe is EINVAL");
    }
}
