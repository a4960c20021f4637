//! The generic protocol, for plugins and scripts (e.g. an `OpenCode` plugin).
//!
//! - Payload: `{"command": …, "cwd": …, "dialect"?: …, "session_id"?: …}`; `cwd` must be
//!   absolute.
//! - Reply: the engine's `check --json` report on stdout (a static refusal report when the
//!   hook itself refused) and its exit code: 0 proceed, 3 ask, 2 anything else. Deny and ask
//!   also put the reason on stderr.

use serde_json::{Map, Value, json};

use crate::outcome::Kind;
use crate::payload::{self, Field};
use crate::{HookReply, HookRequest, Outcome, ShellCall};

pub(crate) fn parse(map: &Map<String, Value>) -> Field<HookRequest> {
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
    use serde_json::{Value, json};

    use crate::{Harness, HookRequest, Malformed, Outcome, Refusal, parse, render};

    #[test]
    fn command_and_absolute_cwd() {
        let ok = json!({"command": "ls", "cwd": "/w", "dialect": "cmd"}).to_string();
        let HookRequest::Shell(call) = parse(Harness::Generic, ok.as_bytes()) else {
            panic!("shell")
        };
        assert_eq!(call.dialect.as_deref(), Some("cmd"));
        let relative = json!({"command": "ls", "cwd": "w"}).to_string();
        assert_eq!(
            parse(Harness::Generic, relative.as_bytes()),
            HookRequest::Malformed(Malformed::RelativeCwd("cwd"))
        );
    }

    #[test]
    fn exit_codes_follow_check() {
        let report = json!({"decision": "ALLOW", "code": "ALLOW_NOOP", "exit": 0});
        let allow = render(Harness::Generic, &Outcome::pass().with_report(report));
        assert_eq!(allow.exit, 0);
        let ask = Outcome::verdict(Decision::Ask, ReasonCode::CompoundCwdDelete, "Split.");
        assert_eq!(render(Harness::Generic, &ask).exit, 3);
        let refused = render(Harness::Generic, &Outcome::refused(Refusal::Panic));
        let value: Value = serde_json::from_str(refused.stdout.as_deref().unwrap()).unwrap();
        assert_eq!(
            (value["decision"].as_str(), value["exit"].as_i64()),
            (Some("BLOCK"), Some(2))
        );
        assert_eq!(refused.exit, 2);
    }
}
