//! The watcher process: inotify watches on every directory of the workspace, a numbered
//! record of the paths its events name, and a Unix socket answering checkpoints.

use std::io::{Read as _, Write as _};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec};

use super::request::{self, Heard, Reply};
use super::watches::State;
use super::{LOCK_FILE, OFF_FILE, SOCKET_FILE, SOCKET_PATH_MAX, Token};
use crate::Selection;
use agent_guard_fsops::state::Access;
use agent_guard_git::GitError;

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
    /// Directories whose changes to the names in [`super::RULE_NAMES`] change what a checkpoint
    /// leaves out (the user's git directory, its `info`, and the directories between the
    /// workspace and its repository's work tree): after any such change the next answer
    /// names the workspace root, so the checkpoint lists everything again.
    pub rules: Vec<PathBuf>,
    /// How long without a request before the watcher exits.
    pub idle: Duration,
}

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
    // Nothing planted in the directory redirects the watcher (issue 35, point 4): the
    // directory is a real one of the user's, the lock opened without following a link.
    agent_guard_fsops::state::check_dir(dir).map_err(io("use", dir))?;
    fs_err::create_dir_all(dir).map_err(io("create", dir))?;
    agent_guard_fsops::state::check_dir(dir).map_err(io("use", dir))?;
    let store = dir;
    let lock_path = store.join(LOCK_FILE);
    let lock = agent_guard_fsops::state::open_file(&lock_path, Access::Update)
        .map_err(io("create", &lock_path))?;
    if lock.try_lock().is_err() {
        return Ok(Ended::AlreadyRunning);
    }
    // The lock holder's pid: a checkpoint trusts an answer only from this process.
    record_pid(&lock).map_err(io("write", &lock_path))?;
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
            return Ok(noted(store, ended));
        }
        if ready {
            while let Ok((stream, _)) = listener.accept() {
                last_request = Instant::now();
                if let Some(ended) = state.answer(stream) {
                    return Ok(noted(store, ended));
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

/// An ending, with its reason written down when the watcher cannot run here.
fn noted(store: &Path, ended: Ended) -> Ended {
    match ended {
        Ended::Unavailable(why) => give_up(store, &why),
        other => other,
    }
}

/// Writes why the watcher cannot run, so that checkpoints stop starting one for a while.
fn give_up(store: &Path, why: &str) -> Ended {
    let _ = agent_guard_fsops::state::open_file(&store.join(OFF_FILE), Access::Truncate)
        .and_then(|mut file| file.write_all(format!("{why}\n").as_bytes()));
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

impl State {
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

/// Writes this process's id into the watcher's lock file (held by it), which checkpoints
/// compare with the pid the kernel gives for the socket's peer.
fn record_pid(mut lock: &std::fs::File) -> std::io::Result<()> {
    use std::io::{Seek as _, Write as _};
    lock.set_len(0)?;
    lock.seek(std::io::SeekFrom::Start(0))?;
    writeln!(lock, "{}", std::process::id())?;
    lock.sync_data()
}
