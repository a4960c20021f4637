//! Issue 35: the guard cannot be switched off from inside the workspace. Each test runs the
//! real command when `check --enforce` lets it run (as a harness does) and shows the guard
//! still on and the data still there.

use std::path::Path;

use crate::support::{TestEnv, enforce, pty, run_shell, txids};

/// Runs `command` the way a harness does: only when `check --enforce` allows it. Returns
/// the reason code.
fn as_a_harness(env: &TestEnv, command: &str) -> String {
    let (exit, report) = enforce(env, command);
    if exit == 0 {
        run_shell(env, command);
    }
    report["code"].as_str().unwrap_or_default().to_owned()
}

fn bytes(path: &Path) -> Option<Vec<u8>> {
    std::fs::read(path).ok()
}

/// Point 1: every way of changing a harness's hook file or the guard's configuration is
/// refused, nothing is changed, and the guard still judges the next command.
#[test]
fn hook_files_and_the_config_survive_every_effect() {
    let env = TestEnv::new();
    env.write(
        ".claude/settings.json",
        "{\"hooks\": {\"PreToolUse\": []}}\n",
    );
    env.write(".github/hooks/agent-guard.json", "{}\n");
    env.write(".agent-guard.toml", "# settings\n");
    env.write("evil.json", "{\"disableAllHooks\": true}\n");
    let guarded = [
        ".claude/settings.json",
        ".github/hooks/agent-guard.json",
        ".agent-guard.toml",
    ];
    let before: Vec<_> = guarded.iter().map(|p| bytes(&env.ws().join(p))).collect();
    for command in [
        "rm .claude/settings.json",
        "rm -rf .claude",
        "echo '{\"disableAllHooks\": true}' > .claude/settings.local.json",
        "cp evil.json .claude/settings.local.json",
        "mv evil.json .claude/settings.json",
        "mv .github gh",
        "chmod 000 .claude/settings.json",
        "truncate -s 0 .agent-guard.toml",
        "sed -i 's/settings/x/' .agent-guard.toml",
        "ln -sf evil.json .claude/settings.local.json",
        "touch .claude/settings.local.json",
        "cd .github && rm -r hooks",
        "X=.claude; echo '{}' >> $X/settings.local.json",
    ] {
        let code = as_a_harness(&env, command);
        assert!(
            code == "BLOCK_SELF_PROTECTION" || code == "BLOCK_UNDETERMINABLE_EFFECT",
            "{command}: {code}"
        );
        let now: Vec<_> = guarded.iter().map(|p| bytes(&env.ws().join(p))).collect();
        assert_eq!(now, before, "{command} changed a guard file");
        assert!(
            !env.ws().join(".claude/settings.local.json").exists(),
            "{command} created settings.local.json"
        );
    }
    // Still on: a delete is still kept.
    let (exit, report) = enforce(&env, "rm -rf build");
    assert_eq!(exit, 0, "{report}");
    assert_eq!(report["code"], "RELOCATE_TREE", "{report}");
    assert_eq!(txids(&report).len(), 1, "{report}");
}

/// Point 2: a project file that loosens the guard takes effect only once a person trusts
/// it; an agent cannot trust it, and a changed file needs trust again.
#[test]
fn loosening_settings_wait_for_a_person() {
    let env = TestEnv::new();
    env.write(".gitignore", "node_modules/\ndata/\n");
    env.write("data/results.csv", "1,2,3\n");
    env.write(
        ".agent-guard.toml",
        "[regenerable]\nartifacts = [\"data\"]\n",
    );
    let (exit, report) = enforce(&env, "rm -rf data");
    assert_eq!(exit, 0, "{report}");
    assert_eq!(report["code"], "RELOCATE_TREE", "untrusted: kept, {report}");
    assert!(
        report["warnings"].to_string().contains("config trust"),
        "{report}"
    );
    run_shell(&env, "rm -rf data");
    assert!(!env.ws().join("data").exists());
    env.ag_ok(&["undo"]);
    assert_eq!(
        env.read("data/results.csv"),
        "1,2,3\n",
        "restored byte for byte"
    );

    // The agent: no terminal, or a harness's environment on a terminal.
    let refused = env.ag(&["config", "trust"]);
    assert!(!refused.status.success(), "{refused:?}");
    assert!(String::from_utf8_lossy(&refused.stderr).contains("person"));
    let under = pty(&env, &["config", "trust"], "", &[("CLAUDECODE", "1")]);
    assert_ne!(under.code, 0, "{}", under.text);
    assert!(under.text.contains("CLAUDECODE"), "{}", under.text);
    let report = env.check_json("rm -rf data");
    assert_eq!(report["code"], "RELOCATE_TREE", "{report}");

    let doctor = |env: &TestEnv| -> serde_json::Value {
        crate::support::json(&env.ag(&["doctor", "--json"]))["untrusted_settings"].clone()
    };
    assert_eq!(doctor(&env), serde_json::json!(["regenerable.artifacts"]));

    // A person.
    env.trust_config();
    assert_eq!(doctor(&env), serde_json::json!([]));
    let report = env.check_json("rm -rf data");
    assert_eq!(report["code"], "ALLOW_REGENERABLE", "trusted: {report}");

    // The file changes: trust again.
    env.write(
        ".agent-guard.toml",
        "[regenerable]\nartifacts = [\"data\", \"src\"]\n",
    );
    let report = env.check_json("rm -rf data");
    assert_eq!(report["code"], "RELOCATE_TREE", "changed: {report}");
}

/// Point 3: the person-only verbs refuse under a harness — its environment marker, or a
/// harness among the process's ancestors even through a pseudo-terminal wrapper.
#[test]
fn person_only_verbs_refuse_under_a_harness() {
    let env = TestEnv::new();
    env.ag_ok(&["mode", "restricted"]);
    for args in [
        &["mode", "normal"][..],
        &["config", "trust"],
        &["uninstall", "claude-code", "--project"],
        &["gc", "--execute", "--all"],
    ] {
        for marker in ["CLAUDECODE", "CODEX_SANDBOX", "GEMINI_CLI"] {
            let run = pty(&env, args, "y\n", &[(marker, "1")]);
            assert_ne!(run.code, 0, "{args:?} under {marker}: {}", run.text);
            assert!(run.text.contains("person's verb"), "{args:?}: {}", run.text);
        }
    }

    // A harness process (named like Claude Code's binary) that runs the verb through
    // `script`, with no marker in the environment.
    let bin = env.fixture.home.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let harness = bin.join("claude");
    let guard = assert_cmd::cargo::cargo_bin!("agent-guard");
    std::fs::write(
        &harness,
        format!(
            "#!/bin/sh\nscript -qec '{} mode normal' /dev/null\n",
            guard.display()
        ),
    )
    .unwrap();
    let mut permissions = std::fs::metadata(&harness).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&harness, permissions).unwrap();
    let output = env
        .std_cmd(&harness)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("under an agent harness") && text.contains("claude"),
        "{text}"
    );
    let mode = env.ag_ok(&["mode", "--json"]);
    assert!(String::from_utf8_lossy(&mode.stdout).contains("RESTRICTED"));
}

/// Point 1 through git: a person's uncommitted hook install survives the git commands that
/// rewrite the work tree, run as a harness runs them.
#[test]
fn git_does_not_undo_a_hook_install() {
    let env = TestEnv::new();
    env.write(".claude/settings.json", "{}\n");
    crate::support::git(&env, &["add", ".claude/settings.json"]);
    crate::support::git(&env, &["commit", "-q", "-m", "claude settings"]);
    let installed = "{\"hooks\": {\"PreToolUse\": [{\"command\": \"agent-guard\"}]}}\n";
    env.write(".claude/settings.json", installed);
    env.write(".claude/settings.local.json", "{\"hooks\": {}}\n");
    for command in [
        "git checkout -- .",
        "git reset --hard",
        "git stash",
        "git clean -fd",
    ] {
        let code = as_a_harness(&env, command);
        assert_eq!(code, "BLOCK_SELF_PROTECTION", "{command}");
        assert_eq!(env.read(".claude/settings.json"), installed, "{command}");
        assert!(
            env.ws().join(".claude/settings.local.json").exists(),
            "{command}"
        );
    }
    // A discard that does not reach the hook files runs.
    env.write("src/main.rs", "fn main() { changed() }\n");
    let code = as_a_harness(&env, "git checkout -- src/main.rs");
    assert_eq!(code, "SNAPSHOT_GIT_STASH");
    assert_eq!(env.read("src/main.rs"), "fn main() {}\n");
    assert_eq!(env.read(".claude/settings.json"), installed);
}

/// A nested repository (`git init sub`) makes `sub` the workspace; the project around it
/// keeps its hooks, from the shell and from an edit tool.
#[test]
fn a_nested_repository_does_not_unprotect_the_project_around_it() {
    let env = TestEnv::new();
    env.write(".claude/settings.json", "{}\n");
    crate::support::git(&env, &["init", "-q", "sub"]);
    let sub = env.ws().join("sub");
    let sub = sub.to_str().unwrap();
    for command in [
        "echo '{\"disableAllHooks\": true}' > ../.claude/settings.local.json",
        "echo x >> ../.claude/settings.json",
        "rm ../.claude/settings.json",
    ] {
        let output = env.ag(&["check", "--enforce", "--json", "--cwd", sub, "--", command]);
        let report = crate::support::json(&output);
        assert_eq!(
            report["code"], "BLOCK_SELF_PROTECTION",
            "{command}: {report}"
        );
    }
    assert_eq!(env.read(".claude/settings.json"), "{}\n");
    assert!(!env.ws().join(".claude/settings.local.json").exists());
}

/// A hook file with a second name (a hard link made before, by anyone): a write through that
/// name changes the hook file, so it is refused like a write to the hook file; a file with
/// several names that is no hook file is judged as before.
#[test]
fn a_write_through_another_name_of_a_hook_file_is_refused() {
    let env = TestEnv::new();
    env.write(".claude/settings.json", "{\"hooks\": {}}\n");
    env.write(".github/hooks/agent-guard.json", "{}\n");
    env.write("plain.txt", "plain\n");
    for (from, to) in [
        (".claude/settings.json", "h"),
        (".github/hooks/agent-guard.json", "docs-copy.json"),
        ("plain.txt", "plain-too.txt"),
    ] {
        std::fs::hard_link(env.ws().join(from), env.ws().join(to)).unwrap();
    }
    let before = bytes(&env.ws().join(".claude/settings.json"));
    for command in [
        "echo '{\"disableAllHooks\": true}' > h",
        "printf x >> docs-copy.json",
        "sed -i s/hooks/x/ h",
        "truncate -s 0 h",
    ] {
        assert_eq!(
            as_a_harness(&env, command),
            "BLOCK_SELF_PROTECTION",
            "{command}"
        );
    }
    assert_eq!(bytes(&env.ws().join(".claude/settings.json")), before);
    assert_eq!(
        as_a_harness(&env, "echo new > plain-too.txt"),
        "SNAPSHOT_OVERWRITE"
    );
}

/// Point 3, a renamed copy: a copy of the guard's binary under another name (made by a
/// plain `cp` line, a link, or a script the line does not show) is refused whenever a
/// later line names it (`./x mode normal` through a pseudo-terminal would otherwise lift
/// RESTRICTED: shown by running it for real at the end). Found by identity (the same file
/// or the same bytes); a copy changed by one byte is not (docs/threat-model.md).
#[test]
fn a_copy_of_the_guard_under_another_name_is_refused() {
    let env = TestEnv::new();
    let guard = assert_cmd::cargo::cargo_bin!("agent-guard");
    let line = format!("mkdir -p tools && cp {} tools/x", guard.display());
    as_a_harness(&env, &line);
    assert!(env.ws().join("tools/x").exists(), "{line}");
    let run = "./tools/x mode normal";
    assert_eq!(as_a_harness(&env, run), "BLOCK_SELF_PROTECTION", "{run}");
    env.ag_ok(&["mode", "restricted"]);
    // A script the line does not show makes the copy.
    env.write(
        "mk.py",
        format!(
            "import shutil, os\nshutil.copy({:?}, 'x')\nos.chmod('x', 0o755)\n",
            guard.display().to_string()
        ),
    );
    assert_eq!(as_a_harness(&env, "python3 mk.py"), "SNAPSHOT_CHECKPOINT");
    assert!(env.ws().join("x").exists(), "the program made a copy");
    let detached = "echo y | setsid script -qec './x mode normal' /dev/null";
    for line in [
        "./x mode normal",
        detached,
        "env -i sh -c 'exec ./x mode normal'",
        "python3 -c \"import os; os.execv('x', ['x', 'mode', 'normal'])\"",
        "mv x tools/y",
    ] {
        assert_eq!(as_a_harness(&env, line), "BLOCK_SELF_PROTECTION", "{line}");
        let mode = env.ag_ok(&["mode", "--json"]);
        assert!(String::from_utf8_lossy(&mode.stdout).contains("RESTRICTED"));
    }
    // What the refusal prevents: the same line, run anyway, lifts the mode.
    let ran = env
        .std_cmd("sh")
        .args(["-c", detached])
        .current_dir(env.ws())
        .output()
        .unwrap();
    let mode = env.ag_ok(&["mode", "--json"]);
    assert!(
        String::from_utf8_lossy(&mode.stdout).contains("NORMAL"),
        "the copy ran the person's verb: {} {ran:?}",
        String::from_utf8_lossy(&mode.stdout)
    );
}
