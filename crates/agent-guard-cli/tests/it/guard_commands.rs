//! The guard's own commands and `script`, run for real by an agent's shell (issue 35): the
//! read-only verbs change nothing and are free; `check --enforce` carries out a
//! compensation (a relocation takes the targets out of the workspace, into whatever store
//! `AGENT_GUARD_TRASH` names) and is checkpointed; `script FILE` truncates FILE first. Each
//! line is checked with `check --enforce`, run by `sh` with the guard on `PATH`, and undone
//! where it changed something.

use std::path::Path;

use crate::support::{TestEnv, enforce, snapshot, undone_after_run};

/// Runs `line` with `sh` in the workspace, the guard's binary first on `PATH`.
fn sh(env: &TestEnv, line: &str) -> std::process::Output {
    let bin = Path::new(assert_cmd::cargo::cargo_bin!("agent-guard"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!("{}:/usr/bin:/bin", bin.display());
    env.std_cmd("sh")
        .args(["-c", line])
        .env("PATH", path)
        .output()
        .unwrap()
}

#[test]
fn the_read_only_verbs_change_nothing_and_are_free() {
    let env = TestEnv::new();
    env.ag_ok(&["check", "--enforce", "--json", "--", "rm -rf build"]);
    let before = snapshot(env.ws(), &["**"]);
    for line in [
        "agent-guard list --json",
        "agent-guard status && agent-guard show @",
        "agent-guard check --json 'rm -rf src'",
        "agent-guard explain BLOCK_WILDCARD",
        "agent-guard gc",
    ] {
        let (exit, report) = enforce(&env, line);
        assert_eq!((exit, &report["code"]), (0, &"ALLOW_NOOP".into()), "{line}");
        let run = sh(&env, line);
        assert!(run.status.success(), "{line}: {run:?}");
        assert_eq!(
            snapshot(env.ws(), &["**"]),
            before,
            "{line} changed the workspace"
        );
    }
}

#[test]
fn check_enforce_run_by_the_agent_is_checkpointed_and_undone() {
    let line = "agent-guard check --enforce 'rm -rf src'";
    undone_after_run(
        &TestEnv::new(),
        line,
        "SNAPSHOT_CHECKPOINT",
        |env| drop(sh(env, line)),
        |env| !env.ws().join("src").exists(),
    );
}

/// The guard run with one of its own variables set writes its store wherever that names,
/// even for a verb that only reads (found by an outside review: a committed `src/state.json`
/// overwritten by `mode restricted`'s record). Refused; run anyway, the damage is real.
#[test]
fn the_guard_pointed_at_another_store_is_refused() {
    for line in [
        "AGENT_GUARD_TRASH=src agent-guard mode restricted",
        "export AGENT_GUARD_TRASH=src; agent-guard list --json",
    ] {
        let env = TestEnv::new();
        env.write("src/state.json", "{\"committed\": true}\n");
        let (exit, report) = enforce(&env, line);
        assert_eq!(exit, 2, "{line}: {report}");
        assert_eq!(
            report["code"], "BLOCK_UNDETERMINABLE_EFFECT",
            "{line}: {report}"
        );
        sh(&env, line);
        let entries: Vec<_> = std::fs::read_dir(env.ws().join("src"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(
            env.read("src/state.json") != "{\"committed\": true}\n" || entries.len() > 2,
            "{line}: the real run writes the store it was pointed at: {entries:?}"
        );
    }
}

#[test]
fn script_truncates_its_typescript_and_the_old_file_comes_back() {
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        assert!(
            std::env::var_os("CI").is_none(),
            "script (util-linux's bsdutils) is not installed"
        );
        return;
    }
    let env = TestEnv::new();
    env.write("notes.txt", "the notes\n");
    let before = snapshot(env.ws(), &["*"]);
    let line = "script -qc true notes.txt";
    let (exit, report) = enforce(&env, line);
    assert_eq!(exit, 0, "{report}");
    assert_eq!(report["code"], "SNAPSHOT_OVERWRITE", "{report}");
    sh(&env, line);
    assert_ne!(
        env.read("notes.txt"),
        "the notes\n",
        "script wrote its typescript"
    );
    env.ag_ok(&["undo", "--json"]);
    assert_eq!(snapshot(env.ws(), &["*"]), before);
}
