//! The walk of a large work tree on every core: tracked directories are read breadth first
//! until there is work for each thread, then each thread walks its share depth first with
//! its own ignore cache. Results are sorted at the end, so the order does not matter; a
//! tracked directory's own state is never read (see [`Walk::read_directory`]).

use std::collections::VecDeque;

use super::{Deferred, Walk};
use crate::error::GitError;
use crate::index_file::IndexSpan;

/// Below this many index entries the walk stays on one thread.
const PARALLEL_THRESHOLD: usize = 2_000;

/// Tracked directories per thread before the walk splits: enough that one large directory
/// does not leave the other threads idle for long.
const SHARES_PER_THREAD: usize = 8;

impl Walk<'_> {
    /// Reads the tracked directory `base` and everything below it.
    pub(super) fn read_tracked(
        &mut self,
        base: Vec<u8>,
        excluded: bool,
        span: IndexSpan,
    ) -> Result<(), GitError> {
        let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        if threads == 1 || span.len() < PARALLEL_THRESHOLD {
            self.read_directory(&base, excluded, span)?;
            return Ok(());
        }
        self.deferred = Some(Vec::new());
        let mut pending = VecDeque::from([(base, excluded, span)]);
        while pending.len() < threads * SHARES_PER_THREAD
            && let Some((dir, excluded, span)) = pending.pop_front()
        {
            self.read_directory(&dir, excluded, span)?;
            pending.extend(
                self.deferred
                    .as_mut()
                    .map(std::mem::take)
                    .unwrap_or_default(),
            );
        }
        self.deferred = None;
        let mut shares: Vec<Vec<Deferred>> = vec![Vec::new(); threads];
        for (at, directory) in pending.into_iter().enumerate() {
            shares[at % threads].push(directory);
        }
        let results = std::thread::scope(|scope| {
            let handles: Vec<_> = shares
                .into_iter()
                .map(|share| {
                    let mut walk = self.fork();
                    scope.spawn(move || {
                        for (dir, excluded, span) in share {
                            walk.read_directory(&dir, excluded, span)?;
                        }
                        Ok::<_, GitError>((walk.entries, walk.ignored))
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|handle| {
                    handle.join().unwrap_or_else(|_| {
                        Err(GitError::GitWorktree {
                            action: "list",
                            path: self.root.to_path_buf(),
                            source: std::io::Error::other("a walking thread panicked"),
                        })
                    })
                })
                .collect::<Vec<_>>()
        });
        for result in results {
            let (mut entries, mut ignored) = result?;
            self.entries.append(&mut entries);
            self.ignored.append(&mut ignored);
        }
        Ok(())
    }

    /// A walk with the same settings and no results, for another thread.
    fn fork(&self) -> Self {
        Walk {
            root: self.root,
            index: self.index,
            tracked: self.tracked,
            pathspec: self.pathspec,
            flags: self.flags,
            excludes: self.excludes.clone(),
            own_git_dir: self.own_git_dir.clone(),
            entries: Vec::new(),
            ignored: Vec::new(),
            deferred: None,
        }
    }
}
