//! Walking the workspace for a checkpoint: every file, symlink and empty directory, in
//! parallel, except what a checkpoint never keeps: `.git` (anywhere; the root's state is
//! walked by [`super::gitdir`] and spliced in), the quarantine, and
//! regenerable artifacts (a name matching an artifact pattern that git ignores and that
//! holds no tracked file: `node_modules/`, `target/`; `.env` and `*.log` are kept).
//!
//! One `readdir` per directory and one `lstat` (`fstatat` on the directory) per entry;
//! nothing is read. Symlinks are entries, never followed. When the store's watcher
//! answered ([`super::watch`]), only what it heard of is stat'ed: every other file is
//! listed with [`Stat::UNKNOWN`], to be its index entry.

use std::ffi::OsStr;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex};

use git2::Repository;
use rustix::fs::{AtFlags, FileType, Mode, OFlags, RawDir, StatxFlags};

use super::Selection;
use super::stat_cache::{Entry, Stat, path_order};
use super::watch::Heard;
use agent_guard_git::Artifacts;
use agent_guard_git::GitError;

/// One non-directory the walk found: its path and `lstat` data, as the checkpoint's index
/// entry it becomes (no blob yet), so that the walk's list is the checkpoint's list and is
/// never copied.
pub(crate) type Found = Entry;

/// What one walk found, sorted in [`path_order`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Walked {
    /// Files, symlinks and special files.
    pub(crate) found: Vec<Found>,
    /// Directories with no entries at all.
    pub(crate) empty_dirs: Vec<Vec<u8>>,
    /// Directories whose permission bits are not `0755`, with their bits (the root left
    /// out): restore gives every directory back its bits.
    pub(crate) dir_modes: Vec<(Vec<u8>, u32)>,
    /// Directories that could not be listed, and entries that could not be stat'ed.
    pub(crate) unreadable: Vec<Vec<u8>>,
    /// The `.git` entries of repositories nested below the root (never kept).
    pub(crate) nested_git: Vec<Vec<u8>>,
    /// The regenerable artifacts left out (directories and files), which a restore leaves
    /// alone even when what ignored them is gone by then.
    pub(crate) left_out: Vec<Vec<u8>>,
}

/// A directory's usual permission bits: the ones a checkpoint does not list.
pub(crate) const USUAL_DIR_MODE: u32 = 0o755;

/// Walks the workspace of `selection`.
///
/// Directories are listed in parallel, each into its own listing sorted by name; the
/// listings are then joined depth first, which is [`path_order`] (everything below `a`
/// comes right after `a` and before `a.b`), so no list of the whole workspace is sorted.
///
/// # Errors
/// The workspace root itself cannot be listed.
pub(crate) fn walk(selection: &Selection, heard: Option<&Heard>) -> Result<Walked, GitError> {
    let git = super::gitdir::walk(&selection.workspace);
    walk_with(selection, heard, git)
}

/// [`walk`], with the walk of the workspace's `.git` already done ([`super::gitdir`]): it is
/// spliced into the result.
pub(crate) fn walk_with(
    selection: &Selection,
    heard: Option<&Heard>,
    git: Option<super::gitdir::GitWalk>,
) -> Result<Walked, GitError> {
    let root = &selection.workspace;
    open_dir(root).map_err(|source| GitError::GitWorktree {
        action: "list",
        path: root.clone(),
        source: source.into(),
    })?;
    let filter = Filter::new(selection);
    let heard = heard.map(Known::new);
    let queue = Queue {
        state: Mutex::new(QueueState {
            pending: vec![Job {
                relative: Vec::new(),
                slot: 0,
                new: heard.as_ref().is_none_or(|h| h.trees.contains(&b""[..])),
            }],
            active: 0,
            slots: 1,
        }),
        ready: Condvar::new(),
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .clamp(1, 4);
    let parts: Vec<Part> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| scope.spawn(|| work(&queue, root, &filter, heard.as_ref())))
            .collect();
        workers
            .into_iter()
            .map(|worker| worker.join().unwrap_or_default())
            .collect()
    });
    let slots = queue.state.lock().map_or(0, |state| state.slots);
    let mut listings: Vec<Option<Vec<Item>>> = (0..slots).map(|_| None).collect();
    let mut walked = Walked::default();
    let mut files = 0;
    for part in parts {
        for (slot, items) in part.listings {
            files += items.len();
            if let Some(place) = listings.get_mut(slot) {
                *place = Some(items);
            }
        }
        walked.empty_dirs.extend(part.empty_dirs);
        walked.dir_modes.extend(part.dir_modes);
        walked.unreadable.extend(part.unreadable);
        walked.nested_git.extend(part.nested_git);
        walked.left_out.extend(part.left_out);
    }
    walked.found.reserve_exact(files);
    let mut stack: Vec<std::vec::IntoIter<Item>> = Vec::new();
    stack.extend(
        listings
            .first_mut()
            .and_then(Option::take)
            .map(Vec::into_iter),
    );
    while let Some(top) = stack.last_mut() {
        match top.next() {
            None => {
                stack.pop();
            }
            Some(Item::File(found)) => walked.found.push(found),
            Some(Item::Dir(slot)) => {
                let below = listings.get_mut(slot).and_then(Option::take);
                stack.extend(below.map(Vec::into_iter));
            }
        }
    }
    walked.empty_dirs.sort_unstable_by(|a, b| path_order(a, b));
    walked
        .dir_modes
        .sort_unstable_by(|a, b| path_order(&a.0, &b.0));
    walked.unreadable.sort_unstable_by(|a, b| path_order(a, b));
    walked.nested_git.sort_unstable_by(|a, b| path_order(a, b));
    walked.left_out.sort_unstable_by(|a, b| path_order(a, b));
    if let Some(git) = git {
        git.splice_into(&mut walked);
    }
    Ok(walked)
}

/// One entry of a directory's listing.
enum Item {
    File(Found),
    /// A subdirectory, by the slot of its own listing.
    Dir(usize),
}

/// A directory to list: its workspace-relative path and the slot its listing goes to.
struct Job {
    relative: Vec<u8>,
    slot: usize,
    /// Everything in it is to be stat'ed (no watcher, or it is below a new tree).
    new: bool,
}

/// What the watcher heard, for lookups.
struct Known<'a> {
    paths: std::collections::HashSet<&'a [u8]>,
    trees: std::collections::HashSet<&'a [u8]>,
}

impl<'a> Known<'a> {
    fn new(heard: &'a Heard) -> Known<'a> {
        Known {
            paths: heard.paths.iter().map(Vec::as_slice).collect(),
            trees: heard.trees.iter().map(Vec::as_slice).collect(),
        }
    }
}

/// What one worker listed.
#[derive(Default)]
struct Part {
    listings: Vec<(usize, Vec<Item>)>,
    empty_dirs: Vec<Vec<u8>>,
    dir_modes: Vec<(Vec<u8>, u32)>,
    unreadable: Vec<Vec<u8>>,
    nested_git: Vec<Vec<u8>>,
    left_out: Vec<Vec<u8>>,
}

struct QueueState {
    pending: Vec<Job>,
    active: usize,
    /// Slots handed out so far.
    slots: usize,
}

struct Queue {
    state: Mutex<QueueState>,
    ready: Condvar,
}

impl Queue {
    /// The next directory, or `None` when every worker is idle and nothing is pending.
    fn next(&self) -> Option<Job> {
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

    /// Hands out a slot to each of `subdirs` (position in `items`, path), queues them, and
    /// marks one job done.
    fn done(&self, items: &mut [Item], subdirs: Vec<(usize, Vec<u8>, bool)>) {
        if let Ok(mut state) = self.state.lock() {
            state.active -= 1;
            for (at, relative, new) in subdirs {
                let slot = state.slots;
                state.slots += 1;
                if let Some(item) = items.get_mut(at) {
                    *item = Item::Dir(slot);
                }
                state.pending.push(Job {
                    relative,
                    slot,
                    new,
                });
            }
        }
        self.ready.notify_all();
    }
}

fn open_dir(path: &Path) -> rustix::io::Result<OwnedFd> {
    rustix::fs::open(
        path,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC | OFlags::NOFOLLOW,
        Mode::empty(),
    )
}

fn work(queue: &Queue, root: &Path, filter: &Filter<'_>, heard: Option<&Known<'_>>) -> Part {
    let mut part = Part::default();
    let mut buffer: Vec<u8> = Vec::with_capacity(32 * 1024);
    while let Some(job) = queue.next() {
        let mut subdirs = Vec::new();
        let mut items = list(
            root,
            &job,
            heard,
            filter,
            &mut buffer,
            &mut part,
            &mut subdirs,
        );
        queue.done(&mut items, subdirs);
        part.listings.push((job.slot, items));
    }
    part
}

/// Lists one directory: its files (with their `lstat` data) and subdirectories, sorted by
/// name; the subdirectories to walk go to `subdirs` as (position in the listing, path).
fn list(
    root: &Path,
    job: &Job,
    heard: Option<&Known<'_>>,
    filter: &Filter<'_>,
    buffer: &mut Vec<u8>,
    part: &mut Part,
    subdirs: &mut Vec<(usize, Vec<u8>, bool)>,
) -> Vec<Item> {
    let relative = job.relative.as_slice();
    let dir = root.join(OsStr::from_bytes(relative));
    let Ok(fd) = open_dir(&dir) else {
        part.unreadable.push(relative.to_vec());
        return Vec::new();
    };
    if !relative.is_empty()
        && let Ok(stat) = rustix::fs::fstat(&fd)
    {
        let bits = stat.st_mode & 0o7777;
        if bits != USUAL_DIR_MODE {
            part.dir_modes.push((relative.to_vec(), bits));
        }
    }
    let mut entries: Vec<(Vec<u8>, Option<Stat>)> = Vec::new();
    let new_below = |child: &[u8]| job.new || heard.is_some_and(|h| h.trees.contains(child));
    let dir_heard = heard.is_some_and(|h| h.paths.contains(relative));
    let mut any = false;
    let mut raw = RawDir::new(&fd, buffer.spare_capacity_mut());
    while let Some(entry) = raw.next() {
        let Ok(entry) = entry else {
            part.unreadable.push(relative.to_vec());
            break;
        };
        let name = entry.file_name();
        let bytes = name.to_bytes();
        if bytes == b"." || bytes == b".." {
            continue;
        }
        any = true;
        if bytes == b".git" {
            if !relative.is_empty() {
                let mut path = relative.to_vec();
                path.extend_from_slice(b"/.git");
                part.nested_git.push(path);
            }
            continue;
        }
        let mut child = Vec::with_capacity(relative.len() + bytes.len() + 1);
        if !relative.is_empty() {
            child.extend_from_slice(relative);
            child.push(b'/');
        }
        child.extend_from_slice(bytes);
        let mut kind = entry.file_type();
        let mut stat = None;
        // Not heard of: neither the name (as a path, or as a directory that was replaced
        // since), nor its directory itself (a mode change can hide or reveal what is in it).
        let known = !job.new
            && !dir_heard
            && kind != FileType::Unknown
            && heard.is_some_and(|h| {
                !h.paths.contains(child.as_slice()) && !h.trees.contains(child.as_slice())
            });
        if known && kind != FileType::Directory {
            stat = Some(Stat::UNKNOWN);
        } else if kind != FileType::Directory {
            let now = match rustix::fs::statx(
                &fd,
                name,
                AtFlags::SYMLINK_NOFOLLOW,
                StatxFlags::BASIC_STATS,
            ) {
                Ok(now) => now,
                // Vanished since it was listed: nothing to keep.
                Err(rustix::io::Errno::NOENT) => continue,
                // Listed but not to be looked at (a directory readable but not
                // searchable): said, not silently dropped.
                Err(_) => {
                    part.unreadable.push(child);
                    continue;
                }
            };
            kind = FileType::from_raw_mode(now.stx_mode.into());
            stat = Some(Stat::of_statx(&now));
        }
        let directory = kind == FileType::Directory;
        if directory && filter.skip.contains(&dir.join(OsStr::from_bytes(bytes))) {
            continue;
        }
        if (directory || kind == FileType::RegularFile) && filter.excluded(&child, directory) {
            part.left_out.push(child);
        } else {
            entries.push((child, stat.filter(|_| !directory)));
        }
    }
    if !any && !relative.is_empty() {
        part.empty_dirs.push(relative.to_vec());
    }
    // All share the prefix `relative/`: this is the order of the names.
    entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let mut items = Vec::with_capacity(entries.len());
    for (path, stat) in entries {
        if let Some(stat) = stat {
            items.push(Item::File(Found {
                path,
                stat,
                id: None,
            }));
        } else {
            let new = new_below(&path);
            subdirs.push((items.len(), path, new));
            items.push(Item::Dir(usize::MAX));
        }
    }
    items
}

/// Decides what the walk leaves out.
pub(crate) struct Filter<'a> {
    skip: &'a [PathBuf],
    patterns: Artifacts,
    enabled: bool,
    workspace: &'a Path,
    git_user_dir: Option<&'a Path>,
    /// The user's repository, opened on the first artifact-like name (most walks never ask).
    #[expect(
        clippy::option_option,
        reason = "not asked yet, no repository, or the repository: get_or_insert_with"
    )]
    probe: Mutex<Option<Option<Probe>>>,
}

/// The user's repository, read-only: its ignore rules (the engine `git clean` uses) and its
/// index (which libgit2 loads once per repository handle).
struct Probe {
    repo: Repository,
    /// The work tree's root, resolved.
    workdir: PathBuf,
    excludes: agent_guard_git::Excludes,
    /// The workspace's path inside the work tree (`""`, or `sub/` when the workspace is a
    /// subdirectory of it).
    prefix: Vec<u8>,
}

impl<'a> Filter<'a> {
    pub(crate) fn new(selection: &'a Selection) -> Filter<'a> {
        Filter {
            skip: &selection.skip,
            patterns: Artifacts::new(&selection.artifacts),
            enabled: selection.skip_regenerable,
            workspace: &selection.workspace,
            git_user_dir: selection.git_user_dir.as_deref(),
            probe: Mutex::new(None),
        }
    }

    /// Whether `relative` is a regenerable artifact: its name (or its whole path) matches an
    /// artifact pattern, git ignores it (`git check-ignore`), and nothing at or below it is
    /// tracked. Without a repository nothing is ignored, so nothing is regenerable.
    pub(crate) fn excluded(&self, relative: &[u8], is_dir: bool) -> bool {
        if !self.enabled {
            return false;
        }
        if !self.patterns.matches(relative) {
            return false;
        }
        let Ok(mut probe) = self.probe.lock() else {
            return false;
        };
        let Some(probe) =
            probe.get_or_insert_with(|| Probe::open(self.workspace, self.git_user_dir))
        else {
            return false;
        };
        let mut path = probe.prefix.clone();
        path.extend_from_slice(relative);
        if !probe.excludes.is_ignored(&path, is_dir) {
            return false;
        }
        let Ok(index) = probe.repo.index() else {
            return false;
        };
        let tracked_here = index
            .get_path(Path::new(OsStr::from_bytes(&path)), 0)
            .is_some();
        let mut under = path.clone();
        under.push(b'/');
        // Another repository at, below or above it keeps a history the index does not see.
        !(tracked_here
            || index.find_prefix(under.as_slice()).is_ok()
            || agent_guard_git::in_or_holds_a_repository(&probe.workdir, &path))
    }
}

impl Probe {
    fn open(workspace: &Path, git_user_dir: Option<&Path>) -> Option<Probe> {
        let repo = Repository::discover(workspace).ok()?;
        let workdir = fs_err::canonicalize(repo.workdir()?).ok()?;
        let inside = workspace.strip_prefix(&workdir).ok()?;
        let mut prefix = inside.as_os_str().as_bytes().to_vec();
        if !prefix.is_empty() {
            prefix.push(b'/');
        }
        let excludes = agent_guard_git::Excludes::open(&repo, &workdir, git_user_dir);
        Some(Probe {
            repo,
            workdir,
            excludes,
            prefix,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn selection(root: &Path) -> Selection {
        Selection {
            workspace: fs_err::canonicalize(root).unwrap(),
            skip: vec![fs_err::canonicalize(root).unwrap().join(".agent-trash")],
            artifacts: vec!["node_modules".into(), "*.pyc".into(), "build".into()],
            skip_regenerable: true,
            max_file_bytes: 1 << 20,
            git_user_dir: None,
        }
    }

    fn paths(walked: &Walked) -> Vec<String> {
        walked
            .found
            .iter()
            .map(|f| String::from_utf8_lossy(&f.path).into_owned())
            .collect()
    }

    /// An ignored artifact directory that holds another repository (a clone with its own
    /// history) is not left out: its files are kept (found by an outside review).
    #[test]
    fn an_artifact_holding_a_repository_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let repo = Repository::init(root).unwrap();
        for (path, text) in [
            (".gitignore", "node_modules/\n"),
            ("node_modules/dep/.git/HEAD", "nested"),
            ("node_modules/dep/work.js", "mine"),
            ("node_modules/plain/i.js", "m"),
        ] {
            let path = root.join(path);
            fs_err::create_dir_all(path.parent().unwrap()).unwrap();
            fs_err::write(path, text).unwrap();
        }
        drop(repo);
        let walked = walk(&selection(root), None).unwrap();
        let found = paths(&walked);
        assert!(
            found.contains(&"node_modules/dep/work.js".to_owned()),
            "{found:?}"
        );
        assert_eq!(walked.nested_git, [b"node_modules/dep/.git".to_vec()]);
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
        let mut walked = walk(&selection(root), None).unwrap();
        // The root repository's state is kept (its objects are mirrored instead).
        let git: Vec<String> = paths(&walked)
            .into_iter()
            .filter(|p| p.starts_with(".git/"))
            .collect();
        assert!(git.contains(&".git/HEAD".to_owned()), "{git:?}");
        assert!(git.contains(&".git/config".to_owned()), "{git:?}");
        walked.found.retain(|e| !e.path.starts_with(b".git/"));
        walked.empty_dirs.retain(|d| !d.starts_with(b".git/"));
        walked.dir_modes.retain(|d| !d.0.starts_with(b".git"));
        assert_eq!(
            paths(&walked),
            [".env", ".gitignore", "build/o.txt", "link", "src/a.py"]
        );
        assert_eq!(walked.empty_dirs, [b"empty".to_vec()]);
        assert_eq!(walked.dir_modes, []);
        assert_eq!(walked.nested_git, [b"vendor/.git".to_vec()]);
        std::fs::set_permissions(
            root.join("src"),
            std::os::unix::fs::PermissionsExt::from_mode(0o1770),
        )
        .unwrap();
        assert_eq!(
            walk(&selection(root), None).unwrap().dir_modes,
            [(b"src".to_vec(), 0o1770)]
        );
        assert!(walked.found[3].stat.is_symlink());
    }

    #[test]
    fn without_git_nothing_is_regenerable() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs_err::create_dir_all(root.join("node_modules")).unwrap();
        fs_err::write(root.join("node_modules/i.js"), "m").unwrap();
        let walked = walk(&selection(root), None).unwrap();
        assert_eq!(paths(&walked), ["node_modules/i.js"]);
    }
}
