//! The watcher's watches: inotify on every directory checkpoints keep, and the numbered
//! record of the paths its events name.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::mem::MaybeUninit;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};

use rustix::fs::inotify::{self, CreateFlags, ReadFlags, WatchFlags};
use rustix::fs::{AtFlags, FileType, Mode, OFlags, RawDir, StatxFlags};

use super::filter_digest;
use super::server::{Ended, Watched};
use crate::Selection;
use crate::walk::Filter;

/// The names in a [`Watched::rules`] directory that decide what is ignored or tracked.
pub const RULE_NAMES: &[&[u8]] = &[b"index", b"config", b"info", b"exclude", b".gitignore"];

/// The events a workspace directory is watched for.
fn mask() -> WatchFlags {
    WatchFlags::MODIFY
        | WatchFlags::ATTRIB
        | WatchFlags::CLOSE_WRITE
        | WatchFlags::CREATE
        | WatchFlags::DELETE
        | WatchFlags::MOVED_FROM
        | WatchFlags::MOVED_TO
        | WatchFlags::DELETE_SELF
        | WatchFlags::MOVE_SELF
        | WatchFlags::ONLYDIR
        | WatchFlags::DONT_FOLLOW
        | WatchFlags::EXCL_UNLINK
}

/// Past this many distinct paths heard, the record starts over (every token then asks
/// for a full walk).
const MAX_HEARD: usize = 200_000;

/// The watches and what they heard.
pub(super) struct State {
    pub(super) inotify: OwnedFd,
    pub(super) workspace: PathBuf,
    pub(super) selection: Selection,
    /// The digest of what decides what checkpoints leave out ([`filter_digest`]): a
    /// checkpoint that leaves out something else is answered with a full walk.
    pub(super) filter: u64,
    /// Directories left out, so not watched.
    pub(super) excluded: std::collections::HashSet<Vec<u8>>,
    /// What git ignores or tracks changed: weigh the excluded directories again.
    pub(super) recheck: bool,
    /// Watch descriptor → workspace-relative directory (`None`: a rules directory).
    pub(super) dirs: HashMap<i32, Option<Vec<u8>>>,
    /// Watch descriptor → a rules directory's path.
    pub(super) rule_paths: HashMap<i32, PathBuf>,
    /// Workspace-relative directory → its watch.
    pub(super) by_path: HashMap<Vec<u8>, i32>,
    /// Path → (number of its last event, whether it is a new directory tree).
    pub(super) heard: HashMap<Vec<u8>, (u64, bool)>,
    pub(super) seq: u64,
    /// The number of the last change to the rules.
    pub(super) rules_changed: u64,
    pub(super) instance: [u8; 16],
    pub(super) buffer: Vec<MaybeUninit<u8>>,
}

impl State {
    pub(super) fn start(watched: &Watched) -> Result<State, String> {
        let inotify = inotify::init(CreateFlags::NONBLOCK | CreateFlags::CLOEXEC)
            .map_err(|error| format!("inotify is not available: {error}"))?;
        let mut state = State {
            inotify,
            workspace: watched.selection.workspace.clone(),
            selection: watched.selection.clone(),
            filter: filter_digest(&watched.selection),
            excluded: std::collections::HashSet::new(),
            recheck: false,
            dirs: HashMap::new(),
            rule_paths: HashMap::new(),
            by_path: HashMap::new(),
            heard: HashMap::new(),
            seq: 1,
            rules_changed: 0,
            instance: instance(),
            buffer: vec![MaybeUninit::uninit(); 64 * 1024],
        };
        for dir in &watched.rules {
            state.watch_rules(dir);
        }
        state.watch_tree(Vec::new())?;
        Ok(state)
    }

    /// Watches the directory `relative` and every directory below it (each before it is
    /// listed, so that nothing created meanwhile goes unheard), except what checkpoints
    /// leave out (those are remembered in `excluded`).
    fn watch_tree(&mut self, relative: Vec<u8>) -> Result<(), String> {
        let selection = self.selection.clone();
        let filter = Filter::new(&selection);
        let mut pending = vec![relative];
        let mut names: Vec<u8> = Vec::with_capacity(32 * 1024);
        while let Some(relative) = pending.pop() {
            let path = self.workspace.join(OsStr::from_bytes(&relative));
            if selection.skip.contains(&path) {
                continue;
            }
            if !relative.is_empty() && filter.excluded(&relative, true) {
                self.excluded.insert(relative);
                continue;
            }
            self.excluded.remove(&relative);
            let wd = match inotify::add_watch(&self.inotify, &path, mask()) {
                Ok(wd) => wd,
                // Gone since, or unreadable (a chmod that opens it is heard).
                Err(
                    rustix::io::Errno::NOENT
                    | rustix::io::Errno::ACCESS
                    | rustix::io::Errno::NOTDIR
                    | rustix::io::Errno::LOOP,
                ) => continue,
                Err(error) => {
                    return Err(format!(
                        "cannot watch `{}`: {error} (raise fs.inotify.max_user_watches)",
                        path.display()
                    ));
                }
            };
            // A directory moved within the workspace keeps its watch: the kernel gives the
            // same descriptor, which now names the new path (and the old one nothing). If the
            // old path still is this directory, it has two paths (a bind mount): an event
            // names one of them only, so no watcher can serve this workspace.
            if let Some(Some(old)) = self.dirs.insert(wd, Some(relative.clone()))
                && old != relative
                && self.by_path.get(&old) == Some(&wd)
            {
                let same = |a: &Path, b: &Path| {
                    let (Ok(a), Ok(b)) = (rustix::fs::lstat(a), rustix::fs::lstat(b)) else {
                        return false;
                    };
                    (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)
                };
                let before = self.workspace.join(OsStr::from_bytes(&old));
                if same(&before, &path) {
                    return Err(format!(
                        "`{}` and `{}` are one directory (a bind mount): a change is heard under one path only",
                        before.display(),
                        path.display()
                    ));
                }
                self.by_path.remove(&old);
            }
            self.by_path.insert(relative.clone(), wd);
            let Ok(fd) = rustix::fs::open(
                &path,
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC | OFlags::NOFOLLOW,
                Mode::empty(),
            ) else {
                continue;
            };
            let mut raw = RawDir::new(&fd, names.spare_capacity_mut());
            while let Some(Ok(entry)) = raw.next() {
                let name = entry.file_name().to_bytes();
                if name == b"." || name == b".." || name == b".git" {
                    continue;
                }
                let mut kind = entry.file_type();
                if kind == FileType::Unknown {
                    kind = rustix::fs::statx(
                        &fd,
                        entry.file_name(),
                        AtFlags::SYMLINK_NOFOLLOW,
                        StatxFlags::TYPE,
                    )
                    .map_or(FileType::Unknown, |s| {
                        FileType::from_raw_mode(u32::from(s.stx_mode))
                    });
                }
                if kind == FileType::Directory {
                    pending.push(join(&relative, name));
                }
            }
        }
        Ok(())
    }

    /// What git ignores or tracks changed: a directory left out until now that checkpoints
    /// keep from now on is watched, and heard as a new tree (what changed in it meanwhile
    /// went unheard).
    fn weigh_excluded_again(&mut self) -> Result<(), String> {
        let excluded: Vec<Vec<u8>> = self.excluded.iter().cloned().collect();
        for dir in excluded {
            self.excluded.remove(&dir);
            self.watch_tree(dir.clone())?;
            if !self.excluded.contains(&dir) && self.by_path.contains_key(&dir) {
                self.hear(dir, true);
            }
        }
        Ok(())
    }

    /// Stops watching the directory `relative` and everything below it (moved away or
    /// deleted: its watches would name the wrong paths).
    fn unwatch_tree(&mut self, relative: &[u8]) {
        let below: Vec<Vec<u8>> = self
            .by_path
            .keys()
            .filter(|path| is_at_or_below(path, relative))
            .cloned()
            .collect();
        for path in below {
            if let Some(wd) = self.by_path.remove(&path)
                && self.dirs.get(&wd) == Some(&Some(path))
            {
                self.dirs.remove(&wd);
                let _ = inotify::remove_watch(&self.inotify, wd);
            }
        }
    }

    fn hear(&mut self, path: Vec<u8>, tree: bool) {
        self.seq += 1;
        let seq = self.seq;
        let entry = self.heard.entry(path).or_insert((seq, tree));
        entry.0 = seq;
        entry.1 |= tree;
    }

    /// Reads every queued event, in batches. `Some` when the watcher must stop.
    pub(super) fn drain(&mut self) -> Option<Ended> {
        loop {
            let (events, more) = match self.read_batch() {
                Ok(batch) => batch,
                Err(ended) => return Some(ended),
            };
            for (wd, flags, name) in events {
                if let Some(ended) = self.event(wd, flags, name) {
                    return Some(ended);
                }
            }
            if self.recheck {
                self.recheck = false;
                if let Err(why) = self.weigh_excluded_again() {
                    return Some(Ended::Unavailable(why));
                }
            }
            if self.heard.len() > MAX_HEARD {
                self.heard.clear();
                self.instance = instance();
            }
            if self.by_path.is_empty() {
                return Some(Ended::Gone);
            }
            if !more {
                return None;
            }
        }
    }

    /// Reads queued events, up to a batch; `Err` when the watcher must stop, and whether
    /// more may be queued.
    #[expect(clippy::type_complexity, reason = "one batch of raw events")]
    fn read_batch(&mut self) -> Result<(Vec<(i32, ReadFlags, Option<Vec<u8>>)>, bool), Ended> {
        let mut buffer = std::mem::take(&mut self.buffer);
        let mut events = Vec::new();
        let outcome = {
            let mut reader = inotify::Reader::new(&self.inotify, &mut buffer);
            loop {
                match reader.next() {
                    Ok(event) => events.push((
                        event.wd(),
                        event.events(),
                        event.file_name().map(|n| n.to_bytes().to_vec()),
                    )),
                    Err(rustix::io::Errno::AGAIN) => break Ok(false),
                    Err(rustix::io::Errno::INTR) => continue,
                    Err(_) => break Err(Ended::Overflow),
                }
                if reader.is_buffer_empty() && events.len() > 4096 {
                    break Ok(true);
                }
            }
        };
        self.buffer = buffer;
        outcome.map(|more| (events, more))
    }

    fn event(&mut self, wd: i32, flags: ReadFlags, name: Option<Vec<u8>>) -> Option<Ended> {
        if flags.contains(ReadFlags::QUEUE_OVERFLOW) {
            return Some(Ended::Overflow);
        }
        // Not (or no longer) watched: nothing to hear.
        let dir = self.dirs.get(&wd).cloned()?;
        let Some(dir) = dir else {
            return self.rules_event(wd, flags, name.as_deref());
        };
        if flags.contains(ReadFlags::IGNORED) {
            self.dirs.remove(&wd);
            self.by_path.remove(&dir);
            if dir.is_empty() {
                return Some(Ended::Gone);
            }
            return None;
        }
        let Some(name) = name else {
            if dir.is_empty() && flags.intersects(ReadFlags::DELETE_SELF | ReadFlags::MOVE_SELF) {
                return Some(Ended::Gone);
            }
            return None;
        };
        if name == b".git" {
            if dir.is_empty() {
                // The workspace's repository appeared, went or was replaced: what git
                // ignores and tracks is read from elsewhere now.
                return Some(Ended::RepositoryChanged);
            }
            // A nested repository: its `.git` is listed as not kept, never watched.
            self.hear(join(&dir, &name), false);
            return None;
        }
        if name == b".gitignore" {
            self.recheck = true;
        }
        let path = join(&dir, &name);
        if flags.contains(ReadFlags::ISDIR) {
            if flags.intersects(ReadFlags::MOVED_FROM | ReadFlags::DELETE) {
                self.unwatch_tree(&path);
            }
            let appeared = flags.intersects(ReadFlags::CREATE | ReadFlags::MOVED_TO)
                || (flags.contains(ReadFlags::ATTRIB) && !self.by_path.contains_key(&path));
            if appeared {
                if let Err(why) = self.watch_tree(path.clone()) {
                    return Some(Ended::Unavailable(why));
                }
                self.hear(path, true);
                return None;
            }
        }
        self.hear(path, false);
        None
    }

    /// An event of a directory holding what decides git's ignores and tracking (`rules`).
    fn rules_event(&mut self, wd: i32, flags: ReadFlags, name: Option<&[u8]>) -> Option<Ended> {
        if flags.intersects(ReadFlags::IGNORED | ReadFlags::DELETE_SELF | ReadFlags::MOVE_SELF) {
            // The repository's directories went or moved: watch them anew in a new watcher.
            return Some(Ended::RepositoryChanged);
        }
        let name = name?;
        if name == b".git" {
            // A repository made or removed between the workspace and its work tree's
            // root: what git ignores is read from elsewhere now.
            return Some(Ended::RepositoryChanged);
        }
        if !RULE_NAMES.contains(&name) {
            return None;
        }
        self.seq += 1;
        self.rules_changed = self.seq;
        self.recheck = true;
        if flags.contains(ReadFlags::ISDIR)
            && flags.intersects(ReadFlags::CREATE | ReadFlags::MOVED_TO)
            && let Some(parent) = self.rule_paths.get(&wd)
        {
            // `info/` made after the watcher started: its `exclude` counts too.
            let made = parent.join(OsStr::from_bytes(name));
            self.watch_rules(&made);
        }
        None
    }

    /// Watches the rules directory `dir`, if it exists.
    fn watch_rules(&mut self, dir: &Path) {
        let flags = WatchFlags::CREATE
            | WatchFlags::DELETE
            | WatchFlags::MODIFY
            | WatchFlags::CLOSE_WRITE
            | WatchFlags::MOVED_TO
            | WatchFlags::MOVED_FROM
            | WatchFlags::DELETE_SELF
            | WatchFlags::MOVE_SELF
            | WatchFlags::ONLYDIR;
        if let Ok(wd) = inotify::add_watch(&self.inotify, dir, flags) {
            self.dirs.insert(wd, None);
            self.rule_paths.insert(wd, dir.to_path_buf());
        }
    }
}

/// A new watcher's id: its process id and start time, mixed.
pub(super) fn instance() -> [u8; 16] {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let mut out = [0u8; 16];
    let mixed = nanos ^ (u128::from(std::process::id()) << 96);
    out.copy_from_slice(&mixed.to_le_bytes());
    out
}

fn join(dir: &[u8], name: &[u8]) -> Vec<u8> {
    let mut path = Vec::with_capacity(dir.len() + name.len() + 1);
    if !dir.is_empty() {
        path.extend_from_slice(dir);
        path.push(b'/');
    }
    path.extend_from_slice(name);
    path
}

/// Whether `path` is `dir` or below it.
pub(super) fn is_at_or_below(path: &[u8], dir: &[u8]) -> bool {
    dir.is_empty()
        || path
            .strip_prefix(dir)
            .is_some_and(|rest| rest.is_empty() || rest.first() == Some(&b'/'))
}
