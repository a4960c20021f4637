//! Hashing a checkpoint's changed files: read, hashed and, unless the store has them,
//! stored — in parallel for many files, into the checkpoint's pack when they are few.

use std::ffi::OsStr;
use std::io::Read as _;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};

use git2::{ObjectType, Oid, Repository};

use super::index::Entry;
use super::{CheckpointStore, Selection, pack};
use crate::error::GitError;

impl CheckpointStore {
    /// Reads and stores the pending entries' contents, in parallel for many files.
    pub(super) fn hash(
        &self,
        selection: &Selection,
        entries: &[Entry],
        pending: &[usize],
    ) -> Result<HashRun, GitError> {
        let jobs: Vec<(PathBuf, bool)> = pending
            .iter()
            .map(|at| {
                let entry = &entries[*at];
                (
                    selection.workspace.join(OsStr::from_bytes(&entry.path)),
                    entry.stat.is_symlink(),
                )
            })
            .collect();
        let threads = std::thread::available_parallelism()
            .map_or(1, std::num::NonZero::get)
            .clamp(1, 4);
        let cap = selection.max_file_bytes;
        // Small enough for the checkpoint's pack: the threads only hash, and the contents
        // are written in one pack by the caller; else each thread writes loose objects.
        let bytes: u64 = pending.iter().map(|at| entries[*at].stat.size).sum();
        let packed = bytes <= pack::MAX_PACKED_BYTES;
        let dir = self.dir.as_path();
        let git = |action: &'static str| {
            move |source| GitError::Git {
                action,
                path: dir.to_path_buf(),
                source,
            }
        };
        let store = |odb: &git2::Odb<'_>, part: &[(PathBuf, bool)]| -> Result<HashRun, GitError> {
            let mut run = HashRun::default();
            for (path, symlink) in part {
                let outcome = store_one(odb, path, *symlink, cap, packed, &mut run)
                    .map_err(git("store a checkpoint blob"))?;
                run.outcomes.push(outcome);
            }
            Ok(run)
        };
        let work = |part: &[(PathBuf, bool)]| -> Result<HashRun, GitError> {
            let repo = Repository::open_bare(dir).map_err(git("open"))?;
            store(&repo.odb().map_err(git("open the object database"))?, part)
        };
        if jobs.is_empty() {
            return Ok(HashRun::default());
        }
        // Threads (each opening the store) pay off for many files or much content only.
        if (jobs.len() < 512 && bytes < 8 << 20) || threads == 1 {
            let odb = self.repo.odb().map_err(git("open the object database"))?;
            return store(&odb, &jobs);
        }
        let chunk = jobs.len().div_ceil(threads);
        std::thread::scope(|scope| {
            let workers: Vec<_> = jobs
                .chunks(chunk)
                .map(|part| scope.spawn(move || work(part)))
                .collect();
            let mut all = HashRun::default();
            for worker in workers {
                let part = worker.join().map_err(|_| GitError::GitWorktree {
                    action: "hash",
                    path: selection.workspace.clone(),
                    source: std::io::Error::other("a hashing thread panicked"),
                })??;
                all.new_objects += part.new_objects;
                all.new_bytes += part.new_bytes;
                all.outcomes.extend(part.outcomes);
                all.unwritten.extend(part.unwritten);
            }
            Ok(all)
        })
    }
}

/// What hashing one file found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Hashed {
    Stored(Oid),
    Unreadable,
    TooLarge,
    Gone,
}

#[derive(Debug, Default)]
pub(super) struct HashRun {
    pub(super) outcomes: Vec<Hashed>,
    pub(super) new_objects: u64,
    pub(super) new_bytes: u64,
    /// New contents left for the caller to write (into the checkpoint's pack).
    pub(super) unwritten: Vec<Vec<u8>>,
}

/// Reads one file (or link) and stores it as a blob unless the store already has it (or,
/// when `packed`, leaves it in `run.unwritten` for the checkpoint's pack).
fn store_one(
    odb: &git2::Odb<'_>,
    path: &Path,
    symlink: bool,
    cap: u64,
    packed: bool,
    run: &mut HashRun,
) -> Result<Hashed, git2::Error> {
    let content = if symlink {
        fs_err::read_link(path).map(|target| target.into_os_string().into_encoded_bytes())
    } else {
        fs_err::File::open(path).and_then(|file| {
            let mut content = Vec::new();
            file.take(cap.saturating_add(1))
                .read_to_end(&mut content)
                .map(|_| content)
        })
    };
    let content = match content {
        Ok(content) => content,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Hashed::Gone),
        Err(_) => return Ok(Hashed::Unreadable),
    };
    if content.len() as u64 > cap {
        return Ok(Hashed::TooLarge);
    }
    let id = Oid::hash_object(ObjectType::Blob, &content)?;
    // No refresh: a miss would re-read the pack directory for every new object (libgit2
    // refreshes on a failed lookup); at worst a blob packed meanwhile is written again.
    if !odb.exists_ext(id, git2::OdbLookupFlags::NO_REFRESH) {
        run.new_objects += 1;
        run.new_bytes += content.len() as u64;
        if packed {
            run.unwritten.push(content);
        } else {
            odb.write(ObjectType::Blob, &content)?;
        }
    }
    Ok(Hashed::Stored(id))
}
