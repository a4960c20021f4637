//! Undoing a line's moves: every source back at its name, every destination back to what it
//! held.
//!
//! A rename keeps a path's device and inode, so each source is looked for by its identity:
//! at its name (nothing to do), at one of the destinations the line could put it on, below a
//! directory source found elsewhere (`mv a d/ && mv d e`), or at the swap name this undo
//! gives it. Each step is safe to repeat after a crash:
//!
//! 1. **Stage.** Every source found away from its name is renamed to its swap name, at the
//!    workspace's top, deepest first, so that nothing set aside next can carry a source with
//!    it (`mkdir d && mv a d`, then `d` is set aside whole). A source with a kept copy that
//!    the line changed after moving it is not moved back: its copy is.
//! 2. **Aside.** What stands at a source's name and is no source is moved into a new backup
//!    transaction: nothing the line (or anyone since) left there is lost, and `redo` brings
//!    it back.
//! 3. **Home.** Each staged source is renamed to its name, ancestors first. A source found
//!    nowhere comes back from its kept copy, when it has one. Then what stands at a
//!    destination that was absent or an empty directory, and is no source, is set aside
//!    too (looked at only now: it may be inside a directory that moved back).
//! 4. **Shapes.** The kept versions of replaced files go back, as any preservation's do;
//!    then ([`Restorer::shapes_back`]) an empty directory a directory was moved over is made
//!    again, and a numbered backup the line made of a replaced file is set aside.

use std::collections::HashSet;
use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _};
use std::path::{Path, PathBuf};

use agent_guard_git::MovedEntries;

use crate::faults::FaultPoint;
use crate::records::{MoveSource, WasThere};
use crate::relocate::RelocateItem;
use crate::restore::paths::{TARGET_OUTSIDE, physical, strictly_inside};
use crate::restore::place::Restorer;
use crate::restore::transfer::{Transfer, chain, create_parents, transfer};
use crate::transactions::Transaction;
use agent_guard_fsops as fsops;

/// `(device, inode)`.
type Identity = (u64, u64);

fn identity_at(path: &Path) -> Option<Identity> {
    path.symlink_metadata().ok().map(|m| (m.dev(), m.ino()))
}

fn identity_of(source: &MoveSource) -> Identity {
    (source.dev, source.ino)
}

/// Where the source recorded at `index` waits during an undo: at the top of the workspace
/// `base`, a name no command would use, the same for every attempt of the same undo.
fn swap_name(base: &Path, txid: &str, index: usize) -> PathBuf {
    base.join(format!(".agent-guard-swap-{txid}-{index}"))
}

/// Where the sources of `tx` may be, besides their names: the destinations, the swap names
/// (`swaps`), and the numbered backups beside either.
fn places_to_look(tx: &Transaction, swaps: &[PathBuf]) -> Vec<PathBuf> {
    // Where a source may be: the destinations and the swap names; and, below a source
    // found elsewhere, wherever its destinations moved along with it.
    let mut places: Vec<PathBuf> = tx
        .destinations
        .iter()
        .map(|d| d.path.path().to_path_buf())
        .chain(swaps.iter().cloned())
        .collect();
    // A source the line renamed to a numbered backup name (`mv --backup=numbered b d &&
    // mv a d`): beside a destination, under a name no record can know beforehand.
    let numbered: Vec<PathBuf> = tx
        .destinations
        .iter()
        .map(|d| d.path.path())
        .chain(tx.moves.iter().map(|m| m.origin_path.path()))
        .flat_map(numbered_backups)
        .collect();
    places.extend(numbered);
    places
}

/// Step 1: finds every source of `sources` away from its name, by its identity, among
/// `places` (and below the sources found); where each one is, in the order of `sources`.
fn find_sources(
    tx: &Transaction,
    sources: &[(usize, &MoveSource)],
    mut places: Vec<PathBuf>,
) -> Vec<Option<PathBuf>> {
    // 1. Find every source, for as long as another one turns up (one may be found only
    //    below a directory found before: `mv a d/ && mv d e`, `mv d e && mv a e/`).
    let mut found_at: Vec<Option<PathBuf>> = vec![None; sources.len()];
    let mut looked: Vec<bool> = sources.iter().map(|(_, m)| m.at_origin()).collect();
    let mut claimed: HashSet<PathBuf> = HashSet::new();
    loop {
        let mut progress = false;
        for (slot, (_, source)) in sources.iter().enumerate() {
            if looked[slot] {
                continue;
            }
            // Its own landings first (two names of one file, moved apart, are told apart
            // by where each went), then anywhere; a place found for one source is no
            // other's.
            let wanted = Some(identity_of(source));
            let own: Vec<PathBuf> = source
                .landings
                .iter()
                .map(|l| l.path().to_path_buf())
                .flat_map(|l| {
                    let numbered = numbered_backups(&l);
                    std::iter::once(l).chain(numbered)
                })
                .collect();
            let Some(found) = own
                .iter()
                .chain(places.iter())
                .find(|p| !claimed.contains(*p) && identity_at(p) == wanted)
                .cloned()
            else {
                continue;
            };
            claimed.insert(found.clone());
            looked[slot] = true;
            progress = true;
            // What was below its name, or went below where it is now, is below it.
            let origin = source.origin_path.path();
            let below: Vec<PathBuf> = places
                .iter()
                .map(PathBuf::as_path)
                .chain(tx.moves.iter().map(|m| m.origin_path.path()))
                .filter_map(|p| p.strip_prefix(origin).ok())
                .filter(|rest| !rest.as_os_str().is_empty())
                .map(|rest| found.join(rest))
                .collect();
            places.extend(below);
            found_at[slot] = Some(found);
        }
        if !progress {
            break;
        }
    }
    // A source at its own name inside a directory source found elsewhere is there only
    // because that directory now stands at its parent's name (`mv d1/y d2 && mv -T d2
    // d1`): it leaves with the directory unless it is staged too.
    for slot in 0..sources.len() {
        let origin = sources[slot].1.origin_path.path();
        let carried = found_at.iter().enumerate().any(|(other, found)| {
            other != slot
                && found
                    .as_deref()
                    .is_some_and(|f| f != origin && origin.starts_with(f))
        });
        if found_at[slot].is_none() && carried && sources[slot].1.at_origin() {
            found_at[slot] = Some(origin.to_path_buf());
        }
    }
    found_at
}

/// What staging the sources did, by source.
struct Staging {
    /// The swap name each source was staged at.
    staged: Vec<Option<PathBuf>>,
    /// Where the sources the line changed after moving them are.
    changed: Vec<PathBuf>,
    /// The same, by source.
    changed_at: Vec<Option<PathBuf>>,
}

impl Restorer<'_> {
    /// Steps 1 to 3: stages the sources, sets aside what is in the way, brings them home.
    pub(crate) fn moves_back(&mut self, tx: &Transaction, selected: &dyn Fn(&Path) -> bool) {
        // Ancestors first: a directory is home before what goes back inside it.
        let mut sources: Vec<(usize, &MoveSource)> = tx
            .moves
            .iter()
            .enumerate()
            .filter(|(_, m)| selected(m.origin_path.path()))
            .collect();
        sources.sort_by_key(|(_, m)| m.origin_path.path().components().count());
        if sources.is_empty() {
            return;
        }
        let txid = self.txid.as_str().to_owned();
        let identities: HashSet<Identity> = sources.iter().map(|(_, m)| identity_of(m)).collect();
        let swaps: Vec<PathBuf> = sources
            .iter()
            .map(|(index, _)| swap_name(&self.base, &txid, *index))
            .collect();
        let places = places_to_look(tx, &swaps);
        let mut found_at = find_sources(tx, &sources, places);
        let Staging {
            staged,
            changed,
            changed_at,
        } = self.stage_sources(&sources, &mut found_at, &swaps);
        self.store.faults().hit(FaultPoint::UndoMoveAfterStage);
        // 3. Aside, what stands at a source's name (a destination's occupant is looked at
        //    once everything is home: it may be inside a directory that moved).
        let in_way = |path: &Path| identity_at(path).is_some_and(|id| !identities.contains(&id));
        let aside: Vec<PathBuf> = sources
            .iter()
            .enumerate()
            .filter(|(slot, (_, source))| {
                (staged[*slot].is_some() || changed_at[*slot].is_some())
                    && in_way(source.origin_path.path())
            })
            .map(|(_, (_, source))| source.origin_path.path().to_path_buf())
            .collect();
        if !aside.is_empty() {
            self.set_aside(&aside);
        }
        self.store.faults().hit(FaultPoint::UndoMoveAfterAside);
        let entries = self.bring_sources_home(tx, &sources, &staged, &found_at, &changed_at);
        self.put_back_index_entries(tx, entries, &swaps);
        // What stands where the line's sources landed, where nothing (or an empty directory)
        // was before, and is no source: the line's doing, or someone's since. Kept aside.
        let inside = |path: &Path| physical(path).is_some_and(|p| strictly_inside(&p, &self.base));
        let aside: Vec<PathBuf> = tx
            .destinations
            .iter()
            .filter(|d| d.inside && selected(d.path.path()))
            .filter(|d| match d.was {
                WasThere::Absent => true,
                WasThere::EmptyDir => !is_empty_dir(d.path.path()),
                WasThere::Dir | WasThere::Kept => false,
            })
            .map(|d| d.path.path())
            .filter(|path| in_way(path))
            .map(Path::to_path_buf)
            .chain(changed.iter().filter(|p| inside(p)).cloned())
            .collect();
        self.left_outside
            .extend(changed.into_iter().filter(|p| !inside(p)));
        if !aside.is_empty() {
            self.set_aside(&aside);
        }
    }

    /// Step 2: stages every source found (`found_at`) at its swap name, the deepest first;
    /// a source the line changed after moving it, and that has a kept copy, is not staged
    /// but noted as changed (and no longer counted as found).
    fn stage_sources(
        &mut self,
        sources: &[(usize, &MoveSource)],
        found_at: &mut [Option<PathBuf>],
        swaps: &[PathBuf],
    ) -> Staging {
        // 2. Stage, the deepest first (what went into a directory leaves it before the
        //    directory is compared with its copy or moved).
        let mut order: Vec<usize> = (0..sources.len())
            .filter(|s| found_at[*s].is_some())
            .collect();
        order.sort_by_key(|s| {
            std::cmp::Reverse(found_at[*s].as_ref().map_or(0, |f| f.components().count()))
        });
        let mut staged: Vec<Option<PathBuf>> = vec![None; sources.len()];
        let mut changed: Vec<PathBuf> = Vec::new();
        let mut changed_at: Vec<Option<PathBuf>> = vec![None; sources.len()];
        for slot in order {
            let (_, source) = sources[slot];
            let Some(found) = found_at[slot].clone() else {
                continue;
            };
            // A source with a kept copy that the line changed after moving it (`mv a b &&
            // echo x > b`): the copy is what it was; the changed one is kept aside.
            if let Some(copy) = source
                .copy_path
                .as_ref()
                .and_then(|c| self.bounds.source(c.path()))
                && copy.symlink_metadata().is_ok()
            {
                // The copy also holds what moves back on its own (found elsewhere): that part
                // of it is a duplicate, and is dropped before comparing.
                let origin = source.origin_path.path();
                for (other, (_, nested)) in sources.iter().enumerate() {
                    if other == slot || found_at[other].is_none() {
                        continue;
                    }
                    if let Ok(rest) = nested.origin_path.path().strip_prefix(origin)
                        && !rest.as_os_str().is_empty()
                    {
                        remove_any(&copy.join(rest));
                    }
                }
                if !same_tree(&found, &copy) {
                    changed_at[slot] = Some(found.clone());
                    changed.push(found);
                    found_at[slot] = None;
                    continue;
                }
            }
            staged[slot] = self.stage(&found, &swaps[slot]);
        }
        Staging {
            staged,
            changed,
            changed_at,
        }
    }

    /// Step 4: brings each staged source home, or, where it is found nowhere, its kept copy;
    /// returns the moves a `git mv`'s index entries must follow back.
    fn bring_sources_home(
        &mut self,
        tx: &Transaction,
        sources: &[(usize, &MoveSource)],
        staged: &[Option<PathBuf>],
        found_at: &[Option<PathBuf>],
        changed_at: &[Option<PathBuf>],
    ) -> Vec<MovedEntries> {
        // 4. Home.
        let kept_origins: HashSet<&Path> = tx.items.iter().map(|i| i.origin.as_path()).collect();
        let mut entries: Vec<MovedEntries> = Vec::new();
        for (slot, (((_, source), swap), found)) in
            sources.iter().zip(staged).zip(found_at).enumerate()
        {
            let origin = source.origin_path.path();
            if let Some(swap) = swap {
                if self.bring_home(swap, origin)
                    && let Some(landed) = found
                {
                    entries.push(MovedEntries {
                        origin: origin.to_path_buf(),
                        landed: landed.clone(),
                    });
                }
                continue;
            }
            if source.at_origin() || kept_origins.contains(origin) {
                // Home already, or a kept version of the same path follows.
                continue;
            }
            if origin.symlink_metadata().is_ok() {
                // Something is back at its name already (a checkpoint's undo, a person): it
                // is left alone.
                continue;
            }
            match source.copy_path.as_ref().map(|c| c.path().to_path_buf()) {
                Some(copy) if copy.symlink_metadata().is_ok() => {
                    if self.place_copy(&copy, origin)
                        && let Some(landed) = &changed_at[slot]
                    {
                        entries.push(MovedEntries {
                            origin: origin.to_path_buf(),
                            landed: landed.clone(),
                        });
                    }
                }
                _ => self.errors.push(format!(
                    "{} was moved and is not where the command put it any more: nothing to \
                     move back",
                    origin.display()
                )),
            }
        }
        entries
    }

    /// Puts the index entries of `tx`'s `git mv` back with the paths that moved back
    /// (`entries`, less those found at a swap name).
    fn put_back_index_entries(
        &mut self,
        tx: &Transaction,
        mut entries: Vec<MovedEntries>,
        swaps: &[PathBuf],
    ) {
        // A `git mv`'s index entries follow their paths back (a swap name is no landing: a
        // source staged by an interrupted undo was already where it is now).
        entries.retain(|e| !swaps.contains(&e.landed));
        if let (Some(index), false) = (&tx.index, entries.is_empty())
            && let Err(error) = agent_guard_git::put_back_entries(
                self.store.workspace(),
                index.kept_path.path(),
                &entries,
            )
        {
            self.errors.push(format!(
                "the work tree is back, but the index entries of the moved paths are not: {}",
                chain(&error)
            ));
        }
    }

    /// Step 3: makes again the empty directories a moved directory replaced.
    pub(crate) fn shapes_back(&mut self, tx: &Transaction, selected: &dyn Fn(&Path) -> bool) {
        // A numbered backup the line made of a replaced file (`mv --backup=numbered`): a new
        // `<name>.~N~` beside it that holds the very inode whose version is kept. Looked for
        // once everything is home (it may be inside a directory that moved).
        let mut aside: Vec<PathBuf> = Vec::new();
        for item in &tx.items {
            let Some(kept) = item.kept_from else {
                continue;
            };
            let (Some(dev), Some(ino)) = (kept.dev, kept.ino) else {
                continue;
            };
            for backup in numbered_backups(&item.origin) {
                if selected(&backup) && identity_at(&backup) == Some((dev, ino)) {
                    aside.push(backup);
                }
            }
        }
        if !aside.is_empty() {
            self.set_aside(&aside);
        }
        for destination in &tx.destinations {
            let path = destination.path.path();
            if destination.was != WasThere::EmptyDir
                || !destination.inside
                || !selected(path)
                || path.symlink_metadata().is_ok()
            {
                continue;
            }
            if self.bounds.target(path, &self.base).is_err() {
                self.errors
                    .push(format!("{TARGET_OUTSIDE}: {}", path.display()));
                continue;
            }
            let made = create_parents(path, &self.base).and_then(|()| {
                std::fs::DirBuilder::new()
                    .mode(destination.mode.unwrap_or(0o755))
                    .create(path)
            });
            match made {
                Ok(()) => self.restored.push(path.to_path_buf()),
                Err(error) => self.errors.push(format!(
                    "could not make the directory {} again: {error}",
                    path.display()
                )),
            }
        }
    }

    /// Renames a source found at `found` to its swap name `swap` (at the workspace's top,
    /// so that nothing set aside can carry it along). `None` when it could not be moved.
    fn stage(&mut self, found: &Path, swap: &Path) -> Option<PathBuf> {
        if found == swap {
            return Some(swap.to_path_buf());
        }
        match transfer(found, swap, self.progress, self.store.faults()) {
            Transfer::Moved => Some(swap.to_path_buf()),
            Transfer::MovedWithLeftover(error) => {
                self.errors.push(error);
                Some(swap.to_path_buf())
            }
            Transfer::Occupied => {
                self.conflicts.push(swap.to_path_buf());
                None
            }
            Transfer::Failed(error) => {
                self.errors.push(error);
                None
            }
        }
    }

    /// Renames a staged source from `swap` to its name `origin` (free by now, or a
    /// conflict: never overwritten).
    fn bring_home(&mut self, swap: &Path, origin: &Path) -> bool {
        let Ok(target) = self.bounds.target(origin, &self.base) else {
            self.errors
                .push(format!("{TARGET_OUTSIDE}: {}", origin.display()));
            return false;
        };
        if let Err(error) = create_parents(&target, &self.base) {
            self.errors.push(format!(
                "could not create the parents of {}: {error}",
                target.display()
            ));
            return false;
        }
        match fsops::rename_noreplace(swap, &target) {
            Ok(()) => {
                self.restored.push(target);
                true
            }
            Err(_) if target.symlink_metadata().is_ok() => {
                // Came back since step 2: never overwritten; the source waits at its swap name.
                self.conflicts.push(target);
                false
            }
            Err(error) => {
                self.errors
                    .push(format!("could not move {} back: {error}", target.display()));
                false
            }
        }
    }

    /// Puts a source's kept copy at its (free) name.
    fn place_copy(&mut self, copy: &Path, origin: &Path) -> bool {
        let Some(copy) = self.bounds.source(copy) else {
            self.errors.push(format!(
                "the copy of {} is not in its transaction",
                origin.display()
            ));
            return false;
        };
        let target = match self.bounds.target(origin, &self.base) {
            Ok(target) => target,
            Err(error) => {
                self.errors.push(format!("{error}: {}", origin.display()));
                return false;
            }
        };
        if let Err(error) = create_parents(&target, &self.base) {
            self.errors.push(format!(
                "could not create the parents of {}: {error}",
                target.display()
            ));
            return false;
        }
        match transfer(&copy, &target, self.progress, self.store.faults()) {
            Transfer::Moved => {
                self.emptied.push(copy);
                self.restored.push(target);
                true
            }
            Transfer::MovedWithLeftover(error) => {
                self.restored.push(target);
                self.errors.push(error);
                true
            }
            Transfer::Occupied => {
                self.conflicts.push(target);
                false
            }
            Transfer::Failed(error) => {
                self.errors.push(error);
                false
            }
        }
    }

    /// Moves `paths` (inside the workspace, each checked) into one new backup transaction.
    fn set_aside(&mut self, paths: &[PathBuf]) {
        let mut items = Vec::new();
        for path in paths {
            let Some(resolved) = physical(path).filter(|p| strictly_inside(p, &self.base)) else {
                self.errors
                    .push(format!("{TARGET_OUTSIDE}: {}", path.display()));
                continue;
            };
            if let Err(error) = self.bounds.preservable(path, &resolved) {
                self.errors.push(format!("{error}: {}", path.display()));
                continue;
            }
            super::place::unshare(&resolved);
            items.push(RelocateItem {
                origin: resolved,
                raw: path.display().to_string(),
            });
        }
        if items.is_empty() {
            return;
        }
        let targets: Vec<PathBuf> = items.iter().map(|i| i.origin.clone()).collect();
        let mut out = super::place::Placement::default();
        let Some(backup) = self.backup_id(&mut out, &targets) else {
            self.errors.append(&mut out.errors);
            self.conflicts.append(&mut out.conflicts);
            return;
        };
        let meta = self.backup_meta();
        match self
            .store
            .relocate_locked(&items, &backup, meta, self.progress)
        {
            Ok(report) => {
                for skipped in report
                    .skipped
                    .iter()
                    .filter(|s| s.kind != crate::relocate::SkipKind::Absent)
                {
                    self.errors.push(format!(
                        "could not keep {} aside: {}",
                        skipped.origin.path().display(),
                        skipped.reason
                    ));
                }
                if report.moved.is_empty() {
                    self.backup_txids.retain(|id| id != backup.as_str());
                }
            }
            Err(error) => {
                self.backup_txids.retain(|id| id != backup.as_str());
                self.errors.push(format!(
                    "could not keep what is in the way in {backup}: {}",
                    chain(&error)
                ));
            }
        }
    }
}

fn is_empty_dir(path: &Path) -> bool {
    path.symlink_metadata().is_ok_and(|m| m.is_dir())
        && fs_err::read_dir(path).is_ok_and(|mut e| e.next().is_none())
}

/// The names `<name>.~N~` beside `path` (GNU numbered backups).
fn numbered_backups(path: &Path) -> Vec<PathBuf> {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Vec::new();
    };
    let mut prefix = name.to_os_string();
    prefix.push(".~");
    let prefix = prefix.as_encoded_bytes().to_vec();
    let Ok(entries) = fs_err::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .filter(|n| {
            n.as_encoded_bytes()
                .strip_prefix(prefix.as_slice())
                .and_then(|rest| rest.strip_suffix(b"~"))
                .is_some_and(|digits| !digits.is_empty() && digits.iter().all(u8::is_ascii_digit))
        })
        .map(|n| dir.join(n))
        .collect()
}

/// Whether `found` holds what `copy` keeps: the same bytes (a file), the same target (a
/// link), the same tree (a directory: its digest). Any error is "not the same".
fn same_tree(found: &Path, copy: &Path) -> bool {
    match (
        crate::copy::digest_tree(found),
        crate::copy::digest_tree(copy),
    ) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Removes our own copy at `path`, whatever it is (a tree, a file, a link).
fn remove_any(path: &Path) {
    match path.symlink_metadata() {
        Ok(meta) if meta.is_dir() => {
            let _ = fsops::remove_tree(path);
        }
        Ok(_) => {
            let _ = fsops::remove_file(path);
        }
        Err(_) => {}
    }
}
