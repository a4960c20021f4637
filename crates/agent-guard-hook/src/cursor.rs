//! Cursor `beforeShellExecution` (and the shell calls of the newer `preToolUse`).
//!
//! - Payload: `hook_event_name`, `command`, `cwd` (blank: the first of `workspace_roots`),
//!   `conversation_id`. A `preToolUse` event whose `tool_input.command` is a string is judged
//!   as a shell call too (conservative: a false positive can only ask or deny). A
//!   `preToolUse` of a file tool (`Write`, `Edit`, `MultiEdit`, `StrReplace`, `Delete`; the
//!   path in `tool_input.file_path`, `path` or `target_file`) is an edit. These names are
//!   from Cursor's documentation, not from a run of Cursor (it has no offline CLI); its
//!   documented `afterFileEdit` runs after the edit and cannot keep anything. Other events
//!   proceed.
//! - Every reply is exit 0 with `{"continue": true, "permission": …, "user_message": …,
//!   "agent_message": …}`; deny is mirrored on stderr. Ask is native (`"ask"`).
//! - Allow after compensation: `"allow"`, with the reason for the user and the txids and
//!   restore command in `agent_message`.
//! - Plain allow and other events: `{"continue": true, "permission": "allow"}` (Cursor's own
//!   example form).
//!
//! A hook that crashes or times out does not block in Cursor unless the hook entry sets
//! `"failClosed": true`.

use serde_json::{Map, Value, json};

use agent_guard_types::EditEffect;

use crate::edit::{self, Shape};
use crate::outcome::Kind;
use crate::payload::{self, Field};
use crate::{HookReply, HookRequest, Outcome};

/// Where Cursor's file tools name their path.
const PATH: &[(&str, &str)] = &[
    ("file_path", "tool_input.file_path"),
    ("path", "tool_input.path"),
    ("target_file", "tool_input.target_file"),
];

/// Cursor's file tools, as its hook documentation names them (and Claude Code's, whose hooks
/// Cursor also runs).
const EDIT_TOOLS: &[(&str, Shape)] = &[
    ("Write", Shape::Path(EditEffect::Write, PATH)),
    ("Edit", Shape::Path(EditEffect::Edit, PATH)),
    ("MultiEdit", Shape::Path(EditEffect::Edit, PATH)),
    ("StrReplace", Shape::Path(EditEffect::Edit, PATH)),
    ("Delete", Shape::Path(EditEffect::Delete, PATH)),
];

pub(crate) fn parse(map: &Map<String, Value>) -> Field<HookRequest> {
    let event = payload::req_str(map, "hook_event_name", "hook_event_name")?;
    if event.trim() == "preToolUse"
        && let Some(tool) = map.get("tool_name").and_then(Value::as_str)
        && let Some(shape) = edit::lookup(EDIT_TOOLS, tool)
    {
        let input = edit::input(map, "tool_input", "tool_input")?;
        let roots = map.get("workspace_roots").map(|v| (v, "workspace_roots"));
        let cwd =
            payload::opt_str(map, "cwd", "cwd").and_then(|cwd| payload::cwd(cwd, "cwd", roots));
        let session = payload::session(map, &["conversation_id"]);
        return edit::read(tool, shape, input, cwd, session).map(HookRequest::Edit);
    }
    let (source, field) = match event.trim() {
        "beforeShellExecution" => (map, "command"),
        "preToolUse" => match map.get("tool_input") {
            Some(Value::Object(input)) if input.get("command").is_some_and(Value::is_string) => {
                (input, "tool_input.command")
            }
            _ => return Ok(HookRequest::NotShell),
        },
        _ => return Ok(HookRequest::NotShell),
    };
    let command = payload::command(source, "command", field)?;
    let roots = map.get("workspace_roots").map(|v| (v, "workspace_roots"));
    let cwd = payload::cwd(payload::opt_str(map, "cwd", "cwd")?, "cwd", roots)?;
    let call = payload::shell_call(map, source, &["conversation_id"], command, cwd);
    Ok(HookRequest::Shell(call))
}

pub(crate) fn render(outcome: &Outcome) -> HookReply {
    match outcome.kind() {
        Kind::Allow => HookReply::json(&json!({"continue": true, "permission": "allow"})),
        Kind::Compensated => HookReply::json(&json!({
            "continue": true,
            "permission": "allow",
            "user_message": outcome.allow_reason(),
            "agent_message": outcome.context(),
        })),
        Kind::Ask => HookReply::json(&json!({
            "continue": true,
            "permission": "ask",
            "user_message": outcome.ask_reason(),
            "agent_message": outcome.ask_as_deny_reason(),
        })),
        Kind::Deny => {
            let reason = outcome.deny_reason();
            HookReply::json(&json!({
                "continue": true,
                "permission": "deny",
                "user_message": reason,
                "agent_message": reason,
            }))
            .with_stderr(reason)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use serde_json::json;

    use crate::test_support::{edit, malformed, shell, stdout_json};
    use crate::{Harness, HookRequest, Outcome, Refusal, parse, render};

    #[test]
    fn blank_cwd_uses_the_first_workspace_root() {
        let bytes = json!({"conversation_id": "c-1", "hook_event_name": "beforeShellExecution",
                           "workspace_roots": ["/home/u/proj"], "command": "rm -rf x",
                           "cwd": ""})
        .to_string();
        let call = shell(Harness::Cursor, bytes.as_bytes());
        assert_eq!(call.cwd, PathBuf::from("/home/u/proj"));
        assert_eq!(call.session.as_deref(), Some("c-1"));
        let read = json!({"hook_event_name": "beforeReadFile", "file_path": "/a"}).to_string();
        assert_eq!(
            parse(Harness::Cursor, read.as_bytes()),
            HookRequest::NotShell
        );
    }

    #[test]
    fn pre_tool_use_file_tools_are_edits() {
        let bytes = json!({"conversation_id": "c-1", "hook_event_name": "preToolUse",
                           "workspace_roots": ["/home/u/proj"], "tool_name": "Delete",
                           "tool_input": {"path": "old.txt"}})
        .to_string();
        let call = edit(Harness::Cursor, bytes.as_bytes());
        assert_eq!(call.cwd, Some(PathBuf::from("/home/u/proj")));
        assert_eq!(call.files[0].effect, agent_guard_types::EditEffect::Delete);
        let nameless = json!({"hook_event_name": "preToolUse", "cwd": "/p", "tool_name": "Write",
                              "tool_input": {"contents": "x"}})
        .to_string();
        assert!(malformed(Harness::Cursor, nameless.as_bytes()));
    }

    #[test]
    fn deny_is_json_permission_deny() {
        let reply = render(Harness::Cursor, &Outcome::refused(Refusal::Internal));
        let value = stdout_json(&reply);
        assert_eq!(
            (value["permission"].as_str(), reply.exit),
            (Some("deny"), 0)
        );
    }
}
