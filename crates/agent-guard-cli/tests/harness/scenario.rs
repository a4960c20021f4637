//! One workspace with agent-guard installed into one harness, runs of the real CLI in a
//! network namespace of its own, and the report a failing assertion prints.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::os::unix::fs::PermissionsExt as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use agent_guard_testutil::{Fixture, FixtureSpec};
use serde_json::Value;

use crate::cli::{Dirs, Harness, MOCK_PORT, copilot_cache};

/// How long the CLI may run inside the namespace (`run-in-netns.sh` kills it after that).
const CLI_TIMEOUT_SECS: u64 = 120;
/// The outer deadline on the whole namespace run; its process group is killed after it.
const SCENARIO_TIMEOUT: Duration = Duration::from_secs(CLI_TIMEOUT_SECS + 30);

#[expect(
    clippy::disallowed_methods,
    reason = "test configuration from the environment"
)]
pub(crate) fn env_flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|value| !value.is_empty() && value != "0")
}

fn scripts_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/harness")
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
/// found is not the pinned version. Looked up once per harness and test process.
pub(crate) fn cli(harness: Harness) -> Option<PathBuf> {
    static FOUND: [OnceLock<Option<PathBuf>>; 6] = [const { OnceLock::new() }; 6];
    let index = Harness::ALL.iter().position(|h| *h == harness).unwrap();
    FOUND[index].get_or_init(|| find_cli(harness)).clone()
}

#[expect(
    clippy::disallowed_methods,
    reason = "test configuration from the environment"
)]
fn find_cli(harness: Harness) -> Option<PathBuf> {
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
    // Copilot CLI unpacks itself on its first start, `--version` included: into the shared
    // cache, once, before any scenario runs it.
    let version = Command::new(&path)
        .arg("--version")
        .env("XDG_CACHE_HOME", copilot_cache())
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|error| panic!("running {} --version: {error}", path.display()));
    let version = String::from_utf8_lossy(&version.stdout);
    assert_eq!(
        version.lines().next().unwrap_or_default().trim(),
        harness.version_line(),
        "{} is not the pinned {} release",
        path.display(),
        harness.name()
    );
    Some(path)
}

/// The files of a tree, by relative path (directories as empty entries).
pub(crate) fn tree(root: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
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

/// Recreates a tree recorded by [`tree`] at `root` (after a run that deleted it).
pub(crate) fn plant(root: &Path, tree: &BTreeMap<String, Option<Vec<u8>>>) {
    fs::create_dir_all(root).unwrap();
    for (rel, content) in tree {
        match content {
            None => fs::create_dir_all(root.join(rel)).unwrap(),
            Some(bytes) => fs::write(root.join(rel), bytes).unwrap(),
        }
    }
}

/// One workspace, with agent-guard installed into one harness's project config.
pub(crate) struct Scenario {
    pub(crate) harness: Harness,
    cli: PathBuf,
    pub(crate) fixture: Fixture,
    scratch: PathBuf,
    /// The agent-guard the installed hook runs: a hard link to (or copy of) the cargo-built
    /// binary at a path of the test's own, so the test can later swap it for a wrapper or a
    /// failing program without touching the config that `install` wrote.
    pub(crate) guard: PathBuf,
    install_output: String,
    /// How many times the CLI ran (names each run's mock log).
    runs: Cell<usize>,
}

impl Scenario {
    /// Builds the workspace, sets up the harness as its user would (provider, trust), and
    /// runs `agent-guard install <harness> --project`; `None` when the CLI is absent and not
    /// required.
    pub(crate) fn new(harness: Harness) -> Option<Scenario> {
        let cli = cli(harness)?;
        let mut spec = FixtureSpec::git_with(
            &[
                ("src/main.rs", "fn main() {}\n"),
                ("build/out/app.o", "object code\n"),
                ("build/report.txt", "build report\n"),
                ("build/nested/deep/data.txt", "deep data\n"),
                ("notes.txt", "notes\n"),
            ],
            &["src/main.rs"],
        );
        spec.outside
            .insert("keep.txt".into(), "must survive\n".into());
        spec.outside
            .insert("sub/also.txt".into(), "also must survive\n".into());
        let fixture = Fixture::build(&spec).expect("fixture builds");

        let scratch = fixture.root().join("scratch");
        let bin = scratch.join("bin");
        for dir in [&bin, &scratch.join("tmp"), &scratch.join("hook-calls")] {
            fs::create_dir_all(dir).unwrap();
        }
        let guard = bin.join("agent-guard");
        let built = Path::new(env!("CARGO_BIN_EXE_agent-guard"));
        if fs::hard_link(built, &guard).is_err() {
            fs::copy(built, &guard).unwrap();
        }

        let mut scenario = Scenario {
            harness,
            cli,
            fixture,
            scratch,
            guard,
            install_output: String::new(),
            runs: Cell::new(0),
        };
        harness.prepare(&scenario.dirs());
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

    pub(crate) fn ws(&self) -> &Path {
        &self.fixture.ws
    }

    /// The workspace's store (issue 34: per user, outside the workspace): under the
    /// harness's `XDG_DATA_HOME`, or under the home when a harness does not pass it on.
    pub(crate) fn store(&self) -> PathBuf {
        let ws = fs::canonicalize(self.ws()).unwrap_or_else(|_| self.ws().to_path_buf());
        let id = agent_guard_engine::workspace_id(&ws);
        let xdg = self.dirs().xdg("data").join("agent-guard").join(&id);
        if xdg.exists() {
            xdg
        } else {
            self.fixture.home.join(".local/share/agent-guard").join(id)
        }
    }

    pub(crate) fn dirs(&self) -> Dirs<'_> {
        Dirs {
            ws: &self.fixture.ws,
            home: &self.fixture.home,
            scratch: &self.scratch,
        }
    }

    /// The hook file `install --project` wrote.
    pub(crate) fn config_file(&self) -> PathBuf {
        self.harness.config_file(self.ws())
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

    /// A command with a clean, hermetic environment, run in the workspace: every
    /// configuration directory the harnesses (and install) read points into the temp root.
    pub(crate) fn command(&self, program: &Path) -> Command {
        let dirs = self.dirs();
        let cache = if self.harness == Harness::Copilot {
            copilot_cache()
        } else {
            dirs.xdg("cache")
        };
        let mut cmd = Command::new(program);
        cmd.env_clear()
            .env("PATH", self.path_var())
            .env("HOME", &self.fixture.home)
            .env("TMPDIR", self.scratch.join("tmp"))
            .env("XDG_STATE_HOME", self.scratch.join("state"))
            .env("XDG_CONFIG_HOME", dirs.xdg("config"))
            .env("XDG_DATA_HOME", dirs.xdg("data"))
            .env("XDG_CACHE_HOME", cache)
            .env("CODEX_HOME", dirs.codex_home())
            .env("COPILOT_HOME", dirs.copilot_home())
            .env("LANG", "C.UTF-8")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .current_dir(self.ws())
            .stdin(Stdio::null());
        cmd
    }

    /// Replaces the binary the installed hook runs with a shell script.
    pub(crate) fn replace_guard(&self, script: &str) {
        let _ = fs::remove_file(&self.guard);
        fs::write(&self.guard, script).unwrap();
        fs::set_permissions(&self.guard, fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// The hook launcher install wrote (`$XDG_STATE_HOME/agent-guard/bin/agent-guard-hook`),
    /// through which every command hook runs the guard.
    pub(crate) fn launcher(&self) -> PathBuf {
        self.scratch.join("state/agent-guard/bin/agent-guard-hook")
    }

    /// Makes the launcher transparent: it runs the guard directly, with no deny of its own and
    /// no timeout, so that a run measures what the harness itself does with a failed hook. The
    /// hook's command line is unchanged (Codex's trust hash covers it).
    pub(crate) fn bypass_launcher(&self) {
        let launcher = self.launcher();
        assert!(launcher.is_file(), "install wrote no launcher");
        fs::write(
            &launcher,
            "#!/bin/sh\n# Written by tests/harness: the guard run directly.\nshift 2\nexec \"$@\"\n",
        )
        .unwrap();
        fs::set_permissions(&launcher, fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// Puts a wrapper where the hook's binary was: it records each invocation (argv, the
    /// payload, the reply, the exit code) under `scratch/hook-calls/`, then behaves exactly
    /// as the real binary.
    pub(crate) fn wrap_guard(&self) {
        let real = self.scratch.join("bin/agent-guard.real");
        fs::rename(&self.guard, &real).unwrap();
        let calls = self.scratch.join("hook-calls");
        let script = format!(
            "#!/bin/sh\n\
             # Written by tests/harness: logs the hook call, then runs the real binary.\n\
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
    pub(crate) fn hook_calls(&self) -> Vec<BTreeMap<String, String>> {
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
    pub(crate) fn run(&self, tool_command: &str, env: &[(&str, &str)]) -> Run<'_> {
        let prompt = format!("Please run `{tool_command}` in this project.");
        self.run_mock(tool_command, &["--command", tool_command], &prompt, env)
    }

    /// Runs the CLI with the mock scripting `calls` (a JSON list of tool calls in the mock's
    /// `--tool-calls` format), one after the other, then a final text.
    pub(crate) fn run_script(&self, calls: &Value, env: &[(&str, &str)]) -> Run<'_> {
        let script = self
            .scratch
            .join(format!("tool-calls-{}.json", self.runs.get() + 1));
        fs::write(&script, calls.to_string()).unwrap();
        let label = calls
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c["name"].as_str())
            .collect::<Vec<_>>()
            .join(", ");
        let script = script.display().to_string();
        self.run_mock(
            &label,
            &["--tool-calls", &script],
            "Please make the planned changes to this project.",
            env,
        )
    }

    fn run_mock(
        &self,
        tool_command: &str,
        mock_args: &[&str],
        prompt: &str,
        env: &[(&str, &str)],
    ) -> Run<'_> {
        self.runs.set(self.runs.get() + 1);
        let log = self.scratch.join(format!("mock-{}.jsonl", self.runs.get()));
        let mut cmd = self.command(Path::new("bash"));
        cmd.arg(scripts_dir().join("run-in-netns.sh"))
            .arg(scripts_dir().join(self.harness.mock()))
            .args(mock_args)
            .arg("--log")
            .arg(&log)
            .arg("--")
            .arg(&self.cli)
            .env("MOCK_PORT", MOCK_PORT.to_string())
            .env("AGENT_GUARD_E2E_TIMEOUT", CLI_TIMEOUT_SECS.to_string());
        self.harness.configure(&mut cmd, prompt, &self.dirs());
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
    pub(crate) fn guard(&self, args: &[&str]) -> std::process::Output {
        self.command(Path::new(env!("CARGO_BIN_EXE_agent-guard")))
            .args(args)
            .output()
            .unwrap()
    }

    /// The workspace's transactions (`agent-guard list --json`).
    pub(crate) fn transactions(&self) -> Vec<Value> {
        let output = self.guard(&["list", "--json"]);
        assert!(output.status.success(), "list --json: {output:?}");
        let list: Value = serde_json::from_slice(&output.stdout).unwrap();
        list["transactions"].as_array().cloned().unwrap_or_default()
    }
}

/// The conversation of a request: Anthropic and Chat `messages`, Responses `input`, Gemini
/// `contents`.
fn conversation(request: &Value) -> Vec<Value> {
    let body = &request["body"];
    body["messages"]
        .as_array()
        .or_else(|| body["input"].as_array())
        .or_else(|| body["contents"].as_array())
        .cloned()
        .unwrap_or_default()
}

/// `item` without the scripted tool call and its result, so that what is left is what the
/// harness added itself. A harness may replay the rewritten call (`echo '… txid …'`), which
/// must not count as context.
fn without_tool_traffic(item: &Value) -> Option<Value> {
    const TOOL_BLOCKS: [&str; 4] = [
        "tool_result",
        "tool_use",
        "functionCall",
        "functionResponse",
    ];
    let tool_item = matches!(
        item["type"].as_str(),
        Some(
            "function_call"
                | "function_call_output"
                | "custom_tool_call"
                | "custom_tool_call_output"
        )
    );
    if tool_item || item["role"] == "tool" {
        return None;
    }
    let mut item = item.clone();
    if let Some(object) = item.as_object_mut() {
        object.remove("tool_calls");
    }
    for key in ["content", "parts"] {
        if let Some(blocks) = item[key].as_array_mut() {
            blocks.retain(|block| {
                !TOOL_BLOCKS
                    .iter()
                    .any(|kind| block["type"] == *kind || block.get(*kind).is_some())
            });
        }
    }
    Some(item)
}

/// What one CLI run left behind.
pub(crate) struct Run<'a> {
    pub(crate) scenario: &'a Scenario,
    tool_command: String,
    env: String,
    pub(crate) exit: Option<i32>,
    timed_out: bool,
    pub(crate) elapsed: Duration,
    stdout: String,
    stderr: String,
    /// The mock's log: one object per request.
    requests: Vec<Value>,
}

impl Run<'_> {
    /// Requests the mock answered with the scripted tool call.
    pub(crate) fn tool_call_requests(&self) -> usize {
        self.requests
            .iter()
            .filter(|r| r["answer"].as_str().is_some_and(|a| a.starts_with("tool")))
            .count()
    }

    /// The tool results the CLI sent back for the scripted call (content, `is_error`).
    pub(crate) fn tool_results(&self) -> Vec<(String, bool)> {
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

    /// Every tool result the CLI sent back, for any call (id, content, `is_error`), once each.
    pub(crate) fn all_tool_results(&self) -> Vec<(String, String, bool)> {
        let mut seen = Vec::new();
        for request in &self.requests {
            for result in request["tool_results"].as_array().into_iter().flatten() {
                let id = result["tool_use_id"]
                    .as_str()
                    .or_else(|| result["call_id"].as_str())
                    .unwrap_or_default()
                    .to_owned();
                let content = result["content"].as_str().unwrap_or_default().to_owned();
                let is_error = result["is_error"].as_bool().unwrap_or(false);
                let entry = (id, content, is_error);
                if !seen.contains(&entry) {
                    seen.push(entry);
                }
            }
        }
        seen
    }

    /// Whether any request mentions `needle` outside the tool calls and their results
    /// (context the harness added from the hook).
    pub(crate) fn any_context_mentions(&self, needle: &str) -> bool {
        self.requests.iter().any(|request| {
            conversation(request)
                .iter()
                .filter_map(without_tool_traffic)
                .any(|item| item.to_string().contains(needle))
        })
    }

    /// Whether the request that carried the tool result mentions `needle` outside the tool
    /// call and its result, i.e. in context the harness added from the hook.
    pub(crate) fn context_mentions(&self, needle: &str) -> bool {
        let Some(request) = self.requests.iter().find(|r| r["answer"] == "final") else {
            return false;
        };
        conversation(request)
            .iter()
            .filter_map(without_tool_traffic)
            .any(|item| item.to_string().contains(needle))
    }

    /// The one tool result the model got back; panics with the report if there is none.
    pub(crate) fn tool_result(&self) -> (String, bool) {
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
    pub(crate) fn report(&self) -> String {
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
            let items = conversation(request);
            let id = s.harness.tool_call_id();
            let from = items.iter().position(|item| item.to_string().contains(id));
            for item in items.iter().skip(from.unwrap_or(items.len())) {
                let text = item.to_string();
                let cut: String = text.chars().take(2000).collect();
                let _ = writeln!(out, "   conversation: {cut}");
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
                fs::read_to_string(s.dirs().codex_home().join("config.toml")).unwrap_or_default()
            );
        }
        for (index, call) in s.hook_calls().iter().enumerate() {
            let _ = writeln!(out, "----- hook call #{}: {call:?}", index + 1);
        }
        let audit = s.store().join("audit.jsonl");
        let _ = writeln!(
            out,
            "----- {}\n{}",
            audit.display(),
            fs::read_to_string(&audit).unwrap_or_else(|e| e.to_string())
        );
        out
    }
}

/// Reports the timing of a run on stderr (shown with `--nocapture`).
pub(crate) fn timing(run: &Run<'_>, label: &str) {
    eprintln!(
        "{} {label}: {:.1?}",
        run.scenario.harness.name(),
        run.elapsed
    );
}
