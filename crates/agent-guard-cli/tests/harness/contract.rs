//! The payload contract of the hook launcher (issue 35, point 7), for every harness whose hook
//! is a command, and in particular for those with no CLI to run here (Cursor, Cline, Windsurf:
//! not in the npm registry, nor runnable offline).
//!
//! Each test installs the harness's hook the way a user does (`agent-guard install <harness>
//! --project`), then runs **the command install wrote** (Cline: the hook file itself) the way
//! the harness runs it — `sh -c`, that harness's own payload on stdin, in the workspace — with
//! the guard it names replaced by one that cannot answer: missing, not executable, exiting 1,
//! killed by `SIGSEGV` or `SIGKILL`, hanging. Every time the reply must be what that harness
//! reads as a block (`docs/hooks.md`, "Per harness": the exit code and the JSON field it
//! checks), name `HOOK_GUARD_UNAVAILABLE`, and have the exact shape of the real guard's own deny
//! (the same exit code, the same JSON keys and value types), so that a harness that honours the
//! guard's deny honours the launcher's too. A control runs the healthy guard: `ls` is allowed.
//!
//! These run in the ordinary `cargo test` (no CLI, no namespace needed); the end-to-end proof
//! with the real CLIs is `fail_closed` (`--ignored`).

use std::fs;
use std::io::Write as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The launcher's timeout as install writes it, and the one the hang case runs with (the
/// script is the same; only the wait is shorter).
const INSTALLED_TIMEOUT: &str = " --timeout 25 ";
const SHORT_TIMEOUT: &str = " --timeout 2 ";

/// How a harness reads a hook's reply as a block, per `docs/hooks.md`.
#[derive(Debug, Clone, Copy)]
enum Block {
    /// Exit 0, JSON on stdout with this field (a path of keys) equal to this value.
    Json(&'static [&'static str], &'static str),
    /// Exit 0, JSON on stdout with this boolean field true.
    JsonTrue(&'static str),
    /// Exit 2 with the reason on stderr (Codex, Windsurf).
    Exit2,
}

fn block(harness: &str) -> Block {
    match harness {
        "claude-code" | "qwen-code" => {
            Block::Json(&["hookSpecificOutput", "permissionDecision"], "deny")
        }
        "gemini" => Block::Json(&["decision"], "deny"),
        "copilot" => Block::Json(&["permissionDecision"], "deny"),
        "cursor" => Block::Json(&["permission"], "deny"),
        "cline" => Block::JsonTrue("cancel"),
        "codex" | "windsurf" => Block::Exit2,
        other => unreachable!("{other}"),
    }
}

/// The payload `harness` sends its pre-tool hook for the shell command `command` in `cwd`.
fn payload(harness: &str, command: &str, cwd: &Path) -> Value {
    let cwd = cwd.display().to_string();
    match harness {
        "claude-code" => json!({"session_id": "s", "transcript_path": null, "cwd": cwd,
            "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": command}, "tool_use_id": "toolu_01"}),
        "codex" => json!({"session_id": "s", "turn_id": "t", "transcript_path": null,
            "cwd": cwd, "hook_event_name": "PreToolUse", "model": "m",
            "permission_mode": "default", "tool_name": "Bash",
            "tool_input": {"command": command}, "tool_use_id": "call_01"}),
        "gemini" => json!({"session_id": "s", "transcript_path": null, "cwd": cwd,
            "hook_event_name": "BeforeTool", "timestamp": "2026-12-01T00:00:00Z",
            "tool_name": "run_shell_command", "tool_input": {"command": command}}),
        "copilot" => json!({"sessionId": "s", "timestamp": 1_764_496_800_000_u64, "cwd": cwd,
            "toolName": "bash", "toolArgs": json!({"command": command}).to_string()}),
        "qwen-code" => json!({"session_id": "s", "transcript_path": null, "cwd": cwd,
            "hook_event_name": "PreToolUse", "timestamp": "2026-12-01T00:00:00Z",
            "permission_mode": "default", "tool_name": "run_shell_command",
            "tool_input": {"command": command}, "tool_use_id": "toolu_01",
            "tool_call_id": "call_01"}),
        "cursor" => json!({"conversation_id": "c", "generation_id": "g", "model": "m",
            "hook_event_name": "beforeShellExecution", "cursor_version": "1.7.0",
            "workspace_roots": [cwd], "user_email": null, "command": command, "cwd": cwd}),
        "cline" => json!({"clineVersion": "3.36.0", "hookName": "PreToolUse",
            "timestamp": "2026-12-01T00:00:00Z", "taskId": "t", "workspaceRoots": [cwd],
            "userId": "u", "preToolUse": {"toolName": "execute_command",
            "parameters": {"command": command, "requires_approval": "false"}}}),
        "windsurf" => json!({"agent_action_name": "pre_run_command", "trajectory_id": "t",
            "execution_id": "e", "timestamp": "2026-12-01T00:00:00Z",
            "tool_info": {"command_line": command, "cwd": cwd}}),
        other => unreachable!("{other}"),
    }
}

/// What a hook run printed and how it exited.
#[derive(Debug)]
struct Reply {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

impl Reply {
    fn json(&self) -> Option<Value> {
        serde_json::from_str(self.stdout.trim()).ok()
    }

    /// Whether `harness` reads this reply as a block.
    fn blocks(&self, harness: &str) -> bool {
        match block(harness) {
            Block::Exit2 => self.code == Some(2) && !self.stderr.trim().is_empty(),
            Block::Json(path, value) => {
                self.code == Some(0)
                    && self
                        .json()
                        .is_some_and(|reply| path.iter().fold(&reply, |v, key| &v[*key]) == value)
            }
            Block::JsonTrue(field) => {
                self.code == Some(0) && self.json().is_some_and(|reply| reply[field] == true)
            }
        }
    }
}

/// The keys and value types of a JSON value, recursively: the shape a harness parses.
fn shape(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, value)| (key.clone(), shape(value)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(shape).collect()),
        Value::String(_) => json!("string"),
        Value::Number(_) => json!("number"),
        Value::Bool(_) => json!("bool"),
        Value::Null => json!("null"),
    }
}

/// A workspace with agent-guard's hook installed into `harness`'s project config.
struct Installed {
    harness: &'static str,
    _root: tempfile::TempDir,
    ws: PathBuf,
    home: PathBuf,
    state: PathBuf,
    /// The guard the installed hook runs (a copy of the built binary; replaced per case).
    guard: PathBuf,
    /// The hook as the harness runs it: a command line for `sh -c`, or (Cline) the file.
    hook: Hook,
}

enum Hook {
    Command(String),
    File(PathBuf),
}

/// Spawns `command` with its output piped. A file just written (the guard's copy, a script)
/// cannot be executed while another test thread's fork still holds it open for writing
/// (`ETXTBSY`, until that child execs): that is retried.
fn spawn(command: &mut Command, stdin: Stdio) -> std::process::Child {
    command
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut tries = 0;
    loop {
        match command.spawn() {
            Err(error) if error.kind() == std::io::ErrorKind::ExecutableFileBusy && tries < 100 => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(20));
            }
            spawned => return spawned.unwrap(),
        }
    }
}

/// Every string in `value` that is an agent-guard hook command.
fn hook_commands(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(text) if text.contains(" check --enforce --harness ") => {
            out.push(text.clone());
        }
        Value::Object(map) => map.values().for_each(|v| hook_commands(v, out)),
        Value::Array(items) => items.iter().for_each(|v| hook_commands(v, out)),
        _ => {}
    }
}

impl Installed {
    fn new(harness: &'static str) -> Installed {
        let root = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(root.path()).unwrap();
        let (ws, home, state) = (base.join("ws"), base.join("home"), base.join("state"));
        let bin = base.join("bin");
        for dir in [&ws, &home, &state, &bin] {
            fs::create_dir_all(dir).unwrap();
        }
        // Copilot CLI runs a repository's hooks only in a folder it trusts (install fails
        // otherwise): the user's step, done first.
        fs::create_dir_all(home.join(".copilot")).unwrap();
        fs::write(
            home.join(".copilot/config.json"),
            json!({"trustedFolders": [ws]}).to_string(),
        )
        .unwrap();
        let guard = bin.join("agent-guard");
        fs::copy(env!("CARGO_BIN_EXE_agent-guard"), &guard).unwrap();
        let mut installed = Installed {
            harness,
            _root: root,
            ws,
            home,
            state,
            guard,
            hook: Hook::Command(String::new()),
        };
        let mut install = installed.command(Command::new(&installed.guard));
        install.args(["install", harness, "--project"]);
        let output = spawn(&mut install, Stdio::null())
            .wait_with_output()
            .unwrap();
        assert!(
            output.status.success(),
            "install {harness}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        installed.hook = if harness == "cline" {
            Hook::File(installed.ws.join(".clinerules/hooks/PreToolUse"))
        } else {
            let config = match harness {
                "claude-code" => ".claude/settings.json",
                "codex" => ".codex/hooks.json",
                "gemini" => ".gemini/settings.json",
                "copilot" => ".github/hooks/agent-guard.json",
                "qwen-code" => ".qwen/settings.json",
                "cursor" => ".cursor/hooks.json",
                "windsurf" => ".windsurf/hooks.json",
                other => unreachable!("{other}"),
            };
            let doc: Value =
                serde_json::from_str(&fs::read_to_string(installed.ws.join(config)).unwrap())
                    .unwrap();
            let mut commands = Vec::new();
            hook_commands(&doc, &mut commands);
            commands.dedup();
            assert_eq!(commands.len(), 1, "{harness}: {doc:#}");
            Hook::Command(commands.remove(0))
        };
        installed
    }

    /// The hook's environment: the user's, nothing of the test's own.
    fn command(&self, mut command: Command) -> Command {
        command
            .env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("HOME", &self.home)
            .env("XDG_STATE_HOME", &self.state)
            .env("XDG_DATA_HOME", self.state.join("data"))
            .env("XDG_CONFIG_HOME", self.home.join(".config"))
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .current_dir(&self.ws);
        command
    }

    /// The installed hook's command line (Cline: the `exec` line of its file).
    fn command_line(&self) -> String {
        match &self.hook {
            Hook::Command(line) => line.clone(),
            Hook::File(path) => fs::read_to_string(path)
                .unwrap()
                .lines()
                .find_map(|line| line.strip_prefix("exec "))
                .unwrap()
                .to_owned(),
        }
    }

    /// Runs the hook as the harness does, on the payload for `tool_command`; `short`: with
    /// the launcher's timeout shortened (the hang case).
    fn run(&self, tool_command: &str, short: bool) -> Reply {
        let mut command = if let (Hook::File(path), false) = (&self.hook, short) {
            self.command(Command::new(path))
        } else {
            let line = self.command_line();
            assert!(line.contains(INSTALLED_TIMEOUT), "{line}");
            let line = if short {
                line.replace(INSTALLED_TIMEOUT, SHORT_TIMEOUT)
            } else {
                line
            };
            let mut sh = self.command(Command::new("sh"));
            sh.arg("-c").arg(line);
            sh
        };
        let payload = payload(self.harness, tool_command, &self.ws);
        let started = Instant::now();
        let mut child = spawn(&mut command, Stdio::piped());
        // A guard that never reads its input may close the pipe first.
        let _ = child
            .stdin
            .take()
            .unwrap()
            .write_all(payload.to_string().as_bytes());
        let output = child.wait_with_output().unwrap();
        Reply {
            code: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            elapsed: started.elapsed(),
        }
    }

    /// Replaces the guard the hook names: `None` removes it.
    fn replace_guard(&self, script: Option<&str>, mode: u32) {
        let _ = fs::remove_file(&self.guard);
        if let Some(script) = script {
            fs::write(&self.guard, script).unwrap();
            fs::set_permissions(&self.guard, fs::Permissions::from_mode(mode)).unwrap();
        }
    }
}

/// The guards that cannot answer: name, script (`None`: missing), mode, whether the launcher's
/// timeout decides it.
const FAULTS: &[(&str, Option<&str>, u32, bool)] = &[
    ("missing", None, 0, false),
    ("not executable", Some("#!/bin/sh\nexit 0\n"), 0o644, false),
    (
        "exit 1",
        Some("#!/bin/sh\ncat >/dev/null\necho 'simulated crash' >&2\nexit 1\n"),
        0o755,
        false,
    ),
    (
        "SIGSEGV",
        Some("#!/bin/sh\ncat >/dev/null\nkill -SEGV $$\n"),
        0o755,
        false,
    ),
    (
        "SIGKILL",
        Some("#!/bin/sh\ncat >/dev/null\nkill -KILL $$\n"),
        0o755,
        false,
    ),
    (
        "hang",
        Some("#!/bin/sh\ncat >/dev/null\nexec sleep 60\n"),
        0o755,
        true,
    ),
];

/// The contract for one harness: the healthy guard's replies first (the reference), then each
/// fault through the same installed hook.
fn launcher_deny_is_the_harness_block(harness: &'static str) {
    let installed = Installed::new(harness);
    let line = installed.command_line();
    assert!(
        line.contains("agent-guard-hook' --timeout 25 '"),
        "{harness}: the hook runs through the launcher: {line}"
    );

    // Control: the healthy guard lets `ls` through (not a block), and denies `rm -rf /`.
    let allowed = installed.run("ls", false);
    assert!(
        !allowed.blocks(harness) && allowed.code == Some(0),
        "{harness}: the healthy guard should allow `ls`: {allowed:?}"
    );
    let reference = installed.run("rm -rf /", false);
    assert!(
        reference.blocks(harness),
        "{harness}: the guard's own deny is not read as a block: {reference:?}"
    );
    let reference_shape = reference.json().as_ref().map(shape);

    for (case, script, mode, timed) in FAULTS {
        installed.replace_guard(*script, *mode);
        let reply = installed.run("rm -rf build", *timed);
        let label = format!("{harness}, guard {case}");
        assert!(
            reply.blocks(harness),
            "{label}: not read as a block: {reply:?}"
        );
        assert!(
            format!("{}{}", reply.stdout, reply.stderr)
                .contains("[agent-guard] BLOCKED [HOOK_GUARD_UNAVAILABLE]"),
            "{label}: {reply:?}"
        );
        assert_eq!(
            reply.code, reference.code,
            "{label}: exit code differs from the guard's own deny"
        );
        assert_eq!(
            reply.json().as_ref().map(shape),
            reference_shape,
            "{label}: the reply's shape differs from the guard's own deny: {reply:?} vs {reference:?}"
        );
        assert_eq!(
            reply.stderr.trim().is_empty(),
            reference.stderr.trim().is_empty(),
            "{label}: the guard mirrors its reason on stderr, the launcher must too: {reply:?}"
        );
        assert!(
            !reply.stderr.contains("Segmentation fault") && !reply.stderr.contains("Killed"),
            "{label}: the shell's report of the crash is not part of the reason: {reply:?}"
        );
        if *timed {
            assert!(
                reply.elapsed >= Duration::from_secs(2) && reply.elapsed < Duration::from_secs(15),
                "{label}: the launcher's timeout decided it: {reply:?}"
            );
        }
    }
}

/// The launcher's own timeout stays below the harness's where install sets one (Cursor
/// `timeout: 30`), so a guard that hangs is the launcher's deny, not the harness's timeout.
#[test]
fn cursor_times_out_after_the_launcher() {
    let installed = Installed::new("cursor");
    let doc: Value =
        serde_json::from_str(&fs::read_to_string(installed.ws.join(".cursor/hooks.json")).unwrap())
            .unwrap();
    let entry = &doc["hooks"]["beforeShellExecution"][0];
    assert_eq!(entry["timeout"], 30, "{doc:#}");
    assert_eq!(entry["failClosed"], true, "{doc:#}");
    assert!(installed.command_line().contains(INSTALLED_TIMEOUT));
}

macro_rules! contract {
    ($($name:ident => $harness:literal),* $(,)?) => {$(
        #[test]
        fn $name() {
            launcher_deny_is_the_harness_block($harness);
        }
    )*};
}

contract! {
    cursor_reads_the_launcher_deny_as_a_block => "cursor",
    cline_reads_the_launcher_deny_as_a_block => "cline",
    windsurf_reads_the_launcher_deny_as_a_block => "windsurf",
    claude_code_reads_the_launcher_deny_as_a_block => "claude-code",
    codex_reads_the_launcher_deny_as_a_block => "codex",
    gemini_reads_the_launcher_deny_as_a_block => "gemini",
    copilot_reads_the_launcher_deny_as_a_block => "copilot",
    qwen_code_reads_the_launcher_deny_as_a_block => "qwen-code",
}
