//! The workspace repository's objects, mirrored into the checkpoint store (issue 34).
//!
//! An object file is named by its content and never written in place ([`super::gitdir`]),
//! so one copy of each, under the same relative path in `<store>/git-objects/`, serves every
//! checkpoint: a hard link where the store shares the workspace's filesystem (no byte is
//! copied; the inode outlives `rm -rf .git`), else a copy written beside it, flushed and
//! renamed into place. A fan-out directory is listed again only when its modification time
//! changed since the last checkpoint (`git-objects.seen`), so a checkpoint of a repository
//! that made no object since costs one `stat` per fan-out directory.
//!
//! A restore links back every mirrored object missing from `.git` that the repository does
//! not hold in another form (a loose object git packed since is not written again); adding
//! an object never changes what a repository means.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::io::Write as _;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::Path;

use git2::Oid;

use super::CheckpointStore;
use super::gitdir::{GIT, holds_only_objects, is_object};
use super::meta::{NotKept, NotKeptReason};
use agent_guard_fsops as fsops;
use agent_guard_git::GitError;

/// The mirror's directory inside the checkpoint store.
pub(crate) const MIRROR_DIR: &str = "git-objects";

/// The mirror's cache of the fan-out directories' modification times.
const SEEN_FILE: &str = "git-objects.seen";

/// What mirroring added.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeptObjects {
    /// Object files mirrored now.
    pub added: u64,
    /// Of them, copied (the store is on another filesystem).
    pub copied: u64,
    /// Object files not kept (over the cap, or unreadable), workspace-relative.
    pub not_kept: Vec<NotKept>,
}

impl CheckpointStore {
    /// Mirrors every object file of `<workspace>/.git` not mirrored yet, durably; files
    /// over `max_file_bytes` that would have to be copied are listed as not kept.
    ///
    /// # Errors
    /// The mirror cannot be written (a full disk, a store without permission).
    pub fn keep_git_objects(
        &self,
        workspace: &Path,
        max_file_bytes: u64,
    ) -> Result<KeptObjects, GitError> {
        let git = workspace.join(OsStr::from_bytes(GIT));
        let mut kept = KeptObjects::default();
        if !git.symlink_metadata().is_ok_and(|m| m.is_dir()) {
            return Ok(kept);
        }
        let mirror = self.dir.join(MIRROR_DIR);
        let seen_path = self.dir.join(SEEN_FILE);
        let before = read_seen(&seen_path);
        let mut seen: HashMap<Vec<u8>, (i64, i64, u64)> = HashMap::new();
        let mut dirs = Vec::new();
        object_dirs(&git, &mut Vec::new(), &mut dirs);
        let io = |action: &'static str, path: &Path| {
            let path = path.to_path_buf();
            move |source| GitError::GitWorktree {
                action,
                path,
                source,
            }
        };
        for inside in dirs {
            let dir = git.join(OsStr::from_bytes(&inside));
            let Ok(meta) = dir.symlink_metadata() else {
                continue;
            };
            let stamp = (meta.mtime(), meta.mtime_nsec(), meta.ino());
            seen.insert(inside.clone(), stamp);
            if before.get(&inside) == Some(&stamp) {
                continue;
            }
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            let target_dir = mirror.join(OsStr::from_bytes(&inside));
            let mut added_here = false;
            for entry in entries.flatten() {
                let mut path = inside.clone();
                path.push(b'/');
                path.extend_from_slice(entry.file_name().as_bytes());
                if !is_object(&path) {
                    continue;
                }
                let target = target_dir.join(entry.file_name());
                if target.symlink_metadata().is_ok() {
                    continue;
                }
                if !added_here {
                    fs_err::create_dir_all(&target_dir)
                        .map_err(io("create the objects mirror", &target_dir))?;
                }
                match mirror_one(&entry.path(), &target, max_file_bytes) {
                    Ok(Mirrored::Linked) => kept.added += 1,
                    Ok(Mirrored::Copied) => {
                        kept.added += 1;
                        kept.copied += 1;
                    }
                    Ok(Mirrored::Gone) => continue,
                    Ok(Mirrored::TooLarge(size)) => {
                        kept.not_kept
                            .push(not_kept(&path, size, NotKeptReason::TooLarge));
                        continue;
                    }
                    Err(error) if fsops::is_storage_full(&error) => {
                        return Err(io("keep a repository object", &target)(error));
                    }
                    Err(error) if error.kind() == std::io::ErrorKind::PermissionDenied => {
                        kept.not_kept
                            .push(not_kept(&path, 0, NotKeptReason::Unreadable));
                        continue;
                    }
                    Err(error) => return Err(io("keep a repository object", &target)(error)),
                }
                added_here = true;
            }
            if added_here {
                fsops::sync_dir(&target_dir).map_err(io("flush", &target_dir))?;
                let mut parent = target_dir.as_path();
                while let Some(up) = parent.parent().filter(|p| p.starts_with(&mirror)) {
                    fsops::sync_dir(up).map_err(io("flush", up))?;
                    parent = up;
                }
            }
        }
        if seen != before {
            // A cache: without it every fan-out directory is listed again.
            let _ = fsops::replace_file(&seen_path, &write_seen(&seen));
        }
        Ok(kept)
    }

    /// Links every mirrored object missing from `<workspace>/.git` back into it (a loose
    /// object the repository holds in a pack is left out); returns how many.
    ///
    /// # Errors
    /// An object cannot be written back.
    pub fn restore_git_objects(&self, workspace: &Path) -> Result<u64, GitError> {
        let git = workspace.join(OsStr::from_bytes(GIT));
        let mirror = self.dir.join(MIRROR_DIR);
        if !git.symlink_metadata().is_ok_and(|m| m.is_dir()) || !mirror.is_dir() {
            return Ok(0);
        }
        let mut files = Vec::new();
        mirrored(&mirror, &mut Vec::new(), &mut files);
        // Packs first: a loose object they hold is then not written again.
        files.sort_by_key(|path| !path.ends_with(b".pack") && !path.ends_with(b".idx"));
        let mut restored = 0;
        // Opened once the packs are back, so that it sees them.
        let mut repo: Option<Option<git2::Repository>> = None;
        for inside in files {
            let target = git.join(OsStr::from_bytes(&inside));
            if target.symlink_metadata().is_ok() {
                continue;
            }
            if let Some(id) = loose_id(&inside) {
                let repo = repo.get_or_insert_with(|| git2::Repository::open_bare(&git).ok());
                let held = repo
                    .as_ref()
                    .and_then(|r| r.odb().ok())
                    .is_some_and(|odb| odb.exists(id));
                if held {
                    continue;
                }
            }
            let source = mirror.join(OsStr::from_bytes(&inside));
            let io = |source| GitError::GitWorktree {
                action: "restore a repository object",
                path: target.clone(),
                source,
            };
            if let Some(parent) = target.parent() {
                fs_err::create_dir_all(parent).map_err(io)?;
            }
            match mirror_one(&source, &target, u64::MAX).map_err(io)? {
                Mirrored::Linked | Mirrored::Copied => restored += 1,
                Mirrored::Gone | Mirrored::TooLarge(_) => {}
            }
            if let Some(parent) = target.parent() {
                let _ = fsops::sync_dir(parent);
            }
        }
        Ok(restored)
    }
}

impl CheckpointStore {
    /// With no checkpoint left, frees the mirrored objects the repository no longer has (a
    /// mirror file with one name; a copy, which always has one, is copied again by the next
    /// checkpoint if the repository still has it). Returns the files and bytes freed.
    pub(crate) fn prune_git_objects(&self) -> (u64, u64) {
        use std::os::unix::fs::MetadataExt as _;
        let mirror = self.dir.join(MIRROR_DIR);
        let mut files = Vec::new();
        mirrored(&mirror, &mut Vec::new(), &mut files);
        let (mut count, mut bytes) = (0, 0);
        for inside in files {
            let path = mirror.join(OsStr::from_bytes(&inside));
            let Ok(meta) = path.symlink_metadata() else {
                continue;
            };
            if meta.nlink() == 1 && fsops::remove_file(&path).is_ok() {
                count += 1;
                bytes += meta.len();
            }
        }
        // Every directory is listed again by the next checkpoint.
        let _ = fsops::remove_file(&self.dir.join(SEEN_FILE));
        (count, bytes)
    }
}

/// How one object file was mirrored.
enum Mirrored {
    Linked,
    Copied,
    /// It went before it could be linked.
    Gone,
    /// It would have to be copied and is larger than the cap.
    TooLarge(u64),
}

/// Links `source` at `target`, or copies it there across filesystems (at most `cap` bytes).
fn mirror_one(source: &Path, target: &Path, cap: u64) -> std::io::Result<Mirrored> {
    match std::fs::hard_link(source, target) {
        Ok(()) => return Ok(Mirrored::Linked),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Mirrored::Gone),
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
            return Ok(Mirrored::Linked);
        }
        Err(error) if fsops::is_cross_device(&error) => {}
        // A filesystem without hard links, or a protected_hardlinks refusal: copy.
        Err(error) if error.kind() == std::io::ErrorKind::PermissionDenied => {}
        Err(error) if error.raw_os_error() == Some(rustix::io::Errno::PERM.raw_os_error()) => {}
        Err(error) => return Err(error),
    }
    let size = match source.metadata() {
        Ok(meta) => meta.len(),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Mirrored::Gone),
        Err(error) => return Err(error),
    };
    if size > cap {
        return Ok(Mirrored::TooLarge(size));
    }
    let staged = fsops::temporary_sibling(target);
    let copied = (|| {
        let mut from = std::fs::File::open(source)?;
        let mut to = std::fs::File::create(&staged)?;
        std::io::copy(&mut from, &mut to)?;
        to.flush()?;
        to.set_permissions(from.metadata()?.permissions())?;
        to.sync_all()?;
        fsops::rename_noreplace(&staged, target)
    })();
    match copied {
        Ok(()) => Ok(Mirrored::Copied),
        Err(error) => {
            let _ = fsops::remove_file(&staged);
            if error.kind() == std::io::ErrorKind::AlreadyExists {
                Ok(Mirrored::Copied)
            } else if error.kind() == std::io::ErrorKind::NotFound && !source.exists() {
                Ok(Mirrored::Gone)
            } else {
                Err(error)
            }
        }
    }
}

/// The directories of `.git` (relative to it) that hold object files: every repository's
/// `objects/xx` and `objects/pack` (`.git`'s and its submodules' below `modules/`), and
/// every directory below `lfs/objects`.
fn object_dirs(dir: &Path, relative: &mut Vec<u8>, out: &mut Vec<Vec<u8>>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let name = entry.file_name();
        let len = relative.len();
        if !relative.is_empty() {
            relative.push(b'/');
        }
        relative.extend_from_slice(name.as_bytes());
        let path: &[u8] = relative;
        let wanted = holds_only_objects(path) && path != b"lfs/objects"
            || path.ends_with(b"objects/pack")
            || path.starts_with(b"lfs/objects/");
        if wanted {
            out.push(relative.clone());
        }
        // Descend where more object directories can be: a repository's root, `objects`,
        // `modules/…`, `lfs/objects/…`.
        let descend = name.as_bytes() == b"objects"
            || path.starts_with(b"modules")
            || path == b"lfs"
            || path.starts_with(b"lfs/objects");
        if descend && !(holds_only_objects(path) && path != b"lfs/objects") {
            object_dirs(&entry.path(), relative, out);
        }
        relative.truncate(len);
    }
}

/// Every file below the mirror, relative to it.
fn mirrored(dir: &Path, relative: &mut Vec<u8>, out: &mut Vec<Vec<u8>>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let len = relative.len();
        if !relative.is_empty() {
            relative.push(b'/');
        }
        relative.extend_from_slice(entry.file_name().as_bytes());
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => mirrored(&entry.path(), relative, out),
            Ok(_) if is_object(relative) => out.push(relative.clone()),
            _ => {}
        }
        relative.truncate(len);
    }
}

/// The id of a loose object of `.git` itself (`objects/xx/…`).
fn loose_id(inside: &[u8]) -> Option<Oid> {
    let rest = inside.strip_prefix(b"objects/")?;
    let (fan, name) = (rest.get(..2)?, rest.get(3..)?);
    if rest.get(2) != Some(&b'/') {
        return None;
    }
    let hex = [fan, name].concat();
    Oid::from_str(std::str::from_utf8(&hex).ok()?).ok()
}

fn not_kept(inside: &[u8], size: u64, reason: NotKeptReason) -> NotKept {
    let mut path = GIT.to_vec();
    path.push(b'/');
    path.extend_from_slice(inside);
    NotKept { path, size, reason }
}

fn read_seen(path: &Path) -> HashMap<Vec<u8>, (i64, i64, u64)> {
    let Ok(text) = std::fs::read(path) else {
        return HashMap::new();
    };
    text.split(|b| *b == b'\n')
        .filter_map(|line| {
            let mut parts = line.splitn(4, |b| *b == b' ');
            let seconds: i64 = number(parts.next())?;
            let nanos: i64 = number(parts.next())?;
            let ino: u64 = number(parts.next())?;
            Some((parts.next()?.to_vec(), (seconds, nanos, ino)))
        })
        .collect()
}

/// A number of a store's small text files (the seen cache, the pack ledger).
pub(crate) fn number<T: std::str::FromStr>(part: Option<&[u8]>) -> Option<T> {
    std::str::from_utf8(part?).ok()?.parse().ok()
}

fn write_seen(seen: &HashMap<Vec<u8>, (i64, i64, u64)>) -> Vec<u8> {
    let mut out = Vec::new();
    for (dir, (seconds, nanos, ino)) in seen {
        out.extend_from_slice(format!("{seconds} {nanos} {ino} ").as_bytes());
        out.extend_from_slice(dir);
        out.push(b'\n');
    }
    out
}
