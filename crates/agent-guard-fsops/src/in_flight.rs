//! [`SyncInFlight`]: a file's `fdatasync` started on a helper thread, waited for later.
//!
//! A relocation must not move anything before both its audit intent and its manifest intent
//! are on disk. Synced one after the other, that is two flushes in a row; started together,
//! the two `fdatasync`s share the filesystem's journal commit and the relocation waits for
//! one. The audit log starts its sync in flight; the quarantine waits for it just before its
//! first destructive step, after its own durable intent (`docs/PERFORMANCE.md`, "One flush").
//! A helper thread that is done waits for the next flush of the process (a kept version's
//! copy after the audit intent) instead of exiting, which saves a thread start per flush.

use std::fs::File;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

/// An `fdatasync` in progress. Cloning shares it; [`SyncInFlight::wait`] may be called any
/// number of times and from any clone: the first waits, later ones repeat its result.
#[derive(Debug, Clone)]
pub struct SyncInFlight {
    slot: Arc<Slot>,
}

/// Where a helper thread leaves a sync's result.
#[derive(Debug, Default)]
struct Slot {
    result: Mutex<Option<Result<(), String>>>,
    ready: Condvar,
}

impl Slot {
    fn fill(&self, result: Result<(), String>) {
        let mut slot = self.result.lock().unwrap_or_else(PoisonError::into_inner);
        slot.get_or_insert(result);
        self.ready.notify_all();
    }
}

/// One flush for a helper thread.
struct Job {
    sync: Box<dyn FnOnce() -> std::io::Result<()> + Send>,
    slot: Arc<Slot>,
}

/// A helper thread that has finished its flush and waits for another: a process that
/// flushes twice (an intent, then a copy) starts one thread, not two. A helper is only ever
/// handed a job while idle, so flushes started together still run side by side.
static IDLE: Mutex<Option<Sender<Job>>> = Mutex::new(None);

impl SyncInFlight {
    /// Starts `fdatasync` of `file` on a helper thread. When no thread can be started, the
    /// sync is reported as failed.
    pub fn start(file: File) -> SyncInFlight {
        SyncInFlight::spawn(Box::new(move || file.sync_data()))
    }

    /// Starts `fsync` (content and metadata) of every file in `files`, one after the other,
    /// on one helper thread: a new copy, then the directory that names it. The first failure
    /// ends it. When no thread can be started, the sync is reported as failed.
    pub fn start_all(files: Vec<File>) -> SyncInFlight {
        SyncInFlight::spawn(Box::new(move || files.iter().try_for_each(File::sync_all)))
    }

    fn spawn(sync: Box<dyn FnOnce() -> std::io::Result<()> + Send>) -> SyncInFlight {
        let slot = Arc::new(Slot::default());
        let mut job = Job {
            sync,
            slot: Arc::clone(&slot),
        };
        let idle = IDLE.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(helper) = idle {
            match helper.send(job) {
                Ok(()) => return SyncInFlight { slot },
                // The helper is gone: the job comes back, for a new one.
                Err(returned) => job = returned.0,
            }
        }
        let (sender, receiver) = channel::<Job>();
        let own = sender.clone();
        let spawned = std::thread::Builder::new()
            .name("agent-guard-sync".into())
            .spawn(move || {
                while let Ok(Job { sync, slot }) = receiver.recv() {
                    let result = match catch_unwind(AssertUnwindSafe(sync)) {
                        Ok(Ok(())) => Ok(()),
                        Ok(Err(error)) => Err(format!("the disk flush failed: {error}")),
                        Err(_) => Err("the sync thread panicked".to_owned()),
                    };
                    slot.fill(result);
                    let mut idle = IDLE.lock().unwrap_or_else(PoisonError::into_inner);
                    if idle.is_some() {
                        return;
                    }
                    *idle = Some(own.clone());
                }
            });
        match spawned {
            Ok(_) => {
                if let Err(returned) = sender.send(job) {
                    returned
                        .0
                        .slot
                        .fill(Err("the sync thread is gone".to_owned()));
                }
            }
            // The job (and the file) is gone with the failed spawn: report it as a failed
            // sync rather than pretend the data is on disk.
            Err(error) => slot.fill(Err(format!("no thread for the sync: {error}"))),
        }
        SyncInFlight { slot }
    }

    /// A sync that has already completed with `result` (an unsynced write has nothing to
    /// wait for: `Ok`).
    pub fn done(result: Result<(), String>) -> SyncInFlight {
        let slot = Arc::new(Slot::default());
        slot.fill(result);
        SyncInFlight { slot }
    }

    /// Waits until the data is on disk. `Err` says why it may not be.
    pub fn wait(&self) -> Result<(), String> {
        let mut result = self
            .slot
            .result
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(result) = &*result {
                return result.clone();
            }
            result = self
                .slot
                .ready
                .wait(result)
                .unwrap_or_else(PoisonError::into_inner);
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
    fn an_idle_helper_takes_the_next_flush_and_a_busy_one_gets_company() {
        let dir = tempfile::tempdir().unwrap();
        let first = SyncInFlight::start(File::create(dir.path().join("a")).unwrap());
        assert_eq!(first.wait(), Ok(()));
        // Now idle: the next flush goes to it; two started together both complete.
        let second = SyncInFlight::start(File::create(dir.path().join("b")).unwrap());
        let third = SyncInFlight::start(File::create(dir.path().join("c")).unwrap());
        assert_eq!((second.wait(), third.wait()), (Ok(()), Ok(())));
        for _ in 0..20 {
            let sync = SyncInFlight::start(File::create(dir.path().join("d")).unwrap());
            assert_eq!(sync.wait(), Ok(()));
        }
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
