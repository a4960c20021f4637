//! Smoke tests of an installed hook: run it the way the harness does, with a synthetic
//! payload, and read the reply the way the harness reads it.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::entry::TIMEOUT_SECS;
use crate::harness::Harness;

/// How the harness would read the hook's reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Reply {
    /// The tool call is blocked.
    Deny,
    /// A human is asked.
    Ask,
    /// The tool call goes ahead.
    Allow,
    /// The harness would treat the reply as a hook failure (fail-open, mostly).
    Invalid(String),
}

/// What the hook process did.
#[derive(Debug, Clone)]
pub(crate) struct Outcome {
    pub(crate) code: Option<i32>,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

/// The payload `harness` sends its pre-tool hook for a shell `command` run in `cwd`.
pub(crate) fn payload(harness: Harness, command: &str, cwd: &Path) -> Value {
    let cwd = cwd.display().to_string();
    let now = "2026-11-30T10:00:00Z";
    match harness {
        Harness::ClaudeCode | Harness::Generic => json!({
            "session_id": "agent-guard-doctor", "transcript_path": null, "cwd": cwd,
            "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": command, "description": "agent-guard doctor"},
            "tool_use_id": "toolu_doctor"
        }),
        Harness::Codex => json!({
            "session_id": "agent-guard-doctor", "turn_id": "doctor", "transcript_path": null,
            "cwd": cwd, "hook_event_name": "PreToolUse", "model": "doctor",
            "permission_mode": "default", "tool_name": "Bash",
            "tool_input": {"command": command}, "tool_use_id": "call_doctor"
        }),
        Harness::Gemini => json!({
            "session_id": "agent-guard-doctor", "transcript_path": null, "cwd": cwd,
            "hook_event_name": "BeforeTool", "timestamp": now, "tool_name": "run_shell_command",
            "tool_input": {"command": command, "description": "agent-guard doctor", "directory": "."}
        }),
        Harness::Copilot => json!({
            "sessionId": "agent-guard-doctor", "timestamp": 1_764_496_800_000_u64, "cwd": cwd,
            "toolName": "bash", "toolArgs": json!({"command": command}).to_string()
        }),
        Harness::Cursor => json!({
            "conversation_id": "agent-guard-doctor", "generation_id": "doctor", "model": "doctor",
            "hook_event_name": "beforeShellExecution", "cursor_version": "doctor",
            "workspace_roots": [cwd], "user_email": null, "command": command, "cwd": cwd
        }),
        Harness::Cline => json!({
            "clineVersion": "doctor", "hookName": "PreToolUse", "timestamp": now,
            "taskId": "agent-guard-doctor", "workspaceRoots": [cwd], "userId": "doctor",
            "preToolUse": {"toolName": "execute_command", "parameters": {"command": command}}
        }),
        Harness::Windsurf => json!({
            "agent_action_name": "pre_run_command", "trajectory_id": "agent-guard-doctor",
            "execution_id": "doctor", "timestamp": now,
            "tool_info": {"command_line": command, "cwd": cwd}
        }),
        Harness::QwenCode => json!({
            "session_id": "agent-guard-doctor", "transcript_path": null, "cwd": cwd,
            "hook_event_name": "PreToolUse", "timestamp": now, "permission_mode": "default",
            "tool_name": "run_shell_command", "tool_input": {"command": command},
            "tool_use_id": "toolu_doctor", "tool_call_id": "call_doctor"
        }),
        // What agent-guard's own plugin sends.
        Harness::OpenCode => json!({
            "hook_event_name": "tool.execute.before", "tool": "bash",
            "sessionID": "agent-guard-doctor", "callID": "call_doctor",
            "args": {"command": command}, "directory": cwd, "worktree": cwd
        }),
    }
}

/// Runs a hook: `sh -c <command>` for JSON-configured harnesses, the script itself for
/// Cline. The guard's own state stays in temporary directories: `cwd` (a temporary
/// workspace) and `state` (`XDG_STATE_HOME` for its audit chain key, `XDG_DATA_HOME` for the
/// workspace's store) when given.
pub(crate) fn run(
    command: &str,
    script: Option<&Path>,
    payload: &Value,
    cwd: &Path,
    state: Option<&Path>,
) -> std::io::Result<Outcome> {
    let mut process = if let Some(path) = script {
        Command::new(path)
    } else {
        let mut sh = Command::new("sh");
        sh.arg("-c").arg(command);
        sh
    };
    if let Some(state) = state {
        process.env("XDG_STATE_HOME", state);
        process.env("XDG_DATA_HOME", state);
    }
    let mut child = process
        .current_dir(cwd)
        .env_remove("AGENT_GUARD_TRASH")
        .env_remove("AGENT_GUARD_WORKSPACE")
        .env_remove("AGENT_GUARD_FAULT")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    if let Some(mut stdin) = child.stdin.take() {
        // A hook that exits without reading its input is the harness's problem, not ours.
        let _ = stdin.write_all(payload.to_string().as_bytes());
    }
    let stdout = child.stdout.take().map(drain);
    let stderr = child.stderr.take().map(drain);
    let deadline = Instant::now() + Duration::from_secs(TIMEOUT_SECS);
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let collect = |handle: Option<std::thread::JoinHandle<String>>| {
        handle.and_then(|h| h.join().ok()).unwrap_or_default()
    };
    Ok(Outcome {
        code: status.and_then(|s| s.code()),
        stdout: collect(stdout),
        stderr: collect(stderr),
    })
}

fn drain(mut pipe: impl std::io::Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// Reads `outcome` as `harness` does (see `harness-hooks.md`, part B).
pub(crate) fn read(harness: Harness, outcome: &Outcome) -> Reply {
    let stderr_reason = !outcome.stderr.trim().is_empty();
    let json = || serde_json::from_str::<Value>(outcome.stdout.trim()).ok();
    let empty = outcome.stdout.trim().is_empty();
    if harness == Harness::OpenCode {
        // The plugin runs the call only on exit 0 with an explicit allow and throws otherwise.
        let allowed =
            outcome.code == Some(0) && json().is_some_and(|reply| reply["decision"] == "allow");
        return if allowed { Reply::Allow } else { Reply::Deny };
    }
    match (harness, outcome.code) {
        (_, None) => Reply::Invalid(format!("no exit status within {TIMEOUT_SECS} s")),
        // Copilot CLI 1.0.102 blocks on a non-zero exit, but older releases skip the hook and
        // run the command, and a reply is read only on exit 0: agent-guard never exits
        // non-zero for Copilot, so one that does is broken.
        (Harness::Copilot, Some(code)) if code != 0 => Reply::Invalid(format!(
            "exit {code}: Copilot CLI reads no reply then (older releases run the command)"
        )),
        (Harness::Cline, Some(code)) if code != 0 => Reply::Invalid(format!(
            "exit {code}: {harness} treats a non-zero exit as a failed hook and runs the command"
        )),
        (Harness::Codex, Some(2)) if !stderr_reason => Reply::Invalid(
            "exit 2 with empty stderr: Codex counts it as a failure, not a block".into(),
        ),
        (Harness::QwenCode, Some(2)) if !stderr_reason => Reply::Invalid(
            "exit 2 with empty stderr: Qwen Code reads no reply and runs the command".into(),
        ),
        (Harness::Windsurf, Some(0)) => Reply::Allow,
        (_, Some(2)) => Reply::Deny,
        (_, Some(0)) if empty => Reply::Allow,
        (_, Some(0)) => match json() {
            Some(reply) => read_json(harness, &reply),
            None => Reply::Invalid("stdout is not JSON".into()),
        },
        (_, Some(code)) => Reply::Invalid(format!(
            "exit {code}: {harness} treats it as a failed hook, not a block"
        )),
    }
}

fn read_json(harness: Harness, reply: &Value) -> Reply {
    let text = |value: &Value, key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
    let specific = reply.get("hookSpecificOutput").unwrap_or(&Value::Null);
    match harness {
        Harness::ClaudeCode | Harness::Codex | Harness::Generic => {
            if text(reply, "decision").as_deref() == Some("block") {
                return Reply::Deny;
            }
            let reason = text(specific, "permissionDecisionReason").unwrap_or_default();
            match text(specific, "permissionDecision").as_deref() {
                Some("deny") if harness == Harness::Codex && reason.trim().is_empty() => {
                    Reply::Invalid("a deny without a reason is invalid in Codex".into())
                }
                Some("deny") => Reply::Deny,
                Some("ask") if harness == Harness::Codex => {
                    Reply::Invalid("Codex does not support `ask` in PreToolUse".into())
                }
                Some("ask") => Reply::Ask,
                Some("allow")
                    if harness == Harness::Codex && specific.get("updatedInput").is_none() =>
                {
                    Reply::Invalid("Codex accepts `allow` only with `updatedInput`".into())
                }
                _ => Reply::Allow,
            }
        }
        Harness::Gemini => match text(reply, "decision").as_deref() {
            Some("deny" | "block") => Reply::Deny,
            _ => Reply::Allow,
        },
        Harness::Copilot => match text(reply, "permissionDecision").as_deref() {
            Some("deny") => Reply::Deny,
            Some("ask") => Reply::Ask,
            _ => Reply::Allow,
        },
        Harness::Cursor => match text(reply, "permission").as_deref() {
            Some("deny") => Reply::Deny,
            Some("ask") => Reply::Ask,
            _ => Reply::Allow,
        },
        Harness::Cline => {
            let cancel = reply.get("cancel").and_then(Value::as_bool) == Some(true)
                || reply.get("shouldContinue").and_then(Value::as_bool) == Some(false);
            if cancel { Reply::Deny } else { Reply::Allow }
        }
        Harness::QwenCode => {
            let decision = text(specific, "permissionDecision").or_else(|| text(reply, "decision"));
            match decision.as_deref() {
                Some("deny" | "block") => Reply::Deny,
                Some("ask") => Reply::Ask,
                _ => Reply::Allow,
            }
        }
        Harness::Windsurf | Harness::OpenCode => Reply::Allow,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(code: i32, stdout: &str, stderr: &str) -> Outcome {
        Outcome {
            code: Some(code),
            stdout: stdout.into(),
            stderr: stderr.into(),
        }
    }

    #[test]
    fn replies_are_read_per_harness() {
        let deny = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"}}"#;
        assert_eq!(
            read(Harness::ClaudeCode, &outcome(0, deny, "")),
            Reply::Deny
        );
        assert_eq!(read(Harness::Codex, &outcome(0, deny, "")), Reply::Deny);
        assert_eq!(read(Harness::ClaudeCode, &outcome(0, "", "")), Reply::Allow);
        assert!(matches!(
            read(Harness::Codex, &outcome(2, "", "")),
            Reply::Invalid(_)
        ));
        assert_eq!(
            read(Harness::Windsurf, &outcome(2, "", "blocked")),
            Reply::Deny
        );
        assert!(matches!(
            read(Harness::Copilot, &outcome(2, "", "x")),
            Reply::Invalid(_)
        ));
        assert_eq!(
            read(Harness::Cursor, &outcome(0, r#"{"permission": "ask"}"#, "")),
            Reply::Ask
        );
        assert_eq!(
            read(Harness::Cline, &outcome(0, r#"{"cancel": true}"#, "")),
            Reply::Deny
        );
        assert!(matches!(
            read(Harness::ClaudeCode, &outcome(1, "", "")),
            Reply::Invalid(_)
        ));
        assert_eq!(
            read(
                Harness::QwenCode,
                &outcome(0, r#"{"decision": "deny"}"#, "")
            ),
            Reply::Deny
        );
        assert!(matches!(
            read(Harness::QwenCode, &outcome(2, "", "")),
            Reply::Invalid(_)
        ));
        assert_eq!(
            read(
                Harness::OpenCode,
                &outcome(0, r#"{"decision": "allow"}"#, "")
            ),
            Reply::Allow
        );
        // The plugin blocks on anything but an explicit allow.
        for (code, stdout) in [(0, "{}"), (0, "not json"), (1, r#"{"decision": "allow"}"#)] {
            assert_eq!(
                read(Harness::OpenCode, &outcome(code, stdout, "")),
                Reply::Deny
            );
        }
    }

    #[test]
    fn a_hook_is_run_with_its_payload() {
        let dir = tempfile::tempdir().unwrap();
        let out = run(
            "cat; echo err >&2; exit 2",
            None,
            &json!({"a": 1}),
            dir.path(),
            None,
        )
        .unwrap();
        assert_eq!(out.code, Some(2));
        assert_eq!(out.stdout, r#"{"a":1}"#);
        assert_eq!(out.stderr, "err\n");
    }
}
