//! The argv interface judges exactly what it is given, and never creates a workspace by
//! fallback in the wrong place (issue 12, items 3 and 6–9).

use std::os::unix::ffi::OsStrExt as _;

use crate::support::{TestEnv, json, run_shell};

/// Item 6: `check -- rm -- -rf` deletes a file named `-rf`; the words are judged as given.
#[test]
fn argv_words_are_judged_exactly_separators_included() {
    let env = TestEnv::new();
    env.write("-rf", "a file named -rf\n");
    let output = env.ag(&["check", "--json", "--", "rm", "--", "-rf"]);
    let report = json(&output);
    assert_eq!(report["code"], "RELOCATE_PATHS", "{report}");

    // `rm -rf 'my  dir'` names one directory with two spaces, not `my` and `dir`.
    std::fs::create_dir_all(env.ws().join("my  dir")).unwrap();
    env.write("my  dir/f", "f\n");
    env.write("my", "my\n");
    env.write("dir", "dir\n");
    let output = env.ag(&["check", "--enforce", "--json", "--", "rm", "-rf", "my  dir"]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let report = json(&output);
    assert_eq!(report["code"], "RELOCATE_TREE", "{report}");
    assert!(!env.ws().join("my  dir").exists(), "the named tree moved");
    assert!(env.ws().join("my").exists() && env.ws().join("dir").exists());
    // A one-argument command line is read as the shell would read it.
    let report = env.check_json("rm -rf my dir");
    assert_eq!(report["code"], "RELOCATE_PATHS", "{report}");
}

/// Item 7: a mistyped option is a usage error, never part of the command.
#[test]
fn mistyped_options_are_usage_errors_and_never_judged() {
    let env = TestEnv::new();
    for args in [
        &["check", "--enforce", "--jsn", "--", "rm -rf build"][..],
        &["check", "--enfroce", "--", "rm -rf build"],
        &["check"],
        &["check", "--enforce"],
    ] {
        let output = env.cmd("agent-guard").args(args).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}: {output:?}");
        assert!(
            String::from_utf8_lossy(&output.stderr).contains("error:"),
            "{args:?}: {output:?}"
        );
    }
    assert!(env.ws().join("build/report.txt").exists(), "nothing moved");
    assert!(!env.trash().exists(), "nothing written");
    // In hook mode the same mistake is the harness's deny, wherever it is.
    for args in [
        &["check", "--enfroce", "--harness", "claude-code"][..],
        &["check", "--harness", "claude-code", "--enfroce"],
    ] {
        let output = env
            .cmd("agent-guard")
            .args(args)
            .write_stdin("{}")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&output.stdout);
        assert!(
            text.contains("\"deny\"") && text.contains("HOOK_USAGE_ERROR"),
            "{args:?}: {output:?}"
        );
        assert_ne!(output.status.code(), Some(1));
    }
}

/// Item 8: with no `.git` above, neither the home directory nor `/` becomes a workspace.
#[test]
fn the_home_directory_and_the_root_are_never_fallback_workspaces() {
    let env = TestEnv::new();
    let home = env.fixture.home.clone();
    std::fs::write(home.join("notes.txt"), "notes\n").unwrap();
    let output = env
        .cmd("agent-guard")
        .current_dir(&home)
        .args(["safe-delete", "--json", "notes.txt"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(home.join("notes.txt").exists());
    assert!(
        !home.join(".agent-trash").exists(),
        "no quarantine in $HOME"
    );
    let output = env
        .cmd("agent-guard")
        .current_dir(&home)
        .args(["check", "--json", "--", "rm notes.txt"])
        .output()
        .unwrap();
    let report = json(&output);
    assert_eq!(report["decision"], "BLOCK", "{report}");
    assert!(
        report["warnings"]
            .to_string()
            .contains("AGENT_GUARD_WORKSPACE"),
        "the message says how to set one: {report}"
    );
    assert!(!home.join(".agent-trash").exists());
    let output = env.ag(&[
        "check",
        "--enforce",
        "--cwd",
        "/",
        "--",
        "rm -rf /nonexistent-x",
    ]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(!std::path::Path::new("/.agent-trash").exists());
    // An explicit workspace is honoured.
    let output = env
        .cmd("agent-guard")
        .current_dir(&home)
        .env("AGENT_GUARD_WORKSPACE", &home)
        .args(["safe-delete", "--json", "notes.txt"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
}

/// Item 9: a glob over names that are not UTF-8 neither panics nor misnames them.
#[test]
fn safe_delete_globs_over_names_that_are_not_utf8() {
    let env = TestEnv::new();
    let odd = std::ffi::OsStr::from_bytes(b"r\xe9sum\xe9.txt");
    env.write(odd, "latin-1 name\n");
    env.write("plain.txt", "plain\n");
    let output = env.ag(&["safe-delete", "--json", "*.txt"]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let report = json(&output);
    assert_eq!(report["outcome"], "relocated to quarantine", "{report}");
    assert!(!env.ws().join(odd).exists() && !env.ws().join("plain.txt").exists());
    let txid = report["txid"].as_str().unwrap().to_owned();
    env.ag_ok(&["restore", &txid]);
    assert_eq!(
        std::fs::read(env.ws().join(odd)).unwrap(),
        b"latin-1 name\n"
    );
}

/// Item 3: after a restore that put some items back and hit a conflict, `--force` (or
/// `--to`) says the others were restored before, and exits 0.
#[test]
fn a_restore_after_a_partial_restore_succeeds() {
    let env = TestEnv::new();
    let output = env.ag(&["safe-delete", "--json", "notes.txt", "dist"]);
    let txid = json(&output)["txid"].as_str().unwrap().to_owned();
    run_shell(&env, "echo occupant > notes.txt");
    let first = env.ag(&["restore", "--json", &txid]);
    assert_eq!(first.status.code(), Some(3), "a conflict: {first:?}");
    assert!(env.ws().join("dist/bundle.js").exists(), "dist came back");
    let forced = env.ag(&["restore", "--json", "--force", &txid]);
    assert_eq!(forced.status.code(), Some(0), "{forced:?}");
    let report = json(&forced);
    assert!(
        report["previously_restored"].to_string().contains("dist"),
        "{report}"
    );
    assert!(report["errors"].as_array().unwrap().is_empty(), "{report}");
    assert_eq!(env.read("notes.txt"), "notes\n");
}
