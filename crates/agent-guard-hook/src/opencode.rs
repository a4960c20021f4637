//! `OpenCode`, through the plugin that `agent-guard install opencode` writes.
//!
//! `OpenCode` has no command hooks: a plugin's `tool.execute.before` runs in-process and
//! blocks a call by throwing. agent-guard's plugin hands every tool call to this hook and
//! lets it run only on an explicit allow; it throws on everything else, including a guard that
//! cannot be started or does not answer in time.
//!
//! - Payload (the plugin's own): `{"hook_event_name": "tool.execute.before", "tool",
//!   "sessionID", "callID", "args", "directory", "worktree"}`. The shell tool is `bash`
//!   (`args.command`); it runs in `args.workdir` (relative to `directory`) or in `directory`.
//!   The file tools `write`, `edit` and `multiedit` (`args.filePath`) and `apply_patch` (and
//!   the older `patch`; `args.patchText`) are edits, relative to `directory`. Other tools
//!   proceed.
//! - Allow: exit 0, `{"decision": "allow"}`.
//! - Deny: exit 2, `{"decision": "deny", "reason"}`, the reason mirrored on stderr. The plugin
//!   throws the reason, which the model reads as the tool's error. A plugin cannot ask, so ask
//!   is a deny telling the agent to ask the user.
//! - Allow after compensation: exit 0, `{"decision": "allow", "reason", "context"}` plus
//!   `args` with a rewrite (merged over the call's arguments). The plugin appends `context`
//!   (txids and restore command) to the tool's output in `tool.execute.after`.

use serde_json::{Map, Value, json};

use agent_guard_types::EditEffect;

use crate::edit::{self, Shape};
use crate::outcome::Kind;
use crate::payload::{self, Field};
use crate::{HookReply, HookRequest, Outcome, ShellCall};

/// The event name the plugin sends.
pub(crate) const EVENT: &str = "tool.execute.before";

/// `filePath`, the path field of `OpenCode`'s file tools.
const FILE_PATH: &[(&str, &str)] = &[("filePath", "args.filePath")];

/// `OpenCode`'s file-writing tools (1.18.33 offers `write` and `edit`; `apply_patch` replaces
/// them for some models, `multiedit` and `patch` are older).
const EDIT_TOOLS: &[(&str, Shape)] = &[
    ("write", Shape::Path(EditEffect::Write, FILE_PATH)),
    ("edit", Shape::Path(EditEffect::Edit, FILE_PATH)),
    ("multiedit", Shape::Path(EditEffect::Edit, FILE_PATH)),
    ("apply_patch", Shape::Patch),
    ("patch", Shape::Patch),
];

pub(crate) fn parse(map: &Map<String, Value>) -> Field<HookRequest> {
    payload::expect_event(map, "hook_event_name", "hook_event_name", EVENT)?;
    let tool = payload::req_str(map, "tool", "tool")?;
    if let Some(shape) = edit::lookup(EDIT_TOOLS, tool) {
        let args = edit::input(map, "args", "args")?;
        let cwd = payload::opt_str(map, "directory", "directory")
            .and_then(|dir| payload::cwd(dir, "directory", None));
        let session = payload::session(map, &["sessionID"]);
        return edit::read(tool, shape, args, cwd, session).map(HookRequest::Edit);
    }
    if tool.trim() != "bash" {
        return Ok(HookRequest::NotShell);
    }
    let args = payload::req_obj(map, "args", "args")?;
    let command = payload::command(args, "command", "args.command")?;
    let directory = payload::cwd(
        payload::opt_str(map, "directory", "directory")?,
        "directory",
        None,
    )?;
    let cwd = payload::run_dir(directory, args, &[("workdir", "args.workdir")])?;
    Ok(HookRequest::Shell(ShellCall {
        input: args.clone(),
        ..payload::shell_call(map, args, &["sessionID"], command, cwd)
    }))
}

pub(crate) fn render(outcome: &Outcome) -> HookReply {
    match outcome.kind() {
        Kind::Allow => HookReply::json(&json!({"decision": "allow"})),
        Kind::Compensated => {
            let mut reply = json!({
                "decision": "allow",
                "reason": outcome.allow_reason(),
                "context": outcome.context(),
            });
            if let Some(args) = outcome.rewrite() {
                reply["args"] = Value::Object(args.clone());
            }
            HookReply::json(&reply)
        }
        Kind::Ask => deny(outcome.ask_as_deny_reason()),
        Kind::Deny => deny(outcome.deny_reason()),
    }
}

fn deny(reason: String) -> HookReply {
    HookReply {
        stdout: Some(json!({"decision": "deny", "reason": reason}).to_string()),
        stderr: Some(reason),
        exit: 2,
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use agent_guard_types::Decision;
    use serde_json::{Value, json};

    use crate::test_support::{edit, shell, stdout_json};
    use crate::{Harness, HookRequest, Malformed, Outcome, Refusal, parse, render};

    fn payload(tool: &str, args: &Value) -> Vec<u8> {
        json!({"hook_event_name": "tool.execute.before", "tool": tool,
               "sessionID": "ses_1", "callID": "call_mock_01", "args": args,
               "directory": "/home/u/proj", "worktree": "/home/u/proj"})
        .to_string()
        .into_bytes()
    }

    #[test]
    fn bash_runs_in_its_workdir_and_other_tools_pass() {
        let call = shell(
            Harness::OpenCode,
            &payload("bash", &json!({"command": "rm -r build", "workdir": "web"})),
        );
        assert_eq!(call.cwd, PathBuf::from("/home/u/proj/web"));
        assert_eq!(call.session.as_deref(), Some("ses_1"));
        assert_eq!(call.input["workdir"], "web");
        assert_eq!(
            parse(
                Harness::OpenCode,
                &payload("read", &json!({"filePath": "/home/u/proj/a"}))
            ),
            HookRequest::NotShell
        );
        let call = edit(
            Harness::OpenCode,
            &payload(
                "edit",
                &json!({"filePath": "/home/u/proj/a", "oldString": "x"}),
            ),
        );
        assert_eq!(
            (call.tool.as_str(), call.session.as_deref()),
            ("edit", Some("ses_1"))
        );
        let patch = "*** Begin Patch\n*** Add File: b\n+x\n*** End Patch";
        assert!(matches!(
            parse(
                Harness::OpenCode,
                &payload("apply_patch", &json!({"patchText": patch}))
            ),
            HookRequest::Edit(_)
        ));
        let no_dir = json!({"hook_event_name": "tool.execute.before", "tool": "bash",
                            "args": {"command": "ls"}})
        .to_string();
        assert_eq!(
            parse(Harness::OpenCode, no_dir.as_bytes()),
            HookRequest::Malformed(Malformed::NoCwd)
        );
    }

    #[test]
    fn only_an_allow_exits_0() {
        let plain = render(Harness::OpenCode, &Outcome::pass());
        assert_eq!(
            (stdout_json(&plain)["decision"].clone(), plain.exit),
            (json!("allow"), 0)
        );
        for outcome in [
            Outcome::verdict(
                Decision::Block,
                agent_guard_types::ReasonCode::BlockWildcard,
                "No.",
            ),
            Outcome::verdict(
                Decision::Ask,
                agent_guard_types::ReasonCode::CompoundCwdDelete,
                "Split.",
            ),
            Outcome::refused(Refusal::Panic),
        ] {
            let reply = render(Harness::OpenCode, &outcome);
            assert_eq!(reply.exit, 2);
            assert_eq!(stdout_json(&reply)["decision"], "deny");
            assert!(!reply.stderr.unwrap().is_empty());
        }
        let done = Outcome::verdict(
            Decision::Allow,
            agent_guard_types::ReasonCode::RelocateTree,
            "Moved.",
        )
        .with_txids(vec!["tx1".into()]);
        let allow = stdout_json(&render(Harness::OpenCode, &done));
        assert_eq!(allow["decision"], "allow");
        assert!(
            allow["context"]
                .as_str()
                .unwrap()
                .contains("agent-guard restore tx1")
        );
    }
}
