//! Hook mode end to end: `agent-guard check --enforce --harness NAME` with each harness's
//! payload on stdin, the real binary and real temporary workspaces.
//!
//! Every reply is checked against the harness's own rule for what blocks ([`blocks`]), asks
//! ([`asks`]) and proceeds ([`proceeds`]); no run may exit 1 or 101.

use std::path::Path;
use std::process::Output;

use serde_json::{Value, json};

use crate::support::{TestEnv, snapshot, tree};

/// A shell-call payload of `harness` whose command is `command` (any JSON, `None` = absent),
/// run in `cwd`.
pub(crate) fn shell_payload(harness: &str, command: Option<Value>, cwd: &Path) -> Value {
    let cwd = cwd.to_str().unwrap();
    let mut payload = match harness {
        "claude-code" => json!({"session_id": "abc123", "transcript_path": "/t.jsonl",
            "cwd": cwd, "permission_mode": "default", "hook_event_name": "PreToolUse",
            "tool_name": "Bash", "tool_input": {"description": "clean"},
            "tool_use_id": "toolu_01XYZ"}),
        "codex" => json!({"session_id": "0199", "turn_id": "t-7", "transcript_path": null,
            "cwd": cwd, "hook_event_name": "PreToolUse", "model": "gpt-5-codex",
            "permission_mode": "default", "tool_name": "Bash", "tool_input": {},
            "tool_use_id": "call_abc"}),
        "gemini" => json!({"session_id": "s1", "transcript_path": "/t.json", "cwd": cwd,
            "hook_event_name": "BeforeTool", "timestamp": "2026-11-30T10:00:00Z",
            "tool_name": "run_shell_command", "tool_input": {"description": "clean"}}),
        "copilot" => json!({"sessionId": "s1", "timestamp": 1_764_496_800_000_u64,
            "cwd": cwd, "toolName": "bash", "toolArgs": {"description": "clean"}}),
        "cursor" => json!({"conversation_id": "c-1", "generation_id": "g-9",
            "model": "claude-sonnet", "hook_event_name": "beforeShellExecution",
            "cursor_version": "2.0.77", "workspace_roots": [cwd], "user_email": null,
            "cwd": cwd}),
        "cline" => json!({"clineVersion": "3.x", "hookName": "PreToolUse", "timestamp": "t",
            "taskId": "t1", "workspaceRoots": [cwd], "userId": "u",
            "preToolUse": {"toolName": "execute_command", "parameters": {}}}),
        "windsurf" => json!({"agent_action_name": "pre_run_command", "trajectory_id": "tr-1",
            "execution_id": "ex-1", "timestamp": "t", "tool_info": {"cwd": cwd}}),
        // As Qwen Code 0.24.4 sends it.
        "qwen-code" => json!({"session_id": "b95d", "transcript_path": "/t.jsonl", "cwd": cwd,
            "hook_event_name": "PreToolUse", "timestamp": "2026-12-01T11:30:19.005Z",
            "permission_mode": "yolo", "tool_name": "run_shell_command", "tool_input": {},
            "tool_use_id": "toolu_1796124619004_pwornfj5o", "tool_call_id": "call_mock_01"}),
        // As agent-guard's OpenCode plugin sends it.
        "opencode" => json!({"hook_event_name": "tool.execute.before", "tool": "bash",
            "sessionID": "ses_1", "callID": "call_1", "args": {}, "directory": cwd,
            "worktree": cwd}),
        "generic" => json!({"cwd": cwd}),
        other => panic!("unknown harness {other}"),
    };
    if let Some(command) = command {
        *command_slot(harness, &mut payload) = command;
    }
    payload
}

/// Where `harness` carries the command.
fn command_slot<'a>(harness: &str, payload: &'a mut Value) -> &'a mut Value {
    match harness {
        "claude-code" | "codex" | "gemini" | "qwen-code" => &mut payload["tool_input"]["command"],
        "opencode" => &mut payload["args"]["command"],
        "copilot" => &mut payload["toolArgs"]["command"],
        "cline" => &mut payload["preToolUse"]["parameters"]["command"],
        "windsurf" => &mut payload["tool_info"]["command_line"],
        _ => &mut payload["command"],
    }
}

/// A payload for a tool that neither runs a command nor writes files (`None` for `generic`,
/// which has none). File-writing tools are `tests/it/edits.rs`'s.
fn not_shell_payload(harness: &str, cwd: &Path) -> Option<Value> {
    let mut payload = shell_payload(harness, Some(json!("rm -rf build")), cwd);
    match harness {
        "claude-code" | "codex" => {
            payload["tool_name"] = json!("Read");
            payload["tool_input"] = json!({"file_path": "build/x", "command": "rm -rf build"});
        }
        "gemini" | "qwen-code" => payload["tool_name"] = json!("read_file"),
        "copilot" => payload["toolName"] = json!("view"),
        "cursor" => payload["hook_event_name"] = json!("beforeReadFile"),
        "cline" => payload["preToolUse"]["toolName"] = json!("read_file"),
        "windsurf" => payload["agent_action_name"] = json!("pre_read_code"),
        "opencode" => payload["tool"] = json!("read"),
        _ => return None,
    }
    Some(payload)
}

/// Runs hook mode with `stdin`; asserts the exit code is never 1 or 101.
pub(crate) fn hook(env: &TestEnv, harness: &str, stdin: &[u8], vars: &[(&str, &str)]) -> Output {
    hook_args(
        env,
        &["check", "--enforce", "--harness", harness],
        stdin,
        vars,
    )
}

fn hook_args(env: &TestEnv, args: &[&str], stdin: &[u8], vars: &[(&str, &str)]) -> Output {
    let mut cmd = env.cmd("agent-guard");
    cmd.args(args).write_stdin(stdin.to_vec());
    for (name, value) in vars {
        cmd.env(name, value);
    }
    let output = cmd.output().unwrap();
    let code = output.status.code();
    assert!(
        matches!(code, Some(0 | 2 | 3)),
        "hook mode exited {code:?}: {output:?}"
    );
    output
}

pub(crate) fn run_payload(env: &TestEnv, harness: &str, payload: &Value) -> Output {
    hook(env, harness, payload.to_string().as_bytes(), &[])
}

fn stdout_json(output: &Output) -> Option<Value> {
    serde_json::from_slice(&output.stdout).ok()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn non_empty(bytes: &[u8]) -> bool {
    !text(bytes).trim().is_empty()
}

/// Whether `output` blocks the tool call by `harness`'s own rules.
pub(crate) fn blocks(harness: &str, output: &Output) -> bool {
    let code = output.status.code();
    let json = stdout_json(output).unwrap_or(Value::Null);
    let hook_specific = &json["hookSpecificOutput"];
    let has_reason = |value: &Value| value.as_str().is_some_and(|r| !r.trim().is_empty());
    match harness {
        // Exit 2 blocks (stderr to Claude); exit 0 parses the JSON decision.
        "claude-code" => {
            code == Some(2) || (code == Some(0) && hook_specific["permissionDecision"] == "deny")
        }
        // Exit 2 blocks only with a non-empty stderr; a JSON deny needs a non-empty reason.
        "codex" => {
            (code == Some(2) && non_empty(&output.stderr))
                || (code == Some(0)
                    && hook_specific["permissionDecision"] == "deny"
                    && has_reason(&hook_specific["permissionDecisionReason"]))
        }
        "gemini" => {
            code == Some(2)
                || (code == Some(0) && matches!(json["decision"].as_str(), Some("deny" | "block")))
        }
        // Only exit 0 with JSON counts: a non-zero exit is skipped (the tool runs).
        "copilot" => code == Some(0) && json["permissionDecision"] == "deny",
        "cursor" => code == Some(2) || (code == Some(0) && json["permission"] == "deny"),
        "cline" => code == Some(0) && json["cancel"] == true,
        // No JSON decision: exit 2 is the only block.
        "windsurf" => code == Some(2),
        // Exit 2 blocks only with a non-empty stderr (it is the reason); exit 0 parses either
        // JSON decision.
        "qwen-code" => {
            (code == Some(2) && non_empty(&output.stderr))
                || (code == Some(0)
                    && (hook_specific["permissionDecision"] == "deny"
                        || matches!(json["decision"].as_str(), Some("deny" | "block"))))
        }
        // The plugin runs the call only on exit 0 with an explicit allow.
        "opencode" => !(code == Some(0) && json["decision"] == "allow"),
        "generic" => code == Some(2) && json["decision"] == "BLOCK",
        other => panic!("unknown harness {other}"),
    }
}

/// Whether `output` puts the call to a human (natively), or, where the harness cannot ask,
/// blocks it telling the agent to ask the user.
pub(crate) fn asks(harness: &str, output: &Output) -> bool {
    let json = stdout_json(output).unwrap_or(Value::Null);
    let code = output.status.code();
    match harness {
        "claude-code" => {
            code == Some(0) && json["hookSpecificOutput"]["permissionDecision"] == "ask"
        }
        "copilot" => code == Some(0) && json["permissionDecision"] == "ask",
        "cursor" => code == Some(0) && json["permission"] == "ask",
        "qwen-code" => code == Some(0) && json["hookSpecificOutput"]["permissionDecision"] == "ask",
        "generic" => code == Some(3) && json["decision"] == "ASK",
        _ => blocks(harness, output) && reply_text(output).contains("ask the user"),
    }
}

/// Whether `output` lets the call proceed by `harness`'s rules.
pub(crate) fn proceeds(harness: &str, output: &Output) -> bool {
    let code = output.status.code();
    let json = stdout_json(output);
    let silent = output.stdout.is_empty();
    match (harness, code, json) {
        (_, Some(0), _) if silent && !matches!(harness, "generic" | "opencode") => true,
        ("claude-code" | "codex", Some(0), Some(json)) => {
            let decision = &json["hookSpecificOutput"]["permissionDecision"];
            decision.is_null() || *decision == "allow"
        }
        ("gemini", Some(0), Some(json)) => {
            json["decision"].is_null() || json["decision"] == "allow"
        }
        ("qwen-code", Some(0), Some(json)) => {
            let decision = &json["hookSpecificOutput"]["permissionDecision"];
            (decision.is_null() || *decision == "allow")
                && (json["decision"].is_null() || json["decision"] == "allow")
        }
        ("opencode", Some(0), Some(json)) => json["decision"] == "allow",
        // No decision: Copilot's own permission flow decides (an edit after preservation).
        ("copilot", Some(0), Some(json)) => {
            json["permissionDecision"].is_null() || json["permissionDecision"] == "allow"
        }
        ("cursor", Some(0), Some(json)) => json["permission"] == "allow",
        ("cline", Some(0), Some(json)) => json["cancel"] == false,
        ("windsurf", Some(0), _) => true,
        ("generic", Some(0), Some(json)) => json["decision"] == "ALLOW",
        _ => false,
    }
}

/// Everything the reply says (stdout and stderr).
pub(crate) fn reply_text(output: &Output) -> String {
    format!("{}\n{}", text(&output.stdout), text(&output.stderr))
}

/// Where the agent reads what happened after a compensation, per harness.
pub(crate) fn context(harness: &str, output: &Output) -> String {
    let json = stdout_json(output).unwrap_or(Value::Null);
    let field = match harness {
        "claude-code" | "codex" => json["hookSpecificOutput"]["additionalContext"].clone(),
        // A fully compensated single delete is a deny whose reason is the note (see
        // `compensated`); anything else carries the note as context.
        "qwen-code" => match &json["hookSpecificOutput"]["permissionDecision"] {
            decision if *decision == "deny" => {
                json["hookSpecificOutput"]["permissionDecisionReason"].clone()
            }
            _ => json["hookSpecificOutput"]["additionalContext"].clone(),
        },
        "opencode" => json["context"].clone(),
        "gemini" => json["systemMessage"].clone(),
        "copilot" => json["additionalContext"].clone(),
        "cursor" => json["agent_message"].clone(),
        "cline" => json["contextModification"].clone(),
        "generic" => json["message"].clone(),
        _ => return text(&output.stdout),
    };
    field.as_str().unwrap_or_default().to_owned()
}

/// The txid of the first `agent-guard restore <txid>` in `text`.
pub(crate) fn restore_txid(text: &str) -> Option<String> {
    let (_, rest) = text.split_once("agent-guard restore ")?;
    let txid: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect();
    (!txid.is_empty()).then_some(txid)
}

fn deny(harness: &str) {
    let env = TestEnv::new();
    std::fs::write(env.fixture.outside.join("keep.txt"), "keep\n").unwrap();
    let before = (snapshot(env.ws(), &["*"]), tree(&env.fixture.outside));
    let payload = shell_payload(harness, Some(json!("rm -rf ../outside")), env.ws());
    let output = run_payload(&env, harness, &payload);
    assert!(blocks(harness, &output), "{harness}: {output:?}");
    assert!(!proceeds(harness, &output), "{harness}: {output:?}");
    let said = reply_text(&output);
    assert!(said.contains("[agent-guard] BLOCKED [BLOCK_"), "{said}");
    assert!(
        !said.contains("rm -rf"),
        "the raw command is never echoed: {said}"
    );
    assert_eq!(
        (snapshot(env.ws(), &["*"]), tree(&env.fixture.outside)),
        before,
        "the target survives and nothing moved"
    );
}

fn ask(harness: &str) {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.ws().join("sub/build")).unwrap();
    env.write("sub/build/x.o", "x");
    let payload = shell_payload(harness, Some(json!("(cd sub && rm -rf build)")), env.ws());
    let output = run_payload(&env, harness, &payload);
    assert!(asks(harness, &output), "{harness}: {output:?}");
    assert!(!proceeds(harness, &output), "{harness}: {output:?}");
    assert!(reply_text(&output).contains("COMPOUND_CWD_DELETE"));
    assert!(env.ws().join("sub/build/x.o").exists(), "nothing moved");
}

/// Whether `output` answers a compensated call: it proceeds, or, for a fully compensated
/// single delete in Qwen Code (which has neither a rewrite nor context for the model), it
/// blocks the now pointless command with a reason that says the delete is done.
fn compensated(harness: &str, output: &Output) -> bool {
    proceeds(harness, output)
        || (harness == "qwen-code"
            && blocks(harness, output)
            && reply_text(output).contains("[agent-guard] DONE ["))
}

fn allow_after_compensation(harness: &str) {
    let env = TestEnv::new();
    let report = std::fs::read(env.ws().join("build/report.txt")).unwrap();
    let payload = shell_payload(harness, Some(json!("rm -r build")), env.ws());
    let output = run_payload(&env, harness, &payload);
    assert!(compensated(harness, &output), "{harness}: {output:?}");
    assert!(
        !env.ws().join("build").exists(),
        "build moved to the quarantine"
    );
    let told = context(harness, &output);
    let txid = restore_txid(&told).unwrap_or_else(|| panic!("{harness}: no txid in {told:?}"));
    env.ag_ok(&["restore", &txid]);
    assert_eq!(
        std::fs::read(env.ws().join("build/report.txt")).unwrap(),
        report
    );
}

fn not_shell(harness: &str) {
    let env = TestEnv::new();
    let before = tree(env.ws());
    let Some(payload) = not_shell_payload(harness, env.ws()) else {
        return;
    };
    let output = run_payload(&env, harness, &payload);
    assert!(proceeds(harness, &output), "{harness}: {output:?}");
    assert!(output.stderr.is_empty(), "silently: {output:?}");
    assert_eq!(tree(env.ws()), before, "nothing moved or created");
}

fn plain_allow(harness: &str) {
    let env = TestEnv::new();
    let before = tree(env.ws());
    let payload = shell_payload(harness, Some(json!("ls -la")), env.ws());
    let output = run_payload(&env, harness, &payload);
    assert!(proceeds(harness, &output), "{harness}: {output:?}");
    assert!(!blocks(harness, &output));
    assert_eq!(tree(env.ws()), before, "a no-op writes nothing");
}

fn malformed(harness: &str) {
    let env = TestEnv::new();
    let before = tree(env.ws());
    let ws = env.ws();
    let mut cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty stdin", Vec::new()),
        ("invalid JSON", b"{\"tool_name\": \"Bash\", ".to_vec()),
        ("not an object", b"[\"rm -rf build\"]".to_vec()),
        (
            "command is a number",
            shell_payload(harness, Some(json!(42)), ws)
                .to_string()
                .into_bytes(),
        ),
        (
            "command is an array",
            shell_payload(harness, Some(json!(["rm", "-rf", "build"])), ws)
                .to_string()
                .into_bytes(),
        ),
        (
            "missing command",
            shell_payload(harness, None, ws).to_string().into_bytes(),
        ),
        (
            "relative cwd",
            shell_payload(harness, Some(json!("rm -r build")), Path::new("ws"))
                .to_string()
                .into_bytes(),
        ),
    ];
    cases.push(("larger than 1 MiB", vec![b' '; (1 << 20) + 1]));
    for (what, stdin) in cases {
        let output = hook(&env, harness, &stdin, &[]);
        assert!(blocks(harness, &output), "{harness}, {what}: {output:?}");
        assert!(
            reply_text(&output).contains("HOOK_MALFORMED_PAYLOAD"),
            "{harness}, {what}: {output:?}"
        );
    }
    assert_eq!(tree(env.ws()), before, "nothing moved");
}

fn fault(harness: &str, fault: &str, vars: &[(&str, &str)], code: &str) {
    let env = TestEnv::new();
    let payload = shell_payload(harness, Some(json!("rm -r build")), env.ws());
    let mut all = vec![("AGENT_GUARD_FAULT", fault)];
    all.extend_from_slice(vars);
    let started = std::time::Instant::now();
    let output = hook(&env, harness, payload.to_string().as_bytes(), &all);
    assert!(blocks(harness, &output), "{harness}, {fault}: {output:?}");
    assert!(reply_text(&output).contains(code), "{output:?}");
    assert!(env.ws().join("build/report.txt").exists(), "nothing moved");
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
}

fn usage_error(harness: &str) {
    let env = TestEnv::new();
    for args in [
        &["check", "--harness", harness, "--bogus-flag"][..],
        &[
            "check",
            "--enforce",
            &format!("--harness={harness}"),
            "--",
            "ls",
        ][..],
        &["check", "--harness", harness, "--cwd", "/"][..],
    ] {
        let payload = shell_payload(harness, Some(json!("ls")), env.ws());
        let output = hook_args(&env, args, payload.to_string().as_bytes(), &[]);
        assert!(blocks(harness, &output), "{harness} {args:?}: {output:?}");
        assert!(
            reply_text(&output).contains("HOOK_USAGE_ERROR"),
            "{output:?}"
        );
    }
}

/// One module per harness, with the same cases.
macro_rules! per_harness {
    ($($module:ident => $name:literal),* $(,)?) => {$(
        mod $module {
            #[test]
            fn deny() {
                super::deny($name);
            }
            #[test]
            fn ask() {
                super::ask($name);
            }
            #[test]
            fn allow_after_compensation() {
                super::allow_after_compensation($name);
            }
            #[test]
            fn not_shell() {
                super::not_shell($name);
            }
            #[test]
            fn plain_allow() {
                super::plain_allow($name);
            }
            #[test]
            fn malformed() {
                super::malformed($name);
            }
            #[test]
            fn panic_is_a_deny() {
                super::fault($name, "hook-panic", &[], "HOOK_INTERNAL_ERROR");
            }
            #[test]
            fn deadline_is_a_deny() {
                super::fault(
                    $name,
                    "hook-stall",
                    &[("AGENT_GUARD_DEADLINE_MS", "200")],
                    "HOOK_DEADLINE_EXCEEDED",
                );
            }
            #[test]
            fn usage_error_is_a_deny() {
                super::usage_error($name);
            }
            #[test]
            fn an_approved_ask_runs_once() {
                crate::approve::an_approved_ask_runs_once($name);
            }
        }
    )*};
}

per_harness! {
    claude_code => "claude-code",
    codex => "codex",
    gemini => "gemini",
    copilot => "copilot",
    cursor => "cursor",
    cline => "cline",
    windsurf => "windsurf",
    qwen_code => "qwen-code",
    opencode => "opencode",
    generic => "generic",
}

#[test]
fn the_project_deadline_applies_without_the_variable() {
    let env = TestEnv::new();
    env.write(".agent-guard.toml", "[hook]\ndeadline_ms = 300\n");
    let payload = shell_payload("windsurf", Some(json!("rm -r build")), env.ws());
    let started = std::time::Instant::now();
    let output = hook(
        &env,
        "windsurf",
        payload.to_string().as_bytes(),
        &[("AGENT_GUARD_FAULT", "hook-stall")],
    );
    assert!(blocks("windsurf", &output), "{output:?}");
    assert!(text(&output.stderr).contains("300 ms"), "{output:?}");
    assert!(started.elapsed() < std::time::Duration::from_millis(4500));
}

#[test]
fn copilot_usage_error_is_json_with_exit_0() {
    let env = TestEnv::new();
    for bin in ["agent-guard", "check"] {
        let mut cmd = env.cmd(bin);
        if bin == "agent-guard" {
            cmd.arg("check");
        }
        let output = cmd
            .args(["--harness", "copilot", "--bogus-flag"])
            .write_stdin(Vec::new())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{bin}: {output:?}");
        let json = stdout_json(&output).unwrap();
        assert_eq!(json["permissionDecision"], "deny");
    }
}

#[test]
fn the_payload_cwd_resolves_targets_not_the_process_cwd() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.ws().join("sub/build")).unwrap();
    env.write("sub/build/x.o", "x");
    let payload = shell_payload(
        "claude-code",
        Some(json!("rm -r build")),
        &env.ws().join("sub"),
    );
    // The process runs in the workspace root, whose own build/ must not move.
    let output = run_payload(&env, "claude-code", &payload);
    assert!(proceeds("claude-code", &output), "{output:?}");
    assert!(!env.ws().join("sub/build").exists());
    assert!(env.ws().join("build/report.txt").exists());

    // And from an unrelated process directory.
    let payload = shell_payload("codex", Some(json!("rm -r build")), env.ws());
    let output = env
        .cmd("agent-guard")
        .args(["check", "--harness", "codex"])
        .current_dir(&env.fixture.home)
        .write_stdin(payload.to_string())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(!env.ws().join("build").exists());
}

#[test]
fn payload_dialect_fields_and_the_powershell_tool_select_the_dialect() {
    let command = json!("Remove-Item -Recurse build");
    for (harness, field) in [
        ("claude-code", "dialect"),
        ("cursor", "shell_dialect"),
        ("generic", "shellDialect"),
    ] {
        let env = TestEnv::new();
        let mut payload = shell_payload(harness, Some(command.clone()), env.ws());
        payload[field] = json!("powershell");
        let output = run_payload(&env, harness, &payload);
        assert!(proceeds(harness, &output), "{harness}: {output:?}");
        assert!(!env.ws().join("build").exists(), "{harness}: relocated");
    }
    // Copilot's `powershell` tool, with `toolArgs` as a JSON string.
    let env = TestEnv::new();
    let mut payload = shell_payload("copilot", None, env.ws());
    payload["toolName"] = json!("powershell");
    payload["toolArgs"] = json!(json!({"command": command}).to_string());
    let output = run_payload(&env, "copilot", &payload);
    assert!(proceeds("copilot", &output), "{output:?}");
    assert!(!env.ws().join("build").exists());
    // Without a dialect, the same line is a POSIX line that cannot be judged.
    let env = TestEnv::new();
    let payload = shell_payload("copilot", Some(command), env.ws());
    assert!(blocks("copilot", &run_payload(&env, "copilot", &payload)));
    assert!(env.ws().join("build").exists());
}

#[test]
fn an_unusable_payload_dialect_is_the_harness_deny() {
    for (dialect, code) in [
        (json!("klingon"), "BLOCK_DIALECT_UNKNOWN"),
        (json!("pwsh;cmd"), "BLOCK_DIALECT_INVALID"),
        (json!(7), "BLOCK_DIALECT_"),
    ] {
        for harness in ["copilot", "windsurf", "codex"] {
            let env = TestEnv::new();
            let mut payload = shell_payload(harness, Some(json!("ls")), env.ws());
            payload["dialect"] = dialect.clone();
            let output = run_payload(&env, harness, &payload);
            assert!(blocks(harness, &output), "{harness} {dialect}: {output:?}");
            assert!(reply_text(&output).contains(code), "{output:?}");
        }
    }
    // The flag outranks the payload.
    let env = TestEnv::new();
    let mut payload = shell_payload("claude-code", Some(json!("ls")), env.ws());
    payload["dialect"] = json!("klingon");
    let output = hook_args(
        &env,
        &["check", "--harness", "claude-code", "--dialect", "posix"],
        payload.to_string().as_bytes(),
        &[],
    );
    assert!(proceeds("claude-code", &output), "{output:?}");
}

#[test]
fn auto_detects_the_harness_and_an_explicit_name_wins() {
    let env = TestEnv::new();
    let payload = shell_payload("copilot", Some(json!("rm -rf ../outside")), env.ws());
    let output = run_payload(&env, "auto", &payload);
    assert!(blocks("copilot", &output), "{output:?}");
    let undetectable = hook(&env, "auto", br#"{"hello": "world"}"#, &[]);
    assert!(blocks("generic", &undetectable), "{undetectable:?}");
    // An unknown name is a deny, in the detected harness's form.
    let output = run_payload(&env, "copilot-cli", &payload);
    assert!(blocks("copilot", &output), "{output:?}");
    assert!(reply_text(&output).contains("HOOK_USAGE_ERROR"));
}

#[test]
fn a_compensated_single_rm_is_rewritten_to_announce_the_txid() {
    let env = TestEnv::new();
    let payload = shell_payload("claude-code", Some(json!("rm -r build")), env.ws());
    let output = run_payload(&env, "claude-code", &payload);
    let json = stdout_json(&output).unwrap();
    let rewritten = json["hookSpecificOutput"]["updatedInput"]["command"]
        .as_str()
        .unwrap();
    assert!(
        rewritten.starts_with("echo 'agent-guard: moved build"),
        "{rewritten}"
    );
    // The other tool input fields are kept.
    assert_eq!(
        json["hookSpecificOutput"]["updatedInput"]["description"],
        "clean"
    );
    let shell = std::process::Command::new("sh")
        .args(["-c", rewritten])
        .output()
        .unwrap();
    assert!(shell.status.success());
    assert!(restore_txid(&text(&shell.stdout)).is_some(), "{shell:?}");

    // A compound line is not rewritten.
    let env = TestEnv::new();
    let payload = shell_payload("codex", Some(json!("rm -r build && echo done")), env.ws());
    let output = run_payload(&env, "codex", &payload);
    let json = stdout_json(&output).unwrap();
    assert!(
        json["hookSpecificOutput"]["updatedInput"].is_null(),
        "{json}"
    );
    assert!(json["hookSpecificOutput"]["permissionDecision"].is_null());
    assert!(restore_txid(&context("codex", &output)).is_some());
}
