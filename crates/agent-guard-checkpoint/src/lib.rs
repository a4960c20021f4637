//! Workspace checkpoints: the workspace as it is, as a private commit in a private object
//! store, before a command the guard cannot see into runs.
//!
//! The store is a bare repository of its own inside the quarantine
//! (`<trash>/checkpoints`), so a checkpoint never touches the user's index, `HEAD`, stash
//! or refs, survives the user's `git gc --prune=now`, and works the same in a workspace that
//! is not a git repository. Each checkpoint is a parentless commit under
//! `refs/checkpoints/<txid>` whose tree is `{files, meta}`: `files` the workspace's kept
//! files, `meta` what git's tree cannot say (`meta`).
//!
//! Incremental: a private stat index (`index`) remembers every kept path's `lstat` data
//! and blob, so only files whose stat data changed are read and hashed, and only the trees
//! above them are rebuilt. Contents are stored once (content addressed) and shared by
//! every checkpoint; a checkpoint of an unchanged workspace writes no object at all (the
//! commit is deterministic, so it is the previous one).
//!
//! What is kept (`walk`): every file and symlink of the workspace — tracked, untracked and
//! ignored — except a nested repository's `.git`, the quarantine and regenerable artifacts;
//! files over the cap and special files are listed as not kept. The workspace's own `.git`
//! is kept as state plus a hard-linked mirror of its objects (`gitdir`, `git_objects`).

#![warn(missing_docs)]

mod damage;
mod diff;
mod dir_modes;
mod git_objects;
mod gitdir;
mod hash;
mod leftover;
mod loose_ref;
mod meta;
mod object_id;
mod pack;
mod prune;
mod stat_cache;
mod take;
mod tree;
mod walk;
pub mod watch;

use std::path::{Path, PathBuf};

use git2::{ObjectType, Oid, Repository};

use agent_guard_git::GitError;

pub use damage::PackDamage;
pub use diff::{ChangeKind, CheckpointChange, CheckpointDiff, WriteBack};
pub use dir_modes::DirMode;
pub use git_objects::KeptObjects;
pub use gitdir::is_guards_own;
pub use meta::{NotKept, NotKeptReason};
pub use prune::Pruned;
pub use take::Flushing;

use self::loose_ref as refs;
use self::loose_ref::is_store;
use self::meta::Meta;
use self::pack::NewObjects;
use self::tree::LeafRef;

/// The ref namespace of checkpoints inside the private store.
pub const CHECKPOINT_REF_PREFIX: &str = "refs/checkpoints/";

/// The stat cache's file name inside the store (historical: "index" in the code is git's).
const STAT_CACHE_FILE: &str = "agent-guard-index";

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
    /// Git's per-user configuration directory (`$XDG_CONFIG_HOME/git`), whose `ignore` file
    /// git reads when `core.excludesFile` is not set.
    pub git_user_dir: Option<PathBuf>,
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
    /// Whether the store's watcher answered ([`watch`]).
    pub watcher: WatcherState,
    /// Packs found damaged before this checkpoint and set aside: it was taken in full.
    pub repaired: Vec<PackDamage>,
}

/// Whether a checkpoint's store had a watcher ([`watch`]) to ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum WatcherState {
    /// It answered: the checkpoint stat'ed only what it heard of (or nothing).
    Answered,
    /// None listens: the caller may start one ([`watch::serve`]).
    #[default]
    Absent,
    /// None may be used now (one gave up recently, or it did not answer in time).
    Unavailable,
}

/// The private object store of a workspace's checkpoints.
pub struct CheckpointStore {
    dir: PathBuf,
    /// The store as a libgit2 repository, opened on first use: a checkpoint of an unchanged
    /// workspace never needs it.
    repo: std::cell::OnceCell<Repository>,
    /// Staged content past which a hashing thread writes a pack ([`pack::PACK_BYTES`]).
    pack_bytes: u64,
}

impl std::fmt::Debug for CheckpointStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CheckpointStore")
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

/// Makes the store's directory `0700` when it is not: every object of a private file is
/// below it, also those libgit2 writes (`0444` packs of a gc rewrite). A store made by an
/// earlier version, or by `git init`, gets its bits narrowed the first time it is opened.
fn keep_private(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    let mode = fs_err::symlink_metadata(dir)?.permissions().mode();
    let for_others = mode & 0o077;
    if for_others == 0 {
        return Ok(());
    }
    fs_err::set_permissions(dir, std::fs::Permissions::from_mode(mode & 0o700))
}

impl CheckpointStore {
    /// Opens the store at `dir`, creating it (a bare repository) when it does not exist.
    ///
    /// # Errors
    /// The repository cannot be created or opened.
    pub fn open(dir: &Path) -> Result<CheckpointStore, GitError> {
        let repo = std::cell::OnceCell::new();
        if !is_store(dir) {
            let created = Repository::init_bare(dir).map_err(|source| GitError::Init {
                path: dir.to_path_buf(),
                source,
            })?;
            let _ = repo.set(created);
        }
        keep_private(dir).map_err(|source| GitError::GitWorktree {
            action: "make private",
            path: dir.to_path_buf(),
            source,
        })?;
        Ok(CheckpointStore {
            dir: dir.to_path_buf(),
            repo,
            pack_bytes: pack::PACK_BYTES,
        })
    }

    /// Opens the store at `dir` if it exists.
    pub fn open_existing(dir: &Path) -> Option<CheckpointStore> {
        Repository::open_bare(dir).ok().map(|repo| CheckpointStore {
            dir: dir.to_path_buf(),
            repo: repo.into(),
            pack_bytes: pack::PACK_BYTES,
        })
    }

    /// The store as a libgit2 repository.
    fn repo(&self) -> Result<&Repository, git2::Error> {
        if let Some(repo) = self.repo.get() {
            return Ok(repo);
        }
        let repo = Repository::open_bare(&self.dir)?;
        Ok(self.repo.get_or_init(|| repo))
    }

    /// The store's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn index_path(&self) -> PathBuf {
        self.dir.join(STAT_CACHE_FILE)
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
    /// [`CheckpointStore::store_ref`]), updates the private index, and waits until the new
    /// objects are on disk.
    ///
    /// # Errors
    /// The workspace root cannot be listed, or an object cannot be written or flushed.
    pub fn take(&self, selection: &Selection) -> Result<Taken, GitError> {
        let (taken, flushing) = self.take_in_flight(selection)?;
        flushing.wait().map_err(|why| GitError::GitWorktree {
            action: "flush the checkpoint's objects",
            path: self.dir.clone(),
            source: std::io::Error::other(why),
        })?;
        Ok(taken)
    }

    /// Writes the commit `{files, meta}`: deterministic (fixed identity and time, no
    /// parent), so that an unchanged workspace gives the same commit (which the private
    /// index names, so nothing is written then). A changed workspace's meta, root tree and
    /// commit are stored without a lookup: a workspace changed back to an earlier state
    /// costs one more copy of three small objects.
    fn commit(new: &mut NewObjects, files: Oid, meta: Vec<u8>) -> Oid {
        let meta = new.add_unchecked(ObjectType::Blob, meta);
        let mut root = [
            (&b"files"[..], 0o040_000, files),
            (&b"meta"[..], 0o100_644, meta),
        ];
        let root = new.add_unchecked(ObjectType::Tree, tree::serialize(&mut root));
        new.add_unchecked(ObjectType::Commit, commit_text(root))
    }

    /// Names checkpoint `commit` by transaction `txid` (`refs/checkpoints/<txid>`), which
    /// keeps its objects from being pruned. Returns the ref's name.
    ///
    /// # Errors
    /// The commit is not in the store, or the ref exists and points elsewhere.
    pub fn store_ref(&self, txid: &str, commit: &str) -> Result<String, GitError> {
        let refname = CheckpointStore::refname(txid);
        let id = Oid::from_str(commit).map_err(self.error("parse a checkpoint id"))?;
        let packed = self.dir.join("packed-refs").exists();
        let existing = if packed {
            // Refs packed by a `git gc` of the store: libgit2 reads both kinds.
            let repo = self.repo().map_err(self.error("open"))?;
            if let Ok(existing) = repo.find_reference(&refname) {
                Some(existing.target())
            } else {
                repo.reference(&refname, id, false, "agent-guard checkpoint")
                    .map_err(self.error("store a checkpoint ref"))?;
                None
            }
        } else {
            let path = self.dir.join(&refname);
            match refs::write_loose(&path, id) {
                Ok(()) => None,
                Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
                    Some(refs::read_loose(&path))
                }
                Err(source) => {
                    return Err(GitError::GitWorktree {
                        action: "store a checkpoint ref",
                        path,
                        source,
                    });
                }
            }
        };
        match existing {
            Some(target) if target != Some(id) => Err(GitError::RefExists {
                refname,
                path: self.dir.clone(),
            }),
            _ => Ok(refname),
        }
    }

    /// Deletes transaction `txid`'s ref; `true` when there was one.
    pub fn delete_ref(&self, txid: &str) -> bool {
        self.repo()
            .and_then(|repo| repo.find_reference(&CheckpointStore::refname(txid)))
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
            .and_then(|(files, _)| tree::leaves(self.repo()?, &files).map(|l| (files, l)))
            .is_ok_and(|(_, leaves)| {
                let Ok(odb) = self.repo().and_then(Repository::odb) else {
                    return false;
                };
                leaves.iter().all(|leaf| odb.exists(leaf.id))
            })
    }

    /// A checkpoint's files tree and decoded meta.
    fn checkpoint_tree(&self, commit: Oid) -> Result<(git2::Tree<'_>, Meta), git2::Error> {
        let repo = self.repo()?;
        let commit = repo.find_commit(commit)?;
        let root = commit.tree()?;
        let files = root
            .get_name("files")
            .ok_or_else(|| git2::Error::from_str("a checkpoint without files"))?
            .id();
        let files = repo.find_tree(files)?;
        let meta = match root.get_name("meta") {
            Some(entry) => Meta::decode(repo.find_blob(entry.id())?.content()),
            None => Meta::default(),
        };
        Ok((files, meta))
    }
}

/// A checkpoint commit's content: the tree, the fixed identity at time 0, and the fixed
/// message (what libgit2 writes for the same commit; a test compares them).
fn commit_text(root: Oid) -> Vec<u8> {
    let who = "agent-guard <agent-guard@localhost> 0 +0000";
    format!("tree {root}\nauthor {who}\ncommitter {who}\n\nagent-guard checkpoint\n").into_bytes()
}

/// An index entry as a tree leaf, if it is kept.
fn leaf_of(path: &[u8], stat: stat_cache::Stat, id: Option<Oid>) -> Option<LeafRef<'_>> {
    Some(LeafRef {
        path,
        mode: stat.git_mode(),
        id: id?,
    })
}

#[cfg(test)]
mod tests;
