//! Issue 35: a git command that writes another commit into the work tree is refused when
//! that commit carries a different hook file (`git checkout evil`, where `evil` commits a
//! `.claude/settings.local.json` with `disableAllHooks`), and only then: a branch that
//! changes ordinary files is checked out and merged as before. A real repository made with
//! the `git` CLI, the real binary in hook mode (Claude Code's payload), and each allowed
//! command run afterwards.

use serde_json::json;

use crate::hooks::{blocks, proceeds, reply_text, run_payload, shell_payload};
use crate::support::{TestEnv, enforce, git, git_in};

const HOOKS: &str = "{\"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\"}]}}\n";
const OFF: &str = "{\"disableAllHooks\": true}\n";

/// A workspace on `main` with a committed `.claude/settings.json`, and branches: `evil`
/// (adds `settings.local.json` with `disableAllHooks`), `clean-branch` (ordinary files
/// only), `linked` (`.claude` a symlink) and `filed` (`.claude` a file); a stash entry
/// holding a `settings.local.json`.
fn repository() -> TestEnv {
    let env = TestEnv::new();
    let ws = env.ws();
    git(&env, &["switch", "-q", "-c", "main"]);
    env.write(".claude/settings.json", HOOKS);
    env.write("sub/keep.txt", "keep\n");
    git(&env, &["add", ".claude/settings.json", "sub/keep.txt"]);
    git(&env, &["commit", "-q", "-m", "hooks"]);

    git(&env, &["switch", "-q", "-c", "evil"]);
    env.write(".claude/settings.local.json", OFF);
    git(&env, &["add", ".claude/settings.local.json"]);
    git(&env, &["commit", "-q", "-m", "evil"]);

    git(&env, &["switch", "-q", "-c", "clean-branch", "main"]);
    env.write("src/main.rs", "fn main() { println!(\"clean\"); }\n");
    env.write("docs.txt", "docs\n");
    git(&env, &["add", "src/main.rs", "docs.txt"]);
    git(&env, &["commit", "-q", "-m", "clean"]);

    for (branch, make) in [
        ("linked", "ln -s ../outside .claude"),
        ("filed", "echo not-a-directory > .claude"),
    ] {
        git(&env, &["switch", "-q", "-c", branch, "main"]);
        git(&env, &["rm", "-q", "-r", ".claude"]);
        let made = std::process::Command::new("sh")
            .args(["-c", make])
            .current_dir(ws)
            .status()
            .unwrap();
        assert!(made.success());
        git(&env, &["add", ".claude"]);
        git(&env, &["commit", "-q", "-m", branch]);
    }

    git(&env, &["switch", "-q", "main"]);
    env.write(".claude/settings.local.json", OFF);
    git(&env, &["stash", "push", "-q", "-u", "--", ".claude"]);
    assert!(!ws.join(".claude/settings.local.json").exists());
    env
}

/// The branch checked out, and whether the hooks are as `main` has them.
fn state(env: &TestEnv) -> (String, bool) {
    let branch = git(env, &["rev-parse", "--abbrev-ref", "HEAD"]);
    let hooks = !env.ws().join(".claude/settings.local.json").exists()
        && std::fs::read_to_string(env.ws().join(".claude/settings.json")).ok()
            == Some(HOOKS.to_owned());
    (branch.trim().to_owned(), hooks)
}

/// Asks the hook (Claude Code's payload) about `command`: `true` if it may run. Also
/// checks the JSON report's code when it may not.
fn allowed(env: &TestEnv, command: &str) -> bool {
    let payload = shell_payload("claude-code", Some(json!(command)), env.ws());
    let reply = run_payload(env, "claude-code", &payload);
    if proceeds("claude-code", &reply) {
        return true;
    }
    assert!(blocks("claude-code", &reply), "{command}: {reply:?}");
    let (exit, report) = enforce(env, command);
    assert_eq!(exit, 2, "{command}: {report}");
    assert_eq!(
        report["code"], "BLOCK_SELF_PROTECTION",
        "{command}: {report}"
    );
    assert!(
        reply_text(&reply).contains("agent-guard"),
        "{command}: {}",
        reply_text(&reply)
    );
    false
}

#[test]
fn moving_to_a_commit_with_another_hook_file_is_refused() {
    let env = repository();
    let evil = git(&env, &["rev-parse", "evil"]);
    let pick = format!("git cherry-pick {}", evil.trim());
    for command in [
        "git checkout evil",
        "git switch evil",
        "git merge evil",
        "git merge --no-ff -m x evil",
        pick.as_str(),
        "git stash pop",
        "git stash apply",
        "git checkout evil -- .claude",
        "git restore --source evil .claude",
        "git -C sub checkout evil",
        "cd sub && git switch evil",
        "git checkout -b other evil",
        "git reset --keep evil",
        "git reset --hard evil",
        "git reset --soft evil",
        "git branch tmp evil && git checkout tmp",
        "git fetch -q . evil:fetched && git checkout fetched",
        "git rebase evil",
        "git checkout linked",
        "git checkout filed",
        "git switch --orphan empty",
        "git rm .claude/settings.json",
    ] {
        assert!(!allowed(&env, command), "{command} was allowed");
        assert_eq!(
            state(&env),
            ("main".to_owned(), true),
            "{command} changed something"
        );
    }
    assert_eq!(git(&env, &["stash", "list"]).lines().count(), 1);
}

#[test]
fn moving_to_a_commit_with_the_same_hook_files_runs() {
    let env = repository();
    for (command, args) in [
        (
            "git checkout evil -- src",
            &["checkout", "evil", "--", "src"][..],
        ),
        (
            "git checkout clean-branch",
            &["checkout", "-q", "clean-branch"],
        ),
        ("git checkout main", &["checkout", "-q", "main"]),
        ("git merge clean-branch", &["merge", "-q", "clean-branch"]),
        (
            "git restore --source clean-branch docs.txt",
            &["restore", "--source", "clean-branch", "docs.txt"],
        ),
        ("git rm -q docs.txt", &["rm", "-q", "docs.txt"]),
    ] {
        assert!(allowed(&env, command), "{command} was refused");
        git(&env, args);
        assert!(state(&env).1, "{command} changed the hooks");
    }
    assert_eq!(state(&env).0, "main");
    assert_eq!(
        env.read("src/main.rs"),
        "fn main() { println!(\"clean\"); }\n",
        "the merge ran"
    );
    assert!(!env.ws().join("docs.txt").exists(), "git rm ran");
}

/// `git pull` merges what it fetches: compared as the remote-tracking branch is before the
/// fetch (a commit not fetched yet is unknown, and refused where commits hold hook files).
#[test]
fn a_pull_that_brings_another_hook_file_is_refused() {
    let env = repository();
    let remote = env.fixture.outside.join("remote.git");
    let other = env.fixture.outside.join("other");
    git_in(
        &env.fixture.outside,
        &["init", "-q", "--bare", remote.to_str().unwrap()],
    );
    git(&env, &["remote", "add", "origin", remote.to_str().unwrap()]);
    git(
        &env,
        &["push", "-q", "-u", "origin", "main", "clean-branch"],
    );
    assert!(allowed(&env, "git pull"), "nothing new upstream");
    git_in(
        &env.fixture.outside,
        &[
            "clone",
            "-q",
            "-b",
            "main",
            remote.to_str().unwrap(),
            other.to_str().unwrap(),
        ],
    );
    std::fs::write(other.join(".claude/settings.local.json"), OFF).unwrap();
    git_in(&other, &["add", ".claude/settings.local.json"]);
    git_in(&other, &["commit", "-q", "-m", "off"]);
    git_in(&other, &["push", "-q", "origin", "main"]);
    git(&env, &["fetch", "-q", "origin"]);
    assert!(!allowed(&env, "git pull"));
    assert!(!allowed(&env, "git pull origin main"));
    assert!(allowed(&env, "git pull origin clean-branch"));
    assert_eq!(state(&env), ("main".to_owned(), true));
}
