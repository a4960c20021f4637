//! Claude Code `PreToolUse`.
//!
//! - Shell tool: `Bash` (case-insensitive); `tool_input.command`, `cwd`, `session_id`.
//! - Edit tools (case-insensitive): `Write`, `Edit`, `MultiEdit` (`tool_input.file_path`) and
//!   `NotebookEdit` (`tool_input.notebook_path`); a missing or mistyped path is malformed.
//! - Deny: exit 0, `hookSpecificOutput.permissionDecision: "deny"` with the reason, mirrored
//!   on stderr.
//! - Ask: native `permissionDecision: "ask"` (the user is prompted).
//! - Allow after compensation: `permissionDecision: "allow"` with the reason and
//!   `additionalContext` carrying the txids and `agent-guard restore <txid>`.
//! - Allow after an edit's preservation: `additionalContext` only, no decision, so Claude's own
//!   permission flow (prompt, `acceptEdits`) still decides whether the edit runs.
//! - Plain allow and other tools: exit 0, no output, so Claude's own permission flow runs.
//!
//! With `updatedInput`, a fully quarantined single delete (`rm -r build`) is rewritten into an
//! `echo` of what moved and the restore command (see [`Outcome::with_rewrite`]), so the tool
//! output the model reads carries the txid instead of "No such file".

use serde_json::{Map, Value};

use agent_guard_types::EditEffect;

use crate::edit::{FILE_PATH, NOTEBOOK_PATH, Shape};
use crate::outcome::Kind;
use crate::payload::Field;
use crate::tool_use::{deny, parse_bash_or_edit, reply};
use crate::{HookReply, HookRequest, Outcome};

/// Claude Code's file-writing tools (2.1.328 offers `Write` and `Edit`; `MultiEdit` and
/// `NotebookEdit` are older or deferred).
pub(crate) const EDIT_TOOLS: &[(&str, Shape)] = &[
    ("Write", Shape::Path(EditEffect::Write, FILE_PATH)),
    ("Edit", Shape::Path(EditEffect::Edit, FILE_PATH)),
    ("MultiEdit", Shape::Path(EditEffect::Edit, FILE_PATH)),
    ("NotebookEdit", Shape::Path(EditEffect::Edit, NOTEBOOK_PATH)),
];

pub(crate) fn parse(map: &Map<String, Value>) -> Field<HookRequest> {
    parse_bash_or_edit(map, EDIT_TOOLS)
}

pub(crate) fn render(outcome: &Outcome) -> HookReply {
    match outcome.kind() {
        Kind::Allow => HookReply::silent(),
        Kind::Compensated => HookReply::json(&reply(
            outcome.grants().then_some("allow"),
            outcome.grants().then(|| outcome.allow_reason()),
            Some(outcome.context()),
            outcome.rewrite(),
        )),
        Kind::Ask => HookReply::json(&reply(
            Some("ask"),
            Some(outcome.ask_reason()),
            outcome.ask_context(),
            None,
        )),
        Kind::Deny => deny(outcome.deny_reason()),
    }
}

#[cfg(test)]
mod tests {
    use agent_guard_types::{Decision, ReasonCode};
    use serde_json::{Value, json};

    use crate::test_support::{malformed, shell, stdout_json};
    use crate::{Harness, HookRequest, Outcome, Refusal, parse, render};

    fn payload(tool: &str, input: &Value) -> Vec<u8> {
        json!({"session_id": "abc", "cwd": "/home/u/proj", "hook_event_name": "PreToolUse",
               "tool_name": tool, "tool_input": input, "tool_use_id": "toolu_1"})
        .to_string()
        .into_bytes()
    }

    #[test]
    fn bash_is_a_shell_call_and_other_tools_are_not() {
        let call = shell(
            Harness::ClaudeCode,
            &payload("Bash", &json!({"command": "rm -rf build/"})),
        );
        assert_eq!(call.command, "rm -rf build/");
        assert_eq!(call.session.as_deref(), Some("abc"));
        assert_eq!(
            parse(
                Harness::ClaudeCode,
                &payload("Read", &json!({"file_path": "x"}))
            ),
            HookRequest::NotShell
        );
        assert!(malformed(
            Harness::ClaudeCode,
            &payload("Bash", &json!({"command": 7}))
        ));
    }

    #[test]
    fn file_tools_are_edits_and_their_path_is_required() {
        for (tool, input) in [
            ("Write", json!({"file_path": "/p/a.txt", "content": "x"})),
            (
                "edit",
                json!({"file_path": "/p/a.txt", "old_string": "a", "new_string": "b"}),
            ),
            ("MultiEdit", json!({"file_path": "/p/a.txt", "edits": []})),
            (
                "NotebookEdit",
                json!({"notebook_path": "/p/a.txt", "new_source": ""}),
            ),
        ] {
            let HookRequest::Edit(call) = parse(Harness::ClaudeCode, &payload(tool, &input)) else {
                panic!("{tool}")
            };
            assert_eq!(call.files[0].path, "/p/a.txt");
            assert_eq!(
                call.cwd.as_deref(),
                Some(std::path::Path::new("/home/u/proj"))
            );
            assert_eq!(call.session.as_deref(), Some("abc"));
        }
        for bad in [
            json!({}),
            json!({"file_path": 3}),
            json!({"file_path": ""}),
            json!("x"),
        ] {
            assert!(
                malformed(Harness::ClaudeCode, &payload("Write", &bad)),
                "{bad}"
            );
        }
    }

    #[test]
    fn replies() {
        let deny = render(
            Harness::ClaudeCode,
            &Outcome::verdict(Decision::Block, ReasonCode::BlockWildcard, "No."),
        );
        assert_eq!(deny.exit, 0);
        let value = stdout_json(&deny);
        assert_eq!(value["hookSpecificOutput"]["permissionDecision"], "deny");
        assert!(deny.stderr.unwrap().contains("BLOCK_WILDCARD"));

        let ask = render(
            Harness::ClaudeCode,
            &Outcome::verdict(Decision::Ask, ReasonCode::CompoundCwdDelete, "Split."),
        );
        assert_eq!(
            stdout_json(&ask)["hookSpecificOutput"]["permissionDecision"],
            "ask"
        );

        let done = Outcome::verdict(Decision::Allow, ReasonCode::RelocateTree, "Moved.")
            .with_txids(vec!["tx1".into()]);
        let allow = stdout_json(&render(Harness::ClaudeCode, &done));
        assert_eq!(allow["hookSpecificOutput"]["permissionDecision"], "allow");
        let context = allow["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap();
        assert!(context.contains("agent-guard restore tx1"), "{context}");

        let plain = render(Harness::ClaudeCode, &Outcome::pass());
        assert_eq!((plain.stdout, plain.stderr, plain.exit), (None, None, 0));

        let panic = render(Harness::ClaudeCode, &Outcome::refused(Refusal::Panic));
        assert_eq!(
            stdout_json(&panic)["hookSpecificOutput"]["permissionDecision"],
            "deny"
        );
    }
}
