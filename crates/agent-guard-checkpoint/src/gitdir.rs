//! The workspace's own repository in a checkpoint (issue 34): a program that deletes
//! everything in the workspace, `.git` included, is undone with its history.
//!
//! `.git` holds two kinds of files:
//!
//! - **objects**, named by their content and never written in place: loose objects
//!   (`objects/xx/…`), packs and their indexes (`objects/pack/pack-*.{pack,idx,rev,bitmap,
//!   mtimes,promisor}`), Git LFS content (`lfs/objects/…`), and the same below `modules/`.
//!   They are mirrored into the store, each once, by a hard link where the store shares the
//!   filesystem ([`super::git_objects`]);
//! - **state**, everything else: `HEAD`, refs, `packed-refs`, the index, `config`, hooks,
//!   logs, `info/`. It is kept in the checkpoint like a workspace file, under `.git/`, so
//!   that a restore compares it, keeps what is there now in a new transaction and writes the
//!   checkpoint's version back.
//!
//! The guard's own refs (`refs/agent-guard/`, and their logs) are kept too, but a restore
//! only writes back those that are gone ([`is_guards_own`]). Only the workspace root's `.git` directory is kept this way; a nested repository's is
//! still left out (its work tree is kept), and a `.git` file (a linked work tree's pointer)
//! is kept as the file it is.

use std::ffi::OsStr;
use std::hash::{Hash as _, Hasher as _};
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

use super::stat_cache::{Entry, Stat, path_order};
use super::walk::{USUAL_DIR_MODE, Walked};

/// The repository directory's name.
pub(crate) const GIT: &[u8] = b".git";

/// The guard's own refs in the repository (git snapshots, kept stashes and branches), and
/// their logs.
const GUARDS_OWN: [&[u8]; 2] = [b".git/refs/agent-guard/", b".git/logs/refs/agent-guard/"];

/// Whether workspace-relative `path` is one of the guard's own refs (or its log). Each
/// belongs to its own transaction: a checkpoint's restore writes one back when it is gone
/// (a program deleted `.git`), and never takes one away or replaces it.
pub fn is_guards_own(path: &[u8]) -> bool {
    GUARDS_OWN.iter().any(|own| path.starts_with(own))
}

/// The size cap of a checkpointed file at workspace-relative `path`: `cap` for the
/// workspace's files, none for the repository's state (`.git/index`, refs, config…), without
/// which the repository could not be put back, however large a monorepo's index grows.
pub(crate) fn size_cap(path: &[u8], cap: u64) -> u64 {
    if path.starts_with(GIT) && path.get(GIT.len()) == Some(&b'/') {
        u64::MAX
    } else {
        cap
    }
}

/// What the walk of the workspace's `.git` found, with paths relative to the workspace
/// (`.git/HEAD`), sorted in [`path_order`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct GitWalk {
    /// State files, symlinks and special files.
    pub(crate) found: Vec<Entry>,
    /// Directories with no entries at all.
    pub(crate) empty_dirs: Vec<Vec<u8>>,
    /// Directories whose bits are not `0755`, `.git` itself included.
    pub(crate) dir_modes: Vec<(Vec<u8>, u32)>,
    /// What could not be listed or stat'ed.
    pub(crate) unreadable: Vec<Vec<u8>>,
}

impl GitWalk {
    /// A digest of everything found (paths and stat data): two walks with the same digest
    /// found the same state, so a checkpoint that found nothing else changed is the last one.
    pub(crate) fn digest(&self) -> u64 {
        let mut hasher = std::hash::DefaultHasher::new();
        for entry in &self.found {
            entry.path.hash(&mut hasher);
            let s = entry.stat;
            (s.mode, s.size, s.mtime, s.ctime, s.ino, s.dev, s.links).hash(&mut hasher);
        }
        self.empty_dirs.hash(&mut hasher);
        self.dir_modes.hash(&mut hasher);
        self.unreadable.hash(&mut hasher);
        hasher.finish()
    }

    /// Adds what was found to a walk of the rest of the workspace (which never enters
    /// `.git`), each list staying in [`path_order`]: every `.git/…` path is one run in it.
    pub(crate) fn splice_into(self, walked: &mut Walked) {
        fn splice<T>(list: &mut Vec<T>, run: Vec<T>, path: impl Fn(&T) -> &[u8]) {
            let at = list.partition_point(|item| path_order(path(item), b".git/").is_lt());
            list.splice(at..at, run);
        }
        splice(&mut walked.found, self.found, |e| &e.path);
        splice(&mut walked.empty_dirs, self.empty_dirs, |d| d);
        splice(&mut walked.dir_modes, self.dir_modes, |d| &d.0);
        splice(&mut walked.unreadable, self.unreadable, |d| d);
    }
}

/// Walks the state of the repository at `<root>/.git`, if it is a directory.
pub(crate) fn walk(root: &Path) -> Option<GitWalk> {
    let dir = root.join(OsStr::from_bytes(GIT));
    let meta = dir
        .symlink_metadata()
        .ok()
        .filter(std::fs::Metadata::is_dir)?;
    let mut walk = GitWalk::default();
    let bits = meta.permissions().mode() & 0o7777;
    if bits != USUAL_DIR_MODE {
        walk.dir_modes.push((GIT.to_vec(), bits));
    }
    list(&dir, GIT, &mut walk);
    walk.found
        .sort_unstable_by(|a, b| path_order(&a.path, &b.path));
    walk.empty_dirs.sort_unstable_by(|a, b| path_order(a, b));
    walk.dir_modes
        .sort_unstable_by(|a, b| path_order(&a.0, &b.0));
    walk.unreadable.sort_unstable_by(|a, b| path_order(a, b));
    Some(walk)
}

fn list(dir: &Path, relative: &[u8], walk: &mut GitWalk) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        walk.unreadable.push(relative.to_vec());
        return;
    };
    let mut any = false;
    for entry in entries {
        let Ok(entry) = entry else {
            walk.unreadable.push(relative.to_vec());
            break;
        };
        any = true;
        let mut path = relative.to_vec();
        path.push(b'/');
        path.extend_from_slice(entry.file_name().as_bytes());
        let inside = &path[GIT.len() + 1..];
        let Ok(meta) = entry.path().symlink_metadata() else {
            // Gone since it was listed: nothing to keep.
            continue;
        };
        if meta.is_dir() {
            if holds_only_objects(inside) {
                continue;
            }
            let bits = meta.permissions().mode() & 0o7777;
            if bits != USUAL_DIR_MODE {
                walk.dir_modes.push((path.clone(), bits));
            }
            list(&entry.path(), &path, walk);
        } else if !is_object(inside) {
            walk.found.push(Entry {
                path,
                stat: Stat::of(&meta),
                id: None,
            });
        }
    }
    if !any && relative != GIT {
        walk.empty_dirs.push(relative.to_vec());
    }
}

/// Whether `inside` (a path inside `.git`) is a directory that holds only objects: a loose
/// objects fan-out directory (`objects/xx`, also below `modules/`) or `lfs/objects`.
pub(crate) fn holds_only_objects(inside: &[u8]) -> bool {
    let parts: Vec<&[u8]> = inside.split(|b| *b == b'/').collect();
    match parts.as_slice() {
        [b"lfs", b"objects"] => true,
        [above @ .., b"objects", fan] => fan.len() == 2 && is_hex(fan) && repository(above),
        _ => false,
    }
}

/// Whether `inside` (a path inside `.git`) is an object file: named by its content, never
/// written in place.
pub(crate) fn is_object(inside: &[u8]) -> bool {
    let parts: Vec<&[u8]> = inside.split(|b| *b == b'/').collect();
    match parts.as_slice() {
        [b"lfs", b"objects", .., name] => name.len() == 64 && is_hex(name),
        [above @ .., b"objects", fan, name] if fan.len() == 2 && is_hex(fan) => {
            (38..=62).contains(&name.len()) && is_hex(name) && repository(above)
        }
        [above @ .., b"objects", b"pack", name] => is_pack_file(name) && repository(above),
        _ => false,
    }
}

/// Whether the components `above` an `objects` directory name a repository: `.git`
/// itself, or a submodule's below `modules/` (a ref named `refs/heads/objects/…` is state).
fn repository(above: &[&[u8]]) -> bool {
    above.is_empty() || above.first() == Some(&&b"modules"[..])
}

/// `pack-<hex>.<pack|idx|rev|bitmap|mtimes|promisor>`.
fn is_pack_file(name: &[u8]) -> bool {
    let Some(rest) = name.strip_prefix(b"pack-") else {
        return false;
    };
    let Some(dot) = rest.iter().position(|b| *b == b'.') else {
        return false;
    };
    let (hash, ext) = rest.split_at(dot);
    (40..=64).contains(&hash.len())
        && is_hex(hash)
        && matches!(
            ext,
            b".pack" | b".idx" | b".rev" | b".bitmap" | b".mtimes" | b".promisor"
        )
}

fn is_hex(bytes: &[u8]) -> bool {
    bytes
        .iter()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_are_told_from_state() {
        let hex40 = "0123456789abcdef0123456789abcdef01234567";
        for object in [
            format!("objects/ab/{}", &hex40[2..]),
            format!("objects/pack/pack-{hex40}.pack"),
            format!("objects/pack/pack-{hex40}.idx"),
            format!("objects/pack/pack-{hex40}.rev"),
            format!("modules/sub/objects/pack/pack-{hex40}.idx"),
            format!("modules/a/modules/b/objects/0f/{}", &hex40[2..]),
            format!("lfs/objects/ab/cd/{hex40}{}", &hex40[..24]),
        ] {
            assert!(is_object(object.as_bytes()), "{object}");
        }
        for state in [
            "HEAD",
            "index",
            "config",
            "packed-refs",
            "refs/heads/main",
            "refs/heads/objects/ab/0123456789abcdef0123456789abcdef012345",
            "objects/info/alternates",
            "objects/info/commit-graph",
            "objects/pack/multi-pack-index",
            "objects/pack/pack-x.pack",
            "hooks/pre-commit",
            "logs/HEAD",
            "modules/sub/HEAD",
        ] {
            assert!(!is_object(state.as_bytes()), "{state}");
        }
        assert!(holds_only_objects(b"objects/ab"));
        assert!(holds_only_objects(b"modules/sub/objects/0f"));
        assert!(holds_only_objects(b"lfs/objects"));
        assert!(!holds_only_objects(b"objects/pack"));
        assert!(!holds_only_objects(b"objects/info"));
        assert!(!holds_only_objects(b"refs/heads"));
    }
}
