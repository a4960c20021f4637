//! End-to-end tests through the real harness CLIs, offline: Claude Code and Codex, each
//! pointed at a scripted mock model server on loopback, inside a network namespace of its own.
//!
//! Every scenario builds a temporary git workspace (`ws/` with `build/`, a sibling
//! `outside/`, a fake home), runs `agent-guard install <harness> --project` there, then runs
//! the CLI non-interactively through `tests/harness/run-in-netns.sh`. The mock answers the
//! first request with one shell tool call (the command under test) and the second, which
//! carries the tool result, with a final text; it logs every request. The tests then assert
//! on the filesystem, the quarantine, the hook's own trail and what the model was told.
//!
//! The tests are `#[ignore]`d: they need the pinned CLIs (`scripts/install-harnesses.sh`),
//! `unshare` and `ip`. Run them with
//! `cargo test -p agent-guard-cli --test harness -- --ignored`. Without the CLIs they skip
//! with a message, unless `AGENT_GUARD_REQUIRE_HARNESSES=1` (as in `.ci/run`), where a missing
//! CLI fails. See `docs/harness-e2e.md`.

#![allow(
    clippy::unwrap_used,
    clippy::disallowed_methods,
    clippy::print_stderr,
    reason = "test support code sets up fixtures, runs processes and reports what it saw"
)]

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::os::unix::fs::PermissionsExt as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use agent_guard_testutil::{Fixture, FixtureSpec};
use serde_json::Value;

/// The Claude Code release these tests pin (`scripts/install-harnesses.sh`).
const CLAUDE_CODE_VERSION: &str = "2.1.328";
/// The Codex release these tests pin.
const CODEX_VERSION: &str = "0.169.0";
/// The mock's loopback port; every scenario has its own network namespace.
const MOCK_PORT: u16 = 48123;
/// How long the CLI may run inside the namespace (`run-in-netns.sh` kills it after that).
const CLI_TIMEOUT_SECS: u64 = 120;
/// The outer deadline on the whole namespace run; its process group is killed after it.
const SCENARIO_TIMEOUT: Duration = Duration::from_secs(CLI_TIMEOUT_SECS + 30);

/// The two harnesses under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Harness {
    ClaudeCode,
    Codex,
}

impl Harness {
    fn name(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "claude-code",
            Harness::Codex => "codex",
        }
    }

    fn binary(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "claude",
            Harness::Codex => "codex",
        }
    }

    fn bin_env(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "AGENT_GUARD_CLAUDE_BIN",
            Harness::Codex => "AGENT_GUARD_CODEX_BIN",
        }
    }

    fn version_line(self) -> String {
        match self {
            Harness::ClaudeCode => format!("{CLAUDE_CODE_VERSION} (Claude Code)"),
            Harness::Codex => format!("codex-cli {CODEX_VERSION}"),
        }
    }

    fn mock(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "mock_anthropic.py",
            Harness::Codex => "mock_openai.py",
        }
    }

    /// The id the mock gives its one scripted tool call.
    fn tool_call_id(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "toolu_mock_01",
            Harness::Codex => "call_mock_01",
        }
    }
}

#[expect(
    clippy::disallowed_methods,
    reason = "test configuration from the environment"
)]
fn env_flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|value| !value.is_empty() && value != "0")
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scripts_dir() -> PathBuf {
    repo_root().join("tests/harness")
}

/// Where `scripts/install-harnesses.sh` puts the CLIs by default.
#[expect(
    clippy::disallowed_methods,
    reason = "test configuration from the environment"
)]
fn default_prefix() -> Option<PathBuf> {
    if let Some(prefix) = std::env::var_os("AGENT_GUARD_HARNESS_PREFIX") {
        return Some(PathBuf::from(prefix));
    }
    let cache = match std::env::var_os("XDG_CACHE_HOME") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from(std::env::var_os("HOME")?).join(".cache"),
    };
    Some(cache.join("agent-guard/harnesses"))
}

/// The pinned CLI of `harness`, or `None` (with a message) when it is absent and the
/// harnesses are not required. Panics when they are required and absent, or when the CLI
/// found is not the pinned version.
#[expect(
    clippy::disallowed_methods,
    reason = "test configuration from the environment"
)]
fn cli(harness: Harness) -> Option<PathBuf> {
    let path = match std::env::var_os(harness.bin_env()) {
        Some(path) => PathBuf::from(path),
        None => default_prefix()
            .unwrap_or_default()
            .join("node_modules/.bin")
            .join(harness.binary()),
    };
    let required = env_flag("AGENT_GUARD_REQUIRE_HARNESSES");
    if !path.is_file() {
        assert!(
            !required,
            "AGENT_GUARD_REQUIRE_HARNESSES is set but the {} CLI is not at {}; run \
             scripts/install-harnesses.sh (or set {})",
            harness.name(),
            path.display(),
            harness.bin_env()
        );
        eprintln!(
            "skipping: the {} CLI is not installed at {} (run scripts/install-harnesses.sh, or \
             set {}; set AGENT_GUARD_REQUIRE_HARNESSES=1 to fail instead)",
            harness.name(),
            path.display(),
            harness.bin_env()
        );
        return None;
    }
    let namespaces = Command::new("unshare")
        .args(["--net", "--", "true"])
        .stdin(Stdio::null())
        .output()
        .is_ok_and(|out| out.status.success());
    if !namespaces {
        assert!(
            !required,
            "AGENT_GUARD_REQUIRE_HARNESSES is set but `unshare --net` does not work here"
        );
        eprintln!("skipping: `unshare --net` does not work here (needs root or user namespaces)");
        return None;
    }
    let version = Command::new(&path)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|error| panic!("running {} --version: {error}", path.display()));
    let version = String::from_utf8_lossy(&version.stdout);
    assert_eq!(
        version.trim(),
        harness.version_line(),
        "{} is not the pinned {} release",
        path.display(),
        harness.name()
    );
    Some(path)
}

/// The files of a tree, by relative path (directories as empty entries).
fn tree(root: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Option<Vec<u8>>>) {
        let mut entries: Vec<_> = fs::read_dir(dir).unwrap().map(Result::unwrap).collect();
        entries.sort_by_key(fs::DirEntry::file_name);
        for entry in entries {
            let path = entry.path();
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if entry.file_type().unwrap().is_dir() {
                out.insert(format!("{rel}/"), None);
                walk(root, &path, out);
            } else {
                out.insert(rel, Some(fs::read(&path).unwrap()));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// One workspace, with agent-guard installed into one harness's project config.
struct Scenario {
    harness: Harness,
    cli: PathBuf,
    fixture: Fixture,
    scratch: PathBuf,
    /// The agent-guard the installed hook runs: a hard link to (or copy of) the cargo-built
    /// binary at a path of the test's own, so the test can later swap it for a wrapper or a
    /// failing program without touching the config that `install` wrote.
    guard: PathBuf,
    codex_home: PathBuf,
    install_output: String,
    /// How many times the CLI ran (names each run's mock log).
    runs: std::cell::Cell<usize>,
}

impl Scenario {
    /// Builds the workspace and runs `agent-guard install <harness> --project`; `None` when
    /// the CLI is absent and not required.
    fn new(harness: Harness) -> Option<Scenario> {
        let cli = cli(harness)?;
        let mut spec = FixtureSpec {
            git: true,
            ..FixtureSpec::default()
        };
        for (path, content) in [
            ("src/main.rs", "fn main() {}\n"),
            ("build/out/app.o", "object code\n"),
            ("build/report.txt", "build report\n"),
            ("build/nested/deep/data.txt", "deep data\n"),
            ("notes.txt", "notes\n"),
        ] {
            spec.files.insert(path.into(), content.into());
        }
        spec.commit.push("src/main.rs".into());
        spec.outside
            .insert("keep.txt".into(), "must survive\n".into());
        spec.outside
            .insert("sub/also.txt".into(), "also must survive\n".into());
        let fixture = Fixture::build(&spec).expect("fixture builds");

        let scratch = fixture.root().join("scratch");
        let bin = scratch.join("bin");
        fs::create_dir_all(&bin).unwrap();
        fs::create_dir_all(scratch.join("tmp")).unwrap();
        fs::create_dir_all(scratch.join("hook-calls")).unwrap();
        let guard = bin.join("agent-guard");
        let built = Path::new(env!("CARGO_BIN_EXE_agent-guard"));
        if fs::hard_link(built, &guard).is_err() {
            fs::copy(built, &guard).unwrap();
        }

        let codex_home = scratch.join("codex-home");
        fs::create_dir_all(&codex_home).unwrap();
        if harness == Harness::Codex {
            // The mock provider, and the project trusted by "the user": Codex loads a
            // project's `.codex/` layer only for a trusted project. Hook trust is install's.
            let config = format!(
                "model = \"mock-model\"\n\
                 model_provider = \"mock\"\n\
                 \n\
                 [model_providers.mock]\n\
                 name = \"mock\"\n\
                 base_url = \"http://127.0.0.1:{MOCK_PORT}/v1\"\n\
                 env_key = \"MOCK_API_KEY\"\n\
                 wire_api = \"responses\"\n\
                 request_max_retries = 0\n\
                 stream_max_retries = 0\n\
                 \n\
                 [projects.\"{ws}\"]\n\
                 trust_level = \"trusted\"\n",
                ws = fixture.ws.display()
            );
            fs::write(codex_home.join("config.toml"), config).unwrap();
        }

        let mut scenario = Scenario {
            harness,
            cli,
            fixture,
            scratch,
            guard,
            codex_home,
            install_output: String::new(),
            runs: std::cell::Cell::new(0),
        };
        let output = scenario
            .command(&scenario.guard)
            .args(["install", harness.name(), "--project"])
            .output()
            .unwrap();
        scenario.install_output = format!(
            "exit {:?}\n{}{}",
            output.status.code(),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(
            output.status.success(),
            "agent-guard install {} --project failed:\n{}",
            harness.name(),
            scenario.install_output
        );
        Some(scenario)
    }

    fn ws(&self) -> &Path {
        &self.fixture.ws
    }

    /// `PATH` with the CLI's directory first (install probes `claude --version` on it).
    #[expect(
        clippy::disallowed_methods,
        reason = "test configuration from the environment"
    )]
    fn path_var(&self) -> std::ffi::OsString {
        let mut dirs = vec![self.cli.parent().unwrap().to_path_buf()];
        dirs.extend(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        ));
        std::env::join_paths(dirs).unwrap()
    }

    /// A command with a clean, hermetic environment, run in the workspace.
    fn command(&self, program: &Path) -> Command {
        let mut cmd = Command::new(program);
        cmd.env_clear()
            .env("PATH", self.path_var())
            .env("HOME", &self.fixture.home)
            .env("TMPDIR", self.scratch.join("tmp"))
            .env("XDG_STATE_HOME", self.scratch.join("state"))
            .env("CODEX_HOME", &self.codex_home)
            .env("LANG", "C.UTF-8")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .current_dir(self.ws())
            .stdin(Stdio::null());
        cmd
    }

    /// The hook config file `install --project` wrote.
    fn config_file(&self) -> PathBuf {
        match self.harness {
            Harness::ClaudeCode => self.ws().join(".claude/settings.json"),
            Harness::Codex => self.ws().join(".codex/hooks.json"),
        }
    }

    /// Replaces the binary the installed hook runs with a shell script.
    fn replace_guard(&self, script: &str) {
        let _ = fs::remove_file(&self.guard);
        fs::write(&self.guard, script).unwrap();
        fs::set_permissions(&self.guard, fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// Puts a wrapper where the hook's binary was: it records each invocation (argv, the
    /// payload, the reply, the exit code) under `scratch/hook-calls/`, then behaves exactly
    /// as the real binary.
    fn wrap_guard(&self) {
        let real = self.scratch.join("bin/agent-guard.real");
        fs::rename(&self.guard, &real).unwrap();
        let calls = self.scratch.join("hook-calls");
        let script = format!(
            "#!/bin/sh\n\
             # Written by tests/harness.rs: logs the hook call, then runs the real binary.\n\
             d=$(mktemp -d '{calls}/call.XXXXXX')\n\
             printf '%s\\n' \"$@\" >\"$d/argv\"\n\
             cat >\"$d/stdin\"\n\
             '{real}' \"$@\" <\"$d/stdin\" >\"$d/stdout\" 2>\"$d/stderr\"\n\
             rc=$?\n\
             echo \"$rc\" >\"$d/rc\"\n\
             cat \"$d/stdout\"\n\
             cat \"$d/stderr\" >&2\n\
             exit \"$rc\"\n",
            calls = calls.display(),
            real = real.display()
        );
        fs::write(&self.guard, script).unwrap();
        fs::set_permissions(&self.guard, fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// The hook calls the wrapper recorded, oldest first: file name → content.
    fn hook_calls(&self) -> Vec<BTreeMap<String, String>> {
        let mut dirs: Vec<_> = fs::read_dir(self.scratch.join("hook-calls"))
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .collect();
        dirs.sort_by_key(|dir| fs::metadata(dir).and_then(|m| m.modified()).ok());
        dirs.iter()
            .map(|dir| {
                fs::read_dir(dir)
                    .unwrap()
                    .map(|entry| {
                        let entry = entry.unwrap();
                        (
                            entry.file_name().to_string_lossy().into_owned(),
                            fs::read_to_string(entry.path()).unwrap_or_default(),
                        )
                    })
                    .collect()
            })
            .collect()
    }

    /// Runs the CLI on a prompt; the mock answers with one shell tool call of
    /// `tool_command`, then a final text. `env` is added to the CLI's environment (and so
    /// to the hook's).
    fn run(&self, tool_command: &str, env: &[(&str, &str)]) -> Run<'_> {
        self.runs.set(self.runs.get() + 1);
        let log = self.scratch.join(format!("mock-{}.jsonl", self.runs.get()));
        let prompt = format!("Please run `{tool_command}` in this project.");
        let mut cmd = self.command(Path::new("bash"));
        cmd.arg(scripts_dir().join("run-in-netns.sh"))
            .arg(scripts_dir().join(self.harness.mock()))
            .arg("--command")
            .arg(tool_command)
            .arg("--log")
            .arg(&log)
            .arg("--")
            .arg(&self.cli)
            .env("MOCK_PORT", MOCK_PORT.to_string())
            .env("AGENT_GUARD_E2E_TIMEOUT", CLI_TIMEOUT_SECS.to_string());
        match self.harness {
            Harness::ClaudeCode => {
                cmd.args(["-p", &prompt, "--dangerously-skip-permissions"])
                    .env("ANTHROPIC_BASE_URL", format!("http://127.0.0.1:{MOCK_PORT}"))
                    .env("ANTHROPIC_API_KEY", "test")
                    .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
                    .env("DISABLE_AUTOUPDATER", "1")
                    // Claude Code refuses --dangerously-skip-permissions as root otherwise.
                    .env("IS_SANDBOX", "1");
            }
            Harness::Codex => {
                cmd.arg("exec")
                    .arg("--dangerously-bypass-approvals-and-sandbox")
                    .args(["--color", "never", "-C"])
                    .arg(self.ws())
                    .arg(&prompt)
                    .env("MOCK_API_KEY", "test");
            }
        }
        for (key, value) in env {
            cmd.env(key, value);
        }
        let stdout = self.scratch.join("cli.stdout");
        let stderr = self.scratch.join("cli.stderr");
        cmd.stdout(fs::File::create(&stdout).unwrap())
            .stderr(fs::File::create(&stderr).unwrap())
            .process_group(0);

        let started = Instant::now();
        let mut child = cmd.spawn().expect("bash runs run-in-netns.sh");
        let mut timed_out = false;
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if started.elapsed() > SCENARIO_TIMEOUT {
                timed_out = true;
                // The whole group: the namespace's shell, the mock and the CLI.
                let _ = Command::new("kill")
                    .args(["-KILL", "--", &format!("-{}", child.id())])
                    .status();
                break child.wait().unwrap();
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let requests = fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        let run = Run {
            scenario: self,
            tool_command: tool_command.to_owned(),
            env: env
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" "),
            exit: status.code(),
            timed_out: timed_out || status.code() == Some(124),
            elapsed: started.elapsed(),
            stdout: fs::read_to_string(stdout).unwrap_or_default(),
            stderr: fs::read_to_string(stderr).unwrap_or_default(),
            requests,
        };
        if env_flag("AGENT_GUARD_E2E_VERBOSE") {
            eprintln!("{}", run.report());
        }
        run
    }

    /// `agent-guard <args>` with the real binary, in the workspace.
    fn guard(&self, args: &[&str]) -> std::process::Output {
        self.command(Path::new(env!("CARGO_BIN_EXE_agent-guard")))
            .args(args)
            .output()
            .unwrap()
    }

    /// The workspace's transactions (`agent-guard list --json`).
    fn transactions(&self) -> Vec<Value> {
        let output = self.guard(&["list", "--json"]);
        assert!(output.status.success(), "list --json: {output:?}");
        let list: Value = serde_json::from_slice(&output.stdout).unwrap();
        list["transactions"].as_array().cloned().unwrap_or_default()
    }
}

/// What one CLI run left behind.
struct Run<'a> {
    scenario: &'a Scenario,
    tool_command: String,
    env: String,
    exit: Option<i32>,
    timed_out: bool,
    elapsed: Duration,
    stdout: String,
    stderr: String,
    /// The mock's log: one object per request.
    requests: Vec<Value>,
}

impl Run<'_> {
    /// Requests the mock answered with the scripted tool call.
    fn tool_call_requests(&self) -> usize {
        self.requests
            .iter()
            .filter(|r| r["answer"].as_str().is_some_and(|a| a.starts_with("tool")))
            .count()
    }

    /// The tool results the CLI sent back for the scripted call (content, `is_error`).
    fn tool_results(&self) -> Vec<(String, bool)> {
        let id = self.scenario.harness.tool_call_id();
        let mut seen = Vec::new();
        for request in &self.requests {
            for result in request["tool_results"].as_array().into_iter().flatten() {
                let matches = result["tool_use_id"] == id || result["call_id"] == id;
                let content = result["content"].as_str().unwrap_or_default().to_owned();
                let is_error = result["is_error"].as_bool().unwrap_or(false);
                if matches && !seen.contains(&(content.clone(), is_error)) {
                    seen.push((content, is_error));
                }
            }
        }
        seen
    }

    /// Whether the request that carried the tool result mentions `needle` outside the tool
    /// result itself, i.e. in context the harness added from the hook.
    fn context_mentions(&self, needle: &str) -> bool {
        let Some(request) = self.requests.iter().find(|r| r["answer"] == "final") else {
            return false;
        };
        let items = request["body"]["messages"]
            .as_array()
            .or_else(|| request["body"]["input"].as_array())
            .cloned()
            .unwrap_or_default();
        items.iter().any(|item| {
            if item["type"] == "function_call_output" {
                return false;
            }
            let mut item = item.clone();
            if let Some(blocks) = item["content"].as_array_mut() {
                blocks.retain(|block| block["type"] != "tool_result");
            }
            item.to_string().contains(needle)
        })
    }

    /// The one tool result the model got back; panics with the report if there is none.
    fn tool_result(&self) -> (String, bool) {
        let results = self.tool_results();
        assert!(
            results.len() == 1,
            "expected exactly one tool result for the scripted call, got {}\n{}",
            results.len(),
            self.report()
        );
        results.into_iter().next().unwrap()
    }

    /// Everything a failing assertion needs: the run, the mock transcript, the installed
    /// config, the hook calls and the audit log.
    fn report(&self) -> String {
        let s = self.scenario;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "===== {} run: tool call `{}` {}\nexit {:?}{} after {:.1?}",
            s.harness.name(),
            self.tool_command,
            self.env,
            self.exit,
            if self.timed_out { " (TIMED OUT)" } else { "" },
            self.elapsed
        );
        let _ = writeln!(out, "----- CLI stdout\n{}", self.stdout.trim_end());
        let _ = writeln!(out, "----- CLI stderr\n{}", self.stderr.trim_end());
        let _ = writeln!(
            out,
            "----- mock transcript ({} requests)",
            self.requests.len()
        );
        for (index, request) in self.requests.iter().enumerate() {
            let _ = writeln!(
                out,
                "#{} {} {} -> {}",
                index + 1,
                request["method"].as_str().unwrap_or("?"),
                request["path"].as_str().unwrap_or("?"),
                request["answer"].as_str().unwrap_or("?")
            );
            for result in request["tool_results"].as_array().into_iter().flatten() {
                let _ = writeln!(out, "   tool result: {result}");
            }
            // What followed the scripted call in the conversation: the tool result and
            // whatever the harness added from the hook (context, errors).
            let items = request["body"]["messages"]
                .as_array()
                .or_else(|| request["body"]["input"].as_array());
            let id = s.harness.tool_call_id();
            if let Some(items) = items {
                let from = items.iter().position(|item| item.to_string().contains(id));
                for item in items.iter().skip(from.unwrap_or(items.len())) {
                    let text = item.to_string();
                    let cut: String = text.chars().take(2000).collect();
                    let _ = writeln!(out, "   conversation: {cut}");
                }
            }
        }
        let _ = writeln!(out, "----- install\n{}", s.install_output.trim_end());
        let _ = writeln!(
            out,
            "----- {}\n{}",
            s.config_file().display(),
            fs::read_to_string(s.config_file()).unwrap_or_else(|e| e.to_string())
        );
        if s.harness == Harness::Codex {
            let _ = writeln!(
                out,
                "----- $CODEX_HOME/config.toml\n{}",
                fs::read_to_string(s.codex_home.join("config.toml")).unwrap_or_default()
            );
        }
        for (index, call) in s.hook_calls().iter().enumerate() {
            let _ = writeln!(out, "----- hook call #{}: {call:?}", index + 1);
        }
        let audit = s.ws().join(".agent-trash/audit.jsonl");
        let _ = writeln!(
            out,
            "----- {}\n{}",
            audit.display(),
            fs::read_to_string(&audit).unwrap_or_else(|e| e.to_string())
        );
        out
    }
}

/// Asserts `cond`, printing the run's full report when it fails.
macro_rules! ensure {
    ($run:expr, $cond:expr, $($msg:tt)+) => {
        if !$cond {
            panic!("{}\n\n{}", format!($($msg)+), $run.report());
        }
    };
}

/// Reports the timing of a run on stderr (shown with `--nocapture`).
fn timing(run: &Run<'_>, label: &str) {
    eprintln!(
        "{} {label}: {:.1?}",
        run.scenario.harness.name(),
        run.elapsed
    );
}

// ---------------------------------------------------------------------------------------
// The scenarios, shared by both harnesses.

/// The hook runs on a harmless tool call: the installed hook command is invoked with the
/// harness's payload, answers, and the command itself runs.
fn hook_is_invoked(harness: Harness) {
    let Some(scenario) = Scenario::new(harness) else {
        return;
    };
    scenario.wrap_guard();
    let run = scenario.run("ls", &[]);
    timing(&run, "hook invoked");
    ensure!(run, run.exit == Some(0), "the CLI did not exit 0");
    let calls = scenario.hook_calls();
    ensure!(
        run,
        calls.len() == 1,
        "expected one hook call, got {}",
        calls.len()
    );
    let call = &calls[0];
    ensure!(
        run,
        call.get("argv").map(String::as_str)
            == Some(format!("check\n--enforce\n--harness\n{}\n", harness.name()).as_str()),
        "the hook was not run as `check --enforce --harness {}`",
        harness.name()
    );
    let payload: Value = serde_json::from_str(&call["stdin"]).unwrap_or(Value::Null);
    ensure!(
        run,
        payload["hook_event_name"] == "PreToolUse" && payload["tool_input"]["command"] == "ls",
        "the hook's payload is not a PreToolUse for `ls`"
    );
    ensure!(
        run,
        call.get("rc").map(|rc| rc.trim()) == Some("0"),
        "the hook did not exit 0 on `ls`"
    );
    ensure!(
        run,
        run.tool_call_requests() == 1,
        "the mock issued no tool call"
    );
    let (content, _) = run.tool_result();
    ensure!(
        run,
        content.contains("build") && content.contains("notes.txt"),
        "the tool result is not the output of `ls`"
    );

    if harness == Harness::Codex {
        // The control: Codex runs a hook only with the trust that install recorded in
        // `$CODEX_HOME/config.toml`; without it, `codex exec` skips the hook silently.
        let config = scenario.codex_home.join("config.toml");
        let text = fs::read_to_string(&config).unwrap();
        let at = text
            .find("[hooks.state.")
            .expect("install recorded hook trust");
        fs::write(&config, &text[..at]).unwrap();
        let run = scenario.run("ls", &[]);
        timing(&run, "hook invoked, trust removed (control)");
        ensure!(run, run.exit == Some(0), "the CLI did not exit 0");
        ensure!(
            run,
            scenario.hook_calls().len() == 1,
            "control: Codex ran a hook whose trust was removed"
        );
    }
}

/// `rm -r build`: the hook moves `build/` into the quarantine and lets the call proceed;
/// the transaction is listed as restorable, and `restore` brings `build/` back
/// byte-identical.
fn rm_build_is_relocated_and_restorable(harness: Harness) {
    let Some(scenario) = Scenario::new(harness) else {
        return;
    };
    let build = scenario.ws().join("build");
    let before = tree(&build);
    let run = scenario.run("rm -r build", &[]);
    timing(&run, "rm -r build");
    ensure!(run, run.exit == Some(0), "the CLI did not exit 0");
    ensure!(run, !build.exists(), "build/ is still in the workspace");
    ensure!(
        run,
        run.tool_call_requests() == 1,
        "the mock issued no tool call"
    );
    let (content, _) = run.tool_result();

    let transactions = scenario.transactions();
    let restorable: Vec<&Value> = transactions
        .iter()
        .filter(|tx| tx["state"] == "RESTORABLE" && tx["first"] == "build")
        .collect();
    ensure!(
        run,
        restorable.len() == 1,
        "expected one RESTORABLE transaction for build, got {transactions:?}"
    );
    let txid = restorable[0]["txid"].as_str().unwrap().to_owned();
    ensure!(
        run,
        scenario.ws().join(".agent-trash").join(&txid).is_dir(),
        "the quarantine has no directory for {txid}"
    );
    let audit =
        fs::read_to_string(scenario.ws().join(".agent-trash/audit.jsonl")).unwrap_or_default();
    ensure!(
        run,
        audit.contains(&txid),
        "the audit log does not record {txid}"
    );
    // Hook mode allows the call with `updatedInput`, replacing the delete with an `echo` of
    // its note, so the tool result itself names the txid (both harnesses honour the
    // rewrite), and it adds the note as `additionalContext` (Claude Code passes it on as a
    // system message, Codex as a developer message).
    ensure!(
        run,
        content.contains(&txid),
        "the tool result does not name the txid {txid}: the rewritten command did not run"
    );
    ensure!(
        run,
        run.context_mentions(&txid),
        "the request after the tool call does not carry the hook's context naming {txid}"
    );

    let output = scenario.guard(&["restore", &txid]);
    ensure!(
        run,
        output.status.success(),
        "agent-guard restore {txid} failed: {output:?}"
    );
    ensure!(
        run,
        tree(&build) == before,
        "the restored build/ differs from the original"
    );
}

/// `rm -r ../outside`: the hook refuses it, the target survives, and the model is told
/// that agent-guard blocked it.
fn delete_outside_is_refused(harness: Harness) {
    let Some(scenario) = Scenario::new(harness) else {
        return;
    };
    let outside = scenario.fixture.outside.clone();
    let before = tree(&outside);
    let run = scenario.run("rm -r ../outside", &[]);
    timing(&run, "rm -r ../outside");
    ensure!(run, run.exit == Some(0), "the CLI did not exit 0");
    ensure!(
        run,
        outside.is_dir() && tree(&outside) == before,
        "the directory outside the workspace was touched"
    );
    ensure!(
        run,
        run.tool_call_requests() == 1,
        "the mock issued no tool call"
    );
    let (content, _) = run.tool_result();
    ensure!(
        run,
        content.contains("agent-guard") && content.contains("BLOCK"),
        "the model was not told that agent-guard blocked the call"
    );
}

/// A fault inside hook mode (a panic, or a stall past its own deadline) becomes a deny:
/// `rm -r build` does not run.
fn guard_fault_denies(harness: Harness, fault: &str) {
    let Some(scenario) = Scenario::new(harness) else {
        return;
    };
    let build = scenario.ws().join("build");
    let before = tree(&build);
    let run = scenario.run("rm -r build", &[("AGENT_GUARD_FAULT", fault)]);
    timing(&run, &format!("AGENT_GUARD_FAULT={fault}"));
    ensure!(run, run.exit == Some(0), "the CLI did not exit 0");
    ensure!(
        run,
        build.is_dir() && tree(&build) == before,
        "build/ was deleted although the hook failed ({fault})"
    );
    ensure!(
        run,
        run.tool_call_requests() == 1,
        "the mock issued no tool call"
    );
    let (content, _) = run.tool_result();
    ensure!(
        run,
        content.contains("agent-guard"),
        "the model was not told that agent-guard refused the call"
    );
}

// ---------------------------------------------------------------------------------------
// Claude Code 2.1.328 and Codex 0.169.0

/// The same five scenarios for each real harness, as `<harness>::<scenario>`.
macro_rules! per_harness {
    ($($module:ident => $harness:expr),* $(,)?) => {$(
        mod $module {
            use super::Harness;

            #[test]
            #[ignore = "needs the real Claude Code / Codex CLIs; run via scripts/install-harnesses.sh and `cargo test -p agent-guard-cli --test harness -- --ignored`"]
            fn hook_is_invoked() {
                super::hook_is_invoked($harness);
            }

            #[test]
            #[ignore = "needs the real Claude Code / Codex CLIs; run via scripts/install-harnesses.sh and `cargo test -p agent-guard-cli --test harness -- --ignored`"]
            fn rm_build_is_relocated_and_restorable() {
                super::rm_build_is_relocated_and_restorable($harness);
            }

            #[test]
            #[ignore = "needs the real Claude Code / Codex CLIs; run via scripts/install-harnesses.sh and `cargo test -p agent-guard-cli --test harness -- --ignored`"]
            fn delete_outside_is_refused() {
                super::delete_outside_is_refused($harness);
            }

            #[test]
            #[ignore = "needs the real Claude Code / Codex CLIs; run via scripts/install-harnesses.sh and `cargo test -p agent-guard-cli --test harness -- --ignored`"]
            fn hook_panic_denies() {
                super::guard_fault_denies($harness, "hook-panic");
            }

            #[test]
            #[ignore = "needs the real Claude Code / Codex CLIs; run via scripts/install-harnesses.sh and `cargo test -p agent-guard-cli --test harness -- --ignored`"]
            fn hook_stall_denies() {
                super::guard_fault_denies($harness, "hook-stall");
            }
        }
    )*};
}

per_harness! {
    claude_code => Harness::ClaudeCode,
    codex => Harness::Codex,
}

/// With the `onFailure: "block"` that `install` writes for Claude Code (2.1.295+), a hook
/// that cannot do its job at all — exits 1, or whose binary is missing — blocks the call.
#[test]
#[ignore = "needs the real Claude Code / Codex CLIs; run via scripts/install-harnesses.sh and `cargo test -p agent-guard-cli --test harness -- --ignored`"]
fn claude_code_on_failure_block_holds() {
    let Some(scenario) = Scenario::new(Harness::ClaudeCode) else {
        return;
    };
    let settings: Value =
        serde_json::from_str(&fs::read_to_string(scenario.config_file()).unwrap()).unwrap();
    let handler = &settings["hooks"]["PreToolUse"][0]["hooks"][0];
    assert_eq!(
        handler["onFailure"], "block",
        "install did not write onFailure: block: {settings}"
    );
    let build = scenario.ws().join("build");
    let before = tree(&build);

    scenario.replace_guard("#!/bin/sh\ncat >/dev/null\necho 'simulated crash' >&2\nexit 1\n");
    let run = scenario.run("rm -r build", &[]);
    timing(&run, "hook exits 1");
    ensure!(
        run,
        build.is_dir() && tree(&build) == before,
        "build/ was deleted although the hook exited 1 (onFailure: block)"
    );
    ensure!(
        run,
        run.tool_results().len() == 1,
        "no tool result came back"
    );

    fs::remove_file(&scenario.guard).unwrap();
    let run = scenario.run("rm -r build", &[]);
    timing(&run, "hook binary missing");
    ensure!(
        run,
        build.is_dir() && tree(&build) == before,
        "build/ was deleted although the hook's binary is missing (onFailure: block)"
    );
    ensure!(
        run,
        run.tool_results().len() == 1,
        "no tool result came back"
    );

    // The control: the same failing hook without `onFailure` is fail-open, which is what
    // the option is for (and what Codex 0.169.0 does for every hook failure).
    let mut without = settings.clone();
    without["hooks"]["PreToolUse"][0]["hooks"][0]
        .as_object_mut()
        .unwrap()
        .remove("onFailure");
    fs::write(scenario.config_file(), without.to_string()).unwrap();
    scenario.replace_guard("#!/bin/sh\ncat >/dev/null\nexit 1\n");
    let run = scenario.run("rm -r build", &[]);
    timing(&run, "hook exits 1, no onFailure (control)");
    ensure!(
        run,
        !build.exists(),
        "control: without onFailure a hook that exits 1 should not block (fail-open)"
    );
}
