//! Codex CLI `PreToolUse` (same payload shape as Claude Code).
//!
//! - Shell tool: `Bash` (case-insensitive). `apply_patch` carries patch text in
//!   `tool_input.command` and is an edit ([`HookRequest::Edit`]): every file its add, update,
//!   delete and move hunks name (the existing ones are copied first; the patch needs them
//!   where they are). A patch that names no file is malformed. Other tools (MCP, …) proceed
//!   silently.
//! - Deny and ask: **exit 2 with the reason on stderr**. Codex blocks on exit 2 with a
//!   non-empty stderr in every version that has hooks, and ignores stdout then; a JSON deny is
//!   only honoured with a non-empty reason and only by builds that know the field, so exit 2
//!   is the unambiguous form. Codex has no `ask` (it marks it as a failed hook and runs the
//!   tool), so ask is a deny telling the agent to ask the user.
//! - Allow after compensation: exit 0 with `hookSpecificOutput.additionalContext` (txids and
//!   restore command) and the reason on stderr. A fully quarantined single delete is also
//!   rewritten (`permissionDecision: "allow"` with `updatedInput`, the only form of allow
//!   Codex accepts) into an `echo` announcing the txid. Otherwise no `permissionDecision` is
//!   sent. A build that predates `additionalContext` logs the reply as invalid and runs the
//!   tool, which is the intended outcome anyway.
//! - Plain allow and other tools: exit 0, no output.

use serde_json::{Map, Value};

use crate::edit::Shape;
use crate::outcome::Kind;
use crate::payload::Field;
use crate::tool_use::{exit_2, parse_bash_or_edit, reply};
use crate::{HookReply, HookRequest, Outcome};

/// Codex's file-writing tool: `apply_patch` (the patch text is `tool_input.command` today;
/// every string of `tool_input` is read, so that a patch moved to another field is still seen).
const EDIT_TOOLS: &[(&str, Shape)] = &[("apply_patch", Shape::Patch)];

pub(crate) fn parse(map: &Map<String, Value>) -> Field<HookRequest> {
    parse_bash_or_edit(map, EDIT_TOOLS)
}

pub(crate) fn render(outcome: &Outcome) -> HookReply {
    match outcome.kind() {
        Kind::Allow => HookReply::silent(),
        Kind::Compensated => {
            // Codex accepts `allow` only together with `updatedInput`.
            let rewrite = outcome.rewrite();
            let decision = rewrite.map(|_| "allow");
            let reason = rewrite.map(|_| outcome.allow_reason());
            HookReply::json(&reply(decision, reason, Some(outcome.context()), rewrite))
                .with_stderr(outcome.allow_reason())
        }
        Kind::Ask => exit_2(outcome.ask_as_deny_reason()),
        Kind::Deny => exit_2(outcome.deny_reason()),
    }
}

#[cfg(test)]
mod tests {
    use agent_guard_types::{Decision, EditEffect, ReasonCode};
    use serde_json::{Value, json};

    use crate::test_support::{edit, malformed, stdout_json};
    use crate::{Harness, HookRequest, Outcome, parse, render};

    fn payload(tool: &str, input: &Value) -> Vec<u8> {
        json!({"session_id": "0199", "turn_id": "t-7", "transcript_path": null,
               "cwd": "/home/u/proj", "hook_event_name": "PreToolUse", "model": "gpt-5-codex",
               "permission_mode": "default", "tool_name": tool, "tool_input": input,
               "tool_use_id": "call_abc"})
        .to_string()
        .into_bytes()
    }

    #[test]
    fn apply_patch_is_an_edit_of_every_file_it_names() {
        let patch = "*** Begin Patch\n*** Delete File: a.txt\n*** Update File: b.txt\n@@\n-x\n+y\n*** End Patch";
        let call = edit(
            Harness::Codex,
            &payload("apply_patch", &json!({"command": patch})),
        );
        assert_eq!(call.tool, "apply_patch");
        let names: Vec<(&str, EditEffect)> = call
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.effect))
            .collect();
        assert_eq!(
            names,
            [("a.txt", EditEffect::Delete), ("b.txt", EditEffect::Edit)]
        );
        let elsewhere = json!({"input": ["*** Begin Patch\n*** Delete File: c\n*** End Patch"]});
        assert!(matches!(
            parse(Harness::Codex, &payload("apply_patch", &elsewhere)),
            HookRequest::Edit(_)
        ));
        for bad in [
            json!({"command": "*** Begin Patch\n*** End Patch"}),
            json!({}),
            json!(3),
        ] {
            assert!(
                malformed(Harness::Codex, &payload("apply_patch", &bad)),
                "{bad}"
            );
        }
        assert!(malformed(
            Harness::Codex,
            &payload("Bash", &json!({"command": ["rm", "x"]}))
        ));
    }

    #[test]
    fn deny_and_ask_exit_2_with_a_reason() {
        for outcome in [
            Outcome::verdict(Decision::Block, ReasonCode::BlockWildcard, "No."),
            Outcome::verdict(Decision::Ask, ReasonCode::CompoundCwdDelete, "Split."),
        ] {
            let reply = render(Harness::Codex, &outcome);
            assert_eq!(reply.exit, 2);
            assert!(!reply.stderr.unwrap().trim().is_empty());
        }
        let ask = render(
            Harness::Codex,
            &Outcome::verdict(Decision::Ask, ReasonCode::CompoundCwdDelete, "Split."),
        );
        assert!(ask.stderr.unwrap().contains("ask the user"));
    }

    #[test]
    fn compensated_allow_adds_context_without_a_decision() {
        let done = Outcome::verdict(Decision::Allow, ReasonCode::RelocateTree, "Moved.")
            .with_txids(vec!["tx1".into()]);
        let reply = render(Harness::Codex, &done);
        assert_eq!(reply.exit, 0);
        let value = stdout_json(&reply);
        assert!(
            value["hookSpecificOutput"]
                .get("permissionDecision")
                .is_none()
        );
        assert!(
            value["hookSpecificOutput"]["additionalContext"]
                .as_str()
                .unwrap()
                .contains("agent-guard restore tx1")
        );
    }
}
