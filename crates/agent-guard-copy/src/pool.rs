//! A tiny scoped worker pool for copying and hashing files in parallel.

use std::num::NonZero;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use super::CopyError;

/// The size of each worker's read buffer.
pub(super) const BUFFER_SIZE: usize = 256 * 1024;

/// At most this many workers: beyond it the storage, not the CPU, is the limit.
const MAX_WORKERS: usize = 8;

/// Runs `work(job, buffer)` for every job in `0..count`, on up to [`MAX_WORKERS`] threads,
/// each with its own buffer of [`BUFFER_SIZE`] bytes. After the first error no further job
/// starts; the error of the lowest failed job is returned.
pub(super) fn for_each<F>(count: usize, work: F) -> Result<(), CopyError>
where
    F: Fn(usize, &mut [u8]) -> Result<(), CopyError> + Sync,
{
    // One job needs no pool (and no look at the CPU count, which reads cgroup files).
    let workers = if count <= 1 {
        count
    } else {
        std::thread::available_parallelism()
            .map_or(1, NonZero::get)
            .min(MAX_WORKERS)
            .min(count)
    };
    if workers <= 1 {
        let mut buffer = vec![0; BUFFER_SIZE];
        return (0..count).try_for_each(|job| work(job, &mut buffer));
    }
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let failure = Mutex::new(None::<(usize, CopyError)>);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                let mut buffer = vec![0; BUFFER_SIZE];
                while !stop.load(Ordering::Relaxed) {
                    let job = next.fetch_add(1, Ordering::Relaxed);
                    if job >= count {
                        break;
                    }
                    if let Err(error) = work(job, &mut buffer) {
                        stop.store(true, Ordering::Relaxed);
                        let mut failure = failure.lock().unwrap_or_else(PoisonError::into_inner);
                        if failure.as_ref().is_none_or(|(earlier, _)| job < *earlier) {
                            *failure = Some((job, error));
                        }
                    }
                }
            });
        }
    });
    match failure.into_inner().unwrap_or_else(PoisonError::into_inner) {
        Some((_, error)) => Err(error),
        None => Ok(()),
    }
}
