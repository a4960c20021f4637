//! Qwen Code `PreToolUse`: Claude Code's hook format on a Gemini CLI fork.
//!
//! - Payload: Claude Code's `PreToolUse` shape (`hook_event_name`, `tool_name`, `tool_input`,
//!   `cwd`, `session_id`; Qwen adds `timestamp`, `permission_mode` and `tool_call_id`), with
//!   Gemini CLI's tool names. The shell tool is `run_shell_command`; its optional
//!   `tool_input.directory` (absolute, or relative to `cwd`) is where the command runs.
//! - Edit tools: `write_file`, `edit` (and Gemini CLI's older `replace`) with
//!   `tool_input.file_path`, `notebook_edit` with `tool_input.notebook_path`.
//! - Deny: exit 0, `hookSpecificOutput.permissionDecision: "deny"` with the reason, mirrored
//!   on stderr. Qwen Code 0.24.4 honours this form, `{"decision": "deny"}` and exit 2 alike.
//! - Ask: native `permissionDecision: "ask"`. An interactive session puts the call to the
//!   user; `-p`, where nobody can answer, blocks it.
//! - Allow after compensation: `"allow"` with the reason and `additionalContext` (txids and
//!   restore command). Qwen's `PreToolUse` has no rewrite (it ignores `updatedInput`), so the
//!   command then runs on what is left, and 0.24.4 drops the context before the model sees it.
//!   So a fully compensated single delete, which other harnesses rewrite into an `echo` of the
//!   note, is answered here with a deny whose reason is that note ("DONE"): the model reads
//!   the txid and the restore command as the tool result, and the `rm` of the paths already
//!   moved does not run.
//! - Plain allow and other tools: exit 0, `{}` (an empty stdout is logged as a hook that
//!   returned no output).

use serde_json::{Map, Value, json};

use agent_guard_types::EditEffect;

use crate::edit::{FILE_PATH, NOTEBOOK_PATH, Shape};
use crate::outcome::Kind;
use crate::payload::{self, Field};
use crate::tool_use::{deny, reply, tool_use};
use crate::{HookReply, HookRequest, Outcome};

/// Qwen Code's shell tool.
pub(crate) const SHELL_TOOL: &str = "run_shell_command";

/// Qwen Code's file-writing tools (0.24.4 offers `write_file`, `edit` and `notebook_edit`).
const EDIT_TOOLS: &[(&str, Shape)] = &[
    ("write_file", Shape::Path(EditEffect::Write, FILE_PATH)),
    ("edit", Shape::Path(EditEffect::Edit, FILE_PATH)),
    ("replace", Shape::Path(EditEffect::Edit, FILE_PATH)),
    (
        "notebook_edit",
        Shape::Path(EditEffect::Edit, NOTEBOOK_PATH),
    ),
];

pub(crate) fn parse(map: &Map<String, Value>) -> Field<HookRequest> {
    let tool = tool_use(map)?;
    if let Some(edit) = tool.edit(EDIT_TOOLS) {
        return edit.map(HookRequest::Edit);
    }
    if !tool.is(SHELL_TOOL) {
        return Ok(HookRequest::NotShell);
    }
    let mut call = tool.shell(None)?;
    call.cwd = payload::run_dir(
        call.cwd,
        tool.input()?,
        &[("directory", "tool_input.directory")],
    )?;
    Ok(HookRequest::Shell(call))
}

pub(crate) fn render(outcome: &Outcome) -> HookReply {
    match outcome.kind() {
        Kind::Allow => HookReply::json(&json!({})),
        Kind::Compensated if outcome.rewrite().is_some() => deny(outcome.done_reason()),
        Kind::Compensated => HookReply::json(&reply(
            outcome.grants().then_some("allow"),
            outcome.grants().then(|| outcome.allow_reason()),
            Some(outcome.context()),
            None,
        )),
        Kind::Ask => HookReply::json(&reply(Some("ask"), Some(outcome.ask_reason()), None, None)),
        Kind::Deny => deny(outcome.deny_reason()),
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use agent_guard_types::Decision;
    use serde_json::{Value, json};

    use crate::test_support::{shell, stdout_json};
    use crate::{Harness, HookRequest, Outcome, ShellCall, parse, render};

    /// A payload as Qwen Code 0.24.4 sends it (recorded from the real CLI).
    fn payload(tool: &str, input: &Value) -> Vec<u8> {
        json!({"session_id": "b95d", "transcript_path": "/h/.qwen/projects/p/chats/b95d.jsonl",
               "cwd": "/home/u/proj", "hook_event_name": "PreToolUse",
               "timestamp": "2026-12-01T11:30:19.005Z", "permission_mode": "yolo",
               "prompt_id": "b95d########0", "tool_name": tool, "tool_input": input,
               "tool_use_id": "toolu_1796124619004_pwornfj5o", "tool_call_id": "call_mock_01"})
        .to_string()
        .into_bytes()
    }

    #[test]
    fn run_shell_command_is_the_shell_and_its_directory_moves_the_cwd() {
        let call = shell(
            Harness::QwenCode,
            &payload(
                "run_shell_command",
                &json!({"command": "rm -r build", "directory": "/home/u/proj/web"}),
            ),
        );
        assert_eq!(call.command, "rm -r build");
        assert_eq!(call.cwd, PathBuf::from("/home/u/proj/web"));
        assert_eq!(call.session.as_deref(), Some("b95d"));
        // Claude Code's tool name is just another tool here.
        assert_eq!(
            parse(
                Harness::QwenCode,
                &payload("Bash", &json!({"command": "rm -r build"}))
            ),
            HookRequest::NotShell
        );
        assert!(matches!(
            parse(
                Harness::QwenCode,
                &payload("write_file", &json!({"file_path": "/home/u/proj/a"}))
            ),
            HookRequest::Edit(_)
        ));
        assert_eq!(
            parse(
                Harness::QwenCode,
                &payload("read_file", &json!({"file_path": "a"}))
            ),
            HookRequest::NotShell
        );
    }

    #[test]
    fn replies() {
        let deny = render(
            Harness::QwenCode,
            &Outcome::verdict(
                Decision::Block,
                agent_guard_types::ReasonCode::BlockWildcard,
                "No.",
            ),
        );
        assert_eq!(deny.exit, 0);
        assert_eq!(
            stdout_json(&deny)["hookSpecificOutput"]["permissionDecision"],
            "deny"
        );
        assert!(deny.stderr.unwrap().contains("BLOCK_WILDCARD"));
        let ask = render(
            Harness::QwenCode,
            &Outcome::verdict(
                Decision::Ask,
                agent_guard_types::ReasonCode::CompoundCwdDelete,
                "Split.",
            ),
        );
        assert_eq!(
            stdout_json(&ask)["hookSpecificOutput"]["permissionDecision"],
            "ask"
        );
        let done = Outcome::verdict(
            Decision::Allow,
            agent_guard_types::ReasonCode::RelocateTree,
            "Moved.",
        )
        .with_txids(vec!["tx1".into()]);
        let allow = stdout_json(&render(Harness::QwenCode, &done));
        assert_eq!(allow["hookSpecificOutput"]["permissionDecision"], "allow");
        assert!(allow["hookSpecificOutput"].get("updatedInput").is_none());
        assert!(
            allow["hookSpecificOutput"]["additionalContext"]
                .as_str()
                .unwrap()
                .contains("agent-guard restore tx1")
        );
        let plain = render(Harness::QwenCode, &Outcome::pass());
        assert_eq!((plain.stdout.as_deref(), plain.exit), (Some("{}"), 0));
    }

    #[test]
    fn a_fully_compensated_delete_is_a_deny_that_says_it_is_done() {
        let call = ShellCall {
            command: "rm -r build".into(),
            cwd: PathBuf::from("/w"),
            dialect: None,
            session: None,
            input: serde_json::Map::new(),
        };
        let done = Outcome::verdict(
            Decision::Allow,
            agent_guard_types::ReasonCode::RelocateTree,
            "Moved.",
        )
        .with_txids(vec!["tx1".into()])
        .with_rewrite(&call, "echo moved".into());
        let reply = render(Harness::QwenCode, &done);
        let value = stdout_json(&reply);
        assert_eq!(value["hookSpecificOutput"]["permissionDecision"], "deny");
        let reason = value["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap();
        assert!(
            reason.starts_with("[agent-guard] DONE [RELOCATE_TREE]"),
            "{reason}"
        );
        assert!(reason.contains("agent-guard restore tx1"), "{reason}");
    }
}
