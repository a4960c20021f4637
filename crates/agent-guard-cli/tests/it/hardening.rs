//! Issue 12 end to end: `check --enforce` in a real git workspace, then (when allowed) the
//! real command through `sh -c`. A refused command (exit 2) is never run unconfined: the
//! test asserts the workspace is exactly as it was. An allowed harmless command is run and
//! must succeed; an allowed destructive one runs only after its compensation, confined to
//! the temporary workspace, and `restore` must bring everything back.

use std::process::Command;

use crate::support::{self, TestEnv, enforce, snapshot, txids};

/// [`support::git`], its output trimmed.
fn git(env: &TestEnv, args: &[&str]) -> String {
    support::git(env, args).trim().to_owned()
}

/// Runs `sh -c COMMAND` in the workspace (hermetic env); returns (success, stdout).
fn sh(env: &TestEnv, command: &str) -> (bool, String) {
    let output = Command::new("sh")
        .args(["-c", command])
        .current_dir(env.ws())
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &env.fixture.home)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

/// Asserts that `check --enforce` refuses `command` (exit 2, BLOCK, with `code`) and that
/// nothing in the workspace, its refs or its quarantine changed.
fn refused(env: &TestEnv, command: &str, code: &str) {
    let before = snapshot(env.ws(), &[]);
    let refs = git(env, &["for-each-ref", "--format=%(refname) %(objectname)"]);
    let (exit, report) = enforce(env, command);
    assert_eq!(exit, 2, "{command}: {report}");
    assert_eq!(report["decision"], "BLOCK", "{command}: {report}");
    assert_eq!(report["code"], code, "{command}: {report}");
    assert!(
        txids(&report).is_empty(),
        "{command}: refused, yet compensated: {report}"
    );
    assert_eq!(
        snapshot(env.ws(), &[]),
        before,
        "{command}: the workspace changed"
    );
    assert_eq!(
        git(env, &["for-each-ref", "--format=%(refname) %(objectname)"]),
        refs,
        "{command}: refs changed"
    );
}

/// Asserts that `check --enforce` allows `command` without compensating anything, then runs
/// it and returns its stdout.
fn allowed_and_run(env: &TestEnv, command: &str) -> String {
    let (exit, report) = enforce(env, command);
    assert_eq!(exit, 0, "{command}: {report}");
    assert_eq!(report["decision"], "ALLOW", "{command}: {report}");
    assert_eq!(report["code"], "ALLOW_NOOP", "{command}: {report}");
    let (ok, stdout) = sh(env, command);
    assert!(ok, "{command} failed when run");
    stdout
}

/// `check --enforce` compensates `command` (exit 0, `code`), the command runs in the
/// workspace, and `restore` brings the tree back.
fn compensated_round_trip(env: &TestEnv, command: &str, code: &str) {
    let before = snapshot(env.ws(), &["*"]);
    let (exit, report) = enforce(env, command);
    assert_eq!(exit, 0, "{command}: {report}");
    assert_eq!(report["code"], code, "{command}: {report}");
    let ids = txids(&report);
    assert!(!ids.is_empty(), "{command}: no transaction: {report}");
    let _ = sh(env, command);
    for txid in &ids {
        env.ag_ok(&["restore", txid]);
    }
    assert_eq!(
        snapshot(env.ws(), &["*"]),
        before,
        "{command}: not restored"
    );
}

#[test]
fn byte_escapes_relocate_the_file_bash_would_delete() {
    let env = TestEnv::new();
    env.write("résumé.txt", "cv\n");
    compensated_round_trip(
        &env,
        "rm -f $'r\\xc3\\xa9sum\\xc3\\xa9.txt'",
        "RELOCATE_PATHS",
    );
    // A name that is not UTF-8 is refused, not re-spelled.
    refused(&env, "rm -f $'\\xff'", "BLOCK_UNDETERMINABLE_EFFECT");
}

#[test]
fn double_parentheses_are_refused_when_sh_would_delete() {
    let env = TestEnv::new();
    refused(&env, "((rm -rf build))", "BLOCK_UNDETERMINABLE_EFFECT");
    let stdout = allowed_and_run(&env, "n=3; if [ $n -gt 2 ]; then echo big; fi");
    assert_eq!(stdout, "big\n");
}

#[test]
fn a_command_name_that_is_not_literal_is_refused() {
    let env = TestEnv::new();
    for command in [
        "CMD=rm; $CMD -rf build",
        "$(printf r)m -rf build",
        "X=; ${X:-rm} -rf build notes.txt",
        "a=r b=m; $a$b -rf dist",
    ] {
        refused(&env, command, "BLOCK_UNDETERMINABLE_EFFECT");
    }
    assert!(env.ws().join("build/report.txt").exists());
}

#[test]
fn a_shell_fed_from_a_pipe_or_a_substitution_is_refused() {
    let env = TestEnv::new();
    for command in [
        "printf 'rm -rf build\\n' | sh",
        "echo cm0gLXJmIGJ1aWxk | base64 -d | bash",
        "bash <(printf 'rm -rf build')",
        "printf 'rm notes.txt' | sh /dev/stdin",
        "printf 'import shutil; shutil.rmtree(\"build\")' | python3 -",
    ] {
        refused(&env, command, "BLOCK_UNDETERMINABLE_EFFECT");
    }
}

#[test]
fn strings_that_run_later_are_judged() {
    let env = TestEnv::new();
    // A harmless trap stays allowed and runs.
    let stdout = allowed_and_run(&env, "trap 'echo done' EXIT; echo work");
    assert_eq!(stdout, "work\ndone\n");
    // A destructive trap is judged like the command: the tree is kept first.
    compensated_round_trip(&env, "trap 'rm -rf build' EXIT; echo work", "RELOCATE_TREE");
    // Stored or deferred programs with destructive bodies are refused.
    for command in [
        "GIT_EDITOR='rm -rf build' git commit --allow-empty",
        "git -c core.pager='rm -rf build' -P log",
        "alias ls='rm -rf build'",
        "f() { rm -rf \"$1\"; }; f build",
    ] {
        refused(&env, command, "BLOCK_UNDETERMINABLE_EFFECT");
    }
    let (exit, report) = enforce(&env, "git config alias.nuke '!rm -rf build'");
    assert_eq!(exit, 2, "{report}");
    let (_, config) = sh(&env, "git config --get alias.nuke || true");
    assert_eq!(config, "", "the refused config was not written");
}

#[test]
fn harmless_per_file_scripts_run_and_destructive_ones_are_refused() {
    let env = TestEnv::new();
    // The false-block shape: allowed, and it really runs.
    let stdout = allowed_and_run(
        &env,
        "find . -path ./.git -prune -o -name '*.txt' -exec sh -c 'echo {} | grep -q report' \\; -print",
    );
    assert_eq!(stdout.trim(), "./build/report.txt");
    let stdout = allowed_and_run(&env, "ls | xargs sh -c 'echo \"$#\"' _");
    assert!(stdout.trim().parse::<u32>().unwrap() >= 3, "{stdout}");
    for command in [
        "find . -name '*.o' -exec sudo rm {} +",
        "find build -type f -exec sh -c 'rm -f \"$1\"' _ {} \\;",
        "find . -name '*.txt' -execdir busybox rm {} \\;",
        "ls | xargs -I{} sh -c 'rm -rf {}'",
    ] {
        refused(&env, command, "BLOCK_UNDETERMINABLE_EFFECT");
    }
    // A wrapper that runs its arguments is peeled: the tree is kept first.
    let lock = env.fixture.outside.join("it.lock");
    compensated_round_trip(
        &env,
        &format!("flock {} rm -rf build", lock.display()),
        "RELOCATE_TREE",
    );
}

#[test]
fn pruning_is_refused_and_branch_overwrites_keep_the_branch() {
    let env = TestEnv::new();
    git(&env, &["tag", "v1"]);
    git(&env, &["branch", "topic"]);
    env.write("src/main.rs", "fn main() { /* 2 */ }\n");
    git(&env, &["commit", "-qam", "second"]);
    // What drops unreachable objects, or moves a ref through its reflog, cannot be kept
    // first (tag and ref deletion and reflog expiry can: tests/it/git.rs).
    for command in [
        "git update-ref --no-deref -d HEAD",
        "git reflog delete --updateref HEAD@{0}",
        "git prune",
        "git gc --prune=now",
        "git config gc.pruneExpire now && git gc",
    ] {
        refused(&env, command, "BLOCK_UNDETERMINABLE_EFFECT");
    }
    assert_eq!(git(&env, &["tag", "-l"]), "v1");
    // Overwriting a branch keeps its commit under a private ref before git moves it.
    let old = git(&env, &["rev-parse", "topic"]);
    let (exit, report) = enforce(&env, "git branch -f topic HEAD");
    assert_eq!(exit, 0, "{report}");
    assert_eq!(report["code"], "SNAPSHOT_GIT_REFS", "{report}");
    let (ok, _) = sh(&env, "git branch -f topic HEAD");
    assert!(ok);
    let kept = git(
        &env,
        &[
            "for-each-ref",
            "refs/agent-guard/",
            "--format=%(objectname)",
        ],
    );
    assert!(
        kept.lines().any(|sha| sha == old),
        "{kept} should keep {old}"
    );
}
