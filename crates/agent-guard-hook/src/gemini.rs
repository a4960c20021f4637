//! Gemini CLI `BeforeTool`.
//!
//! - Shell tool: `run_shell_command`; `tool_input.command`, `cwd`, and `tool_input.directory`
//!   (or `dir_path` in newer builds), the directory the command runs in, relative to `cwd`
//!   unless absolute.
//! - Edit tools: `write_file` and `replace` (`tool_input.file_path`, relative to `cwd` unless
//!   absolute); a missing or mistyped path is malformed.
//! - Deny: exit 0, `{"decision": "deny", "reason": …}` (stdout must be JSON only), mirrored on
//!   stderr. Gemini's hook protocol has no ask, so ask is a deny telling the agent to ask.
//! - Allow after compensation: `{"decision": "allow", "reason": …, "systemMessage": …}`. The
//!   documented `BeforeTool` output has no agent-visible context field, so the txids and
//!   restore command go to the user's terminal (`systemMessage`), and a fully quarantined
//!   single delete is rewritten (`hookSpecificOutput.tool_input`, merged over the arguments)
//!   into an `echo` that announces them in the tool output the model reads.
//! - Allow after an edit's preservation: `{"systemMessage": …}` without a decision, so Gemini's
//!   own approval flow still decides.
//! - Plain allow and other tools: exit 0, `{}`.

use serde_json::{Map, Value, json};

use agent_guard_types::EditEffect;

use crate::edit::{self, FILE_PATH, Shape};
use crate::outcome::Kind;
use crate::payload::{self, Field};
use crate::{HookReply, HookRequest, Outcome, ShellCall};

/// Gemini CLI's file-writing tools (0.61.0).
const EDIT_TOOLS: &[(&str, Shape)] = &[
    ("write_file", Shape::Path(EditEffect::Write, FILE_PATH)),
    ("replace", Shape::Path(EditEffect::Edit, FILE_PATH)),
];

pub(crate) fn parse(map: &Map<String, Value>) -> Field<HookRequest> {
    payload::expect_event(map, "hook_event_name", "hook_event_name", "BeforeTool")?;
    let tool = payload::req_str(map, "tool_name", "tool_name")?;
    if let Some(shape) = edit::lookup(EDIT_TOOLS, tool) {
        let input = edit::input(map, "tool_input", "tool_input")?;
        let session = payload::session(map, &["session_id"]);
        return edit::read(tool, shape, input, edit::payload_cwd(map), session)
            .map(HookRequest::Edit);
    }
    if tool.trim() != "run_shell_command" {
        return Ok(HookRequest::NotShell);
    }
    let input = payload::req_obj(map, "tool_input", "tool_input")?;
    let command = payload::command(input, "command", "tool_input.command")?;
    let cwd = payload::cwd(payload::opt_str(map, "cwd", "cwd")?, "cwd", None)?;
    let cwd = payload::run_dir(
        cwd,
        input,
        &[
            ("directory", "tool_input.directory"),
            ("dir_path", "tool_input.dir_path"),
        ],
    )?;
    Ok(HookRequest::Shell(ShellCall {
        input: input.clone(),
        ..payload::shell_call(map, input, &["session_id"], command, cwd)
    }))
}

pub(crate) fn render(outcome: &Outcome) -> HookReply {
    match outcome.kind() {
        Kind::Allow => HookReply::json(&json!({})),
        Kind::Compensated if !outcome.grants() => {
            HookReply::json(&json!({"systemMessage": outcome.context()}))
        }
        Kind::Compensated => {
            let mut reply = json!({
                "decision": "allow",
                "reason": outcome.allow_reason(),
                "systemMessage": outcome.context(),
            });
            if let Some(command) = outcome.rewrite().and_then(|input| input.get("command")) {
                reply["hookSpecificOutput"] =
                    json!({"hookEventName": "BeforeTool", "tool_input": {"command": command}});
            }
            HookReply::json(&reply)
        }
        Kind::Ask => deny(outcome.ask_as_deny_reason()),
        Kind::Deny => deny(outcome.deny_reason()),
    }
}

fn deny(reason: String) -> HookReply {
    HookReply::json(&json!({"decision": "deny", "reason": reason})).with_stderr(reason)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use agent_guard_types::{Decision, ReasonCode};
    use serde_json::{Value, json};

    use crate::test_support::{malformed, shell, stdout_json};
    use crate::{Harness, HookRequest, Outcome, parse, render};

    fn payload(tool: &str, input: &Value) -> Vec<u8> {
        json!({"session_id": "s1", "transcript_path": "/t.json", "cwd": "/home/u/proj",
               "hook_event_name": "BeforeTool", "timestamp": "2026-11-30T10:00:00Z",
               "tool_name": tool, "tool_input": input})
        .to_string()
        .into_bytes()
    }

    #[test]
    fn the_directory_argument_moves_the_cwd() {
        let call = shell(
            Harness::Gemini,
            &payload(
                "run_shell_command",
                &json!({"command": "rm -rf dist", "directory": "web"}),
            ),
        );
        assert_eq!(call.cwd, PathBuf::from("/home/u/proj/web"));
        assert_eq!(
            parse(
                Harness::Gemini,
                &payload("read_file", &json!({"path": "a"}))
            ),
            HookRequest::NotShell
        );
    }

    #[test]
    fn write_file_and_replace_are_edits() {
        for tool in ["write_file", "replace"] {
            let HookRequest::Edit(call) = parse(
                Harness::Gemini,
                &payload(tool, &json!({"file_path": "src/a.rs", "content": "x"})),
            ) else {
                panic!("{tool}")
            };
            assert_eq!(call.files[0].path, "src/a.rs");
            assert_eq!(call.cwd, Some(PathBuf::from("/home/u/proj")));
        }
        assert!(malformed(
            Harness::Gemini,
            &payload("replace", &json!({"path": "a"}))
        ));
    }

    #[test]
    fn replies_are_json_with_decision() {
        let ask = render(
            Harness::Gemini,
            &Outcome::verdict(Decision::Ask, ReasonCode::CompoundCwdDelete, "Split."),
        );
        let value = stdout_json(&ask);
        assert_eq!((value["decision"].as_str(), ask.exit), (Some("deny"), 0));
        let plain = render(Harness::Gemini, &Outcome::pass());
        assert_eq!(plain.stdout.as_deref(), Some("{}"));
    }
}
