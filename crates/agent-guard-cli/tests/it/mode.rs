//! `agent-guard mode`: the TTY rule for leaving RESTRICTED.

use crate::support::{TestEnv, json};

#[test]
fn restricting_is_allowed_but_leaving_needs_a_terminal() {
    let env = TestEnv::new();
    env.ag_ok(&["mode", "restricted"]);
    let report = env.check_json("rm -rf build");
    assert_eq!(report["mode"], "RESTRICTED");
    assert_eq!(report["code"], "BLOCK_RESTRICTED_MODE");
    assert_eq!(env.check_json("rm notes.txt")["code"], "RELOCATE_NARROW");

    // stdin is not a terminal here: the agent cannot lift the restriction itself.
    let output = env.ag(&["mode", "normal"]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("error:"), "{stderr}");
    assert_eq!(env.check_json("rm -rf build")["mode"], "RESTRICTED");
}

#[test]
fn sessions_are_independent() {
    let env = TestEnv::new();
    env.ag_ok(&["mode", "restricted"]);
    let output = env.ag_with(
        "AGENT_GUARD_SESSION",
        "other",
        &["check", "--json", "--", "rm -rf build"],
    );
    let report = json(&output);
    assert_eq!(report["mode"], "NORMAL");
}
