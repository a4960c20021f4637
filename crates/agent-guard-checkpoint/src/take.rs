//! Taking a checkpoint: the walk compared with the private index, the changed files hashed,
//! the trees above them rebuilt, the commit written — or, when nothing changed since the
//! last checkpoint, that checkpoint again, without reading the object store.

use std::collections::{HashMap, HashSet};
use std::os::unix::ffi::OsStrExt as _;
use std::path::PathBuf;

use git2::Oid;

use super::hash::Hashed;
use super::meta::{Meta, NotKept, NotKeptReason};
use super::pack::{self, NewObjects, PackFlushing};
use super::stat_cache::{self, Change, Entry, Head, Index, path_order};
use super::tree::{Builder, LeafRef, mark_dirty};
use super::watch::{self, Asked, FastToken, Token};
use super::{CheckpointStore, Selection, Taken, WatcherState, leaf_of, walk};
use agent_guard_git::GitError;

/// A checkpoint's writes still in progress: the flushes of its new packs, and then the
/// private index, which is written only once every object it names is on disk (so that a
/// crash can never leave it naming an object the store lost).
#[derive(Debug, Default)]
#[must_use = "a checkpoint is not durable until its packs are flushed"]
pub struct Flushing {
    packs: PackFlushing,
    index: Option<Box<IndexUpdate>>,
    /// The watcher's token file, written once the packs are on disk (it names the commit).
    token: Option<(PathBuf, FastToken)>,
    /// The store whose pack ledger is brought up to date once its new packs are on disk.
    ledger: Option<PathBuf>,
}

/// The private index a checkpoint leaves.
#[derive(Debug)]
struct IndexUpdate {
    path: PathBuf,
    previous: Index,
    head: Head,
    entries: Vec<Entry>,
    /// What changed since `previous`, in path order; `None` when too much changed for a
    /// delta (a new base is written).
    recent: Option<Vec<Change>>,
}

impl Flushing {
    /// Waits until every new pack is on disk, then writes the private index; `Err` says
    /// why a pack may not be on disk. The index is a cache: when it cannot be written, the
    /// previous one (which names only older, durable objects) stays, and the next
    /// checkpoint hashes a little more.
    ///
    /// # Errors
    /// A flush failed: the checkpoint may not survive a crash.
    pub fn wait(self) -> Result<(), String> {
        self.packs.wait()?;
        if let Some(dir) = &self.ledger {
            super::damage::record_packs(dir);
        }
        if let Some(update) = self.index {
            let _ = stat_cache::save(
                &update.path,
                &update.previous,
                &update.head,
                (
                    update.entries.len(),
                    update.entries.iter().map(Entry::as_ref),
                ),
                update.recent.as_deref(),
            );
        }
        if let Some((path, token)) = self.token {
            // A cache: without it the next checkpoint asks with an older token or none.
            let _ = token.write(&path);
        }
        Ok(())
    }
}

impl CheckpointStore {
    /// [`CheckpointStore::take`], with the flushes of the new objects still running: the
    /// checkpoint is durable once [`Flushing::wait`] returns. A caller that journals the
    /// checkpoint starts its record's flush first, so that both share one disk commit, and
    /// must wait for both before the command runs.
    ///
    /// # Errors
    /// The workspace root cannot be listed, or an object cannot be written.
    pub fn take_in_flight(&self, selection: &Selection) -> Result<(Taken, Flushing), GitError> {
        // A pack the index relies on that is gone or truncated: set aside, and everything is
        // walked, hashed and stored again (the index and the token went with it).
        let repaired = self.repair();
        // The watcher does not hear `.git`: its state is stat'ed every time, and what was
        // found is part of the fingerprint, so a changed repository is never the last
        // checkpoint.
        let git = super::gitdir::walk(&selection.workspace);
        let fingerprint =
            watch::fingerprint(selection) ^ git.as_ref().map_or(0, super::gitdir::GitWalk::digest);
        let token_path = self.dir.join(watch::TOKEN_FILE);
        let fast = FastToken::read(&token_path);
        let since = fast.as_ref().map(|f| f.token);
        let asked = watch::ask(
            &watch::dir_of(&self.dir),
            since.as_ref(),
            watch::filter_digest(selection),
        );
        let (watcher, answer_token, heard_since) = answer_of(asked);
        // Nothing heard since the last checkpoint: the workspace is that checkpoint.
        if let (Some(heard), Some(fast)) = (&heard_since, &fast)
            && heard.is_empty()
            && fast.fingerprint == fingerprint
            && !fast.linked
        {
            return Ok((fast.taken(watcher), Flushing::default()));
        }
        // The index is read while the walk's threads list the workspace (the calling
        // thread would otherwise only wait for them).
        let index_path = self.index_path();
        let (previous, walked) = std::thread::scope(|scope| {
            let loading = scope.spawn(|| Index::load(&index_path));
            let walked = walk::walk_with(selection, heard_since.as_ref(), git);
            (loading.join(), walked)
        });
        let previous = previous.unwrap_or_default();
        let mut walked = walked?;
        // What was not heard is the index's entry, if the index is current at the token
        // asked with; otherwise it is stat'ed now.
        let trust = heard_since.is_some() && since.is_some() && previous.head.watch == since;
        let found = std::mem::take(&mut walked.found);
        let (found, trusted) = settle(found, &previous, trust, &selection.workspace);
        let mut entries: Vec<Entry> = found;
        let mut comparison = compare(&mut entries, &previous, &trusted, selection);
        let mut new = NewObjects::default();
        let (new_objects, new_bytes) =
            self.hash_pending(selection, &mut entries, &mut comparison, &mut new)?;
        let Comparison {
            same,
            dirty,
            pending,
            recent,
            mut not_kept,
            ..
        } = comparison;
        add_unwalked(&mut not_kept, &walked.unreadable, &walked.nested_git);
        let meta = encode_meta(&entries, &not_kept, &walked);

        let kept = entries.iter().filter(|e| e.id.is_some());
        let mut taken = Taken {
            commit: String::new(),
            files: kept.clone().count() as u64,
            bytes: kept.map(|e| e.stat.size).sum(),
            hashed: pending.len() as u64,
            new_objects,
            new_bytes,
            not_kept,
            watcher,
            repaired,
        };
        // Nothing changed: the commit is deterministic, so it is the last one, which is in
        // the store (the index names it only once it is on disk).
        let (commit, trees, packs) = match previous.head.commit {
            Some(commit) if same && meta == previous.head.meta => {
                (commit, previous.head.trees.clone(), PackFlushing::default())
            }
            _ => self.store_new(new, &dirty, &previous.head.trees, &entries, meta.clone())?,
        };
        taken.commit = commit.to_string();
        let head = Head {
            commit: Some(commit),
            meta,
            trees,
            watch: answer_token,
        };
        let linked = entries.iter().any(|e| e.stat.links > 1);
        let token_file = fast_token(
            &token_path,
            answer_token,
            (fingerprint, linked),
            &taken,
            &head.meta,
            fast.as_ref(),
        );
        let index = (!same || head != previous.head).then(|| {
            Box::new(IndexUpdate {
                path: self.index_path(),
                previous,
                head,
                entries,
                recent,
            })
        });
        Ok((
            taken,
            Flushing {
                ledger: Some(self.dir.clone()),
                packs,
                index,
                token: token_file,
            },
        ))
    }
    /// Hashes the pending entries of `comparison` into `new` and records what was found;
    /// returns how many objects, and how many bytes, are new.
    fn hash_pending(
        &self,
        selection: &Selection,
        entries: &mut Vec<Entry>,
        comparison: &mut Comparison,
        new: &mut NewObjects,
    ) -> Result<(u64, u64), GitError> {
        let hashed = if comparison.pending.is_empty() {
            super::hash::HashRun::default()
        } else {
            let before: Vec<Option<Oid>> = comparison
                .priors
                .iter()
                .map(|p| p.map(|(id, _)| id))
                .collect();
            self.hash(selection, entries, &comparison.pending, &before, new)?
        };
        comparison.record_hashed(entries, hashed.outcomes);
        Ok((hashed.new_objects, hashed.new_bytes))
    }

    /// Stores what changed: the `dirty` directories' trees rebuilt (the others are
    /// `previous_trees`'), the commit of `entries` and `meta`, and `new`'s objects written
    /// as a pack whose flush is under way. Returns the commit, every directory's tree and
    /// the flush.
    fn store_new(
        &self,
        mut new: NewObjects,
        dirty: &HashSet<Vec<u8>>,
        previous_trees: &[(Vec<u8>, Oid)],
        entries: &[Entry],
        meta: Vec<u8>,
    ) -> Result<(Oid, Trees, PackFlushing), GitError> {
        let cache: HashMap<Vec<u8>, Oid> = previous_trees.iter().cloned().collect();
        let mut builder = Builder {
            new: &mut new,
            dirty,
            cache: &cache,
            built: Vec::new(),
        };
        let files = match cache.get(&b""[..]) {
            Some(root) if dirty.is_empty() => *root,
            _ => {
                let leaves: Vec<LeafRef<'_>> = entries
                    .iter()
                    .filter_map(|e| leaf_of(&e.path, e.stat, e.id))
                    .collect();
                builder.build(b"", &leaves)
            }
        };
        let mut trees: Vec<(Vec<u8>, Oid)> = previous_trees
            .iter()
            .filter(|(dir, _)| !dirty.contains(dir))
            .cloned()
            .chain(builder.built)
            .collect();
        trees.sort_by(|a, b| path_order(&a.0, &b.0));
        let commit = CheckpointStore::commit(&mut new, files, meta);
        // The store's object database, if hashing opened it, must see the new pack.
        let odb = self.repo.get().map(git2::Repository::odb).transpose();
        let odb = odb.map_err(self.error("open the object database"))?;
        let (packed, packs) = new
            .write(&self.dir, odb.as_ref())
            .map_err(self.error("write a checkpoint pack"))?;
        if packed > 0 && pack::too_many(&self.dir) {
            let odb = match odb {
                Some(odb) => odb,
                None => self
                    .repo()
                    .and_then(git2::Repository::odb)
                    .map_err(self.error("open the object database"))?,
            };
            pack::consolidate(&self.dir, &odb).map_err(self.error("merge the checkpoint packs"))?;
        }
        Ok((commit, trees, packs))
    }
}

/// What the walk's entries are, compared with the last checkpoint's private index.
///
/// Its lists are kept small, since a first checkpoint of 100,000 files has every entry
/// pending (issue 38: its peak memory): a pending entry's prior is its leaf only, the
/// changed paths are kept as the directories to rebuild, and what the private index must
/// change is dropped once it is too much for a delta.
struct Comparison {
    /// Whether every entry is the last checkpoint's, path for path.
    same: bool,
    /// The directories above the paths whose leaf (blob and mode) may differ from the last
    /// checkpoint's: they are rebuilt.
    dirty: HashSet<Vec<u8>>,
    /// The entries to hash, by position.
    pending: Vec<usize>,
    /// The leaf (blob and mode) the index held for each pending entry, if it held one.
    priors: Vec<Option<(Oid, u32)>>,
    /// What the private index must change, in path order; `None` once it is more than a
    /// delta may hold.
    recent: Option<Vec<Change>>,
    /// Each pending entry's slot in `recent`, filled once it is hashed.
    slots: Vec<usize>,
    /// The entries that are not kept, and why.
    not_kept: Vec<NotKept>,
}

/// Compares the walk's `entries` with the `previous` index, path for path: an entry whose
/// stat data is unchanged (or `trusted`) gets its index entry's object id, a special or too
/// large file is not kept, and the others are pending, to be hashed.
fn compare(
    entries: &mut [Entry],
    previous: &Index,
    trusted: &[bool],
    selection: &Selection,
) -> Comparison {
    let mut pending: Vec<usize> = Vec::new();
    let mut not_kept = Vec::new();
    // Whether every entry is the last checkpoint's, path for path; and the directories
    // above the paths whose leaf (blob and mode) may differ from the last checkpoint's,
    // which are rebuilt. Entries hashed again are compared once hashed.
    let mut same = entries.len() == previous.len();
    let mut dirty: HashSet<Vec<u8>> = HashSet::new();
    let mut priors: Vec<Option<(Oid, u32)>> = Vec::new();
    // What the private index must change, in path order (a pending entry's slot is
    // filled once it is hashed), while a delta may hold it.
    let limit = previous.delta_limit();
    let mut recent: Option<Vec<Change>> = limit.map(|_| Vec::new());
    let note = |recent: &mut Option<Vec<Change>>, change: Change| {
        if let Some(list) = recent {
            if limit.is_some_and(|most| list.len() >= most) {
                *recent = None;
            } else {
                list.push(change);
            }
        }
    };
    let mut slots: Vec<usize> = Vec::new();
    let mut old = previous.entries();
    let mut next_old = old.next();
    for (at, found) in entries.iter_mut().enumerate() {
        // Paths before this one are gone from the workspace.
        while let Some(gone) = next_old.filter(|e| path_order(e.path, &found.path).is_lt()) {
            same = false;
            mark_dirty(&mut dirty, gone.path);
            note(&mut recent, (gone.path.to_vec(), None));
            next_old = old.next();
        }
        let prior = next_old.filter(|e| e.path == found.path);
        if prior.is_some() {
            next_old = old.next();
        }
        let stat = found.stat;
        let reason = if !stat.is_file() && !stat.is_symlink() {
            Some(NotKeptReason::Special)
        } else if stat.is_file()
            && stat.size > super::gitdir::size_cap(&found.path, selection.max_file_bytes)
        {
            Some(NotKeptReason::TooLarge)
        } else {
            None
        };
        found.id = None;
        if let Some(reason) = reason {
            if prior != Some(found.as_ref()) {
                same = false;
                note(&mut recent, (found.path.clone(), Some(found.clone())));
            }
            if prior.is_none_or(|p| p.id.is_some()) {
                mark_dirty(&mut dirty, &found.path);
            }
            not_kept.push(NotKept {
                path: found.path.clone(),
                size: stat.size,
                reason,
            });
            continue;
        }
        match prior {
            Some(p) if (trusted[at] || previous.unchanged(&p.stat, &stat)) && p.id.is_some() => {
                found.id = p.id;
            }
            _ => {
                same &= prior.is_some_and(|p| p.stat == stat);
                pending.push(at);
                priors.push(prior.and_then(|p| Some((p.id?, p.stat.git_mode()))));
                slots.push(recent.as_ref().map_or(0, Vec::len));
                note(&mut recent, (found.path.clone(), None));
            }
        }
    }
    while let Some(gone) = next_old {
        same = false;
        mark_dirty(&mut dirty, gone.path);
        note(&mut recent, (gone.path.to_vec(), None));
        next_old = old.next();
    }
    Comparison {
        same,
        dirty,
        pending,
        priors,
        recent,
        slots,
        not_kept,
    }
}

impl Comparison {
    /// Records what hashing each pending entry found (`outcomes`, in the order of
    /// `pending`): its object id, a file not kept, or a file gone since (dropped from
    /// `entries`); and whether its leaf differs from the last checkpoint's.
    fn record_hashed(&mut self, entries: &mut Vec<Entry>, outcomes: Vec<Hashed>) {
        let mut gone = Vec::new();
        for (((at, outcome), prior), slot) in self
            .pending
            .iter()
            .zip(outcomes)
            .zip(&self.priors)
            .zip(&self.slots)
        {
            match outcome {
                Hashed::Stored(id) => entries[*at].id = Some(id),
                Hashed::Unreadable => self.not_kept.push(NotKept {
                    path: entries[*at].path.clone(),
                    size: entries[*at].stat.size,
                    reason: NotKeptReason::Unreadable,
                }),
                Hashed::TooLarge => self.not_kept.push(NotKept {
                    path: entries[*at].path.clone(),
                    size: entries[*at].stat.size,
                    reason: NotKeptReason::TooLarge,
                }),
                Hashed::Gone => gone.push(*at),
            }
            let entry = &entries[*at];
            let leaf = entry.id.map(|id| (id, entry.stat.git_mode()));
            if leaf != *prior || outcome == Hashed::Gone {
                self.same = false;
                mark_dirty(&mut self.dirty, &entry.path);
            }
            if outcome != Hashed::Gone
                && let Some(change) = self.recent.as_mut().and_then(|r| r.get_mut(*slot))
            {
                change.1 = Some(entry.clone());
            }
        }
        for at in gone.into_iter().rev() {
            entries.remove(at);
        }
    }
}

/// Adds to `not_kept` the directories the walk could not list and the nested repositories
/// it left out, then sorts it in path order without duplicates.
fn add_unwalked(not_kept: &mut Vec<NotKept>, unreadable: &[Vec<u8>], nested_git: &[Vec<u8>]) {
    for dir in unreadable {
        not_kept.push(NotKept {
            path: dir.clone(),
            size: 0,
            reason: NotKeptReason::Unreadable,
        });
    }
    for git in nested_git {
        not_kept.push(NotKept {
            path: git.clone(),
            size: 0,
            reason: NotKeptReason::NestedRepository,
        });
    }
    not_kept.sort_by(|a, b| path_order(&a.path, &b.path));
    not_kept.dedup_by(|a, b| a.path == b.path);
}

/// The checkpoint's meta: what is not kept, the unusual permissions of the kept files, the
/// empty directories, the directories' unusual modes and the regenerable artifacts left out.
fn encode_meta(entries: &[Entry], not_kept: &[NotKept], walked: &walk::Walked) -> Vec<u8> {
    let permissions: Vec<(&[u8], u32)> = entries
        .iter()
        .filter(|e| e.id.is_some())
        .filter_map(|e| Some((e.path.as_slice(), e.stat.unusual_permissions()?)))
        .collect();
    Meta::encode(&super::meta::Records {
        not_kept,
        permissions: &permissions,
        empty_dirs: &walked.empty_dirs,
        dir_modes: &walked.dir_modes,
        left_out: &walked.left_out,
    })
}

/// What the watcher's answer says: its state, the token it answered with, and what it
/// heard since the token asked with (`None` when it could not say).
fn answer_of(asked: Asked) -> (WatcherState, Option<Token>, Option<watch::Heard>) {
    match asked {
        Asked::Absent => (WatcherState::Absent, None, None),
        Asked::Unavailable => (WatcherState::Unavailable, None, None),
        Asked::Full(token) => (WatcherState::Answered, Some(token), None),
        Asked::Heard(token, heard) => (WatcherState::Answered, Some(token), Some(heard)),
    }
}

/// Every directory's tree id, in [`path_order`].
type Trees = Vec<(Vec<u8>, Oid)>;

/// The token file a checkpoint leaves when a watcher answered it (`None` when it is the
/// one already on disk).
fn fast_token(
    path: &std::path::Path,
    answer: Option<Token>,
    (fingerprint, linked): (u64, bool),
    checkpoint: &Taken,
    meta: &[u8],
    read: Option<&FastToken>,
) -> Option<(PathBuf, FastToken)> {
    let fast = FastToken {
        token: answer?,
        fingerprint,
        linked,
        commit: Oid::from_str(&checkpoint.commit).ok()?,
        files: checkpoint.files,
        bytes: checkpoint.bytes,
        meta: meta.to_vec(),
    };
    (read != Some(&fast)).then(|| (path.to_path_buf(), fast))
}

/// The walk's entries with their stat data: an entry the walk did not stat (the watcher
/// heard nothing of it) is its index entry's when `trust` holds and the index has it, and
/// is stat'ed now otherwise (gone since: dropped). A file with more than one name is never
/// trusted: it changes through any of them, and the watcher hears only the name used —
/// neither when the index says so, nor when a name the walk stat'ed now shares its inode.
/// Also says which entries were trusted.
fn settle(
    found: Vec<Entry>,
    previous: &Index,
    trust: bool,
    root: &std::path::Path,
) -> (Vec<Entry>, Vec<bool>) {
    let mut trusted = Vec::with_capacity(found.len());
    if found.iter().all(|e| !e.stat.is_unknown()) {
        trusted.resize(found.len(), false);
        return (found, trusted);
    }
    let linked: std::collections::HashSet<(u64, u64)> = found
        .iter()
        .filter(|e| !e.stat.is_unknown() && e.stat.links > 1)
        .map(|e| (e.stat.dev, e.stat.ino))
        .collect();
    let mut out = Vec::with_capacity(found.len());
    let mut old = previous.entries();
    let mut next_old = old.next();
    for mut entry in found {
        if !entry.stat.is_unknown() {
            out.push(entry);
            trusted.push(false);
            continue;
        }
        while next_old.is_some_and(|e| path_order(e.path, &entry.path).is_lt()) {
            next_old = old.next();
        }
        let prior = next_old.filter(|e| e.path == entry.path);
        match prior {
            Some(prior)
                if trust
                    && prior.stat.links <= 1
                    && !linked.contains(&(prior.stat.dev, prior.stat.ino)) =>
            {
                entry.stat = prior.stat;
                out.push(entry);
                trusted.push(true);
            }
            _ => {
                let path = root.join(std::ffi::OsStr::from_bytes(&entry.path));
                if let Ok(metadata) = fs_err::symlink_metadata(&path) {
                    entry.stat = stat_cache::Stat::of(&metadata);
                    out.push(entry);
                    trusted.push(false);
                }
            }
        }
    }
    (out, trusted)
}
