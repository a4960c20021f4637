//! Windsurf (Cascade) `pre_run_command`.
//!
//! - Payload: `agent_action_name`, `trajectory_id`, `tool_info.{command_line, cwd}`.
//!   `pre_write_code` (`tool_info.file_path`, `tool_info.edits`) is an edit of that file; its
//!   directory is `tool_info.cwd` if given, else the file's own. Other actions
//!   (`pre_read_code`, `pre_mcp_tool_use`, …) proceed.
//! - Deny: **exit 2 with the reason on stderr**, the only block Windsurf has (there is no JSON
//!   decision and no ask). Ask is the same block, telling the agent to ask the user.
//! - Allow after compensation: exit 0 with the txids and restore command on stdout, which
//!   Windsurf shows when the hook entry sets `show_output`.
//! - Plain allow and other actions: exit 0, no output.

use serde_json::{Map, Value};

use agent_guard_types::EditEffect;

use crate::edit::{self, Shape};
use crate::outcome::Kind;
use crate::payload::{self, Field};
use crate::tool_use::exit_2;
use crate::{HookReply, HookRequest, Outcome};

/// The action of a Cascade file write.
const WRITE_ACTION: &str = "pre_write_code";

pub(crate) fn parse(map: &Map<String, Value>) -> Field<HookRequest> {
    let action = payload::req_str(map, "agent_action_name", "agent_action_name")?;
    if action.trim() == WRITE_ACTION {
        let info = payload::req_obj(map, "tool_info", "tool_info")?;
        let shape = Shape::Path(EditEffect::Edit, &[("file_path", "tool_info.file_path")]);
        let cwd = payload::cwd(
            payload::opt_str(info, "cwd", "tool_info.cwd")?,
            "tool_info.cwd",
            None,
        );
        let session = payload::session(map, &["trajectory_id"]);
        let info = Value::Object(info.clone());
        return edit::read(WRITE_ACTION, shape, &info, cwd, session).map(HookRequest::Edit);
    }
    if action.trim() != "pre_run_command" {
        return Ok(HookRequest::NotShell);
    }
    let info = payload::req_obj(map, "tool_info", "tool_info")?;
    let command = payload::command(info, "command_line", "tool_info.command_line")?;
    let cwd = payload::cwd(
        payload::opt_str(info, "cwd", "tool_info.cwd")?,
        "tool_info.cwd",
        None,
    )?;
    let call = payload::shell_call(map, info, &["trajectory_id"], command, cwd);
    Ok(HookRequest::Shell(call))
}

pub(crate) fn render(outcome: &Outcome) -> HookReply {
    match outcome.kind() {
        Kind::Allow => HookReply::silent(),
        Kind::Compensated => HookReply {
            stdout: Some(outcome.context()),
            stderr: None,
            exit: 0,
        },
        Kind::Ask => exit_2(outcome.ask_as_deny_reason()),
        Kind::Deny => exit_2(outcome.deny_reason()),
    }
}

#[cfg(test)]
mod tests {
    use agent_guard_types::Decision;
    use serde_json::json;

    use crate::test_support::{edit, malformed, shell};
    use crate::{Harness, HookRequest, Outcome, parse, render};

    #[test]
    fn pre_run_command_is_shell() {
        let bytes = json!({"agent_action_name": "pre_run_command", "trajectory_id": "tr-1",
                           "tool_info": {"command_line": "rm -rf dist", "cwd": "/p"}})
        .to_string();
        let call = shell(Harness::Windsurf, bytes.as_bytes());
        assert_eq!(
            (call.command.as_str(), call.session.as_deref()),
            ("rm -rf dist", Some("tr-1"))
        );
        let read = json!({"agent_action_name": "pre_read_code", "tool_info": {}}).to_string();
        assert_eq!(
            parse(Harness::Windsurf, read.as_bytes()),
            HookRequest::NotShell
        );
    }

    #[test]
    fn pre_write_code_is_an_edit_in_the_file_s_directory() {
        let bytes = json!({"agent_action_name": "pre_write_code", "trajectory_id": "tr-1",
                           "tool_info": {"file_path": "/p/src/a.rs",
                                         "edits": [{"old_string": "a", "new_string": "b"}]}})
        .to_string();
        let call = edit(Harness::Windsurf, bytes.as_bytes());
        assert_eq!(
            call.cwd, None,
            "the hook's own directory locates the workspace"
        );
        let relative = json!({"agent_action_name": "pre_write_code",
                              "tool_info": {"file_path": "a.rs"}})
        .to_string();
        assert!(malformed(Harness::Windsurf, relative.as_bytes()));
    }

    #[test]
    fn deny_and_ask_exit_2() {
        for decision in [Decision::Block, Decision::Ask] {
            let reply = render(
                Harness::Windsurf,
                &Outcome::verdict(decision, agent_guard_types::ReasonCode::AllowNoop, "y"),
            );
            assert_eq!((reply.exit, reply.stdout), (2, None));
            assert!(reply.stderr.is_some());
        }
    }
}
