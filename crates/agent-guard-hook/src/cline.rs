//! Cline `PreToolUse` hook file.
//!
//! - Payload: `hookName` (`PreToolUse`), `workspaceRoots`, `taskId`,
//!   `preToolUse.{toolName, parameters.command}`. The shell tool is `execute_command`; the
//!   command runs in the first workspace root. The file tools `write_to_file` and
//!   `replace_in_file` (`preToolUse.parameters.path`, relative to that root) are edits.
//! - Replies are exit 0 with JSON. Deny: `{"cancel": true, "errorMessage": …,
//!   "contextModification": ""}`, mirrored on stderr. Cline cannot ask a human, so ask is a
//!   cancel telling the agent to ask the user.
//! - Allow after compensation: `{"cancel": false, "contextModification": …}` with the txids
//!   and restore command (Cline adds it to the conversation for the next request).
//! - Plain allow and other tools: `{"cancel": false}`.

use serde_json::{Map, Value, json};

use agent_guard_types::EditEffect;

use crate::edit::{self, Shape};
use crate::outcome::Kind;
use crate::payload::{self, Field, Malformed};
use crate::{HookReply, HookRequest, Outcome};

/// `path`, the path field of Cline's file tools.
const PATH: &[(&str, &str)] = &[("path", "preToolUse.parameters.path")];

/// Cline's file-writing tools.
const EDIT_TOOLS: &[(&str, Shape)] = &[
    ("write_to_file", Shape::Path(EditEffect::Write, PATH)),
    ("replace_in_file", Shape::Path(EditEffect::Edit, PATH)),
];

pub(crate) fn parse(map: &Map<String, Value>) -> Field<HookRequest> {
    payload::expect_event(map, "hookName", "hookName", "PreToolUse")?;
    let call = payload::req_obj(map, "preToolUse", "preToolUse")?;
    let tool = payload::req_str(call, "toolName", "preToolUse.toolName")?;
    if let Some(shape) = edit::lookup(EDIT_TOOLS, tool) {
        let parameters = edit::input(call, "parameters", "preToolUse.parameters")?;
        let roots = map
            .get("workspaceRoots")
            .ok_or(Malformed::Missing("workspaceRoots"));
        let cwd = roots.and_then(|roots| {
            payload::cwd(None, "workspaceRoots", Some((roots, "workspaceRoots")))
        });
        let session = payload::session(map, &["taskId"]);
        return edit::read(tool, shape, parameters, cwd, session).map(HookRequest::Edit);
    }
    if tool.trim() != "execute_command" {
        return Ok(HookRequest::NotShell);
    }
    let parameters = payload::req_obj(call, "parameters", "preToolUse.parameters")?;
    let command = payload::command(parameters, "command", "preToolUse.parameters.command")?;
    let roots = map
        .get("workspaceRoots")
        .ok_or(Malformed::Missing("workspaceRoots"))?;
    let cwd = payload::cwd(None, "workspaceRoots", Some((roots, "workspaceRoots")))?;
    let call = payload::shell_call(map, parameters, &["taskId"], command, cwd);
    Ok(HookRequest::Shell(call))
}

pub(crate) fn render(outcome: &Outcome) -> HookReply {
    match outcome.kind() {
        Kind::Allow => HookReply::json(&json!({"cancel": false})),
        Kind::Compensated => HookReply::json(&json!({
            "cancel": false,
            "contextModification": outcome.context(),
        })),
        Kind::Ask => cancel(outcome.ask_as_deny_reason()),
        Kind::Deny => cancel(outcome.deny_reason()),
    }
}

fn cancel(reason: String) -> HookReply {
    HookReply::json(&json!({
        "cancel": true,
        "errorMessage": reason,
        "contextModification": "",
    }))
    .with_stderr(reason)
}

#[cfg(test)]
mod tests {
    use agent_guard_types::{Decision, ReasonCode};
    use serde_json::{Value, json};

    use crate::test_support::{edit, malformed, shell, stdout_json};
    use crate::{Harness, HookRequest, Outcome, parse, render};

    fn payload(tool: &str, parameters: &Value) -> Vec<u8> {
        json!({"clineVersion": "3.x", "hookName": "PreToolUse", "timestamp": "t",
               "taskId": "t1", "workspaceRoots": ["/home/u/proj"], "userId": "u",
               "preToolUse": {"toolName": tool, "parameters": parameters}})
        .to_string()
        .into_bytes()
    }

    #[test]
    fn execute_command_is_shell() {
        let call = shell(
            Harness::Cline,
            &payload("execute_command", &json!({"command": "rm -rf dist"})),
        );
        assert_eq!(call.cwd, std::path::PathBuf::from("/home/u/proj"));
        assert_eq!(
            parse(Harness::Cline, &payload("read_file", &json!({"path": "a"}))),
            HookRequest::NotShell
        );
        let call = edit(
            Harness::Cline,
            &payload("replace_in_file", &json!({"path": "src/a.rs", "diff": "x"})),
        );
        assert_eq!(call.cwd, Some(std::path::PathBuf::from("/home/u/proj")));
        assert_eq!(call.files[0].path, "src/a.rs");
        assert!(malformed(
            Harness::Cline,
            &payload("write_to_file", &json!({"content": "x"}))
        ));
    }

    #[test]
    fn ask_cancels() {
        let reply = render(
            Harness::Cline,
            &Outcome::verdict(Decision::Ask, ReasonCode::CompoundCwdDelete, "Split."),
        );
        let value = stdout_json(&reply);
        assert_eq!(value["cancel"], true);
        assert!(
            value["errorMessage"]
                .as_str()
                .unwrap()
                .contains("ask the user")
        );
    }
}
