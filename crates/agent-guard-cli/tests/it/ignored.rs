//! What git does not ignore is not regenerable (issue 36): a root `.gitignore` with `build`
//! and `sub/.gitignore` with `!build` — git keeps `sub/build`. Before, the guard asked
//! libgit2, called `rm -rf sub/build` regenerable (deleted, nothing kept) and the
//! checkpoint left it out: the data could not come back. Real deletes, real undo, byte for
//! byte; `build/` at the root stays regenerable.

use std::fmt::Write as _;

use crate::support::{TestEnv, enforce, git_in, run_shell, snapshot, txids};

fn negated() -> TestEnv {
    let env = TestEnv::new();
    let ws = env.ws();
    std::fs::write(ws.join(".gitignore"), "node_modules/\nbuild\n").unwrap();
    std::fs::create_dir_all(ws.join("sub/build/deep")).unwrap();
    std::fs::write(ws.join("sub/.gitignore"), "!build\n").unwrap();
    std::fs::write(ws.join("sub/build/data.bin"), [0u8, 1, 2, 250, 251]).unwrap();
    std::fs::write(ws.join("sub/build/deep/notes.md"), "only here\n").unwrap();
    std::fs::write(ws.join("wipe.sh"), "rm -rf sub/build build\n").unwrap();
    env
}

fn undo(env: &TestEnv) {
    env.ag_ok(&["undo", "--json"]);
}

#[test]
fn a_directory_a_deeper_file_re_includes_is_kept_and_undone() {
    let env = negated();
    let before = snapshot(env.ws(), &["sub"]);
    let (exit, report) = enforce(&env, "rm -rf sub/build");
    assert_eq!(exit, 0, "{report}");
    assert_ne!(report["code"], "ALLOW_REGENERABLE", "{report}");
    assert_eq!(txids(&report).len(), 1, "kept first: {report}");
    run_shell(&env, "rm -rf sub/build");
    assert!(!env.ws().join("sub/build").exists(), "the command ran");
    undo(&env);
    assert_eq!(snapshot(env.ws(), &["sub"]), before);
}

#[test]
fn a_checkpoint_keeps_it_and_leaves_the_ignored_build_out() {
    let env = negated();
    // A checkpoint restores content and modes, not times (as git does).
    let mut before = snapshot(env.ws(), &["**"]);
    before.retain(|path, _| !(path == b"build" || path.starts_with(b"build/")));
    let (exit, report) = enforce(&env, "sh wipe.sh");
    assert_eq!(exit, 0, "{report}");
    assert_eq!(report["code"], "SNAPSHOT_CHECKPOINT", "{report}");
    run_shell(&env, "sh wipe.sh");
    assert!(!env.ws().join("sub/build").exists(), "the script ran");
    undo(&env);
    assert_eq!(snapshot(env.ws(), &["**"]), before);
    assert!(
        !env.ws().join("build").exists(),
        "the root build/ is ignored and regenerable: not kept"
    );
}

#[test]
fn the_root_build_stays_regenerable() {
    let env = negated();
    let (exit, report) = enforce(&env, "rm -rf build");
    assert_eq!(exit, 0, "{report}");
    assert_eq!(report["code"], "ALLOW_REGENERABLE", "{report}");
}

/// Found by an outside review: a repository of its own inside an ignored `build/` (a `CMake`
/// `_deps`, with an unpushed commit and an edit) and a linked worktree in an ignored `dist/`
/// (staged work) were regenerable to the guard, which looked only at the outer index. Now
/// they are kept, the real `rm -rf` runs, and `undo` brings back every byte, the inner
/// `.git` included.
#[test]
fn another_repository_inside_an_ignored_directory_is_kept_and_undone() {
    let env = TestEnv::new();
    let ws = env.ws();
    std::fs::write(ws.join(".gitignore"), "node_modules/\nbuild/\ndist/\n").unwrap();
    git_in(ws, &["add", ".gitignore"]);
    git_in(ws, &["commit", "-qm", "ignore build and dist"]);
    let lib = ws.join("build/_deps/lib");
    std::fs::create_dir_all(&lib).unwrap();
    git_in(&lib, &["init", "-q"]);
    std::fs::write(lib.join("work.c"), "mine\n").unwrap();
    git_in(&lib, &["add", "work.c"]);
    git_in(&lib, &["commit", "-qm", "unpushed"]);
    std::fs::write(lib.join("work.c"), "mine\nmore\n").unwrap();
    git_in(ws, &["branch", "pages"]);
    run_shell(&env, "rm -rf dist");
    git_in(ws, &["worktree", "add", "-q", "dist", "pages"]);
    std::fs::write(ws.join("dist/index.html"), "wip\n").unwrap();
    git_in(&ws.join("dist"), &["add", "index.html"]);
    for line in ["rm -rf build", "rm -rf dist"] {
        let before = snapshot(ws, &["*"]);
        let (exit, report) = enforce(&env, line);
        assert_eq!(exit, 0, "{report}");
        assert_ne!(report["code"], "ALLOW_REGENERABLE", "{line}: {report}");
        run_shell(&env, line);
        assert!(!ws.join(&line[7..]).exists(), "{line} ran");
        undo(&env);
        assert_eq!(snapshot(ws, &["*"]), before, "{line}: undone byte for byte");
    }
    // The nested repository works as before: its history and its edit are back.
    let log = std::process::Command::new("git")
        .args(["log", "--oneline"])
        .current_dir(&lib)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&log.stdout).contains("unpushed"));
}

/// A workspace whose user ignore file has `build` and, by `how`, git's configuration names
/// another excludes file the guard does not read: `baseline` (none), `hasconfig` (through
/// an `includeIf "hasconfig:…"` in `.git/config`), `env` (`GIT_CONFIG_PARAMETERS`, returned
/// to be set on every process). git then does not ignore `build/`, libgit2 still does.
fn with_unread_ignore_config(how: &str) -> (TestEnv, Vec<(&'static str, String)>) {
    let env = TestEnv::new();
    let ws = env.ws().to_path_buf();
    let home = ws.parent().unwrap().join("home");
    let user_ignore = home.join(".config/git/ignore");
    std::fs::create_dir_all(user_ignore.parent().unwrap()).unwrap();
    std::fs::write(&user_ignore, "build\n").unwrap();
    let other = ws.parent().unwrap().join("other-ignore");
    std::fs::write(&other, "*.tmp\n").unwrap();
    let mut extra_env = Vec::new();
    if how == "hasconfig" {
        let extra = ws.parent().unwrap().join("extra.cfg");
        std::fs::write(
            &extra,
            format!("[core]\n\texcludesFile = {}\n", other.display()),
        )
        .unwrap();
        let config = ws.join(".git/config");
        let mut text = std::fs::read_to_string(&config).unwrap();
        write!(
            text,
            "[remote \"origin\"]\n\turl = https://example.com/x.git\n\
             [includeIf \"hasconfig:remote.*.url:https://example.com/**\"]\n\tpath = {}\n",
            extra.display()
        )
        .unwrap();
        std::fs::write(&config, text).unwrap();
    } else if how == "env" {
        extra_env.push((
            "GIT_CONFIG_PARAMETERS",
            format!("'core.excludesfile'='{}'", other.display()),
        ));
    }
    // The oracle: git, in the same environment, does not ignore build/ (but for the
    // baseline, where it does and the guard agrees).
    let mut git = env.std_cmd("git");
    git.args(["check-ignore", "-q", "build/report.txt"]);
    for (key, value) in &extra_env {
        git.env(key, value);
    }
    let ignored = git.status().unwrap().code() == Some(0);
    assert_eq!(ignored, how == "baseline", "{how}: git check-ignore");
    (env, extra_env)
}

/// `agent-guard check --enforce --json -- line` with `extra_env` set: (exit code, report).
fn enforce_with(
    env: &TestEnv,
    extra_env: &[(&str, String)],
    line: &str,
) -> (Option<i32>, serde_json::Value) {
    let mut check = env.cmd("agent-guard");
    check.args(["check", "--enforce", "--json", "--", line]);
    for (key, value) in extra_env {
        check.env(key, value);
    }
    let output = check.output().unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    (output.status.code(), report)
}

/// git's configuration that libgit2 does not read (issue 36): an `includeIf "hasconfig:…"`
/// whose file sets `core.excludesFile`, or `git -c core.excludesFile=…` in the
/// environment. The user's ignore file has `build`, so libgit2 calls `build/` ignored; git,
/// reading the other excludes file, does not. Nothing is regenerable then: `rm -rf build`
/// is kept first, run for real and undone. git is the oracle.
#[test]
fn an_ignore_rule_git_may_not_apply_makes_nothing_regenerable() {
    for how in ["baseline", "hasconfig", "env"] {
        let (env, extra_env) = with_unread_ignore_config(how);
        let ws = env.ws().to_path_buf();
        let before = snapshot(&ws, &["build"]);
        let (exit, report) = enforce_with(&env, &extra_env, "rm -rf build");
        assert_eq!(exit, Some(0), "{how}: {report}");
        if how == "baseline" {
            assert_eq!(report["code"], "ALLOW_REGENERABLE", "{how}: {report}");
            continue;
        }
        assert_ne!(report["code"], "ALLOW_REGENERABLE", "{how}: {report}");
        assert_eq!(txids(&report).len(), 1, "{how}: kept first: {report}");
        run_shell(&env, "rm -rf build");
        assert!(!ws.join("build").exists(), "{how}: the command ran");
        undo(&env);
        assert_eq!(snapshot(&ws, &["build"]), before, "{how}");
    }
}

/// The same configurations under `git clean`: git, reading the other excludes file, would
/// remove `build/`, which the guard's enumeration (reading the user's) calls ignored and
/// would not keep. A clean that consults the ignore rules is refused then, and git's own
/// dry run shows what it would have lost; `git clean -fdx` consults no ignore rule, so it
/// is still kept first, run for real and undone byte for byte.
#[test]
fn a_clean_git_may_read_other_ignore_rules_for_is_refused_unless_it_ignores_them() {
    for how in ["baseline", "hasconfig", "env"] {
        let (env, extra_env) = with_unread_ignore_config(how);
        let ws = env.ws().to_path_buf();
        let before = snapshot(&ws, &["build"]);
        for line in ["git clean -fd", "git clean -fdX"] {
            if how == "baseline" {
                // Judged only (under --enforce the clean's targets would be taken).
                let report = env.check_json(line);
                assert_eq!(report["code"], "RELOCATE_VIA_CLEAN_ENUMERATE", "{report}");
                continue;
            }
            let (exit, report) = enforce_with(&env, &extra_env, line);
            assert_eq!(exit, Some(2), "{how} {line}: {report}");
            assert_eq!(report["decision"], "BLOCK", "{how} {line}: {report}");
            assert_eq!(snapshot(&ws, &["build"]), before, "{how} {line}");
        }
        if how != "baseline" {
            let mut git = env.std_cmd("git");
            git.args(["clean", "-nd"]);
            for (key, value) in &extra_env {
                git.env(key, value);
            }
            let listed = String::from_utf8(git.output().unwrap().stdout).unwrap();
            assert!(
                listed.contains("build/"),
                "{how}: git would remove build/: {listed}"
            );
        }
        let (exit, report) = enforce_with(&env, &extra_env, "git clean -fdx");
        assert_eq!(exit, Some(0), "{how}: {report}");
        assert_eq!(
            report["code"], "RELOCATE_VIA_CLEAN_ENUMERATE",
            "{how}: {report}"
        );
        let mut git = env.std_cmd("git");
        git.args(["clean", "-fdx"]);
        for (key, value) in &extra_env {
            git.env(key, value);
        }
        assert!(git.status().unwrap().success());
        assert!(!ws.join("build").exists(), "{how}: the clean ran");
        undo(&env);
        assert_eq!(snapshot(&ws, &["build"]), before, "{how}");
    }
}

/// A `git clean` is enumerated before the line runs: an earlier command of the same line
/// that changes the ignore rules (`sed -i d .gitignore`) makes git remove what the
/// enumeration, and a checkpoint, call ignored. Refused (second outside review); the real
/// line shows what it removes.
#[test]
fn a_clean_after_the_line_changes_its_ignore_rules_is_refused() {
    let env = TestEnv::new();
    let ws = env.ws().to_path_buf();
    std::fs::write(ws.join(".gitignore"), "build/\n").unwrap();
    git_in(&ws, &["add", ".gitignore"]);
    git_in(&ws, &["commit", "-qm", "ignore build"]);
    std::fs::create_dir_all(ws.join("src/build")).unwrap();
    std::fs::write(ws.join("src/build/notes.txt"), "hand-written\n").unwrap();
    for line in [
        "sed -i d .gitignore && git clean -fd",
        "git rm -q .gitignore && git clean -fd",
        "HOME=/nonexistent git clean -fd",
    ] {
        let (exit, report) = enforce(&env, line);
        assert_eq!(exit, 2, "{line}: {report}");
        assert_eq!(
            report["code"], "BLOCK_UNDETERMINABLE_EFFECT",
            "{line}: {report}"
        );
    }
    assert!(ws.join("src/build/notes.txt").exists());
    run_shell(&env, "sed -i d .gitignore && git clean -fd");
    assert!(!ws.join("src/build").exists(), "the real line removes it");
}
