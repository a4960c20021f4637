//! A person's one-time approval of an ASK (issue 16, point 11), through each harness's hook:
//! the agent is told how its user approves, the user approves at a terminal, the agent's
//! retry of exactly that command proceeds and the real command runs; the approval is used up,
//! bound to the command, the directory and the workspace, and expires.

use serde_json::{Value, json};

use crate::hooks::{asks, proceeds, reply_text, run_payload, shell_payload};
use crate::support::{TestEnv, pty, run_shell};

/// The harnesses that cannot put a call to a person themselves: the deny teaches `approve`.
const CANNOT_PROMPT: &[&str] = &["codex", "gemini", "cline", "windsurf", "opencode"];

/// A `cd` in a subshell is not followed: the line is asked about.
const COMMAND: &str = "(cd sub && rm -rf build)";

fn waiting(env: &TestEnv) -> Vec<Value> {
    let output = env.ag_ok(&["approve", "--json"]);
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    json["waiting"].as_array().unwrap().clone()
}

pub fn an_approved_ask_runs_once(harness: &str) {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.ws().join("sub/build")).unwrap();
    env.write("sub/build/x.o", "x");
    let payload = shell_payload(harness, Some(json!(COMMAND)), env.ws());
    let asked = run_payload(&env, harness, &payload);
    assert!(asks(harness, &asked), "{harness}: {asked:?}");
    let requests = waiting(&env);
    assert_eq!(requests.len(), 1, "{requests:?}");
    let id = requests[0]["id"].as_str().unwrap().to_owned();
    assert_eq!(requests[0]["command"], COMMAND);
    if CANNOT_PROMPT.contains(&harness) {
        let said = reply_text(&asked);
        assert!(
            said.contains(&format!("agent-guard approve {id}")),
            "{harness}: {said}"
        );
    }
    // Asking again does not pile up requests.
    run_payload(&env, harness, &payload);
    assert_eq!(waiting(&env).len(), 1);

    // The agent cannot approve without a terminal.
    let refused = env.ag(&["approve", &id]);
    assert_eq!(refused.status.code(), Some(1), "{refused:?}");
    assert!(String::from_utf8_lossy(&refused.stderr).contains("terminal"));
    let still = run_payload(&env, harness, &payload);
    assert!(asks(harness, &still), "{harness}: not approved yet");

    // A person at a terminal, who says no, then yes.
    let declined = pty(&env, &["approve", &id], "n\n", &[]);
    assert!(declined.text.contains("not approved"), "{}", declined.text);
    assert!(asks(harness, &run_payload(&env, harness, &payload)));
    let approved = pty(&env, &["approve", &id[id.len() - 6..]], "y\n", &[]);
    assert_eq!(approved.code, 0, "{}", approved.text);
    assert!(
        approved.text.contains(COMMAND),
        "shows the command: {}",
        approved.text
    );

    // Another command, or the same one from another directory, is not approved.
    let other = shell_payload(harness, Some(json!("(cd sub && rm -rf buildx)")), env.ws());
    assert!(asks(harness, &run_payload(&env, harness, &other)));
    std::fs::create_dir_all(env.ws().join("elsewhere/sub")).unwrap();
    let moved = shell_payload(harness, Some(json!(COMMAND)), &env.ws().join("elsewhere"));
    assert!(asks(harness, &run_payload(&env, harness, &moved)));

    // The retry proceeds, and the real command runs.
    let retried = run_payload(&env, harness, &payload);
    assert!(proceeds(harness, &retried), "{harness}: {retried:?}");
    run_shell(&env, COMMAND);
    assert!(!env.ws().join("sub/build").exists());

    // Used up: the same command asks again.
    std::fs::create_dir_all(env.ws().join("sub/build")).unwrap();
    assert!(asks(harness, &run_payload(&env, harness, &payload)));
    let audit = std::fs::read_to_string(env.trash().join("audit.jsonl")).unwrap();
    assert!(audit.contains("\"event\":\"approve\""), "audited");
    assert!(
        audit.contains("\"code\":\"ALLOW_APPROVED\""),
        "its use is audited"
    );
    assert!(!audit.contains("rm -rf"), "the command stays redacted");
}

#[test]
fn an_approval_expires() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.ws().join("sub/build")).unwrap();
    let at = |now: &str| {
        env.cmd("agent-guard")
            .args(["check", "--enforce", "--json", "--", COMMAND])
            .env("AGENT_GUARD_NOW", now)
            .output()
            .unwrap()
    };
    assert_eq!(at("2026-12-01T10:00:00Z").status.code(), Some(3));
    let id = waiting_at(&env, "2026-12-01T10:00:00Z");
    let approved = pty(
        &env,
        &["approve", &id, "--minutes", "5"],
        "y\n",
        &[("AGENT_GUARD_NOW", "2026-12-01T10:01:00Z")],
    );
    assert_eq!(approved.code, 0, "{}", approved.text);
    // Six minutes later it no longer holds.
    assert_eq!(at("2026-12-01T10:07:00Z").status.code(), Some(3));
    assert!(env.ws().join("sub/build").exists());
}

fn waiting_at(env: &TestEnv, now: &str) -> String {
    let output = env
        .cmd("agent-guard")
        .args(["approve", "--json"])
        .env("AGENT_GUARD_NOW", now)
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    json["waiting"][0]["id"].as_str().unwrap().to_owned()
}
