//! A checkpoint's side: asking the store's watcher what changed since a token.

use std::io::{Read as _, Write as _};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, SystemTime};

pub use super::request::Heard;
use super::request::{self, Reply};
use super::{OFF_FILE, SOCKET_FILE, SOCKET_PATH_MAX, STUCK_FILE, Token};
use agent_guard_fsops::state::Access;

/// How long a checkpoint waits for a watcher's answer before it walks without one.
const ANSWER_TIMEOUT: Duration = Duration::from_millis(500);

/// How long a watcher that gave up keeps checkpoints from starting another.
const OFF_FOR: Duration = Duration::from_hours(1);

/// How long checkpoints walk without asking after a watcher did not answer.
const STUCK_FOR: Duration = Duration::from_mins(1);

/// What asking the store's watcher gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Asked {
    /// No watcher listens: the caller may start one ([`super::serve`]).
    Absent,
    /// A watcher cannot be used now (a recent one gave up, the socket's path is too long,
    /// or the watcher did not answer in time).
    Unavailable,
    /// Walk everything; the checkpoint's token is this.
    Full(Token),
    /// Only what was heard changed since the token asked with; the checkpoint's token is
    /// this.
    Heard(Token, Heard),
}

/// Asks the watcher whose directory is `store` ([`super::dir_of`]) what changed since
/// `since`, for a checkpoint whose [`super::filter_digest`] is `filter` (a watcher started
/// for another one answers [`Asked::Full`] and exits).
pub fn ask(store: &Path, since: Option<&Token>, filter: u64) -> Asked {
    let socket = store.join(SOCKET_FILE);
    if socket.as_os_str().len() > SOCKET_PATH_MAX {
        return Asked::Unavailable;
    }
    if recently(&store.join(STUCK_FILE), STUCK_FOR) {
        return Asked::Unavailable;
    }
    let mut stream = match connect(&socket) {
        Ok(stream) => stream,
        // A watcher that listens but does not take connections (stopped, or its queue
        // full): as one that does not answer.
        Err(rustix::io::Errno::AGAIN) => return stuck(store),
        Err(_) if recently(&store.join(OFF_FILE), OFF_FOR) => return Asked::Unavailable,
        Err(_) => return Asked::Absent,
    };
    // A socket bound by another program (one that answers "nothing changed") is not a
    // watcher: the checkpoint walks everything.
    if !trusted(&stream, store) {
        return Asked::Unavailable;
    }
    let _ = stream.set_read_timeout(Some(ANSWER_TIMEOUT));
    let _ = stream.set_write_timeout(Some(ANSWER_TIMEOUT));
    if stream
        .write_all(&request::encode_request(since, filter))
        .is_err()
    {
        return stuck(store);
    }
    let mut reply = Vec::with_capacity(256);
    if stream.read_to_end(&mut reply).is_err() {
        return stuck(store);
    }
    match request::decode_reply(&reply) {
        // Heard since nothing is no answer: without a token, everything is walked.
        Some(Reply::Some(token, heard)) if since.is_some() => Asked::Heard(token, heard),
        Some(Reply::Full(token) | Reply::Some(token, _)) => Asked::Full(token),
        None => Asked::Unavailable,
    }
}

/// Connects to the socket at `path` without ever waiting: a full listen queue is
/// [`rustix::io::Errno::AGAIN`], not a wait.
fn connect(path: &Path) -> rustix::io::Result<UnixStream> {
    use rustix::net::{AddressFamily, SocketAddrUnix, SocketFlags, SocketType};
    let fd = rustix::net::socket_with(
        AddressFamily::UNIX,
        SocketType::STREAM,
        SocketFlags::NONBLOCK | SocketFlags::CLOEXEC,
        None,
    )?;
    rustix::net::connect(&fd, &SocketAddrUnix::new(path)?)?;
    let stream = UnixStream::from(fd);
    stream
        .set_nonblocking(false)
        .map_err(|e| rustix::io::Errno::from_io_error(&e).unwrap_or(rustix::io::Errno::IO))?;
    Ok(stream)
}

/// Whether the process at the other end of `stream` is the watcher of `store`: run by the
/// same user, the process that holds the watcher's lock (the pid it wrote there, when it
/// wrote one), and from the same program as this one or the `agent-guard` beside it (the
/// binary that runs watchers), judged by the file `/proc/<pid>/exe` names, not by its path.
/// A process that bound the socket first, or any other program, is not trusted.
pub(super) fn trusted(stream: &UnixStream, store: &Path) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    let Ok(peer) = rustix::net::sockopt::socket_peercred(stream) else {
        return false;
    };
    if peer.uid != rustix::process::geteuid() {
        return false;
    }
    if lock_holder(store).is_some_and(|pid| pid != peer.pid.as_raw_nonzero().get()) {
        return false;
    }
    if peer.pid == rustix::process::getpid() {
        return true;
    }
    let Ok(running) = std::fs::metadata(format!("/proc/{}/exe", peer.pid.as_raw_nonzero())) else {
        return false;
    };
    let Ok(exe) = std::env::current_exe() else {
        return false;
    };
    let sibling = exe.parent().map(|dir| dir.join("agent-guard"));
    [Some(exe), sibling]
        .into_iter()
        .flatten()
        .filter_map(|path| std::fs::metadata(path).ok())
        .any(|binary| binary.dev() == running.dev() && binary.ino() == running.ino())
}

/// The pid the watcher holding `store`'s lock wrote there; `None` when there is none (a
/// watcher of an older release writes none).
fn lock_holder(store: &Path) -> Option<i32> {
    let mut text = String::new();
    agent_guard_fsops::state::open_file(&store.join(super::LOCK_FILE), Access::Read)
        .ok()?
        .read_to_string(&mut text)
        .ok()?;
    text.trim().parse().ok()
}

/// A watcher did not answer: checkpoints walk without asking it for a while
/// ([`STUCK_FILE`]), so a stopped watcher costs one wait, not one per checkpoint.
fn stuck(store: &Path) -> Asked {
    let _ = agent_guard_fsops::state::open_file(&store.join(STUCK_FILE), Access::Truncate)
        .and_then(|mut file| file.write_all(b"the watcher did not answer in time\n"));
    Asked::Unavailable
}

/// Whether the file at `path` was written within `period`.
fn recently(path: &Path, period: Duration) -> bool {
    fs_err::metadata(path)
        .and_then(|m| m.modified())
        .is_ok_and(|at| {
            SystemTime::now()
                .duration_since(at)
                .map_or(true, |age| age < period)
        })
}

/// What a person is told of a store's watcher (`status`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Probe {
    /// A watcher takes connections.
    Running,
    /// None listens: the next checkpoint starts one.
    NotRunning,
    /// A watcher gave up within the last hour, for this reason: checkpoints walk.
    Off(String),
    /// Another program listens at the watcher's socket: checkpoints do not trust its
    /// answers and walk.
    Impostor,
}

/// Looks at the watcher whose directory is `store` ([`super::dir_of`]) without asking it
/// anything.
pub fn probe(store: &Path) -> Probe {
    let off = store.join(OFF_FILE);
    if recently(&off, OFF_FOR) {
        let why = fs_err::read_to_string(&off).unwrap_or_default();
        return Probe::Off(why.trim().to_owned());
    }
    match connect(&store.join(SOCKET_FILE)) {
        Ok(stream) if trusted(&stream, store) => Probe::Running,
        Ok(_) => Probe::Impostor,
        Err(_) => Probe::NotRunning,
    }
}
