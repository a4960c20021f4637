//! Walking the workspace for a checkpoint: every file, symlink and empty directory, in
//! parallel, except what a checkpoint never keeps: `.git` (anywhere), the quarantine, and
//! regenerable artifacts (a name matching an artifact pattern that git ignores and that
//! holds no tracked file: `node_modules/`, `target/`; `.env` and `*.log` are kept).
//!
//! One `readdir` per directory and one `lstat` (`fstatat` on the directory) per entry;
//! nothing is read. Symlinks are entries, never followed.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex};

use git2::Repository;

use super::Selection;
use super::artifacts::Artifacts;
use super::index::{Stat, path_order};
use crate::error::GitError;

/// One non-directory the walk found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    /// Workspace-relative, `/`-separated.
    pub(crate) path: Vec<u8>,
    /// Its `lstat` data.
    pub(crate) stat: Stat,
}

/// What one walk found, sorted in [`path_order`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Walked {
    /// Files, symlinks and special files.
    pub(crate) found: Vec<Found>,
    /// Directories with no entries at all.
    pub(crate) empty_dirs: Vec<Vec<u8>>,
    /// Directories that could not be listed.
    pub(crate) unreadable: Vec<Vec<u8>>,
}

/// Walks the workspace of `selection`.
///
/// # Errors
/// The workspace root itself cannot be listed.
pub(crate) fn walk(selection: &Selection) -> Result<Walked, GitError> {
    let root = &selection.workspace;
    fs_err::read_dir(root).map_err(|source| GitError::GitWorktree {
        action: "list",
        path: root.clone(),
        source,
    })?;
    let filter = Filter::new(selection);
    let queue = Queue {
        state: Mutex::new(QueueState {
            pending: vec![(root.clone(), Vec::new())],
            active: 0,
        }),
        ready: Condvar::new(),
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .clamp(1, 4);
    let mut parts: Vec<Walked> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| scope.spawn(|| work(&queue, &filter)))
            .collect();
        workers
            .into_iter()
            .map(|worker| worker.join().unwrap_or_default())
            .collect()
    });
    let mut walked = parts.pop().unwrap_or_default();
    for part in parts {
        walked.found.extend(part.found);
        walked.empty_dirs.extend(part.empty_dirs);
        walked.unreadable.extend(part.unreadable);
    }
    // Each key once (`/` as the lowest byte: plain byte order is then `path_order`), rather
    // than mapping both paths byte by byte in every one of the n log n comparisons.
    walked
        .found
        .sort_by_cached_key(|found| order_key(&found.path));
    walked.empty_dirs.sort_unstable_by(|a, b| path_order(a, b));
    walked.unreadable.sort_unstable_by(|a, b| path_order(a, b));
    Ok(walked)
}

/// `path` with `/` as NUL, whose plain byte order is [`path_order`] (a name holds no NUL).
fn order_key(path: &[u8]) -> Vec<u8> {
    path.iter()
        .map(|byte| if *byte == b'/' { 0 } else { *byte })
        .collect()
}

struct QueueState {
    pending: Vec<(PathBuf, Vec<u8>)>,
    active: usize,
}

struct Queue {
    state: Mutex<QueueState>,
    ready: Condvar,
}

impl Queue {
    /// The next directory, or `None` when every worker is idle and nothing is pending.
    fn next(&self) -> Option<(PathBuf, Vec<u8>)> {
        let mut state = self.state.lock().ok()?;
        loop {
            if let Some(job) = state.pending.pop() {
                state.active += 1;
                return Some(job);
            }
            if state.active == 0 {
                self.ready.notify_all();
                return None;
            }
            state = self.ready.wait(state).ok()?;
        }
    }

    fn done(&self, found: Vec<(PathBuf, Vec<u8>)>) {
        if let Ok(mut state) = self.state.lock() {
            state.active -= 1;
            state.pending.extend(found);
        }
        self.ready.notify_all();
    }
}

fn work(queue: &Queue, filter: &Filter<'_>) -> Walked {
    let mut out = Walked::default();
    while let Some((dir, relative)) = queue.next() {
        let subdirs = list(&dir, &relative, filter, &mut out);
        queue.done(subdirs);
    }
    out
}

/// Lists one directory into `out`; returns its subdirectories to walk.
fn list(
    dir: &Path,
    relative: &[u8],
    filter: &Filter<'_>,
    out: &mut Walked,
) -> Vec<(PathBuf, Vec<u8>)> {
    let mut subdirs = Vec::new();
    let Ok(entries) = fs_err::read_dir(dir) else {
        out.unreadable.push(relative.to_vec());
        return subdirs;
    };
    let mut any = false;
    for entry in entries {
        let Ok(entry) = entry else {
            out.unreadable.push(relative.to_vec());
            continue;
        };
        any = true;
        let name = entry.file_name();
        let name = name.as_bytes();
        if name == b".git" {
            continue;
        }
        let mut child = Vec::with_capacity(relative.len() + name.len() + 1);
        if !relative.is_empty() {
            child.extend_from_slice(relative);
            child.push(b'/');
        }
        child.extend_from_slice(name);
        let Ok(file_type) = entry.file_type() else {
            continue;
        };
        if file_type.is_dir() {
            let path = entry.path();
            if filter.skip.contains(&path) || filter.excluded(&child, true) {
                continue;
            }
            subdirs.push((path, child));
            continue;
        }
        let Ok(metadata) = entry.metadata() else {
            // Vanished since it was listed: nothing to keep.
            continue;
        };
        if file_type.is_file() && filter.excluded(&child, false) {
            continue;
        }
        out.found.push(Found {
            path: child,
            stat: Stat::of(&metadata),
        });
    }
    if !any && !relative.is_empty() {
        out.empty_dirs.push(relative.to_vec());
    }
    subdirs
}

/// Decides what the walk leaves out.
struct Filter<'a> {
    skip: &'a [PathBuf],
    patterns: Artifacts,
    enabled: bool,
    workspace: &'a Path,
    /// The user's repository, opened on the first artifact-like name (most walks never ask).
    #[expect(
        clippy::option_option,
        reason = "not asked yet, no repository, or the repository: get_or_insert_with"
    )]
    probe: Mutex<Option<Option<Probe>>>,
}

/// The user's repository, read-only: its ignore rules and its index (which libgit2 loads
/// once per repository handle).
struct Probe {
    repo: Repository,
    /// The workspace's path inside the work tree (`""`, or `sub/` when the workspace is a
    /// subdirectory of it).
    prefix: Vec<u8>,
}

impl<'a> Filter<'a> {
    fn new(selection: &'a Selection) -> Filter<'a> {
        Filter {
            skip: &selection.skip,
            patterns: Artifacts::new(&selection.artifacts),
            enabled: selection.skip_regenerable,
            workspace: &selection.workspace,
            probe: Mutex::new(None),
        }
    }

    /// Whether `relative` is a regenerable artifact: its name (or its whole path) matches an
    /// artifact pattern, git ignores it, and nothing at or below it is tracked. Without a
    /// repository nothing is ignored, so nothing is regenerable.
    fn excluded(&self, relative: &[u8], is_dir: bool) -> bool {
        if !self.enabled {
            return false;
        }
        if !self.patterns.matches(relative) {
            return false;
        }
        let Ok(mut probe) = self.probe.lock() else {
            return false;
        };
        let Some(probe) = probe.get_or_insert_with(|| Probe::open(self.workspace)) else {
            return false;
        };
        let mut path = probe.prefix.clone();
        path.extend_from_slice(relative);
        let mut spelled = path.clone();
        if is_dir {
            spelled.push(b'/');
        }
        if !probe
            .repo
            .is_path_ignored(Path::new(OsStr::from_bytes(&spelled)))
            .unwrap_or(false)
        {
            return false;
        }
        let Ok(index) = probe.repo.index() else {
            return false;
        };
        let tracked_here = index
            .get_path(Path::new(OsStr::from_bytes(&path)), 0)
            .is_some();
        path.push(b'/');
        !(tracked_here || index.find_prefix(path.as_slice()).is_ok())
    }
}

impl Probe {
    fn open(workspace: &Path) -> Option<Probe> {
        let repo = Repository::discover(workspace).ok()?;
        let workdir = fs_err::canonicalize(repo.workdir()?).ok()?;
        let inside = workspace.strip_prefix(&workdir).ok()?;
        let mut prefix = inside.as_os_str().as_bytes().to_vec();
        if !prefix.is_empty() {
            prefix.push(b'/');
        }
        Some(Probe { repo, prefix })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sort_key_orders_like_path_order() {
        let paths: [&[u8]; 8] = [
            b"a/b", b"a.b", b"a", b"a/b/c", b"a-b", b"ab", b"a/\xff", b"b",
        ];
        for x in paths {
            for y in paths {
                assert_eq!(order_key(x).cmp(&order_key(y)), path_order(x, y));
            }
        }
    }

    fn selection(root: &Path) -> Selection {
        Selection {
            workspace: fs_err::canonicalize(root).unwrap(),
            skip: vec![fs_err::canonicalize(root).unwrap().join(".agent-trash")],
            artifacts: vec!["node_modules".into(), "*.pyc".into(), "build".into()],
            skip_regenerable: true,
            max_file_bytes: 1 << 20,
        }
    }

    fn paths(walked: &Walked) -> Vec<String> {
        walked
            .found
            .iter()
            .map(|f| String::from_utf8_lossy(&f.path).into_owned())
            .collect()
    }

    #[test]
    fn keeps_everything_but_git_the_quarantine_and_ignored_artifacts() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let repo = Repository::init(root).unwrap();
        for (path, text) in [
            (".gitignore", "node_modules/\n*.pyc\n.env\n"),
            ("src/a.py", "a"),
            (".env", "secret"),
            ("node_modules/x/i.js", "m"),
            ("pkg/m.pyc", "b"),
            ("build/o.txt", "not ignored, so kept"),
            (".agent-trash/manifest.jsonl", "{}"),
            ("vendor/.git/HEAD", "nested"),
        ] {
            let path = root.join(path);
            fs_err::create_dir_all(path.parent().unwrap()).unwrap();
            fs_err::write(path, text).unwrap();
        }
        fs_err::create_dir(root.join("empty")).unwrap();
        std::os::unix::fs::symlink("/outside", root.join("link")).unwrap();
        drop(repo);
        let walked = walk(&selection(root)).unwrap();
        assert_eq!(
            paths(&walked),
            [".env", ".gitignore", "build/o.txt", "link", "src/a.py"]
        );
        assert_eq!(walked.empty_dirs, [b"empty".to_vec()]);
        assert!(walked.found[3].stat.is_symlink());
    }

    #[test]
    fn without_git_nothing_is_regenerable() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs_err::create_dir_all(root.join("node_modules")).unwrap();
        fs_err::write(root.join("node_modules/i.js"), "m").unwrap();
        let walked = walk(&selection(root)).unwrap();
        assert_eq!(paths(&walked), ["node_modules/i.js"]);
    }
}
