//! Fixtures: physical temp directories, a hermetic `git` CLI and world builders.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Command;

use agent_guard_types::{PathSpec, Target, World};
use agent_guard_world::RealWorld;

/// A temp directory whose path is physical (tempdirs may sit under a symlinked `/tmp`).
pub(crate) struct Scratch {
    _dir: tempfile::TempDir,
    pub(crate) root: PathBuf,
}

impl Scratch {
    pub(crate) fn new() -> Scratch {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        Scratch { _dir: dir, root }
    }

    pub(crate) fn path(&self, relative: &str) -> PathBuf {
        self.root.join(relative)
    }

    pub(crate) fn dir(&self, relative: &str) -> PathBuf {
        let path = self.path(relative);
        fs::create_dir_all(&path).unwrap();
        path
    }

    pub(crate) fn file(&self, relative: &str, content: &str) -> PathBuf {
        let path = self.path(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, content).unwrap();
        path
    }

    pub(crate) fn link(&self, relative: &str, target: impl AsRef<Path>) -> PathBuf {
        let path = self.path(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        symlink(target, &path).unwrap();
        path
    }
}

/// Runs the real `git` CLI hermetically in `dir` and returns its trimmed stdout.
pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    let output = git_command(dir, args).output().unwrap();
    assert!(
        output.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap().trim().to_owned()
}

/// Runs `git` and returns whether it exited 0.
pub(crate) fn git_ok(dir: &Path, args: &[&str]) -> bool {
    git_command(dir, args).output().unwrap().status.success()
}

fn git_command(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new("git");
    command
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.invalid")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .args([
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args);
    command
}

/// Initialises a repository at `dir`.
pub(crate) fn git_init(dir: &Path) {
    fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q"]);
}

/// Stages everything and commits; returns the new commit id.
pub(crate) fn commit_all(dir: &Path, message: &str) -> String {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "--allow-empty", "-m", message]);
    git(dir, &["rev-parse", "HEAD"])
}

/// A world over `workspace` with the quarantine at `<workspace>/.agent-trash`.
pub(crate) fn world(workspace: &Path, home: Option<&Path>) -> RealWorld {
    RealWorld::new(
        workspace.to_path_buf(),
        workspace.join(".agent-trash"),
        home.map(Path::to_path_buf),
    )
}

/// The facts for a literal target against `base`.
pub(crate) fn facts(world: &RealWorld, text: &str, base: &Path) -> PathSpec {
    world.path(&Target::literal(text), base)
}
