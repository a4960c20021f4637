//! Codex CLI `PreToolUse` (same payload shape as Claude Code).
//!
//! - Shell tool: `Bash` (case-insensitive). `apply_patch` carries patch text in
//!   `tool_input.command`: a patch without `*** Delete File:` lines is passed through, one
//!   with deletes is [`HookRequest::PatchDelete`] (the files cannot be quarantined ahead of
//!   the patch, which needs them to exist). Other tools (MCP, …) proceed silently.
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

use crate::outcome::Kind;
use crate::payload::Field;
use crate::tool_use::{exit_2, reply, tool_use};
use crate::{HookReply, HookRequest, Outcome};

/// The marker of a file deletion in a Codex patch.
const DELETE_MARKER: &str = "*** Delete File:";

pub(crate) fn parse(map: &Map<String, Value>) -> Field<HookRequest> {
    let tool = tool_use(map)?;
    if tool.is("bash") {
        return tool.shell(None).map(HookRequest::Shell);
    }
    if tool.is("apply_patch") {
        // The patch text is `tool_input.command` today; every string of the payload is
        // scanned so that a patch moved to another field is still seen.
        let files = deletes(&Value::Object(map.clone()));
        return Ok(if files == 0 {
            HookRequest::NotShell
        } else {
            HookRequest::PatchDelete { files }
        });
    }
    Ok(HookRequest::NotShell)
}

/// The `*** Delete File:` lines in every string of `value`.
fn deletes(value: &Value) -> usize {
    match value {
        Value::String(text) => text
            .lines()
            .filter(|line| line.trim_start().starts_with(DELETE_MARKER))
            .count(),
        Value::Array(items) => items.iter().map(deletes).sum(),
        Value::Object(map) => map.values().map(deletes).sum(),
        _ => 0,
    }
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
    use agent_guard_types::{Decision, ReasonCode};
    use serde_json::{Value, json};

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
    fn apply_patch_deletes_are_flagged() {
        let patch =
            "*** Begin Patch\n*** Delete File: a.txt\n*** Delete File: b.txt\n*** End Patch";
        assert_eq!(
            parse(
                Harness::Codex,
                &payload("apply_patch", &json!({"command": patch}))
            ),
            HookRequest::PatchDelete { files: 2 }
        );
        let edit = "*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+y\n*** End Patch";
        assert_eq!(
            parse(
                Harness::Codex,
                &payload("apply_patch", &json!({"command": edit}))
            ),
            HookRequest::NotShell
        );
        let elsewhere = json!({"input": ["*** Begin Patch\n*** Delete File: c\n*** End Patch"]});
        assert_eq!(
            parse(Harness::Codex, &payload("apply_patch", &elsewhere)),
            HookRequest::PatchDelete { files: 1 }
        );
        assert!(matches!(
            parse(
                Harness::Codex,
                &payload("Bash", &json!({"command": ["rm", "x"]}))
            ),
            HookRequest::Malformed(_)
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
        let value: Value = serde_json::from_str(reply.stdout.as_deref().unwrap()).unwrap();
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
