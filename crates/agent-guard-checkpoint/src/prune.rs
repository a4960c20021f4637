//! Freeing what only purged checkpoints held: their refs, then every object no remaining
//! checkpoint reaches. libgit2 has no gc, so this is a mark (from the live refs) and a
//! sweep: packs holding an unreachable object are rewritten without it, unreachable loose
//! objects (`objects/xx/…`) are deleted.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt as _;

use git2::{ObjectType, Oid, Repository};
use serde::Serialize;

use super::stat_cache::{self, EntryRef, Index};
use super::{CHECKPOINT_REF_PREFIX, CheckpointStore, pack};
use agent_guard_fsops as fsops;
use agent_guard_git::GitError;

/// What one prune freed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Pruned {
    /// Checkpoint refs deleted (of purged or never-journaled transactions).
    pub refs: usize,
    /// Objects deleted.
    pub objects: u64,
    /// Their size on disk.
    pub bytes: u64,
}

impl CheckpointStore {
    /// The transaction ids that have a checkpoint ref.
    pub fn checkpoint_txids(&self) -> Vec<String> {
        let Ok(repo) = self.repo() else {
            return Vec::new();
        };
        let Ok(references) = repo.references_glob(&format!("{CHECKPOINT_REF_PREFIX}*")) else {
            return Vec::new();
        };
        references
            .filter_map(Result::ok)
            .filter_map(|r| {
                r.name()
                    .and_then(|n| n.strip_prefix(CHECKPOINT_REF_PREFIX))
                    .map(str::to_owned)
            })
            .collect()
    }

    /// Deletes the refs of transactions not in `live`, then every object that neither a
    /// remaining ref nor one of the `recorded` commits (the journal's ids of the live
    /// checkpoints) reaches, and forgets the private index's entries for what was deleted
    /// (those files are hashed again next time). The recorded commits are roots too, so a
    /// ref that a crash lost never lets its checkpoint's objects go. Call with the
    /// quarantine's writers' lock held, so no checkpoint is being taken meanwhile.
    ///
    /// # Errors
    /// A remaining checkpoint cannot be read (nothing is deleted then).
    pub fn prune(
        &mut self,
        live: &HashSet<String>,
        recorded: &[String],
    ) -> Result<Pruned, GitError> {
        let mut pruned = Pruned::default();
        for txid in self.checkpoint_txids() {
            if !live.contains(&txid) && self.delete_ref(&txid) {
                pruned.refs += 1;
            }
        }
        let mut reachable = HashSet::new();
        for txid in self.checkpoint_txids() {
            let Ok(reference) = self
                .repo()
                .and_then(|repo| repo.find_reference(&CheckpointStore::refname(&txid)))
            else {
                continue;
            };
            let Some(commit) = reference.target() else {
                continue;
            };
            self.mark(commit, &mut reachable)
                .map_err(self.error("read a checkpoint"))?;
        }
        let odb = self
            .repo()
            .and_then(Repository::odb)
            .map_err(self.error("open the object database"))?;
        for commit in recorded.iter().filter_map(|sha| Oid::from_str(sha).ok()) {
            // A recorded checkpoint whose commit is gone has nothing left to keep.
            if odb.exists(commit) {
                self.mark(commit, &mut reachable)
                    .map_err(self.error("read a checkpoint"))?;
            }
        }
        drop(odb);
        // The index first, durably: once objects go, no index (base or delta) may name one.
        self.forget(&reachable)
            .map_err(|source| GitError::GitWorktree {
                action: "rewrite the checkpoint index",
                path: self.index_path(),
                source,
            })?;
        if self.sweep_packs(&reachable, &mut pruned)? {
            // libgit2 keeps serving a deleted pack it has open: see the store as it is now.
            self.repo = Repository::open_bare(&self.dir)
                .map_err(self.error("open"))?
                .into();
        }
        // The packs are final: they are what the store holds now.
        self.record_packs();
        let objects = self.dir.join("objects");
        let Ok(fanout) = fs_err::read_dir(&objects) else {
            return Ok(pruned);
        };
        for dir in fanout.filter_map(Result::ok) {
            let name = dir.file_name();
            let prefix = name.as_bytes();
            if prefix.len() != 2 || !prefix.iter().all(u8::is_ascii_hexdigit) {
                continue;
            }
            let Ok(files) = fs_err::read_dir(dir.path()) else {
                continue;
            };
            for file in files.filter_map(Result::ok) {
                let rest = file.file_name();
                let mut hex = prefix.to_vec();
                hex.extend_from_slice(rest.as_bytes());
                let Some(id) = std::str::from_utf8(&hex)
                    .ok()
                    .and_then(|h| Oid::from_str(h).ok())
                    .filter(|_| hex.len() == 40)
                else {
                    continue;
                };
                if reachable.contains(&id) {
                    continue;
                }
                let size = file.metadata().map_or(0, |m| m.len());
                if fsops::remove_file(&file.path()).is_ok() {
                    pruned.objects += 1;
                    pruned.bytes += size;
                }
            }
            let _ = fsops::remove_dir(&dir.path());
        }
        self.clear_staging();
        if self.checkpoint_txids().is_empty() && recorded.is_empty() {
            let (objects, bytes) = self.prune_git_objects();
            pruned.objects += objects;
            pruned.bytes += bytes;
        }
        Ok(pruned)
    }

    /// Rewrites every pack that holds an object not in `reachable`, without those objects.
    /// Returns whether any pack was rewritten.
    fn sweep_packs(&self, reachable: &HashSet<Oid>, pruned: &mut Pruned) -> Result<bool, GitError> {
        pack::remove_leftovers(&self.dir);
        let packs = pack::packs(&self.dir);
        let dead: Vec<&pack::Pack> = packs
            .iter()
            .filter(|p| p.ids.iter().any(|id| !reachable.contains(id)))
            .collect();
        if dead.is_empty() {
            return Ok(false);
        }
        let size = |packs: &[pack::Pack]| packs.iter().map(pack::Pack::bytes).sum::<u64>();
        let before = size(&packs);
        pruned.objects += pack::rewrite(self.repo().map_err(self.error("open"))?, &dead, |id| {
            reachable.contains(id)
        })
        .map_err(self.error("rewrite a checkpoint pack"))?;
        pruned.bytes += before.saturating_sub(size(&pack::packs(&self.dir)));
        Ok(true)
    }

    /// Marks a checkpoint commit and everything below it.
    fn mark(&self, commit: Oid, reachable: &mut HashSet<Oid>) -> Result<(), git2::Error> {
        if !reachable.insert(commit) {
            return Ok(());
        }
        let repo = self.repo()?;
        let commit = repo.find_commit(commit)?;
        let mut trees = vec![commit.tree_id()];
        while let Some(id) = trees.pop() {
            if !reachable.insert(id) {
                continue;
            }
            let tree = repo.find_tree(id)?;
            for entry in &tree {
                match entry.kind() {
                    Some(ObjectType::Tree) => trees.push(entry.id()),
                    _ => {
                        reachable.insert(entry.id());
                    }
                }
            }
        }
        Ok(())
    }

    /// Drops the private index's entries and trees whose objects are about to be pruned,
    /// and the entries that were racy (modified in the tick the index was written: a later
    /// write would make their stat data look trusted without a hash). What is left is
    /// written as one base, flushed, the delta removed first, so that neither file can
    /// name a pruned object whatever is lost later; nothing left removes both. The
    /// watcher's token file goes first when it names a commit about to be pruned.
    ///
    /// # Errors
    /// The index cannot be rewritten or removed: nothing may be pruned then.
    fn forget(&self, reachable: &HashSet<Oid>) -> std::io::Result<()> {
        // The watcher's token file names the last checkpoint's commit: gone with it, and
        // durably, so that a crash cannot bring back a name of a pruned commit.
        let token = self.dir.join(super::watch::TOKEN_FILE);
        if super::watch::FastToken::read(&token).is_some_and(|t| !reachable.contains(&t.commit)) {
            agent_guard_fsops::remove_file(&token)?;
            agent_guard_fsops::sync_dir(&self.dir)?;
        }
        let path = self.index_path();
        let index = Index::load(&path);
        let entries: Vec<EntryRef<'_>> = index
            .entries()
            .filter(|e| e.id.is_none_or(|id| reachable.contains(&id)))
            .filter(|e| index.written.is_some_and(|written| e.stat.mtime < written))
            .collect();
        let mut head = index.head.clone();
        head.trees.retain(|(_, id)| reachable.contains(id));
        head.commit = head.commit.filter(|id| reachable.contains(id));
        let unchanged = (entries.len(), &head) == (index.len(), &index.head);
        if unchanged && !index.has_delta() {
            return Ok(());
        }
        if entries.is_empty() {
            return stat_cache::remove(&path);
        }
        stat_cache::save_base_durably(&path, &head, (entries.len(), entries.into_iter()))
    }

    /// The store's size on disk: objects and everything else it holds.
    pub fn disk_usage(&self) -> (u64, u64) {
        let mut objects = 0;
        let mut bytes = 0;
        let mut pending = vec![self.dir.clone()];
        while let Some(dir) = pending.pop() {
            let Ok(entries) = fs_err::read_dir(&dir) else {
                continue;
            };
            for entry in entries.filter_map(Result::ok) {
                let Ok(metadata) = entry.metadata() else {
                    continue;
                };
                if metadata.is_dir() {
                    pending.push(entry.path());
                } else {
                    bytes += metadata.len();
                    let parent = dir.file_name().map(OsStr::as_bytes).unwrap_or_default();
                    if parent.len() == 2 && parent.iter().all(u8::is_ascii_hexdigit) {
                        objects += 1;
                    }
                    if parent == b"pack" && entry.path().extension().is_some_and(|e| e == "idx") {
                        objects += pack::count(&entry.path());
                    }
                }
            }
        }
        (objects, bytes)
    }
}
