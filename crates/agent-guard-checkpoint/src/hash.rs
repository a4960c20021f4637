//! Hashing a checkpoint's changed files: read, hashed and, unless the store has them,
//! staged for the checkpoint's packs — in parallel for many files.

use std::ffi::OsStr;
use std::io::Read as _;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::Path;

use git2::{ObjectType, Oid, Repository};

use super::pack::NewObjects;
use super::stat_cache::Entry;
use super::{CheckpointStore, Selection};
use agent_guard_git::GitError;

impl CheckpointStore {
    /// Reads and stages the pending entries' contents into `new` (in parallel for many
    /// files); each hashing thread writes a pack whenever it has staged more than
    /// [`super::pack::PACK_BYTES`].
    pub(super) fn hash(
        &self,
        selection: &Selection,
        entries: &[Entry],
        pending: &[usize],
        before: &[Option<Oid>],
        new: &mut NewObjects,
    ) -> Result<HashRun, GitError> {
        let threads = std::thread::available_parallelism()
            .map_or(1, std::num::NonZero::get)
            .clamp(1, 4);
        let cap = selection.max_file_bytes;
        let limit = self.pack_bytes;
        let bytes: u64 = pending.iter().map(|at| entries[*at].stat.size).sum();
        let dir = self.dir.as_path();
        let git = |action: &'static str| {
            move |source| GitError::Git {
                action,
                path: dir.to_path_buf(),
                source,
            }
        };
        let store = |repo: &std::cell::OnceCell<Repository>,
                     part: &[usize],
                     before: &[Option<Oid>],
                     new: &mut NewObjects|
         -> Result<HashRun, GitError> {
            let mut run = HashRun::default();
            // Opened for the first large blob only (see `DEDUP_BYTES`).
            let mut odb: Option<git2::Odb<'_>> = None;
            let open = || -> Result<git2::Odb<'_>, git2::Error> {
                if repo.get().is_none() {
                    let _ = repo.set(Repository::open_bare(dir)?);
                }
                repo.get()
                    .ok_or_else(|| git2::Error::from_str("the store is not open"))?
                    .odb()
            };
            // One path buffer for the whole part, not a path per file.
            let mut path = selection.workspace.as_os_str().as_bytes().to_vec();
            let root = path.len();
            for (at, before) in part.iter().zip(before) {
                let entry = &entries[*at];
                path.truncate(root);
                path.push(b'/');
                path.extend_from_slice(&entry.path);
                let file = Path::new(OsStr::from_bytes(&path));
                let cap = super::gitdir::size_cap(&entry.path, cap);
                let read = read_one(file, entry.stat.is_symlink(), entry.stat.size, cap);
                let outcome = match read {
                    Read::Content(content) => {
                        if content.len() >= DEDUP_BYTES && odb.is_none() {
                            odb = Some(open().map_err(git("open the object database"))?);
                        }
                        store_one(odb.as_ref(), content, *before, new, &mut run)
                            .map_err(git("store a checkpoint blob"))?
                    }
                    Read::Not(outcome) => outcome,
                };
                run.outcomes.push(outcome);
                new.flush_over(limit, dir, odb.as_ref())
                    .map_err(git("write a checkpoint pack"))?;
            }
            Ok(run)
        };
        if pending.is_empty() {
            return Ok(HashRun::default());
        }
        // Threads (each opening the store) pay off for many files or much content only.
        if (pending.len() < 512 && bytes < 8 << 20) || threads == 1 {
            return store(&self.repo, pending, before, new);
        }
        let work =
            |part: &[usize], before: &[Option<Oid>]| -> Result<(HashRun, NewObjects), GitError> {
                let repo = std::cell::OnceCell::new();
                let mut own = NewObjects::default();
                let run = store(&repo, part, before, &mut own)?;
                // Its own pack, written here: the objects are not moved to the calling
                // thread and held there until the checkpoint's last pack.
                own.flush_over(0, dir, None)
                    .map_err(git("write a checkpoint pack"))?;
                Ok((run, own))
            };
        let chunk = pending.len().div_ceil(threads);
        std::thread::scope(|scope| {
            let workers: Vec<_> = pending
                .chunks(chunk)
                .zip(before.chunks(chunk))
                .map(|(part, before)| scope.spawn(move || work(part, before)))
                .collect();
            let mut all = HashRun::default();
            for worker in workers {
                let (part, staged) = worker.join().map_err(|_| GitError::GitWorktree {
                    action: "hash",
                    path: selection.workspace.clone(),
                    source: std::io::Error::other("a hashing thread panicked"),
                })??;
                all.new_objects += part.new_objects;
                all.new_bytes += part.new_bytes;
                all.outcomes.extend(part.outcomes);
                new.absorb(staged);
            }
            // What the threads wrote must be seen through this store's lookups too.
            self.repo()
                .and_then(Repository::odb)
                .and_then(|odb| odb.refresh())
                .map_err(git("open the object database"))?;
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
}

/// Blobs at least this large are looked up in the store before they are stored, so that
/// each large content is stored once. A smaller blob is stored without a lookup (a miss
/// searches every pack's index, which cost more than the checkpoint's own pack): content
/// that changed is almost always new, and a file changed back to an earlier small content
/// costs one more copy of it, which merging packs and gc drop.
const DEDUP_BYTES: usize = 64 << 10;

/// One file as read.
enum Read {
    Content(Vec<u8>),
    Not(Hashed),
}

/// Reads one file (or link) of `size` bytes when it was stat'ed, up to `cap` bytes.
fn read_one(path: &Path, symlink: bool, size: u64, cap: u64) -> Read {
    let content = if symlink {
        fs_err::read_link(path).map(|target| target.into_os_string().into_encoded_bytes())
    } else {
        // Never through a link that replaced the file since the walk (its target may be
        // outside the workspace): that is unreadable now, and the next checkpoint sees a link.
        let open = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits().cast_signed())
            .open(path);
        open.and_then(|file| {
            // Sized as stat'ed, so a small file's content is one allocation of its size
            // (a first checkpoint holds 100,000 of them until their pack is written).
            let expected = usize::try_from(size.min(cap)).unwrap_or(0);
            let mut content = Vec::with_capacity(expected);
            file.take(cap.saturating_add(1))
                .read_to_end(&mut content)
                .map(|_| content)
        })
    };
    match content {
        Ok(content) if content.len() as u64 > cap => Read::Not(Hashed::TooLarge),
        Ok(content) => Read::Content(content),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Read::Not(Hashed::Gone),
        Err(_) => Read::Not(Hashed::Unreadable),
    }
}

/// Hashes one file's content and stages it in `new` unless it is the blob the file held
/// `before` (touched, not changed), or `new` or (for a large blob, `odb`) the store already
/// has it.
fn store_one(
    odb: Option<&git2::Odb<'_>>,
    content: Vec<u8>,
    before: Option<Oid>,
    new: &mut NewObjects,
    run: &mut HashRun,
) -> Result<Hashed, git2::Error> {
    let id = super::object_id::object_id(ObjectType::Blob, &content)?;
    if before == Some(id) {
        return Ok(Hashed::Stored(id));
    }
    // No refresh: a miss would re-read the pack directory for every new object (libgit2
    // refreshes on a failed lookup); at worst a blob packed meanwhile is written again.
    let stored = odb.is_some_and(|odb| odb.exists_ext(id, git2::OdbLookupFlags::NO_REFRESH));
    if !stored {
        let size = content.len() as u64;
        if new.add_new(id, ObjectType::Blob, content) {
            run.new_objects += 1;
            run.new_bytes += size;
        }
    }
    Ok(Hashed::Stored(id))
}
