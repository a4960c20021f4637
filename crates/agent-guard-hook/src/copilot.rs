//! GitHub Copilot CLI `preToolUse`.
//!
//! - Payload: camelCase `toolName`, `toolArgs` (a JSON string in older builds, an object in
//!   newer ones; both are read), `cwd`, `sessionId`; or, for a hook registered as Pascal-case
//!   `PreToolUse`, the snake-case `PreToolUse` shape of Claude Code.
//! - Shell tools: `bash`, and `powershell`, which selects the PowerShell dialect unless a
//!   dialect field says otherwise.
//! - Every reply is **exit 0 with JSON**: Copilot logs and skips a hook that exits non-zero,
//!   so any other exit would let the tool run.
//! - Deny: `{"permissionDecision": "deny", "permissionDecisionReason": …}`, mirrored on stderr.
//! - Ask: native `"ask"` (shown as a prompt since CLI 1.0.24; older builds process only deny).
//! - Allow after compensation: `"allow"` with the reason and `additionalContext` (txids and
//!   restore command; builds without the field ignore it); a fully quarantined single delete
//!   is also rewritten (`modifiedArgs`) into an `echo` that announces them.
//! - Plain allow and other tools: exit 0, no output.

use serde_json::{Map, Value, json};

use crate::outcome::Kind;
use crate::payload::{self, Field, Malformed};
use crate::tool_use::tool_use;
use crate::{HookReply, HookRequest, Outcome, ShellCall};

pub(crate) fn parse(map: &Map<String, Value>) -> Field<HookRequest> {
    if map.contains_key("hook_event_name") {
        return parse_snake(map);
    }
    let tool = payload::req_str(map, "toolName", "toolName")?;
    let Some(shell) = Shell::of(tool) else {
        return Ok(HookRequest::NotShell);
    };
    let args = tool_args(map)?;
    let command = payload::command(&args, "command", "toolArgs.command")?;
    let cwd = payload::cwd(payload::opt_str(map, "cwd", "cwd")?, "cwd", None)?;
    Ok(HookRequest::Shell(ShellCall {
        command,
        cwd,
        dialect: payload::dialect(&[map, &args]).or(shell.dialect().map(str::to_owned)),
        session: payload::session(map, &["sessionId", "session_id"]),
        input: args,
    }))
}

fn parse_snake(map: &Map<String, Value>) -> Field<HookRequest> {
    let tool = tool_use(map)?;
    match Shell::of(tool.name) {
        Some(shell) => tool.shell(shell.dialect()).map(HookRequest::Shell),
        None => Ok(HookRequest::NotShell),
    }
}

/// Copilot's shell tools.
#[derive(Clone, Copy)]
enum Shell {
    Bash,
    PowerShell,
}

impl Shell {
    fn of(tool: &str) -> Option<Shell> {
        let tool = tool.trim();
        if tool.eq_ignore_ascii_case("bash") {
            Some(Shell::Bash)
        } else if tool.eq_ignore_ascii_case("powershell") {
            Some(Shell::PowerShell)
        } else {
            None
        }
    }

    /// The dialect the tool implies (a payload dialect field still comes first).
    const fn dialect(self) -> Option<&'static str> {
        match self {
            Shell::Bash => None,
            Shell::PowerShell => Some("powershell"),
        }
    }
}

/// `toolArgs` as an object, whether sent as an object or as a JSON string.
fn tool_args(map: &Map<String, Value>) -> Field<Map<String, Value>> {
    const NOT_OBJECT: Malformed = Malformed::WrongType {
        field: "toolArgs",
        expected: "a JSON object",
    };
    match map.get("toolArgs") {
        None | Some(Value::Null) => Err(Malformed::Missing("toolArgs")),
        Some(Value::Object(args)) => Ok(args.clone()),
        Some(Value::String(text)) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(args)) => Ok(args),
            _ => Err(NOT_OBJECT),
        },
        Some(_) => Err(NOT_OBJECT),
    }
}

pub(crate) fn render(outcome: &Outcome) -> HookReply {
    match outcome.kind() {
        Kind::Allow => HookReply::silent(),
        Kind::Compensated => {
            let mut reply = json!({
                "permissionDecision": "allow",
                "permissionDecisionReason": outcome.allow_reason(),
                "additionalContext": outcome.context(),
            });
            if let Some(args) = outcome.rewrite() {
                reply["modifiedArgs"] = Value::Object(args.clone());
            }
            HookReply::json(&reply)
        }
        Kind::Ask => HookReply::json(&json!({
            "permissionDecision": "ask",
            "permissionDecisionReason": outcome.ask_reason(),
        })),
        Kind::Deny => {
            let reason = outcome.deny_reason();
            HookReply::json(&json!({
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
            }))
            .with_stderr(reason)
        }
    }
}

#[cfg(test)]
mod tests {
    use agent_guard_types::{Decision, ReasonCode};
    use serde_json::{Value, json};

    use crate::{Harness, HookRequest, Outcome, Refusal, parse, render};

    fn payload(tool: &str, args: &Value) -> Vec<u8> {
        json!({"sessionId": "s1", "timestamp": 1_764_496_800_000_u64, "cwd": "/home/u/proj",
               "toolName": tool, "toolArgs": args})
        .to_string()
        .into_bytes()
    }

    #[test]
    fn tool_args_as_string_or_object_and_powershell_dialect() {
        let as_string = payload("bash", &json!("{\"command\":\"rm -rf dist\"}"));
        let as_object = payload("bash", &json!({"command": "rm -rf dist"}));
        for bytes in [as_string, as_object] {
            let HookRequest::Shell(call) = parse(Harness::Copilot, &bytes) else {
                panic!("shell")
            };
            assert_eq!(call.command, "rm -rf dist");
            assert_eq!(call.dialect, None);
            assert_eq!(call.session.as_deref(), Some("s1"));
        }
        let HookRequest::Shell(call) = parse(
            Harness::Copilot,
            &payload("powershell", &json!({"command": "Remove-Item x"})),
        ) else {
            panic!("shell")
        };
        assert_eq!(call.dialect.as_deref(), Some("powershell"));
        assert_eq!(
            parse(Harness::Copilot, &payload("view", &json!({"path": "a"}))),
            HookRequest::NotShell
        );
        assert!(matches!(
            parse(Harness::Copilot, &payload("bash", &json!("not json"))),
            HookRequest::Malformed(_)
        ));
    }

    #[test]
    fn snake_case_form_is_read_too() {
        let bytes = json!({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": "/w",
                           "timestamp": "2026-11-30T10:00:00Z", "tool_name": "bash",
                           "tool_input": {"command": "ls"}})
        .to_string();
        assert!(matches!(
            parse(Harness::Copilot, bytes.as_bytes()),
            HookRequest::Shell(_)
        ));
    }

    #[test]
    fn every_reply_exits_0_and_deny_is_json() {
        for outcome in [
            Outcome::refused(Refusal::Internal),
            Outcome::verdict(Decision::Block, ReasonCode::BlockWildcard, "No."),
        ] {
            let reply = render(Harness::Copilot, &outcome);
            assert_eq!(reply.exit, 0);
            let value: Value = serde_json::from_str(reply.stdout.as_deref().unwrap()).unwrap();
            assert_eq!(value["permissionDecision"], "deny");
        }
    }
}
