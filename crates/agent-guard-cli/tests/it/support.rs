//! A hermetic environment for running the real binaries.

use std::path::{Path, PathBuf};
use std::process::Output;

use agent_guard_testutil::{Fixture, FixtureSpec};
use assert_cmd::Command;

/// A temporary workspace plus a fake home, and commands that run in them hermetically.
pub struct TestEnv {
    pub fixture: Fixture,
}

impl TestEnv {
    /// A git workspace with `build/`, `notes.txt`, an ignored `node_modules/` and a commit.
    pub fn new() -> TestEnv {
        let spec = FixtureSpec::git_with(
            &[
                (".gitignore", "node_modules/\n"),
                ("src/main.rs", "fn main() {}\n"),
                ("build/out/app.o", "object\n"),
                ("build/report.txt", "report\n"),
                ("dist/bundle.js", "bundle\n"),
                ("notes.txt", "notes\n"),
                ("node_modules/pkg/index.js", "module\n"),
            ],
            &["src/main.rs"],
        );
        TestEnv {
            fixture: Fixture::build(&spec).expect("fixture builds"),
        }
    }

    pub fn ws(&self) -> &Path {
        &self.fixture.ws
    }

    /// The workspace's store: by default per user, outside the workspace (issue 34).
    pub fn trash(&self) -> PathBuf {
        let ws = std::fs::canonicalize(&self.fixture.ws).unwrap();
        self.fixture
            .home
            .join(".local/share/agent-guard")
            .join(agent_guard_engine::workspace_id(&ws))
    }

    /// A command for binary `bin` with a clean environment.
    pub fn cmd(&self, bin: &str) -> Command {
        let path = match bin {
            "check" => assert_cmd::cargo::cargo_bin!("check"),
            "safe_delete" => assert_cmd::cargo::cargo_bin!("safe_delete"),
            "restore" => assert_cmd::cargo::cargo_bin!("restore"),
            "status" => assert_cmd::cargo::cargo_bin!("status"),
            "gc" => assert_cmd::cargo::cargo_bin!("gc"),
            "agent-guard" => assert_cmd::cargo::cargo_bin!("agent-guard"),
            other => panic!("unknown binary {other}"),
        };
        Command::from_std(self.std_cmd(path))
    }

    /// A command for any program (`unshare`, `sh`, a harness, one of the binaries) with a
    /// clean environment: the fake home, the workspace as the working directory, no git
    /// configuration and a fixed session.
    #[expect(
        clippy::disallowed_methods,
        reason = "test configuration from the environment"
    )]
    pub fn std_cmd(&self, program: impl AsRef<std::ffi::OsStr>) -> std::process::Command {
        let mut cmd = std::process::Command::new(program);
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

    /// Writes `content` to the workspace path `rel`, creating its parent directories.
    pub fn write(&self, rel: impl AsRef<Path>, content: impl AsRef<[u8]>) {
        let path = self.ws().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }

    /// The text of the workspace file `rel`.
    pub fn read(&self, rel: impl AsRef<Path>) -> String {
        std::fs::read_to_string(self.ws().join(rel)).unwrap()
    }

    /// Runs `agent-guard <args>` with the environment variable `key` set to `value`, and
    /// returns its output, whatever its exit status.
    pub fn ag_with(&self, key: &str, value: impl AsRef<std::ffi::OsStr>, args: &[&str]) -> Output {
        self.cmd("agent-guard")
            .env(key, value)
            .args(args)
            .output()
            .expect("agent-guard runs")
    }

    /// A person trusts the project's `.agent-guard.toml` as it is now, at a terminal
    /// (`agent-guard config trust` on a pseudo-terminal), so that its loosening settings apply.
    pub fn trust_config(&self) {
        let trusted = pty(self, &["config", "trust"], "", &[]);
        assert_eq!(trusted.code, 0, "config trust: {}", trusted.text);
    }

    /// Runs `agent-guard <args>` and returns its output, whatever its exit status.
    pub fn ag(&self, args: &[&str]) -> Output {
        self.cmd("agent-guard")
            .args(args)
            .output()
            .expect("agent-guard runs")
    }

    /// Runs `agent-guard <args>`, asserts that it succeeds, and returns its output.
    pub fn ag_ok(&self, args: &[&str]) -> Output {
        let output = self.ag(args);
        assert!(output.status.success(), "agent-guard {args:?}: {output:?}");
        output
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

/// Runs `cmd` with the fault point `point` armed and asserts that the process died there
/// (killed: no exit code).
pub fn die_at(cmd: &mut Command, point: &str) {
    let crashed = cmd.env("AGENT_GUARD_FAULT", point).output().unwrap();
    assert_eq!(
        crashed.status.code(),
        None,
        "{point}: the process must die at the fault point: {crashed:?}"
    );
}

/// Parses a command's stdout as one JSON value.
pub fn json(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stdout)))
}

/// Runs `git <args>` in `dir` without the user's or the system's configuration, committing
/// as `t`; asserts that it succeeds and returns its stdout.
pub fn git_in(dir: &Path, args: &[&str]) -> String {
    let output = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
        .output()
        .unwrap();
    assert!(output.status.success(), "git {args:?}: {output:?}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// [`git_in`] the workspace.
pub fn git(env: &TestEnv, args: &[&str]) -> String {
    git_in(env.ws(), args)
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

/// One entry of a tree snapshot: kind, permission bits, mtime and content or link target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub kind: &'static str,
    pub mode: u32,
    pub mtime: Option<(i64, i64)>,
    pub data: Vec<u8>,
}

/// Snapshots every entry under `root` except `.git` and `.agent-trash`, keyed by relative
/// path bytes. Directory mtimes are left out for the directories in `touched` (a delete and
/// a restore legitimately change their entries' list); `"*"` leaves out every directory mtime, `"**"` every mtime (git restores content, not times).
pub fn snapshot(root: &Path, touched: &[&str]) -> std::collections::BTreeMap<Vec<u8>, Entry> {
    use std::os::unix::ffi::OsStrExt as _;
    use std::os::unix::fs::MetadataExt as _;
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let relative = path.strip_prefix(root).unwrap().to_owned();
            let first = relative.components().next().unwrap().as_os_str().to_owned();
            if first == ".git" || first == ".agent-trash" {
                continue;
            }
            let meta = path.symlink_metadata().unwrap();
            let (kind, data) = if meta.file_type().is_symlink() {
                (
                    "symlink",
                    std::fs::read_link(&path)
                        .unwrap()
                        .as_os_str()
                        .as_bytes()
                        .to_vec(),
                )
            } else if meta.is_dir() {
                stack.push(path.clone());
                ("dir", Vec::new())
            } else {
                ("file", std::fs::read(&path).unwrap())
            };
            let key = relative.as_os_str().as_bytes().to_vec();
            let skip_mtime = touched.contains(&"**")
                || (kind == "dir" && touched.iter().any(|t| *t == "*" || key == t.as_bytes()));
            let mtime = (!skip_mtime).then(|| (meta.mtime(), meta.mtime_nsec()));
            out.insert(
                key,
                Entry {
                    kind,
                    mode: meta.mode() & 0o7777,
                    mtime,
                    data,
                },
            );
        }
    }
    out
}

/// Runs `sh -c <command>` in the workspace, as the agent's harness would after `check`.
/// Its exit status is not asserted: after compensation a plain `rm x` finds nothing and
/// fails with "No such file", which is the point.
pub fn run_shell(env: &TestEnv, command: &str) {
    std::process::Command::new("sh")
        .args(["-c", command])
        .current_dir(env.ws())
        .env("HOME", &env.fixture.home)
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
}

/// Runs `agent-guard check --enforce --json -- <command>`; returns (exit code, report).
pub fn enforce(env: &TestEnv, command: &str) -> (i32, serde_json::Value) {
    code_and_json(&env.ag(&["check", "--enforce", "--json", "--", command]))
}

/// [`enforce`] with `--dialect <dialect>`.
pub fn enforce_in(env: &TestEnv, dialect: &str, command: &str) -> (i32, serde_json::Value) {
    let args = [
        "check",
        "--enforce",
        "--json",
        "--dialect",
        dialect,
        "--",
        command,
    ];
    code_and_json(&env.ag(&args))
}

/// A finished command's exit code and its stdout as JSON.
pub fn code_and_json(output: &Output) -> (i32, serde_json::Value) {
    (output.status.code().unwrap(), json(output))
}

/// The restorable transactions of a `list --json` that are no restore's backup, in its order.
pub fn restorable_txids(list: &serde_json::Value) -> Vec<String> {
    let restorable = |t: &&serde_json::Value| t["state"] == "RESTORABLE" && t["backup"] != true;
    let transactions = list["transactions"].as_array().unwrap();
    let txid = |t: &serde_json::Value| t["txid"].as_str().unwrap().to_owned();
    transactions.iter().filter(restorable).map(txid).collect()
}

/// The txids of a report's compensations.
pub fn txids(report: &serde_json::Value) -> Vec<String> {
    report["compensations"]
        .as_array()
        .map(|list| {
            list.iter()
                .filter_map(|c| c["txid"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// What a command printed on a pseudo-terminal (stdout and stderr together), and its exit.
pub struct PtyOutput {
    pub code: i32,
    pub text: String,
}

/// Runs `agent-guard <args>` on a pseudo-terminal (util-linux `script`), feeding `input` to
/// it as a person would type it, with the test environment plus `extra` variables.
pub fn pty(env: &TestEnv, args: &[&str], input: &str, extra: &[(&str, &str)]) -> PtyOutput {
    use std::io::Write as _;
    let binary = assert_cmd::cargo::cargo_bin!("agent-guard");
    let quote = |word: &str| format!("'{}'", word.replace('\'', r"'\''"));
    let line = std::iter::once(quote(&binary.to_string_lossy()))
        .chain(args.iter().map(|a| quote(a)))
        .collect::<Vec<_>>()
        .join(" ");
    let mut command = env.std_cmd("script");
    command
        .args(["-qec", &line, "/dev/null"])
        .env("TERM", "xterm-256color")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    for (key, value) in extra {
        command.env(key, value);
    }
    let mut child = command.spawn().expect("util-linux `script` runs");
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    PtyOutput {
        code: output.status.code().unwrap_or(-1),
        text: String::from_utf8_lossy(&output.stdout).replace("\r\n", "\n"),
    }
}

/// The round trip of a line the guard checkpoints: `check --enforce` must answer `code`
/// (exit 0) and change nothing; `run` then runs the line for real, `ran` says whether it did
/// what it does (the proof that the test exercised something); one `undo` must bring the
/// workspace back byte for byte (every file's times too when `times` is `["**"]`).
pub fn undone_after_run(
    env: &TestEnv,
    line: &str,
    code: &str,
    run: impl FnOnce(&TestEnv),
    ran: impl FnOnce(&TestEnv) -> bool,
) {
    let before = snapshot(env.ws(), &["**"]);
    let (exit, report) = enforce(env, line);
    assert_eq!(exit, 0, "{line}: {report}");
    assert_eq!(report["code"], code, "{line}: {report}");
    run(env);
    assert!(ran(env), "{line}: the real run did not do what it does");
    env.ag_ok(&["undo", "--json"]);
    assert_eq!(snapshot(env.ws(), &["**"]), before, "{line}: undone");
}
