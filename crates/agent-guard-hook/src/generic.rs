//! The generic protocol, for plugins and scripts (e.g. an `OpenCode` plugin).
//!
//! - Payload: `{"command": …, "cwd": …, "dialect"?: …, "session_id"?: …}`; `cwd` must be
//!   absolute. A file write of a plugin's own tool is `{"files": [{"path": …, "effect":
//!   "write" | "edit" | "delete" | "move-from" | "move-to"}, …], "cwd": …, "tool"?: …}`
//!   instead (no `command`).
//! - Reply: the engine's `check --json` report on stdout (a static refusal report when the
//!   hook itself refused) and its exit code: 0 proceed, 3 ask, 2 anything else. Deny and ask
//!   also put the reason on stderr.

use serde_json::{Map, Value, json};

use agent_guard_types::{EditEffect, EditFile};

use crate::edit;
use crate::outcome::Kind;
use crate::payload::{self, Field, Malformed};
use crate::{HookReply, HookRequest, Outcome, ShellCall};

pub(crate) fn parse(map: &Map<String, Value>) -> Field<HookRequest> {
    if map.contains_key("files") {
        return edit_call(map).map(HookRequest::Edit);
    }
    let command = payload::command(map, "command", "command")?;
    let cwd = payload::cwd(payload::opt_str(map, "cwd", "cwd")?, "cwd", None)?;
    Ok(HookRequest::Shell(ShellCall {
        command,
        cwd,
        dialect: payload::dialect(&[map]),
        session: payload::session(map, &["session_id", "session"]),
        input: Map::new(),
    }))
}

/// `{"files": [{"path", "effect"}, …], "cwd", "tool"?, "session_id"?}`: every entry strict.
fn edit_call(map: &Map<String, Value>) -> Field<edit::EditCall> {
    const NOT_LIST: Malformed = Malformed::WrongType {
        field: "files",
        expected: "a non-empty list of {\"path\", \"effect\"} objects",
    };
    if map.contains_key("command") {
        return Err(Malformed::WrongType {
            field: "files",
            expected: "given without `command`",
        });
    }
    let Some(Value::Array(entries)) = map.get("files") else {
        return Err(NOT_LIST);
    };
    if entries.is_empty() {
        return Err(NOT_LIST);
    }
    let files = entries
        .iter()
        .map(|entry| {
            let Value::Object(entry) = entry else {
                return Err(NOT_LIST);
            };
            let path = edit::path(entry, &[("path", "files[].path")])?;
            let effect = payload::req_str(entry, "effect", "files[].effect")?;
            let effect = [
                EditEffect::Write,
                EditEffect::Edit,
                EditEffect::Delete,
                EditEffect::MoveFrom,
                EditEffect::MoveTo,
            ]
            .into_iter()
            .find(|e| e.as_str() == effect.trim())
            .ok_or(Malformed::WrongType {
                field: "files[].effect",
                expected: "write, edit, delete, move-from or move-to",
            })?;
            Ok(EditFile::new(path, effect))
        })
        .collect::<Field<Vec<EditFile>>>()?;
    let cwd = payload::cwd(payload::opt_str(map, "cwd", "cwd")?, "cwd", None)?;
    let tool = payload::opt_str(map, "tool", "tool")?
        .filter(|t| !t.trim().is_empty())
        .unwrap_or("edit");
    Ok(edit::call(
        tool,
        Some(cwd),
        payload::session(map, &["session_id", "session"]),
        files,
    ))
}

pub(crate) fn render(outcome: &Outcome) -> HookReply {
    let (exit, stderr) = match outcome.kind() {
        Kind::Allow | Kind::Compensated => (0, None),
        Kind::Ask => (3, Some(outcome.ask_as_deny_reason())),
        Kind::Deny => (2, Some(outcome.deny_reason())),
    };
    let mut report = match (&outcome.report, &outcome.refusal) {
        (Some(Value::Object(report)), None) => report.clone(),
        _ => refusal_report(outcome),
    };
    // The exit field always agrees with the process exit code.
    report.insert("exit".into(), json!(exit));
    HookReply {
        stdout: Some(Value::Object(report).to_string()),
        stderr,
        exit,
    }
}

/// A report in the shape of `check --json` for an outcome without an engine report.
fn refusal_report(outcome: &Outcome) -> Map<String, Value> {
    let value = json!({
        "command": "<redacted>",
        "decision": outcome.decision,
        "code": outcome.code,
        "explanation": outcome.explanation,
        "reasons": [],
        "enforced": true,
        "message": outcome.message,
    });
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

#[cfg(test)]
mod tests {
    use agent_guard_types::{Decision, ReasonCode};
    use serde_json::json;

    use crate::test_support::{edit, malformed, shell, stdout_json};
    use crate::{Harness, HookRequest, Malformed, Outcome, Refusal, parse, render};

    #[test]
    fn command_and_absolute_cwd() {
        let ok = json!({"command": "ls", "cwd": "/w", "dialect": "cmd"}).to_string();
        let call = shell(Harness::Generic, ok.as_bytes());
        assert_eq!(call.dialect.as_deref(), Some("cmd"));
        let relative = json!({"command": "ls", "cwd": "w"}).to_string();
        assert_eq!(
            parse(Harness::Generic, relative.as_bytes()),
            HookRequest::Malformed(Malformed::RelativeCwd("cwd"))
        );
    }

    #[test]
    fn a_files_list_is_an_edit() {
        let ok = json!({"cwd": "/w", "tool": "my_write",
                        "files": [{"path": "a", "effect": "write"}, {"path": "b", "effect": "move-from"}]})
        .to_string();
        let call = edit(Harness::Generic, ok.as_bytes());
        assert_eq!((call.tool.as_str(), call.files.len()), ("my_write", 2));
        for bad in [
            json!({"cwd": "/w", "files": []}),
            json!({"cwd": "/w", "files": [{"path": "a"}]}),
            json!({"cwd": "/w", "files": [{"path": "a", "effect": "shred"}]}),
            json!({"cwd": "/w", "files": "a"}),
            json!({"cwd": "/w", "command": "ls", "files": [{"path": "a", "effect": "edit"}]}),
            json!({"files": [{"path": "a", "effect": "edit"}]}),
        ] {
            assert!(
                malformed(Harness::Generic, bad.to_string().as_bytes()),
                "{bad}"
            );
        }
    }

    #[test]
    fn exit_codes_follow_check() {
        let report = json!({"decision": "ALLOW", "code": "ALLOW_NOOP", "exit": 0});
        let allow = render(Harness::Generic, &Outcome::pass().with_report(report));
        assert_eq!(allow.exit, 0);
        let ask = Outcome::verdict(Decision::Ask, ReasonCode::CompoundCwdDelete, "Split.");
        assert_eq!(render(Harness::Generic, &ask).exit, 3);
        let refused = render(Harness::Generic, &Outcome::refused(Refusal::Panic));
        let value = stdout_json(&refused);
        assert_eq!(
            (value["decision"].as_str(), value["exit"].as_i64()),
            (Some("BLOCK"), Some(2))
        );
        assert_eq!(refused.exit, 2);
    }
}
