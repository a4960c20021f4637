//! Definitions run nothing (issue 38, point 2): a line that only defines a function or an
//! alias is allowed and moves nothing aside; a later line of the same session (a shell that
//! keeps its definitions) that calls it is judged by its body. Run in one real `bash` that
//! reads the lines the guard lets through, as a harness's persistent shell does.

use std::io::Write as _;
use std::process::{Command, Stdio};

use crate::support::{TestEnv, snapshot};

/// `check --enforce` in session `session`: (exit code, report).
fn enforce_in(env: &TestEnv, session: &str, line: &str) -> (i32, serde_json::Value) {
    let output = env.ag_with(
        "AGENT_GUARD_SESSION",
        session,
        &["check", "--enforce", "--json", "--", line],
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    (output.status.code().unwrap_or(-1), report)
}

#[test]
fn a_definition_runs_nothing_and_its_later_call_is_judged_by_its_body() {
    let env = TestEnv::new();
    env.write("src/a.py", "print('a')\n");
    env.write("src/lib/b.py", "print('b')\n");
    std::fs::create_dir_all(&env.fixture.outside).unwrap();
    let outside = env.fixture.outside.join("data");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("keep.txt"), "outside\n").unwrap();
    let before = snapshot(env.ws(), &["**"]);
    let mut shell = Command::new("bash")
        .current_dir(env.ws())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = shell.stdin.take().unwrap();
    let mut run = |line: &str| writeln!(stdin, "{line}").unwrap();
    let define_out = format!("wipe_data() {{ rm -rf {}; }}", outside.display());
    for line in [define_out.as_str(), "tidy() { rm -rf src; }"] {
        let (exit, report) = enforce_in(&env, "a", line);
        assert_eq!(exit, 0, "{line}: {report}");
        assert_eq!(report["code"], "ALLOW_NOOP", "{line}: {report}");
        run(line);
    }
    assert_eq!(
        snapshot(env.ws(), &["**"]),
        before,
        "a definition moves nothing aside"
    );
    // The call of the one that deletes outside the workspace is refused; in another session
    // (another shell) the name is an unknown program, checkpointed.
    for call in [
        "wipe_data",
        "wipe_data --version",
        "wipe_\"data\"",
        "x=1; wipe_data",
    ] {
        let (exit, report) = enforce_in(&env, "a", call);
        assert_eq!(exit, 2, "{call}: {report}");
        assert_eq!(report["code"], "BLOCK_OUT_OF_WORKSPACE", "{call}: {report}");
    }
    let (_, other) = enforce_in(&env, "b", "wipe_data");
    assert_eq!(other["code"], "SNAPSHOT_CHECKPOINT", "{other}");
    // The call of the one that deletes in the workspace is judged as `rm -rf src`, runs in
    // the same shell, and is undone.
    let (exit, report) = enforce_in(&env, "a", "tidy");
    assert_eq!(exit, 0, "{report}");
    assert_eq!(report["code"], "RELOCATE_TREE", "{report}");
    run("tidy");
    drop(stdin);
    assert!(shell.wait().unwrap().success());
    assert!(!env.ws().join("src").exists(), "the real call ran");
    assert!(outside.join("keep.txt").exists());
    env.ag_ok(&["undo", "--json"]);
    assert_eq!(snapshot(env.ws(), &["**"]), before, "undone");
    // An advisory check remembers nothing (it writes nothing).
    let advisory = env.ag_with(
        "AGENT_GUARD_SESSION",
        "c",
        &["check", "--json", "--", &define_out],
    );
    assert!(advisory.status.success(), "{advisory:?}");
    let (_, report) = enforce_in(&env, "c", "wipe_data");
    assert_eq!(report["code"], "SNAPSHOT_CHECKPOINT", "{report}");
}

/// From an outside review: a `DEBUG` trap set by one line runs a function a later line
/// defines before every command after it; the definition is judged as called.
#[test]
fn a_function_a_kept_trap_names_is_judged_where_it_is_defined() {
    let env = TestEnv::new();
    let (exit, report) = enforce_in(&env, "t", "trap tidy DEBUG");
    assert_eq!(exit, 0, "{report}");
    let (exit, report) = enforce_in(&env, "t", "tidy() { rm -rf .git; trap - DEBUG; }");
    assert_eq!(exit, 2, "{report}");
    // Another session never set the trap.
    let (exit, report) = enforce_in(&env, "u", "tidy() { rm -rf .git; trap - DEBUG; }");
    assert_eq!(exit, 0, "{report}");
}
