//! Helpers for the git compensation tests: real repositories in temporary directories, and
//! the `git` CLI as the oracle.

#![allow(dead_code, reason = "each test file uses a different subset")]

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt as _, OsStringExt as _};
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use agent_guard_recovery::{
    COMPENSATIONS, GitSnapshot, KeptRef, OtherItems as _, OtherOutcome, Quarantine, RecoveryError,
    RefSubject, Registered, Transaction, ensure_layout,
};
use agent_guard_types::TxId;

/// A `git` command with a hermetic configuration.
pub(crate) fn git_command(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new("git");
    command
        .args(["-c", "commit.gpgsign=false", "-c", "core.quotepath=true"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.invalid")
        .env("LC_ALL", "C")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE");
    command
}

/// Runs git and returns its output, whatever the exit status.
pub(crate) fn git_output(dir: &Path, args: &[&str]) -> Output {
    git_command(dir, args).output().expect("git runs")
}

/// Runs git, asserts success and returns stdout as bytes.
pub(crate) fn git_bytes(dir: &Path, args: &[&str]) -> Vec<u8> {
    let output = git_output(dir, args);
    assert!(
        output.status.success(),
        "git {args:?} in {} failed: {}",
        dir.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

/// Runs git, asserts success and returns stdout.
pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    String::from_utf8(git_bytes(dir, args)).expect("git prints UTF-8 here")
}

/// A workspace that is a git repository, with its quarantine laid out.
pub(crate) struct Fixture {
    pub(crate) _dir: tempfile::TempDir,
    pub(crate) ws: PathBuf,
    pub(crate) trash: PathBuf,
}

impl Fixture {
    /// An empty repository (no commit), quarantine laid out.
    pub(crate) fn empty() -> Fixture {
        let dir = tempfile::tempdir().expect("temporary directory");
        let ws = fs_err::canonicalize(dir.path())
            .expect("canonical tempdir")
            .join("ws");
        fs_err::create_dir(&ws).expect("workspace");
        git(&ws, &["init", "-q", "-b", "main"]);
        let trash = ws.join(".agent-trash");
        ensure_layout(&ws, &trash).expect("layout");
        Fixture {
            _dir: dir,
            ws,
            trash,
        }
    }

    /// A repository with one commit of `files` (path → content).
    pub(crate) fn with_commit(files: &[(&str, &str)]) -> Fixture {
        let fixture = Fixture::empty();
        for (path, content) in files {
            fixture.write(path, content);
        }
        git(&fixture.ws, &["add", "-A"]);
        git(&fixture.ws, &["commit", "-q", "-m", "initial"]);
        fixture
    }

    pub(crate) fn quarantine(&self) -> Quarantine {
        Quarantine::new(&self.ws, &self.trash)
    }

    pub(crate) fn path(&self, relative: &str) -> PathBuf {
        self.ws.join(relative)
    }

    pub(crate) fn write(&self, relative: &str, content: &str) {
        let path = self.path(relative);
        fs_err::create_dir_all(path.parent().expect("a parent")).expect("parent directory");
        fs_err::write(&path, content).expect("write");
    }

    pub(crate) fn read(&self, relative: &str) -> String {
        fs_err::read_to_string(self.path(relative)).expect("read")
    }

    pub(crate) fn git(&self, args: &[&str]) -> String {
        git(&self.ws, args)
    }

    /// The transaction `txid` as the manifest tells it.
    pub(crate) fn transaction(&self, txid: &TxId) -> Transaction {
        self.quarantine()
            .transaction(txid)
            .expect("manifest readable")
            .expect("transaction recorded")
    }
}

/// The recovery layer's git operations, called on a quarantine as the engine does.
pub(crate) trait GitOps {
    fn snapshot_worktree(
        &self,
        cwd: &Path,
        txid: &TxId,
        meta: agent_guard_recovery::TxMeta,
    ) -> Result<GitSnapshot, RecoveryError>;
    fn preserve_refs(
        &self,
        cwd: &Path,
        txid: &TxId,
        subject: &RefSubject,
        meta: agent_guard_recovery::TxMeta,
    ) -> Result<Vec<KeptRef>, RecoveryError>;
    /// What every compensation's restore puts back of `tx` apart from its files.
    fn restore_git_items(&self, tx: &Transaction) -> OtherOutcome;
    /// What every compensation releases of a purged `tx`.
    fn drop_git_refs(&self, tx: &Transaction) -> Result<usize, RecoveryError>;
    fn enumerate_clean(
        &self,
        cwd: &Path,
        flags: &[String],
        pathspecs: &[String],
    ) -> Result<Vec<PathBuf>, RecoveryError>;
}

impl GitOps for Quarantine {
    fn snapshot_worktree(
        &self,
        cwd: &Path,
        txid: &TxId,
        meta: agent_guard_recovery::TxMeta,
    ) -> Result<GitSnapshot, RecoveryError> {
        agent_guard_recovery::snapshot_worktree(self, cwd, txid, meta)
    }

    fn preserve_refs(
        &self,
        cwd: &Path,
        txid: &TxId,
        subject: &RefSubject,
        meta: agent_guard_recovery::TxMeta,
    ) -> Result<Vec<KeptRef>, RecoveryError> {
        agent_guard_recovery::preserve_refs(self, cwd, txid, std::slice::from_ref(subject), &meta)
    }

    fn restore_git_items(&self, tx: &Transaction) -> OtherOutcome {
        let mut ids = (0xf0..).map(txid);
        let mut next = || ids.next().expect("ids are plenty");
        let mut request = agent_guard_recovery::OtherRequest {
            force: false,
            new_txid: &mut next,
            paths: &[],
        };
        Registered.restore(self, tx, &mut request)
    }

    fn drop_git_refs(&self, tx: &Transaction) -> Result<usize, RecoveryError> {
        Ok(COMPENSATIONS.iter().map(|c| c.release(self, tx)).sum())
    }

    fn enumerate_clean(
        &self,
        cwd: &Path,
        flags: &[String],
        pathspecs: &[String],
    ) -> Result<Vec<PathBuf>, RecoveryError> {
        agent_guard_recovery::enumerate_clean(self, cwd, flags, pathspecs)
    }
}

/// A transaction id for tests.
pub(crate) fn txid(n: u32) -> TxId {
    TxId::generated("20260101-000000", n).expect("valid id")
}

pub(crate) fn meta() -> agent_guard_recovery::TxMeta {
    agent_guard_recovery::TxMeta::of(agent_guard_recovery::Origin::tool("test"))
}

/// Removes a file or symlink, setting up a scenario.
#[expect(
    clippy::disallowed_methods,
    reason = "tests set up deleted files directly"
)]
pub(crate) fn remove(path: &Path) {
    fs_err::remove_file(path).expect("remove a file");
}

pub(crate) fn chmod(path: &Path, mode: u32) {
    fs_err::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

/// One work-tree entry, as compared by the round-trip tests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Node {
    File { content: Vec<u8>, executable: bool },
    Link(PathBuf),
}

/// Every file and symlink in the work tree except under `.git` and the quarantine
/// (directories are implied, as in git: an empty one does not count).
pub(crate) fn worktree_state(ws: &Path) -> BTreeMap<PathBuf, Node> {
    let mut out = BTreeMap::new();
    collect(ws, ws, &mut out);
    out
}

fn collect(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Node>) {
    for entry in fs_err::read_dir(dir).expect("readable directory") {
        let entry = entry.expect("directory entry");
        let path = entry.path();
        let relative = path.strip_prefix(root).expect("inside").to_path_buf();
        if dir == root && (entry.file_name() == ".git" || entry.file_name() == ".agent-trash") {
            continue;
        }
        let metadata = fs_err::symlink_metadata(&path).expect("lstat");
        if metadata.file_type().is_symlink() {
            out.insert(
                relative,
                Node::Link(fs_err::read_link(&path).expect("readlink")),
            );
        } else if metadata.is_dir() {
            collect(root, &path, out);
        } else {
            let executable = metadata.permissions().mode() & 0o100 != 0;
            out.insert(
                relative,
                Node::File {
                    content: fs_err::read(&path).expect("read"),
                    executable,
                },
            );
        }
    }
}

/// Decodes a path as git prints it with `core.quotePath` (C-quoted when needed).
pub(crate) fn unquote(text: &[u8]) -> Vec<u8> {
    let Some(inner) = text.strip_prefix(b"\"").and_then(|t| t.strip_suffix(b"\"")) else {
        return text.to_vec();
    };
    let mut out = Vec::new();
    let mut bytes = inner.iter().copied().peekable();
    while let Some(byte) = bytes.next() {
        if byte != b'\\' {
            out.push(byte);
            continue;
        }
        let escaped = bytes.next().expect("an escape is complete");
        match escaped {
            b'a' => out.push(7),
            b'b' => out.push(8),
            b't' => out.push(b'\t'),
            b'n' => out.push(b'\n'),
            b'v' => out.push(11),
            b'f' => out.push(12),
            b'r' => out.push(b'\r'),
            b'"' => out.push(b'"'),
            b'\\' => out.push(b'\\'),
            b'0'..=b'7' => {
                let mut value = u32::from(escaped - b'0');
                for _ in 0..2 {
                    match bytes.peek() {
                        Some(digit @ b'0'..=b'7') => {
                            value = value * 8 + u32::from(digit - b'0');
                            bytes.next();
                        }
                        _ => break,
                    }
                }
                out.push(u8::try_from(value).expect("an octal escape is one byte"));
            }
            other => panic!("unknown escape \\{}", char::from(other)),
        }
    }
    out
}

/// What `git clean -n <flags> [-- <pathspecs>]` run in `cwd` would remove, as absolute paths
/// without trailing slashes; `None` if git refuses. Any line other than "Would remove",
/// "Would skip repository" or "Would refuse to remove current working directory" fails the
/// test. Git's per-user files are not read (its `XDG_CONFIG_HOME` points nowhere).
pub(crate) fn clean_oracle(
    cwd: &Path,
    flags: &[&str],
    pathspecs: &[&str],
) -> Option<BTreeSet<PathBuf>> {
    clean_oracle_with(
        cwd,
        flags,
        pathspecs,
        Path::new("/nonexistent/agent-guard-test"),
    )
}

/// [`clean_oracle`] with git's `XDG_CONFIG_HOME` set to `xdg_config_home`.
pub(crate) fn clean_oracle_with(
    cwd: &Path,
    flags: &[&str],
    pathspecs: &[&str],
    xdg_config_home: &Path,
) -> Option<BTreeSet<PathBuf>> {
    let mut args = vec!["clean", "-n"];
    args.extend_from_slice(flags);
    if !pathspecs.is_empty() {
        args.push("--");
        args.extend_from_slice(pathspecs);
    }
    let output = git_command(cwd, &args)
        .env("XDG_CONFIG_HOME", xdg_config_home)
        .output()
        .expect("git runs");
    if !output.status.success() {
        return None;
    }
    let stdout = output.stdout;
    let mut out = BTreeSet::new();
    for line in stdout.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        if let Some(path) = line.strip_prefix(b"Would remove ") {
            let mut path = unquote(path);
            while path.last() == Some(&b'/') {
                path.pop();
            }
            out.insert(normalize(&cwd.join(OsStr::from_bytes(&path))));
        } else if !line.starts_with(b"Would skip repository ")
            && !line.starts_with(b"Would refuse to remove")
        {
            panic!(
                "unexpected git clean output: {}",
                String::from_utf8_lossy(line)
            );
        }
    }
    Some(out)
}

/// Resolves `.` and `..` textually (git prints `../x` from subdirectories).
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// A path from raw bytes.
pub(crate) fn bytes_path(bytes: &[u8]) -> PathBuf {
    PathBuf::from(OsString::from_vec(bytes.to_vec()))
}

/// A small deterministic generator (xorshift64*), so failures reproduce from the seed.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub(crate) fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n as u64).expect("small")
    }

    pub(crate) fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}
