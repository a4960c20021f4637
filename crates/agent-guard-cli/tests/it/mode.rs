//! `agent-guard mode`: the TTY rule for leaving RESTRICTED.

use crate::support::TestEnv;

#[test]
fn restricting_is_allowed_but_leaving_needs_a_terminal() {
    let env = TestEnv::new();
    env.cmd("agent-guard")
        .args(["mode", "restricted"])
        .assert()
        .success();
    let report = env.check_json("rm -rf build");
    assert_eq!(report["mode"], "RESTRICTED");
    assert_eq!(report["code"], "BLOCK_RESTRICTED_MODE");
    assert_eq!(env.check_json("rm notes.txt")["code"], "RELOCATE_NARROW");

    // stdin is not a terminal here: the agent cannot lift the restriction itself.
    let output = env
        .cmd("agent-guard")
        .args(["mode", "normal"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("error:"), "{stderr}");
    assert_eq!(env.check_json("rm -rf build")["mode"], "RESTRICTED");
}

#[test]
fn sessions_are_independent() {
    let env = TestEnv::new();
    env.cmd("agent-guard")
        .args(["mode", "restricted"])
        .assert()
        .success();
    let output = env
        .cmd("agent-guard")
        .env("AGENT_GUARD_SESSION", "other")
        .args(["check", "--json", "--", "rm -rf build"])
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["mode"], "NORMAL");
}
