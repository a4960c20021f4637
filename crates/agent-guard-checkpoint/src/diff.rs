//! What changed since a checkpoint, and writing a checkpoint's version of one path back.
//!
//! The comparison walks the workspace with the same selection the checkpoint used, so what
//! a checkpoint never keeps (`.git`, the quarantine, regenerable artifacts) is never
//! reported as created. A file is identified by its blob id: known from the private index
//! when its stat data is unchanged, hashed (never stored) otherwise.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::io::Write as _;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use fs_err::os::unix::fs::OpenOptionsExt as _;
use git2::{ObjectType, Oid, Patch};

use super::meta::NotKept;
use super::stat_cache::{Entry, Index, Stat, path_order};
use super::tree::{Leaf, leaves};
use super::{CheckpointStore, STAGING_DIR, Selection, walk};
use agent_guard_fsops as fsops;
use agent_guard_git::FileStat;
use agent_guard_git::GitError;

/// How a path differs from its checkpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum ChangeKind {
    /// In the checkpoint, gone now.
    Deleted,
    /// In both, with other content, type or permissions now.
    Modified,
    /// Not in the checkpoint (created since).
    Created,
}

/// One path that differs between a checkpoint and the workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckpointChange {
    /// Workspace-relative, `/`-separated bytes.
    pub path: Vec<u8>,
    /// How it differs.
    pub kind: ChangeKind,
    /// The checkpoint's version (mode, blob, exact permission bits when git's mode does not
    /// say them); `None` for a created path.
    pub kept: Option<(u32, Oid, Option<u32>)>,
    /// The blob of what is there now (`None` when deleted).
    pub now: Option<Oid>,
}

impl CheckpointChange {
    /// The workspace-relative path, as a path.
    pub fn relative(&self) -> &Path {
        Path::new(OsStr::from_bytes(&self.path))
    }
}

/// Everything that differs between a checkpoint and the workspace now.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CheckpointDiff {
    /// The changed paths, sorted.
    pub changes: Vec<CheckpointChange>,
    /// What the checkpoint lists without its content (as it recorded them).
    pub not_kept: Vec<NotKept>,
    /// Empty directories of the checkpoint that are missing now.
    pub missing_dirs: Vec<Vec<u8>>,
    /// Empty directories now that the checkpoint did not have (created since).
    pub created_dirs: Vec<Vec<u8>>,
    /// Directories whose permission bits differ from the checkpoint's (or that are
    /// missing), deepest first.
    pub dir_modes: Vec<super::dir_modes::DirMode>,
    /// Every directory the checkpoint holds something in (ancestors included).
    directories: HashSet<Vec<u8>>,
}

impl CheckpointDiff {
    /// Whether the checkpoint had directory `relative` (with a file below it, or empty).
    pub fn had_directory(&self, relative: &[u8]) -> bool {
        self.directories.contains(relative)
    }
}

/// What writing one checkpoint version back did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteBack {
    /// Written.
    Written,
    /// Something is in the way (a file, a non-empty directory, a symlinked ancestor): it
    /// was left alone.
    Occupied,
}

impl CheckpointStore {
    /// The changes since checkpoint `commit`, limited to `scope` (workspace-relative paths;
    /// a path counts when it is one of them or below one; empty means everything).
    ///
    /// # Errors
    /// The checkpoint cannot be read, or the workspace root cannot be listed.
    pub fn diff(
        &self,
        commit: &str,
        selection: &Selection,
        scope: &[Vec<u8>],
    ) -> Result<CheckpointDiff, GitError> {
        let id = Oid::from_str(commit).map_err(self.error("parse a checkpoint id"))?;
        let (files, meta) = self
            .checkpoint_tree(id)
            .map_err(self.error("read a checkpoint"))?;
        let kept = leaves(self.repo().map_err(self.error("open"))?, &files)
            .map_err(self.error("read a checkpoint"))?;
        let index = Index::load(&self.index_path());
        let known = index.to_vec();
        let walked = walk::walk(selection, None)?;
        let not_kept: HashSet<&[u8]> = meta.not_kept.iter().map(|n| n.path.as_slice()).collect();
        let in_scope = |path: &[u8]| {
            scope.is_empty()
                || scope.iter().any(|s| {
                    path == s.as_slice()
                        || (path.starts_with(s) && path.get(s.len()) == Some(&b'/'))
                })
        };
        let mut directories = HashSet::new();
        for path in kept.iter().map(|l| &l.path).chain(&meta.empty_dirs) {
            let mut end = path.len();
            if meta.empty_dirs.contains(path) {
                directories.insert(path.clone());
            }
            while let Some(slash) = path[..end].iter().rposition(|b| *b == b'/') {
                if !directories.insert(path[..slash].to_vec()) {
                    break;
                }
                end = slash;
            }
        }
        let now = |path: &[u8], stat: &Stat| current_id(selection, (&index, &known), path, stat);
        let mut changes = Vec::new();
        let mut old = kept.iter().peekable();
        for found in &walked.found {
            while let Some(leaf) = old.next_if(|l| path_order(&l.path, &found.path).is_lt()) {
                if in_scope(&leaf.path) {
                    changes.push(change(leaf, &meta.permissions, ChangeKind::Deleted, None));
                }
            }
            let stat = found.stat;
            if !in_scope(&found.path) || !(stat.is_file() || stat.is_symlink()) {
                old.next_if(|l| l.path == found.path);
                continue;
            }
            match old.next_if(|l| l.path == found.path) {
                Some(leaf) => {
                    let id = now(&found.path, &stat);
                    let permissions = meta.permissions.get(&leaf.path).copied();
                    let same = id == Some(leaf.id)
                        && stat.git_mode() == leaf.mode
                        && stat.unusual_permissions() == permissions;
                    if !same {
                        changes.push(change(leaf, &meta.permissions, ChangeKind::Modified, id));
                    }
                }
                // Not kept, or left out as regenerable (still when what made it so, a
                // `.gitignore`, is gone now): not something that arrived since. A link now
                // where the artifact was (`node_modules -> /elsewhere`) did arrive.
                None if not_kept.contains(found.path.as_slice())
                    || (meta.left_out(&found.path)
                        && !(stat.is_symlink() && meta.left_out.contains(&found.path))) => {}
                None => changes.push(CheckpointChange {
                    path: found.path.clone(),
                    kind: ChangeKind::Created,
                    kept: None,
                    now: now(&found.path, &stat),
                }),
            }
        }
        for leaf in old {
            if in_scope(&leaf.path) {
                changes.push(change(leaf, &meta.permissions, ChangeKind::Deleted, None));
            }
        }
        let missing_dirs = meta
            .empty_dirs
            .iter()
            .filter(|dir| in_scope(dir))
            .filter(|dir| {
                !selection
                    .workspace
                    .join(OsStr::from_bytes(dir))
                    .symlink_metadata()
                    .is_ok_and(|m| m.is_dir())
            })
            .cloned()
            .collect();
        let created_dirs = walked
            .empty_dirs
            .iter()
            .filter(|dir| in_scope(dir) && !directories.contains(*dir) && !meta.left_out(dir))
            .cloned()
            .collect();
        let dir_modes =
            super::dir_modes::changed(&selection.workspace, &meta, &directories, &in_scope);
        Ok(CheckpointDiff {
            changes,
            not_kept: meta.not_kept,
            missing_dirs,
            created_dirs,
            dir_modes,
            directories,
        })
    }

    /// Writes the checkpoint's version of `change` into the workspace, never replacing
    /// anything: a file, link or non-empty directory in the way, or an ancestor that is not
    /// a real directory, is [`WriteBack::Occupied`]. An empty directory in the way is
    /// removed (it holds nothing to lose).
    ///
    /// # Errors
    /// The blob cannot be read, or the file cannot be written.
    pub fn write_back(
        &self,
        workspace: &Path,
        change: &CheckpointChange,
    ) -> Result<WriteBack, GitError> {
        let Some((mode, id, permissions)) = change.kept else {
            return Ok(WriteBack::Written);
        };
        let target = workspace.join(change.relative());
        let io = |action: &'static str, path: &Path| {
            let path = path.to_path_buf();
            move |source| GitError::GitWorktree {
                action,
                path,
                source,
            }
        };
        if !make_parents(workspace, &change.path).map_err(io("create the parent of", &target))? {
            return Ok(WriteBack::Occupied);
        }
        if let Ok(metadata) = target.symlink_metadata()
            && (!metadata.is_dir() || fsops::remove_dir(&target).is_err())
        {
            return Ok(WriteBack::Occupied);
        }
        let blob = self
            .repo()
            .and_then(|repo| repo.find_blob(id))
            .map_err(self.error("read a checkpoint blob"))?;
        let staging = self.dir.join(STAGING_DIR);
        fs_err::create_dir_all(&staging).map_err(io("create", &staging))?;
        let staged = staging.join(unique_name());
        write_entry(&staged, mode, permissions, blob.content()).map_err(io("write", &staged))?;
        let placed = match fsops::rename_noreplace(&staged, &target) {
            Err(error) if fsops::is_cross_device(&error) => {
                // The quarantine is on another filesystem: stage beside the target instead.
                let _ = fsops::remove_file(&staged);
                // A kill before the rename leaves it: `clear_staged_beside` knows it.
                let sibling = super::leftover::staged_beside(&target, &unique_name());
                write_entry(&sibling, mode, permissions, blob.content())
                    .map_err(io("write", &sibling))?;
                let placed = fsops::rename_noreplace(&sibling, &target);
                if placed.is_err() {
                    let _ = fsops::remove_file(&sibling);
                }
                placed
            }
            Err(error) => {
                let _ = fsops::remove_file(&staged);
                Err(error)
            }
            Ok(()) => Ok(()),
        };
        match placed {
            Ok(()) => Ok(WriteBack::Written),
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
                Ok(WriteBack::Occupied)
            }
            Err(error) => Err(io("write", &target)(error)),
        }
    }

    /// Creates the checkpoint's empty directory `relative` again (parents too).
    ///
    /// # Errors
    /// An ancestor is not a real directory, or the directory cannot be created.
    pub fn make_dir(&self, workspace: &Path, relative: &[u8]) -> Result<bool, GitError> {
        let mut path = relative.to_vec();
        path.extend_from_slice(b"/x");
        let target = workspace.join(OsStr::from_bytes(relative));
        make_parents(workspace, &path).map_err(|source| GitError::GitWorktree {
            action: "create",
            path: target,
            source,
        })
    }

    /// Removes what earlier restores left in the staging directory (their own incomplete
    /// copies; the checkpoint still holds every one of them).
    pub fn clear_staging(&self) {
        let _ = fsops::remove_tree(&self.dir.join(STAGING_DIR));
    }

    /// The line counts of one change: the checkpoint's version against what is there now.
    pub fn line_stats(&self, workspace: &Path, change: &CheckpointChange) -> FileStat {
        let old = change
            .kept
            .and_then(|(_, id, _)| self.repo().ok()?.find_blob(id).ok());
        let new = match change.kind {
            ChangeKind::Deleted => None,
            _ => read_now(&workspace.join(change.relative())),
        };
        let path = String::from_utf8_lossy(&change.path).into_owned();
        let binary = old.as_ref().is_some_and(git2::Blob::is_binary)
            || new.as_deref().is_some_and(|bytes| bytes.contains(&0));
        let (added, removed) = Patch::from_buffers(
            old.as_ref().map_or(&[][..], git2::Blob::content),
            None,
            new.as_deref().unwrap_or_default(),
            None,
            None,
        )
        .ok()
        .and_then(|patch| patch.line_stats().ok())
        .map(|(_, added, removed)| (added, removed))
        .unwrap_or_default();
        FileStat {
            path,
            added: if binary { 0 } else { added },
            removed: if binary { 0 } else { removed },
            binary,
        }
    }
}

fn change(
    leaf: &Leaf,
    permissions: &std::collections::HashMap<Vec<u8>, u32>,
    kind: ChangeKind,
    now: Option<Oid>,
) -> CheckpointChange {
    CheckpointChange {
        path: leaf.path.clone(),
        kind,
        kept: Some((leaf.mode, leaf.id, permissions.get(&leaf.path).copied())),
        now,
    }
}

/// The blob id of what is at `path` now: the private index's when its stat data is
/// unchanged, else hashed from the file (nothing is stored).
fn current_id(
    selection: &Selection,
    (index, entries): (&Index, &[Entry]),
    path: &[u8],
    stat: &Stat,
) -> Option<Oid> {
    if let Ok(at) = entries.binary_search_by(|e| path_order(&e.path, path)) {
        let entry = &entries[at];
        if index.unchanged(&entry.stat, stat) && entry.id.is_some() {
            return entry.id;
        }
    }
    let content = read_now(&selection.workspace.join(OsStr::from_bytes(path)))?;
    super::object_id::object_id(ObjectType::Blob, &content).ok()
}

/// A file's bytes or a link's target, never following it.
fn read_now(path: &Path) -> Option<Vec<u8>> {
    let metadata = path.symlink_metadata().ok()?;
    if metadata.file_type().is_symlink() {
        fs_err::read_link(path)
            .ok()
            .map(|t| t.into_os_string().into_encoded_bytes())
    } else if metadata.is_file() {
        fs_err::read(path).ok()
    } else {
        None
    }
}

/// Creates the missing parent directories of `relative` one component at a time, never
/// through a symlink. `Ok(false)` when an ancestor is a file or a link.
fn make_parents(workspace: &Path, relative: &[u8]) -> std::io::Result<bool> {
    let mut current = PathBuf::from(workspace);
    let parts: Vec<&[u8]> = relative.split(|b| *b == b'/').collect();
    for part in &parts[..parts.len().saturating_sub(1)] {
        current.push(OsStr::from_bytes(part));
        match current.symlink_metadata() {
            Ok(metadata) if metadata.is_dir() => {}
            Ok(_) => return Ok(false),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                match fs_err::create_dir(&current) {
                    Ok(()) => {}
                    Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
                        if !current.symlink_metadata().is_ok_and(|m| m.is_dir()) {
                            return Ok(false);
                        }
                    }
                    Err(error) => return Err(error),
                }
            }
            Err(error) => return Err(error),
        }
    }
    Ok(true)
}

/// Creates `path` as a checkpoint entry: a symlink, or a file with its recorded permission
/// bits (exactly; git's `644`/`755` when none were recorded).
fn write_entry(
    path: &Path,
    mode: u32,
    permissions: Option<u32>,
    content: &[u8],
) -> std::io::Result<()> {
    if mode == 0o120_000 {
        return fs_err::os::unix::fs::symlink(OsStr::from_bytes(content), path);
    }
    let bits = permissions.unwrap_or(if mode == 0o100_755 { 0o755 } else { 0o644 });
    let mut file = fs_err::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    let written = file
        .write_all(content)
        .and_then(|()| file.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(bits)));
    drop(file);
    if written.is_err() {
        let _ = fsops::remove_file(path);
    }
    written
}

fn unique_name() -> String {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    format!(
        "{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}
