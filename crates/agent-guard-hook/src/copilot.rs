//! GitHub Copilot CLI `preToolUse`.
//!
//! - Payload: camelCase `toolName`, `toolArgs` (a JSON string in older builds, an object in
//!   newer ones; both are read), `cwd`, `sessionId`; or, for a hook registered as Pascal-case
//!   `PreToolUse`, the snake-case `PreToolUse` shape of Claude Code.
//! - Shell tools: `bash`, and `powershell`, which selects the PowerShell dialect unless a
//!   dialect field says otherwise.
//! - Edit tools: `create` and `edit` (`toolArgs.path`), `str_replace_editor` (`path`; its
//!   `view` command writes nothing) and `apply_patch` (patch text: `toolArgs` as a bare
//!   string, or its `input` or `patch`).
//! - Every reply is **exit 0 with JSON**: Copilot logs and skips a hook that exits non-zero,
//!   so any other exit would let the tool run.
//! - Deny: `{"permissionDecision": "deny", "permissionDecisionReason": …}`, mirrored on stderr.
//! - Ask: native `"ask"` (shown as a prompt since CLI 1.0.24; older builds process only deny).
//! - Allow after compensation: `"allow"` with the reason and `additionalContext` (txids and
//!   restore command; builds without the field ignore it); a fully quarantined single delete
//!   is also rewritten (`modifiedArgs`) into an `echo` that announces them.
//! - Allow after an edit's preservation: `additionalContext` only, no decision, so Copilot's own
//!   permission flow still decides.
//! - Plain allow and other tools: exit 0, no output.

use serde_json::{Map, Value, json};

use agent_guard_types::EditEffect;

use crate::edit::{self, Shape};
use crate::outcome::Kind;
use crate::payload::{self, Field, Malformed};
use crate::tool_use::tool_use;
use crate::{HookReply, HookRequest, Outcome, ShellCall};

/// `path`, the path field of Copilot CLI's file tools.
const PATH: &[(&str, &str)] = &[("path", "toolArgs.path")];

/// Copilot CLI's file-writing tools (1.0.102).
const EDIT_TOOLS: &[(&str, Shape)] = &[
    ("create", Shape::Path(EditEffect::Write, PATH)),
    ("edit", Shape::Path(EditEffect::Edit, PATH)),
    ("str_replace_editor", Shape::Path(EditEffect::Edit, PATH)),
    ("apply_patch", Shape::Patch),
];

pub(crate) fn parse(map: &Map<String, Value>) -> Field<HookRequest> {
    if map.contains_key("hook_event_name") {
        return parse_snake(map);
    }
    let tool = payload::req_str(map, "toolName", "toolName")?;
    if let Some(shape) = edit::lookup(EDIT_TOOLS, tool) {
        let args = edit_args(map, shape)?;
        return edit_call(map, tool, shape, &args, &["sessionId", "session_id"]);
    }
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
    if let Some(shape) = edit::lookup(EDIT_TOOLS, tool.name) {
        let input = edit::input(map, "tool_input", "tool_input")?.clone();
        return edit_call(map, tool.name, shape, &input, &["session_id", "sessionId"]);
    }
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

/// The edit call of a known tool, or [`HookRequest::NotShell`] for `str_replace_editor`'s
/// `view`, which writes nothing.
fn edit_call(
    map: &Map<String, Value>,
    tool: &str,
    shape: Shape,
    args: &Value,
    session: &[&str],
) -> Field<HookRequest> {
    let command = args.get("command").and_then(Value::as_str).map(str::trim);
    if tool.trim().eq_ignore_ascii_case("str_replace_editor") && command == Some("view") {
        return Ok(HookRequest::NotShell);
    }
    let cwd = edit::payload_cwd(map);
    edit::read(tool, shape, args, cwd, payload::session(map, session)).map(HookRequest::Edit)
}

/// An edit tool's `toolArgs`: an object (sent as one or as a JSON string), or for a patch
/// the patch text itself.
fn edit_args(map: &Map<String, Value>, shape: Shape) -> Field<Value> {
    match (shape, map.get("toolArgs")) {
        (Shape::Patch, Some(Value::String(text))) => {
            Ok(match serde_json::from_str::<Value>(text) {
                Ok(value @ Value::Object(_)) => value,
                _ => Value::String(text.clone()),
            })
        }
        _ => tool_args(map).map(Value::Object),
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
        Kind::Compensated if !outcome.grants() => {
            HookReply::json(&json!({"additionalContext": outcome.context()}))
        }
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
        Kind::Ask => {
            let mut reply = json!({
                "permissionDecision": "ask",
                "permissionDecisionReason": outcome.ask_reason(),
            });
            if let Some(context) = outcome.ask_context() {
                reply["additionalContext"] = Value::String(context);
            }
            HookReply::json(&reply)
        }
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

    use crate::test_support::{malformed, shell, stdout_json};
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
            let call = shell(Harness::Copilot, &bytes);
            assert_eq!(call.command, "rm -rf dist");
            assert_eq!(call.dialect, None);
            assert_eq!(call.session.as_deref(), Some("s1"));
        }
        let call = shell(
            Harness::Copilot,
            &payload("powershell", &json!({"command": "Remove-Item x"})),
        );
        assert_eq!(call.dialect.as_deref(), Some("powershell"));
        assert_eq!(
            parse(Harness::Copilot, &payload("view", &json!({"path": "a"}))),
            HookRequest::NotShell
        );
        assert!(malformed(
            Harness::Copilot,
            &payload("bash", &json!("not json"))
        ));
    }

    #[test]
    fn file_tools_are_edits() {
        let HookRequest::Edit(call) = parse(
            Harness::Copilot,
            &payload(
                "create",
                &json!("{\"path\":\"/p/a.txt\",\"file_text\":\"x\"}"),
            ),
        ) else {
            panic!("create")
        };
        assert_eq!(
            (call.tool.as_str(), call.files[0].path.as_str()),
            ("create", "/p/a.txt")
        );
        assert_eq!(call.session.as_deref(), Some("s1"));
        assert!(matches!(
            parse(
                Harness::Copilot,
                &payload("edit", &json!({"path": "a", "old_str": "x"}))
            ),
            HookRequest::Edit(_)
        ));
        assert_eq!(
            parse(
                Harness::Copilot,
                &payload(
                    "str_replace_editor",
                    &json!({"command": "view", "path": "a"})
                )
            ),
            HookRequest::NotShell
        );
        let patch = "*** Begin Patch\n*** Delete File: gone.txt\n*** End Patch";
        for args in [json!(patch), json!({"input": patch})] {
            let HookRequest::Edit(call) = parse(Harness::Copilot, &payload("apply_patch", &args))
            else {
                panic!("{args}")
            };
            assert_eq!(call.files[0].path, "gone.txt");
        }
        assert!(malformed(
            Harness::Copilot,
            &payload("create", &json!({"file_text": "x"}))
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
            let value = stdout_json(&reply);
            assert_eq!(value["permissionDecision"], "deny");
        }
    }
}
