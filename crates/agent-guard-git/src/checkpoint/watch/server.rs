//! The watcher process: inotify watches on every directory of the workspace, a numbered
//! record of the paths its events name, and a Unix socket answering checkpoints.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::io::{Read as _, Write as _};
use std::mem::MaybeUninit;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec};
use rustix::fs::inotify::{self, CreateFlags, ReadFlags, WatchFlags};
use rustix::fs::{AtFlags, FileType, Mode, OFlags, RawDir, StatxFlags};

use super::request::{self, Heard, Reply};
use super::{LOCK_FILE, OFF_FILE, SOCKET_FILE, SOCKET_PATH_MAX, Token, filter_digest};
use crate::checkpoint::Selection;
use crate::checkpoint::walk::Filter;
use crate::error::GitError;

/// Why a watcher stopped. Every ending is safe: the next checkpoint walks the workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Ended {
    /// Another watcher holds the lock.
    AlreadyRunning,
    /// No checkpoint asked for the idle time.
    Idle,
    /// The workspace root, or the watcher's socket, is gone or was replaced.
    Gone,
    /// The kernel's event queue overflowed: events were lost.
    Overflow,
    /// A checkpoint leaves out other things than the watcher was started for.
    Outdated,
    /// The workspace's repository appeared, went or moved: what git ignores and tracks is
    /// read from other directories than the ones watched.
    RepositoryChanged,
    /// The watcher cannot run here (the reason is also written to [`OFF_FILE`]).
    Unavailable(String),
}

/// What a watcher watches.
#[derive(Debug, Clone)]
pub struct Watched {
    /// The workspace as checkpoints keep it: its root, the directories never entered (the
    /// quarantine) and the artifact patterns; a directory the checkpoint leaves out
    /// (an ignored `node_modules/` holding nothing tracked) is not watched, and is weighed
    /// again whenever what git ignores or tracks changes. Its `max_file_bytes` is unused.
    pub selection: Selection,
    /// Directories whose changes to the names in [`RULE_NAMES`] change what a checkpoint
    /// leaves out (the user's git directory, its `info`, and the directories between the
    /// workspace and its repository's work tree): after any such change the next answer
    /// names the workspace root, so the checkpoint lists everything again.
    pub rules: Vec<PathBuf>,
    /// How long without a request before the watcher exits.
    pub idle: Duration,
}

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

/// Watches `watched.workspace` and answers checkpoints on the socket in `dir` (the
/// watcher's directory beside the store, [`super::WATCH_DIR`]) until the workspace or the
/// socket goes, or no checkpoint asked for `watched.idle`.
///
/// # Errors
/// The watcher's directory, lock or socket cannot be created.
pub fn serve(dir: &Path, watched: &Watched) -> Result<Ended, GitError> {
    let io = |action: &'static str, path: &Path| {
        let path = path.to_path_buf();
        move |source: std::io::Error| GitError::GitWorktree {
            action,
            path,
            source,
        }
    };
    fs_err::create_dir_all(dir).map_err(io("create", dir))?;
    let store = dir;
    let lock_path = store.join(LOCK_FILE);
    let lock = fs_err::File::create(&lock_path).map_err(io("create", &lock_path))?;
    if lock.file().try_lock().is_err() {
        return Ok(Ended::AlreadyRunning);
    }
    let socket_path = store.join(SOCKET_FILE);
    if socket_path.as_os_str().len() > SOCKET_PATH_MAX {
        return Ok(give_up(
            store,
            "the socket's path is too long for a Unix socket",
        ));
    }
    if let Some(why) = unsupported_file_system(&watched.selection.workspace) {
        return Ok(give_up(store, &why));
    }
    let mut state = match State::start(watched) {
        Ok(state) => state,
        Err(why) => return Ok(give_up(store, &why)),
    };
    match agent_guard_fsops::remove_file(&socket_path) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
            return Err(io("remove a stale socket", &socket_path)(error));
        }
        _ => {}
    }
    let listener = UnixListener::bind(&socket_path).map_err(io("listen on", &socket_path))?;
    listener
        .set_nonblocking(true)
        .map_err(io("listen on", &socket_path))?;
    let socket_id = identity(&socket_path);
    let mut last_request = Instant::now();
    loop {
        let ready = {
            let mut fds = [
                PollFd::new(&state.inotify, PollFlags::IN),
                PollFd::new(&listener, PollFlags::IN),
            ];
            let timeout = Timespec {
                tv_sec: 5,
                tv_nsec: 0,
            };
            let _ = rustix::event::poll(&mut fds, Some(&timeout));
            fds[1].revents().contains(PollFlags::IN)
        };
        if let Some(ended) = state.drain() {
            return Ok(ended);
        }
        if ready {
            while let Ok((stream, _)) = listener.accept() {
                last_request = Instant::now();
                if let Some(ended) = state.answer(stream) {
                    return Ok(ended);
                }
            }
        }
        if identity(&socket_path) != socket_id || identity(&watched.selection.workspace).is_none() {
            return Ok(Ended::Gone);
        }
        if last_request.elapsed() > watched.idle {
            return Ok(Ended::Idle);
        }
    }
}

/// The device and inode of `path`, if it exists.
fn identity(path: &Path) -> Option<(u64, u64)> {
    let stat = rustix::fs::lstat(path).ok()?;
    Some((stat.st_dev, stat.st_ino))
}

/// Writes why the watcher cannot run, so that checkpoints stop starting one for a while.
fn give_up(store: &Path, why: &str) -> Ended {
    let _ = fs_err::write(store.join(OFF_FILE), format!("{why}\n"));
    Ended::Unavailable(why.to_owned())
}

/// File systems whose changes inotify may not hear (changes made elsewhere).
fn unsupported_file_system(workspace: &Path) -> Option<String> {
    const NFS: i64 = 0x6969;
    const SMB: i64 = 0x517b;
    const CIFS: i64 = 0xff53_4d42;
    const SMB2: i64 = 0xfe53_4d42;
    const FUSE: i64 = 0x6573_5546;
    const CEPH: i64 = 0x00c3_6400;
    const NINEP: i64 = 0x0102_1997;
    const AFS: i64 = 0x5346_414f;
    let stat = rustix::fs::statfs(workspace).ok()?;
    #[expect(
        clippy::useless_conversion,
        reason = "f_type's width differs by target"
    )]
    let kind = i64::from(stat.f_type);
    [NFS, SMB, CIFS, SMB2, FUSE, CEPH, NINEP, AFS]
        .contains(&kind)
        .then(|| format!("the workspace is on a network or FUSE file system (type {kind:#x})"))
}

/// The watches and what they heard.
struct State {
    inotify: OwnedFd,
    workspace: PathBuf,
    selection: Selection,
    /// The digest of what decides what checkpoints leave out ([`filter_digest`]): a
    /// checkpoint that leaves out something else is answered with a full walk.
    filter: u64,
    /// Directories left out, so not watched.
    excluded: std::collections::HashSet<Vec<u8>>,
    /// What git ignores or tracks changed: weigh the excluded directories again.
    recheck: bool,
    /// Watch descriptor → workspace-relative directory (`None`: a rules directory).
    dirs: HashMap<i32, Option<Vec<u8>>>,
    /// Watch descriptor → a rules directory's path.
    rule_paths: HashMap<i32, PathBuf>,
    /// Workspace-relative directory → its watch.
    by_path: HashMap<Vec<u8>, i32>,
    /// Path → (number of its last event, whether it is a new directory tree).
    heard: HashMap<Vec<u8>, (u64, bool)>,
    seq: u64,
    /// The number of the last change to the rules.
    rules_changed: u64,
    instance: [u8; 16],
    buffer: Vec<MaybeUninit<u8>>,
}

impl State {
    fn start(watched: &Watched) -> Result<State, String> {
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
            // same descriptor, which now names the new path (and the old one nothing).
            if let Some(Some(old)) = self.dirs.insert(wd, Some(relative.clone()))
                && old != relative
                && self.by_path.get(&old) == Some(&wd)
            {
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
    fn drain(&mut self) -> Option<Ended> {
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

    /// Answers one checkpoint: reads its request, reads every event queued by then, and
    /// writes what was heard since its token.
    fn answer(&mut self, mut stream: UnixStream) -> Option<Ended> {
        let _ = stream.set_nonblocking(false);
        let _ = stream.set_read_timeout(Some(Duration::from_secs(1)));
        let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
        let mut line = Vec::with_capacity(64);
        let mut byte = [0u8; 1];
        while line.len() < 128 && !line.ends_with(b"\n") {
            match stream.read(&mut byte) {
                Ok(1) => line.push(byte[0]),
                _ => return None,
            }
        }
        // A malformed request gets no answer (the watcher goes on).
        let asked = request::decode_request(&line)?;
        // The request came after every change it must see: those events are queued now.
        if let Some(ended) = self.drain() {
            return Some(ended);
        }
        let now = Token {
            instance: self.instance,
            seq: self.seq,
        };
        let (asked, filter) = asked;
        if filter != self.filter {
            // The checkpoints leave out something else now: this watcher's view is not
            // theirs. Walk everything, and let the next checkpoint start a new watcher.
            let _ = stream.write_all(&request::encode_reply(&Reply::Full(Token {
                instance: self.instance,
                seq: self.seq,
            })));
            return Some(Ended::Outdated);
        }
        let reply = match asked {
            Some(since) if since.instance == self.instance => {
                let mut heard = Heard::default();
                if self.rules_changed > since.seq {
                    // What git ignores or tracks may have changed: list everything again
                    // (the empty path), even if no file changed.
                    heard.paths.push(Vec::new());
                }
                for (path, (seq, tree)) in &self.heard {
                    if *seq > since.seq {
                        if *tree {
                            heard.trees.push(path.clone());
                        } else {
                            heard.paths.push(path.clone());
                        }
                    }
                }
                Reply::Some(now, heard)
            }
            _ => Reply::Full(now),
        };
        let _ = stream.write_all(&request::encode_reply(&reply));
        None
    }
}

/// A new watcher's id: its process id and start time, mixed.
fn instance() -> [u8; 16] {
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
