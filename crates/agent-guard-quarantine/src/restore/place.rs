//! Moving quarantined items back: free targets, directory merges, cross-device copies and,
//! with `--force`, preserving occupants first.
//!
//! Nothing here ever overwrites or deletes a version of the user's data: every move is a
//! `rename` that refuses an existing target, a failed preservation leaves both versions where
//! they are, and a target that is occupied again after preservation is a conflict.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use agent_guard_types::TxId;

use crate::copy::{Progress, write_into};
use crate::preserve::PreserveItem;
use crate::relocate::{RelocateItem, SkipKind};
use crate::restore::leftover::is_back;
use crate::restore::paths::{Bounds, SOURCE_OUTSIDE, TARGET_OVERLAPS, resolve_existing};
use crate::restore::plan::Unit;
use crate::restore::transfer::{Transfer, chain, create_parents, remove_any, transfer};
use crate::store::Quarantine;
use crate::tx_meta::{Origin, TxMeta};
use agent_guard_fsops as fsops;

/// The error of a target whose physical paths moved while its occupant was preserved.
const PATHS_CHANGED: &str = "restore paths changed after preservation";

/// What happened below one unit.
#[derive(Debug, Default)]
pub(crate) struct Placement {
    /// `(source, target)` pairs moved back.
    pub(crate) moved: Vec<(PathBuf, PathBuf)>,
    /// `(source, target)` pairs whose target is occupied and cannot be merged.
    pub(crate) clashes: Vec<(PathBuf, PathBuf)>,
    /// Conflicts that preservation cannot resolve.
    pub(crate) conflicts: Vec<PathBuf>,
    /// Error lines.
    pub(crate) errors: Vec<String>,
}

/// One restore in progress: its fixed inputs and what it did so far.
pub(crate) struct Restorer<'a> {
    pub(crate) store: &'a Quarantine,
    pub(crate) bounds: &'a Bounds,
    /// The physical directory targets must stay inside (workspace or `--to`).
    pub(crate) base: PathBuf,
    pub(crate) txid: &'a TxId,
    pub(crate) force: bool,
    /// For each item, whether it is a copy of a file the command wrote in place: a regular
    /// file at its target gets the old bytes written into it, keeping its inode. A version
    /// kept by name (a hard link, a symlink) goes back by name instead.
    pub(crate) in_place: Vec<bool>,
    /// For each item kept by name, the `(dev, ino)` its file had when kept: when that very
    /// file is at the target again with the kept bytes, the version is back already.
    pub(crate) kept_identity: Vec<Option<(u64, u64)>>,
    /// For each item, its recorded origin, and every path an earlier restore put back: an
    /// item whose quarantine copy is gone because an earlier restore moved it back is
    /// reported as such, not as an error.
    pub(crate) origins: Vec<PathBuf>,
    pub(crate) restored_before: std::collections::BTreeSet<PathBuf>,
    /// Items an earlier restore of this transaction already put back.
    pub(crate) previously: Vec<PathBuf>,
    /// What a line moved out of the workspace and changed there, left where it is.
    pub(crate) left_outside: Vec<PathBuf>,
    /// Every transaction id in the manifest (a backup id must be new).
    pub(crate) known_ids: HashSet<String>,
    pub(crate) new_txid: &'a mut dyn FnMut() -> TxId,
    pub(crate) progress: &'a dyn Progress,
    /// The physical quarantine path of each item.
    pub(crate) sources: Vec<PathBuf>,
    /// Items that took part in this restore (their directories may be cleaned up).
    pub(crate) touched: HashSet<usize>,
    /// Quarantine paths that were moved away (their parents may now be empty).
    pub(crate) emptied: Vec<PathBuf>,
    pub(crate) restored: Vec<PathBuf>,
    pub(crate) conflicts: Vec<PathBuf>,
    pub(crate) errors: Vec<String>,
    pub(crate) backup_txids: Vec<String>,
    /// Targets whose current content [`Restorer::keep_occupants`] already kept in this
    /// restore's backup transaction.
    pub(crate) occupants_kept: HashSet<PathBuf>,
}

impl Restorer<'_> {
    /// Keeps the current content of every file that `units` will write a preserved version
    /// into, all in **one** backup transaction, so that one `redo` brings back everything
    /// one `undo` replaced (a multi-file edit is one transaction both ways). A file this
    /// cannot keep is left to [`Restorer::write_back`], which keeps it on its own or refuses.
    pub(crate) fn keep_occupants(&mut self, units: &[Unit]) {
        let mut targets: Vec<PathBuf> = Vec::new();
        for unit in units {
            let Ok((source, target)) = self.check(unit) else {
                continue;
            };
            let in_place = self.in_place.get(unit.item).copied().unwrap_or(false)
                && source.symlink_metadata().is_ok_and(|m| m.is_file())
                && target.symlink_metadata().is_ok_and(|m| m.is_file());
            if in_place
                && !same_inode(&source, &target)
                && !same_content(&source, &target)
                && !targets.contains(&target)
            {
                targets.push(target);
            }
        }
        if targets.len() < 2 {
            // One file: `write_back` keeps it exactly as before.
            return;
        }
        let mut out = Placement::default();
        let Some(backup) = self.backup_id(&mut out, &targets) else {
            // The id is taken: `write_back` tries again with fresh ids, file by file.
            return;
        };
        let items: Vec<PreserveItem> = targets
            .iter()
            .map(|target| PreserveItem::copy(target.clone(), target.display().to_string()))
            .collect();
        match self
            .store
            .preserve_locked(&items, &backup, self.backup_meta(), self.progress)
        {
            Ok(report) => {
                if report.kept.is_empty() {
                    self.backup_txids.retain(|id| id != backup.as_str());
                }
                self.occupants_kept.extend(
                    report
                        .kept
                        .iter()
                        .map(|kept| kept.origin.path().to_path_buf()),
                );
            }
            Err(_) => {
                // Nothing was kept: each file is tried again on its own.
                self.backup_txids.retain(|id| id != backup.as_str());
            }
        }
    }

    /// Re-checks a unit and returns its physical `(source, target)`.
    fn check(&self, unit: &Unit) -> Result<(PathBuf, PathBuf), &'static str> {
        let source = self.bounds.source(&unit.source).ok_or(SOURCE_OUTSIDE)?;
        let target = self.bounds.target(&unit.target, &self.base)?;
        Ok((source, target))
    }

    /// Moves one unit back, merging, preserving or reporting conflicts as needed.
    pub(crate) fn run(&mut self, unit: &Unit) {
        // Re-check: an earlier item may have restored a link that now redirects this one.
        let (source, target) = match self.check(unit) {
            Ok(paths) => paths,
            Err(error) => {
                let path = if error == SOURCE_OUTSIDE {
                    &unit.source
                } else {
                    &unit.target
                };
                return self.errors.push(format!("{error}: {}", path.display()));
            }
        };
        if source.symlink_metadata().is_err() {
            let origin = self.origins.get(unit.item).map(|o| {
                if unit.sub.as_os_str().is_empty() {
                    o.clone()
                } else {
                    o.join(&unit.sub)
                }
            });
            let earlier = origin.as_ref().is_some_and(|origin| {
                self.restored_before
                    .iter()
                    .any(|restored| origin.starts_with(restored))
            });
            if let (true, Some(origin)) = (earlier, origin) {
                return self.previously.push(origin);
            }
            return self.errors.push(format!(
                "quarantine copy vanished: {}",
                unit.source.display()
            ));
        }
        self.touched.insert(unit.item);
        let mut placement = Placement::default();
        if same_inode(&source, &target) || self.original_is_back(unit.item, &source, &target) {
            // The kept version is the very file at the target (a hard link the command
            // never replaced, or its inode moved back by a move's undo, unchanged): it is
            // back already; only the quarantine's name goes.
            return self.drop_second_name(&source, target);
        }
        let in_place = self.in_place.get(unit.item).copied().unwrap_or(false)
            && source.symlink_metadata().is_ok_and(|m| m.is_file())
            && target.symlink_metadata().is_ok_and(|m| m.is_file());
        if in_place {
            self.write_back(&source, &target, &mut placement);
        } else {
            self.place(&source, &target, &mut placement);
        }
        if !placement.clashes.is_empty() {
            if self.force {
                self.preserve_and_retry(unit, (&source, &target), &mut placement);
            } else {
                let clashes = std::mem::take(&mut placement.clashes);
                placement
                    .conflicts
                    .extend(clashes.into_iter().map(|(_, target)| target));
            }
        }
        let complete = placement.clashes.is_empty()
            && placement.conflicts.is_empty()
            && placement.errors.is_empty();
        self.emptied
            .extend(placement.moved.iter().map(|(source, _)| source.clone()));
        if complete {
            self.restored.push(target);
        } else {
            self.restored
                .extend(placement.moved.into_iter().map(|(_, target)| target));
        }
        self.conflicts.extend(placement.conflicts);
        self.conflicts
            .extend(placement.clashes.into_iter().map(|(_, target)| target));
        self.errors.extend(placement.errors);
    }

    /// Whether the file kept by name for `item` stands at `target` again (the same inode),
    /// with the same bytes as the kept version at `source`.
    fn original_is_back(&self, item: usize, source: &Path, target: &Path) -> bool {
        use std::os::unix::fs::MetadataExt as _;
        let Some(Some((dev, ino))) = self.kept_identity.get(item) else {
            return false;
        };
        target
            .symlink_metadata()
            .is_ok_and(|m| m.is_file() && m.dev() == *dev && m.ino() == *ino)
            && same_content(source, target)
    }

    /// Removes the quarantine's name `source` of the file that is also at `target`, and
    /// counts the target as restored.
    fn drop_second_name(&mut self, source: &Path, target: PathBuf) {
        match fsops::remove_file(source) {
            Ok(()) => {
                self.emptied.push(source.to_path_buf());
                self.restored.push(target);
            }
            Err(error) => self.errors.push(format!(
                "{} is already back, but its quarantine name could not be removed: {error}",
                target.display()
            )),
        }
    }

    /// Places `source` at `target`: a move when the target is free, a merge when both are
    /// directories, a clash otherwise.
    fn place(&mut self, source: &Path, target: &Path, out: &mut Placement) {
        if self.bounds.inside_quarantine(target) {
            return out
                .errors
                .push(format!("{TARGET_OVERLAPS}: {}", target.display()));
        }
        let occupant = match target.symlink_metadata() {
            Ok(metadata) => metadata,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                if let Err(error) = create_parents(target, &self.base) {
                    let message = format!(
                        "could not create the parents of {}: {error}",
                        target.display()
                    );
                    return out.errors.push(message);
                }
                return self.move_one(source, target, out);
            }
            Err(error) => {
                return out
                    .errors
                    .push(format!("could not inspect {}: {error}", target.display()));
            }
        };
        let source_is_dir = source.symlink_metadata().is_ok_and(|m| m.is_dir());
        if !source_is_dir && is_back(source, target) {
            // Put back by an earlier restore that was killed before it removed the
            // quarantine's copy: only that copy goes.
            return match remove_any(source) {
                Ok(()) => out.moved.push((source.to_path_buf(), target.to_path_buf())),
                Err(error) => out.errors.push(format!(
                    "{} is already back, but its quarantine copy could not be removed: {error}",
                    target.display()
                )),
            };
        }
        if !(source_is_dir && occupant.is_dir()) {
            return out
                .clashes
                .push((source.to_path_buf(), target.to_path_buf()));
        }
        // Merge: children absent at the target move, directories on both sides recurse,
        // anything else clashes. A partial restore is resumed this way.
        let mut children: Vec<_> = match fs_err::read_dir(source) {
            Ok(entries) => entries
                .filter_map(Result::ok)
                .map(|e| e.file_name())
                .collect(),
            Err(error) => {
                return out
                    .errors
                    .push(format!("could not read {}: {error}", source.display()));
            }
        };
        children.sort();
        for name in children {
            self.place(&source.join(&name), &target.join(&name), out);
        }
        if !self.protected(source) && fsops::remove_dir(source).is_ok() {
            self.emptied.push(source.to_path_buf());
        }
    }

    /// Moves `source` to the free `target` and records the result.
    fn move_one(&mut self, source: &Path, target: &Path, out: &mut Placement) {
        let pair = (source.to_path_buf(), target.to_path_buf());
        match transfer(source, target, self.progress, self.store.faults()) {
            Transfer::Moved => out.moved.push(pair),
            Transfer::MovedWithLeftover(error) => {
                out.moved.push(pair);
                out.errors.push(error);
            }
            Transfer::Occupied => out.clashes.push(pair),
            Transfer::Failed(error) => out.errors.push(error),
        }
    }

    /// Puts a preserved version back into the regular file at `target`, in place (same inode,
    /// so hard links and open handles see it): the current content is first kept in a new
    /// transaction unless it already is the preserved one; the quarantine copy is removed
    /// once written.
    fn write_back(&mut self, source: &Path, target: &Path, out: &mut Placement) {
        if same_inode(source, target) {
            // Never write a file into itself (the truncation would lose both).
            return out.errors.push(format!(
                "{} and its kept version are one file: nothing written",
                target.display()
            ));
        }
        let same = same_content(source, target);
        if !same && !self.occupants_kept.remove(target) {
            let Some(backup) = self.backup_id(out, &[target.to_path_buf()]) else {
                return;
            };
            let items = [PreserveItem::copy(
                target.to_path_buf(),
                target.display().to_string(),
            )];
            match self
                .store
                .preserve_locked(&items, &backup, self.backup_meta(), self.progress)
            {
                Ok(report) if report.complete() => {}
                Ok(report) => {
                    let reason = report
                        .skipped
                        .first()
                        .map_or("preservation stopped early", |s| s.reason.as_str());
                    return out.errors.push(format!(
                        "could not preserve the current {}: {reason}",
                        target.display()
                    ));
                }
                Err(error) => {
                    return out.errors.push(format!(
                        "could not preserve the current version in {backup}: {}",
                        chain(&error)
                    ));
                }
            }
        }
        match write_into(source, target) {
            Ok(()) => {
                if let Err(error) = fsops::remove_file(source) {
                    out.errors.push(format!(
                        "restored {} but its quarantine copy could not be removed: {error}",
                        target.display()
                    ));
                }
                out.moved.push((source.to_path_buf(), target.to_path_buf()));
            }
            Err(error) => out.errors.push(format!(
                "could not write the preserved version into {}: {error}",
                target.display()
            )),
        }
    }

    /// A fresh backup transaction id for preserving `targets`, or `None` (with the targets
    /// reported as conflicts) when the id is taken.
    pub(crate) fn backup_id(&mut self, out: &mut Placement, targets: &[PathBuf]) -> Option<TxId> {
        let backup = (self.new_txid)();
        let taken = self.known_ids.contains(backup.as_str())
            || backup == *self.txid
            || self.store.tx_dir(&backup).symlink_metadata().is_ok()
            || self
                .bounds
                .trash_physical
                .join(backup.as_str())
                .symlink_metadata()
                .is_ok();
        if taken {
            out.errors.push(format!(
                "backup transaction {backup} already exists; nothing was preserved"
            ));
            out.conflicts.extend(targets.iter().cloned());
            return None;
        }
        self.known_ids.insert(backup.to_string());
        self.backup_txids.push(backup.to_string());
        Some(backup)
    }

    /// The `meta` of a backup transaction made by this restore.
    pub(crate) fn backup_meta(&self) -> TxMeta {
        TxMeta::of(Origin::restoring(self.txid.as_str()))
    }

    /// `--force`: preserves every clashing occupant in one new transaction, then moves the
    /// quarantined versions back where the targets are free again.
    fn preserve_and_retry(&mut self, unit: &Unit, checked: (&Path, &Path), out: &mut Placement) {
        let mut wanted = Vec::new();
        for (source, target) in std::mem::take(&mut out.clashes) {
            match self.bounds.preservable(&target, &target) {
                Ok(()) => wanted.push((source, target)),
                Err(error) => out.errors.push(format!("{error}: {}", target.display())),
            }
        }
        if wanted.is_empty() {
            return;
        }
        let targets: Vec<PathBuf> = wanted.iter().map(|(_, target)| target.clone()).collect();
        let Some(backup) = self.backup_id(out, &targets) else {
            return;
        };
        let items: Vec<RelocateItem> = wanted
            .iter()
            .map(|(_, target)| {
                unshare(target);
                RelocateItem {
                    origin: target.clone(),
                    raw: target.display().to_string(),
                }
            })
            .collect();
        let meta = self.backup_meta();
        let report = match self
            .store
            .relocate_locked(&items, &backup, meta, self.progress)
        {
            Ok(report) => report,
            Err(error) => {
                let error = chain(&error);
                out.errors.push(format!(
                    "could not preserve the current version in {backup}: {error}"
                ));
                return;
            }
        };
        for (source, target) in wanted {
            // An occupant that vanished meanwhile needs no preservation: the target is free.
            let preserved = report.moved.iter().any(|m| m.origin.path() == target)
                || report
                    .skipped
                    .iter()
                    .any(|s| s.origin.path() == target && s.kind == SkipKind::Absent);
            if !preserved {
                let reason = report
                    .skipped
                    .iter()
                    .find(|s| s.origin.path() == target)
                    .map_or("preservation stopped early", |s| s.reason.as_str());
                out.errors
                    .push(format!("could not preserve {}: {reason}", target.display()));
                continue;
            }
            // Re-validate: nothing on either side may have been redirected meanwhile.
            let same_unit = self
                .check(unit)
                .is_ok_and(|(s, t)| s == checked.0 && t == checked.1);
            let same_parents = [&source, &target].iter().all(|p| {
                p.parent()
                    .is_some_and(|d| resolve_existing(d).as_deref() == Some(d))
            });
            if !(same_unit && same_parents) {
                out.errors
                    .push(format!("{PATHS_CHANGED}: {}", target.display()));
                continue;
            }
            if target.symlink_metadata().is_ok() {
                // A concurrent writer created a new version: never overwrite it.
                out.conflicts.push(target);
                continue;
            }
            let mut retry = Placement::default();
            self.move_one(&source, &target, &mut retry);
            out.moved.append(&mut retry.moved);
            out.conflicts
                .extend(retry.clashes.into_iter().map(|(_, target)| target));
            out.errors.append(&mut retry.errors);
        }
    }

    /// Returns `true` if `dir` is the quarantine path of an item this restore did not touch.
    fn protected(&self, dir: &Path) -> bool {
        self.sources
            .iter()
            .enumerate()
            .any(|(index, source)| source == dir && !self.touched.contains(&index))
    }

    /// Removes directories left empty in the transaction directory by the moves, up to and
    /// including the transaction directory itself.
    pub(crate) fn clean_up(&self) {
        let tx_dir = &self.bounds.tx_dir;
        for moved in &self.emptied {
            let mut dir = moved.parent();
            while let Some(current) = dir {
                if !current.starts_with(tx_dir)
                    || self.protected(current)
                    || fsops::remove_dir(current).is_err()
                {
                    break;
                }
                if current == tx_dir {
                    break;
                }
                dir = current.parent();
            }
        }
    }
}

/// Gives a regular file with more than one name a copy of its own under this name, before
/// the name is moved into a backup transaction: the file's other names (`h` after
/// `ln -f h f`) are left with one link, as they were (`gzip` refuses a file with two). Best
/// effort: the bytes are the same either way.
pub(crate) fn unshare(path: &Path) {
    use std::os::unix::fs::MetadataExt as _;
    if !path
        .symlink_metadata()
        .is_ok_and(|m| m.is_file() && m.nlink() > 1)
    {
        return;
    }
    let partial = crate::relocate::partial_sibling(path);
    if crate::copy::clone_file(path, &partial, None, crate::faults::Faults::none()).is_err()
        || fsops::rename(&partial, path).is_err()
    {
        let _ = fsops::remove_file(&partial);
    }
}

/// Whether two paths name the same regular file (one inode): writing one into the other
/// would truncate both.
fn same_inode(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    match (a.symlink_metadata(), b.symlink_metadata()) {
        (Ok(ma), Ok(mb)) => ma.is_file() && ma.dev() == mb.dev() && ma.ino() == mb.ino(),
        _ => false,
    }
}

/// Whether two regular files hold the same bytes (sizes first, then a streamed compare).
fn same_content(a: &Path, b: &Path) -> bool {
    use std::io::Read as _;
    let (Ok(ma), Ok(mb)) = (a.metadata(), b.metadata()) else {
        return false;
    };
    if ma.len() != mb.len() {
        return false;
    }
    let (Ok(mut fa), Ok(mut fb)) = (std::fs::File::open(a), std::fs::File::open(b)) else {
        return false;
    };
    let mut ba = vec![0_u8; 64 * 1024];
    let mut bb = vec![0_u8; 64 * 1024];
    loop {
        let Ok(n) = fa.read(&mut ba) else {
            return false;
        };
        if n == 0 {
            return fb.read(&mut bb[..1]).is_ok_and(|m| m == 0);
        }
        if fb.read_exact(&mut bb[..n]).is_err() || ba[..n] != bb[..n] {
            return false;
        }
    }
}
