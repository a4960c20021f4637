//! A hermetic environment for running the real binaries.

use std::path::{Path, PathBuf};

use agent_guard_testutil::{Fixture, FixtureSpec};
use assert_cmd::Command;

/// A temporary workspace plus a fake home, and commands that run in them hermetically.
pub struct TestEnv {
    pub fixture: Fixture,
}

impl TestEnv {
    /// A git workspace with `build/`, `notes.txt`, an ignored `node_modules/` and a commit.
    pub fn new() -> TestEnv {
        let mut spec = FixtureSpec {
            git: true,
            ..FixtureSpec::default()
        };
        for (path, content) in [
            (".gitignore", "node_modules/\n"),
            ("src/main.rs", "fn main() {}\n"),
            ("build/out/app.o", "object\n"),
            ("build/report.txt", "report\n"),
            ("dist/bundle.js", "bundle\n"),
            ("notes.txt", "notes\n"),
            ("node_modules/pkg/index.js", "module\n"),
        ] {
            spec.files.insert(path.into(), content.into());
        }
        spec.commit.push("src/main.rs".into());
        TestEnv {
            fixture: Fixture::build(&spec).expect("fixture builds"),
        }
    }

    pub fn ws(&self) -> &Path {
        &self.fixture.ws
    }

    pub fn trash(&self) -> PathBuf {
        self.fixture.ws.join(".agent-trash")
    }

    /// A command for binary `bin` with a clean environment.
    pub fn cmd(&self, bin: &str) -> Command {
        let mut cmd = match bin {
            "check" => Command::new(assert_cmd::cargo::cargo_bin!("check")),
            _ => Command::new(assert_cmd::cargo::cargo_bin!("agent-guard")),
        };
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.fixture.home)
            .env("TMPDIR", std::env::temp_dir())
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("AGENT_GUARD_SESSION", "it")
            .current_dir(&self.fixture.ws);
        cmd
    }

    /// Runs `check --json -- <command>` and returns the parsed report.
    pub fn check_json(&self, command: &str) -> serde_json::Value {
        let output = self
            .cmd("agent-guard")
            .args(["check", "--json", "--", command])
            .output()
            .expect("runs");
        assert!(
            output.status.success(),
            "advisory check exits 0: {output:?}"
        );
        serde_json::from_slice(&output.stdout).expect("one JSON object on stdout")
    }
}

/// Lists every path under `root` (relative), sorted.
pub fn tree(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            out.push(
                path.strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
            );
            if path.is_dir() && !path.is_symlink() {
                stack.push(path);
            }
        }
    }
    out.sort();
    out
}
