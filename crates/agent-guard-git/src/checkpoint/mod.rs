//! Workspace checkpoints: the workspace as it is, as a private commit in a private object
//! store, before a command the guard cannot see into runs.
//!
//! The store is a bare repository of its own inside the quarantine
//! (`<trash>/checkpoints`), so a checkpoint never touches the user's index, `HEAD`, stash
//! or refs, survives the user's `git gc --prune=now`, and works the same in a workspace that
//! is not a git repository. Each checkpoint is a parentless commit under
//! `refs/checkpoints/<txid>` whose tree is `{files, meta}`: `files` the workspace's kept
//! files, `meta` what git's tree cannot say ([`meta`]).
//!
//! Incremental: a private stat index ([`index`]) remembers every kept path's `lstat` data
//! and blob, so only files whose stat data changed are read and hashed, and only the trees
//! above them are rebuilt. Contents are stored once (content addressed) and shared by
//! every checkpoint; a checkpoint of an unchanged workspace writes no object at all (the
//! commit is deterministic, so it is the previous one).
//!
//! What is kept ([`walk`]): every file and symlink of the workspace — tracked, untracked and
//! ignored — except `.git`, the quarantine and regenerable artifacts; files over the cap and
//! special files are listed as not kept.

mod artifacts;
mod diff;
mod index;
mod meta;
mod prune;
mod tree;
mod walk;

use std::collections::HashMap;
use std::ffi::OsStr;
use std::io::Read as _;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};

use git2::{ObjectType, Oid, Repository, Signature};

use crate::error::GitError;

pub use diff::{ChangeKind, CheckpointChange, CheckpointDiff, WriteBack};
pub use meta::{NotKept, NotKeptReason};
pub use prune::Pruned;

use self::index::{Entry, Index, path_order};
use self::meta::Meta;
use self::tree::{Builder, Leaf, dirty_dirs};

/// The ref namespace of checkpoints inside the private store.
pub const CHECKPOINT_REF_PREFIX: &str = "refs/checkpoints/";

/// The private index's file name inside the store.
const INDEX_FILE: &str = "agent-guard-index";

/// Where restores stage files before renaming them into place.
const STAGING_DIR: &str = "agent-guard-staging";

/// What a checkpoint keeps: the workspace, and what it leaves out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// The physical workspace root.
    pub workspace: PathBuf,
    /// Physical directories never entered (the quarantine, when it is inside).
    pub skip: Vec<PathBuf>,
    /// Artifact patterns: a name (or path) matching one that git ignores and that holds no
    /// tracked file is regenerable and left out.
    pub artifacts: Vec<String>,
    /// Leave regenerable artifacts out (`false` when regenerable deletion is disabled).
    pub skip_regenerable: bool,
    /// Files larger than this are listed as not kept.
    pub max_file_bytes: u64,
}

/// What one checkpoint recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Taken {
    /// The checkpoint commit.
    pub commit: String,
    /// Files and symlinks kept.
    pub files: u64,
    /// Their total size.
    pub bytes: u64,
    /// How many of them were read and hashed now (the rest were known by their stat data).
    pub hashed: u64,
    /// Content objects (blobs) this checkpoint added to the store.
    pub new_objects: u64,
    /// Their total size, uncompressed.
    pub new_bytes: u64,
    /// Paths listed without their content.
    pub not_kept: Vec<NotKept>,
}

/// The private object store of a workspace's checkpoints.
pub struct CheckpointStore {
    dir: PathBuf,
    repo: Repository,
}

impl std::fmt::Debug for CheckpointStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CheckpointStore")
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

impl CheckpointStore {
    /// Opens the store at `dir`, creating it (a bare repository) when it does not exist.
    ///
    /// # Errors
    /// The repository cannot be created or opened.
    pub fn open(dir: &Path) -> Result<CheckpointStore, GitError> {
        let repo = match Repository::open_bare(dir) {
            Ok(repo) => repo,
            Err(_) => Repository::init_bare(dir).map_err(|source| GitError::Init {
                path: dir.to_path_buf(),
                source,
            })?,
        };
        Ok(CheckpointStore {
            dir: dir.to_path_buf(),
            repo,
        })
    }

    /// Opens the store at `dir` if it exists.
    pub fn open_existing(dir: &Path) -> Option<CheckpointStore> {
        Repository::open_bare(dir).ok().map(|repo| CheckpointStore {
            dir: dir.to_path_buf(),
            repo,
        })
    }

    /// The store's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn index_path(&self) -> PathBuf {
        self.dir.join(INDEX_FILE)
    }

    fn error(&self, action: &'static str) -> impl FnOnce(git2::Error) -> GitError + '_ {
        move |source| GitError::Git {
            action,
            path: self.dir.clone(),
            source,
        }
    }

    /// The ref of the checkpoint of transaction `txid`.
    pub fn refname(txid: &str) -> String {
        format!("{CHECKPOINT_REF_PREFIX}{txid}")
    }

    /// Records the workspace of `selection` as a commit (objects only: no ref yet, see
    /// [`CheckpointStore::store_ref`]), and updates the private index.
    ///
    /// # Errors
    /// The workspace root cannot be listed, or an object cannot be written.
    pub fn take(&self, selection: &Selection) -> Result<Taken, GitError> {
        let previous = Index::load(&self.index_path());
        let walked = walk::walk(selection)?;
        let mut entries: Vec<Entry> = Vec::with_capacity(walked.found.len());
        let mut pending: Vec<usize> = Vec::new();
        let mut not_kept = Vec::new();
        let mut old = previous.entries.iter().peekable();
        for found in walked.found {
            while old
                .next_if(|e| path_order(&e.path, &found.path).is_lt())
                .is_some()
            {}
            let known = old
                .peek()
                .filter(|e| e.path == found.path && previous.unchanged(e, &found.stat))
                .and_then(|e| e.id);
            let stat = found.stat;
            let reason = if !stat.is_file() && !stat.is_symlink() {
                Some(NotKeptReason::Special)
            } else if stat.is_file() && stat.size > selection.max_file_bytes {
                Some(NotKeptReason::TooLarge)
            } else {
                None
            };
            if let Some(reason) = reason {
                not_kept.push(NotKept {
                    path: found.path.clone(),
                    size: stat.size,
                    reason,
                });
            } else if known.is_none() {
                pending.push(entries.len());
            }
            entries.push(Entry {
                path: found.path,
                stat,
                id: known,
            });
        }
        let hashed = self.hash(selection, &entries, &pending)?;
        let mut gone = Vec::new();
        for (at, outcome) in pending.iter().zip(hashed.outcomes) {
            match outcome {
                Hashed::Stored(id) => entries[*at].id = Some(id),
                Hashed::Unreadable => not_kept.push(NotKept {
                    path: entries[*at].path.clone(),
                    size: entries[*at].stat.size,
                    reason: NotKeptReason::Unreadable,
                }),
                Hashed::TooLarge => not_kept.push(NotKept {
                    path: entries[*at].path.clone(),
                    size: entries[*at].stat.size,
                    reason: NotKeptReason::TooLarge,
                }),
                Hashed::Gone => gone.push(*at),
            }
        }
        for at in gone.into_iter().rev() {
            entries.remove(at);
        }
        for dir in &walked.unreadable {
            not_kept.push(NotKept {
                path: dir.clone(),
                size: 0,
                reason: NotKeptReason::Unreadable,
            });
        }
        not_kept.sort_by(|a, b| path_order(&a.path, &b.path));
        not_kept.dedup_by(|a, b| a.path == b.path);

        let leaves = leaves_of(&entries);
        let old_leaves = leaves_of(&previous.entries);
        let dirty = dirty_dirs(&old_leaves, &leaves);
        let cache: HashMap<Vec<u8>, Oid> = previous.trees.iter().cloned().collect();
        let mut builder = Builder {
            repo: &self.repo,
            dirty: &dirty,
            cache: &cache,
            built: Vec::new(),
        };
        let files = builder
            .build(b"", &leaves)
            .map_err(self.error("write a checkpoint tree"))?;
        let mut trees: Vec<(Vec<u8>, Oid)> = previous
            .trees
            .iter()
            .filter(|(dir, _)| !dirty.contains(dir))
            .cloned()
            .chain(builder.built)
            .collect();
        trees.sort_by(|a, b| path_order(&a.0, &b.0));
        let permissions: Vec<(&[u8], u32)> = entries
            .iter()
            .filter(|e| e.id.is_some())
            .filter_map(|e| Some((e.path.as_slice(), e.stat.unusual_permissions()?)))
            .collect();
        let meta = Meta::encode(&not_kept, &permissions, &walked.empty_dirs);
        let commit = self.commit(files, &meta)?;

        let index = Index {
            entries,
            trees,
            written: None,
        };
        if index.entries != previous.entries || index.trees != previous.trees {
            index
                .save(&self.index_path())
                .map_err(|source| GitError::GitWorktree {
                    action: "write the checkpoint index",
                    path: self.index_path(),
                    source,
                })?;
        }
        let kept = index.entries.iter().filter(|e| e.id.is_some());
        Ok(Taken {
            commit: commit.to_string(),
            files: kept.clone().count() as u64,
            bytes: kept.map(|e| e.stat.size).sum(),
            hashed: pending.len() as u64,
            new_objects: hashed.new_objects,
            new_bytes: hashed.new_bytes,
            not_kept,
        })
    }

    /// Writes the commit `{files, meta}`: deterministic (fixed identity and time, no
    /// parent), so that an unchanged workspace gives the same commit.
    fn commit(&self, files: Oid, meta: &[u8]) -> Result<Oid, GitError> {
        let repo = &self.repo;
        let meta = repo
            .blob(meta)
            .map_err(self.error("write a checkpoint's meta"))?;
        let mut root = repo
            .treebuilder(None)
            .map_err(self.error("write a checkpoint tree"))?;
        root.insert("files", files, 0o040_000)
            .map_err(self.error("write a checkpoint tree"))?;
        root.insert("meta", meta, 0o100_644)
            .map_err(self.error("write a checkpoint tree"))?;
        let root = root
            .write()
            .map_err(self.error("write a checkpoint tree"))?;
        let root = repo
            .find_tree(root)
            .map_err(self.error("write a checkpoint tree"))?;
        let signature = Signature::new(
            "agent-guard",
            "agent-guard@localhost",
            &git2::Time::new(0, 0),
        )
        .map_err(self.error("write a checkpoint commit"))?;
        repo.commit(
            None,
            &signature,
            &signature,
            "agent-guard checkpoint\n",
            &root,
            &[],
        )
        .map_err(self.error("write a checkpoint commit"))
    }

    /// Reads and stores the pending entries' contents, in parallel for many files.
    fn hash(
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
        let dir = self.dir.as_path();
        let git = |action: &'static str| {
            move |source| GitError::Git {
                action,
                path: dir.to_path_buf(),
                source,
            }
        };
        let work = |part: &[(PathBuf, bool)]| -> Result<HashRun, GitError> {
            let repo = Repository::open_bare(dir).map_err(git("open"))?;
            let odb = repo.odb().map_err(git("open the object database"))?;
            let mut run = HashRun::default();
            for (path, symlink) in part {
                let outcome = store_one(&odb, path, *symlink, cap, &mut run)
                    .map_err(git("store a checkpoint blob"))?;
                run.outcomes.push(outcome);
            }
            Ok(run)
        };
        if jobs.len() < 64 || threads == 1 {
            return work(&jobs);
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
            }
            Ok(all)
        })
    }

    /// Names checkpoint `commit` by transaction `txid` (`refs/checkpoints/<txid>`), which
    /// keeps its objects from being pruned. Returns the ref's name.
    ///
    /// # Errors
    /// The commit is not in the store, or the ref exists and points elsewhere.
    pub fn store_ref(&self, txid: &str, commit: &str) -> Result<String, GitError> {
        let refname = CheckpointStore::refname(txid);
        let id = Oid::from_str(commit).map_err(self.error("parse a checkpoint id"))?;
        if let Ok(existing) = self.repo.find_reference(&refname) {
            if existing.target() == Some(id) {
                return Ok(refname);
            }
            return Err(GitError::RefExists {
                refname,
                path: self.dir.clone(),
            });
        }
        self.repo
            .reference(&refname, id, false, "agent-guard checkpoint")
            .map_err(self.error("store a checkpoint ref"))?;
        Ok(refname)
    }

    /// Deletes transaction `txid`'s ref; `true` when there was one.
    pub fn delete_ref(&self, txid: &str) -> bool {
        self.repo
            .find_reference(&CheckpointStore::refname(txid))
            .and_then(|mut reference| reference.delete())
            .is_ok()
    }

    /// Whether `commit` is a checkpoint whose objects are all still in the store (the
    /// commit, its trees and its blobs).
    pub fn intact(&self, commit: &str) -> bool {
        let Ok(id) = Oid::from_str(commit) else {
            return false;
        };
        self.checkpoint_tree(id)
            .and_then(|(files, _)| tree::leaves(&self.repo, &files).map(|l| (files, l)))
            .is_ok_and(|(_, leaves)| {
                let Ok(odb) = self.repo.odb() else {
                    return false;
                };
                leaves.iter().all(|leaf| odb.exists(leaf.id))
            })
    }

    /// A checkpoint's files tree and decoded meta.
    fn checkpoint_tree(&self, commit: Oid) -> Result<(git2::Tree<'_>, Meta), git2::Error> {
        let commit = self.repo.find_commit(commit)?;
        let root = commit.tree()?;
        let files = root
            .get_name("files")
            .ok_or_else(|| git2::Error::from_str("a checkpoint without files"))?
            .id();
        let files = self.repo.find_tree(files)?;
        let meta = match root.get_name("meta") {
            Some(entry) => Meta::decode(self.repo.find_blob(entry.id())?.content()),
            None => Meta::default(),
        };
        Ok((files, meta))
    }
}

/// The kept entries as tree leaves.
fn leaves_of(entries: &[Entry]) -> Vec<Leaf> {
    entries
        .iter()
        .filter_map(|e| {
            Some(Leaf {
                path: e.path.clone(),
                mode: e.stat.git_mode(),
                id: e.id?,
            })
        })
        .collect()
}

/// What hashing one file found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hashed {
    Stored(Oid),
    Unreadable,
    TooLarge,
    Gone,
}

#[derive(Debug, Default)]
struct HashRun {
    outcomes: Vec<Hashed>,
    new_objects: u64,
    new_bytes: u64,
}

/// Reads one file (or link) and stores it as a blob unless the store already has it.
fn store_one(
    odb: &git2::Odb<'_>,
    path: &Path,
    symlink: bool,
    cap: u64,
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
        odb.write(ObjectType::Blob, &content)?;
        run.new_objects += 1;
        run.new_bytes += content.len() as u64;
    }
    Ok(Hashed::Stored(id))
}

#[cfg(test)]
mod tests;
