//! A program the guard cannot see into, run for real after `check --enforce`, that changes
//! the guard's own files without naming them on the line (issue 35): the next enforced check
//! puts them back byte for byte, keeps what the program left, restricts the session and
//! refuses; a program that leaves them alone, or a person's own change, costs nothing.

use std::path::{Path, PathBuf};

use crate::support::{TestEnv, enforce, json, run_shell};

const SETTINGS: &str = "{\n  \"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"agent-guard check --enforce --harness claude-code\"}]}]}\n}\n";

/// `sh tool.sh` is a program the guard checkpoints; `tool.sh` holds `script`.
fn run_tool(env: &TestEnv, script: &str) -> serde_json::Value {
    env.write("tool.sh", script);
    let (exit, report) = enforce(env, "sh tool.sh");
    assert_eq!(exit, 0, "{report}");
    assert_eq!(report["decision"], "ALLOW", "{report}");
    let strategies: Vec<_> = report["compensations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["strategy"].clone())
        .collect();
    assert!(strategies.contains(&"checkpoint".into()), "{report}");
    run_shell(env, "sh tool.sh");
    report
}

/// Where the workspace's pending seal is kept: the user's state directory.
fn pending(env: &TestEnv) -> PathBuf {
    let ws = std::fs::canonicalize(env.ws()).unwrap();
    env.fixture
        .home
        .join(".local/state/agent-guard/seals")
        .join(agent_guard_engine::workspace_id(&ws))
        .join("pending.json")
}

/// After `tool` ran, the next destructive line: refused with `BLOCK_SELF_PROTECTION`, or
/// allowed (`false`).
fn next_line_refused(env: &TestEnv) -> bool {
    let (exit, report) = enforce(env, "rm -rf build");
    match exit {
        2 => {
            assert_eq!(report["code"], "BLOCK_SELF_PROTECTION", "{report}");
            true
        }
        0 => false,
        _ => panic!("{report}"),
    }
}

fn mode(env: &TestEnv) -> String {
    json(&env.ag_ok(&["mode", "--json"]))["mode"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The directory the refusal says keeps what the program left.
fn kept_dir(report: &serde_json::Value) -> PathBuf {
    let said = report["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r.as_str())
        .find_map(|r| r.strip_prefix("what the program left is kept in "))
        .expect("the refusal says where");
    PathBuf::from(said.split(" (found.json").next().unwrap())
}

/// Writes the user's Claude Code settings (`~/.claude/settings.json`) as [`SETTINGS`];
/// returns the home directory.
fn user_settings(env: &TestEnv) -> PathBuf {
    let home = env.fixture.home.clone();
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::write(home.join(".claude/settings.json"), SETTINGS).unwrap();
    home
}

fn kept_files(kept_in: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(kept_in)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn hook_files_a_program_rewrote_are_put_back_and_the_session_restricted() {
    let env = TestEnv::new();
    env.write(".claude/settings.json", SETTINGS);
    env.write(".github/hooks/guard.json", "{\"version\": 1}\n");
    let home = user_settings(&env);

    run_tool(
        &env,
        "printf '{\"disableAllHooks\": true}\\n' > .claude/settings.local.json\n\
         printf '{}\\n' > .claude/settings.json\n\
         rm .github/hooks/guard.json\n\
         printf '{}\\n' > .github/hooks/other.json\n\
         printf '{}\\n' > \"$HOME/.claude/settings.json\"\n",
    );
    assert_eq!(
        env.read(".claude/settings.local.json"),
        "{\"disableAllHooks\": true}\n"
    );

    let (exit, report) = enforce(&env, "rm -rf build");
    assert_eq!(exit, 2, "{report}");
    assert_eq!(report["code"], "BLOCK_SELF_PROTECTION", "{report}");
    assert!(
        env.ws().join("build/report.txt").exists(),
        "the line did not run"
    );
    // Put back byte for byte, what the program made is gone from the hook paths.
    assert_eq!(env.read(".claude/settings.json"), SETTINGS);
    assert_eq!(env.read(".github/hooks/guard.json"), "{\"version\": 1}\n");
    assert!(!env.ws().join(".claude/settings.local.json").exists());
    assert!(!env.ws().join(".github/hooks/other.json").exists());
    assert_eq!(
        std::fs::read_to_string(home.join(".claude/settings.json")).unwrap(),
        SETTINGS
    );
    // What the program left is kept, and the report says where.
    let kept_in = kept_dir(&report);
    // Kept outside the workspace and outside the store a user config could move.
    assert!(kept_in.starts_with(env.fixture.home.join(".local/state/agent-guard/seals")));
    let kept = kept_files(&kept_in);
    assert!(kept.contains(&"found.json".to_owned()), "{kept:?}");
    let disabled = kept
        .iter()
        .find(|name| name.ends_with("settings.local.json"))
        .expect("the program's settings.local.json is kept");
    assert_eq!(
        std::fs::read_to_string(kept_in.join(disabled)).unwrap(),
        "{\"disableAllHooks\": true}\n"
    );
    let message = report["message"].as_str().unwrap();
    assert!(message.contains("agent-guard mode normal"), "{message}");
    assert!(
        message.contains("settings.local.json (created)"),
        "{message}"
    );
    assert_eq!(mode(&env), "RESTRICTED");

    // Restored once: the next line is judged in the restricted session, not refused again
    // for the same change.
    let (_, again) = enforce(&env, "rm -rf build");
    assert_ne!(again["code"], "BLOCK_SELF_PROTECTION", "{again}");
}

#[test]
fn a_hook_directory_a_program_swapped_for_a_link_is_a_directory_again() {
    let env = TestEnv::new();
    env.write(".claude/settings.json", SETTINGS);
    run_tool(
        &env,
        "mkdir -p ../elsewhere && printf '{\"disableAllHooks\": true}\\n' > ../elsewhere/settings.json\n\
         mv .claude .claude-moved && ln -s ../elsewhere .claude\n",
    );
    assert!(env.ws().join(".claude").is_symlink());
    let (exit, report) = enforce(&env, "rm -rf build");
    assert_eq!(exit, 2, "{report}");
    assert_eq!(report["code"], "BLOCK_SELF_PROTECTION", "{report}");
    assert!(!env.ws().join(".claude").is_symlink());
    assert_eq!(env.read(".claude/settings.json"), SETTINGS);
}

#[test]
fn a_program_that_leaves_the_guard_files_alone_changes_nothing() {
    let env = TestEnv::new();
    env.write(".claude/settings.json", SETTINGS);
    run_tool(&env, "printf 'more\\n' >> notes.txt\n");
    let (exit, report) = enforce(&env, "rm -rf build");
    assert_eq!(exit, 0, "{report}");
    assert_eq!(report["decision"], "ALLOW", "{report}");
    assert!(!pending(&env).exists(), "dropped once found unchanged");
    assert_eq!(mode(&env), "NORMAL");
}

/// From an outside review: a program that dates the person's mark in the future would
/// void every seal to come; such a mark counts for nothing.
#[test]
fn a_person_mark_dated_in_the_future_voids_no_seal() {
    let env = TestEnv::new();
    env.write(".claude/settings.json", SETTINGS);
    let mark = env
        .fixture
        .home
        .join(".local/state/agent-guard/guard-files-changed");
    // A person's install left the mark; a program only changes its date.
    std::fs::create_dir_all(mark.parent().unwrap()).unwrap();
    std::fs::write(&mark, "a person changed guard files\n").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    run_tool(&env, &format!("touch -d 2100-01-01 {}\n", mark.display()));
    let (exit, report) = enforce(&env, "ls");
    assert_eq!(exit, 0, "only the date changed: {report}");
    run_tool(
        &env,
        "echo '{\"disableAllHooks\": true}' > .claude/settings.json\n",
    );
    assert!(next_line_refused(&env));
    assert_eq!(env.read(".claude/settings.json"), SETTINGS, "put back");
}

#[test]
fn a_change_a_person_makes_and_trusts_is_not_undone() {
    let env = TestEnv::new();
    env.write(".agent-guard.toml", "[checkpoint]\n");
    run_tool(&env, "printf 'more\\n' >> notes.txt\n");
    // A person edits the project file and trusts it, between the program and the next line.
    env.write(".agent-guard.toml", "# reviewed\n[checkpoint]\n");
    env.trust_config();
    let (exit, report) = enforce(&env, "rm -rf build");
    assert_eq!(exit, 0, "{report}");
    assert_eq!(env.read(".agent-guard.toml"), "# reviewed\n[checkpoint]\n");
    assert_eq!(mode(&env), "NORMAL");
}

#[test]
fn the_next_edit_tool_call_in_hook_mode_finds_the_change_too() {
    for (harness, payload) in [
        (
            "claude-code",
            serde_json::json!({"hook_event_name": "PreToolUse", "tool_name": "Write",
                "tool_input": {"file_path": "notes.txt", "content": "new\n"}}),
        ),
        (
            "gemini",
            serde_json::json!({"hook_event_name": "BeforeTool", "tool_name": "write_file",
                "tool_input": {"file_path": "notes.txt", "content": "new\n"}}),
        ),
    ] {
        let env = TestEnv::new();
        env.write(".gemini/settings.json", SETTINGS);
        run_tool(&env, "printf '{}\\n' > .gemini/settings.json\n");
        let mut payload = payload;
        payload["cwd"] = env.ws().display().to_string().into();
        let output = crate::hooks::run_payload(&env, harness, &payload);
        assert!(
            crate::hooks::blocks(harness, &output),
            "{harness}: {output:?}"
        );
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(
            said.contains("agent-guard mode normal"),
            "{harness}: {said}"
        );
        assert_eq!(env.read(".gemini/settings.json"), SETTINGS, "{harness}");
        assert_eq!(env.read("notes.txt"), "notes\n", "{harness}");
    }
}

/// The harness may never call the guard again (its hook is gone): the person's `status`
/// finds the change, puts the files back and says so.
#[test]
fn status_finds_the_change_when_no_hook_calls_the_guard_any_more() {
    let env = TestEnv::new();
    env.write(".claude/settings.json", SETTINGS);
    run_tool(&env, "printf '{}\\n' > .claude/settings.json\n");
    let status = json(&env.ag_ok(&["status", "--json"]));
    let said = status["guard_files"].to_string();
    assert!(said.contains("settings.json (changed)"), "{status}");
    assert_eq!(env.read(".claude/settings.json"), SETTINGS);
    assert_eq!(mode(&env), "RESTRICTED");
    let human = String::from_utf8_lossy(&env.ag_ok(&["status"]).stdout).into_owned();
    assert!(!human.contains("guard files"), "told once: {human}");
}

/// From an outside review: a program that writes a user config moving the store would
/// have moved the seal (and the session's mode) with it. The seal lives in the user's state
/// directory: the change is found, the config put back, and the session restricted where
/// the restored config keeps it.
#[test]
fn a_user_config_that_moves_the_store_does_not_move_the_seal() {
    let env = TestEnv::new();
    env.write(".claude/settings.json", SETTINGS);
    let config = env.fixture.home.join(".config/agent-guard/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, "# mine\n").unwrap();
    let elsewhere = env.fixture.home.join("elsewhere");
    run_tool(
        &env,
        &format!(
            r#"printf 'trash = "{}"\n' > "$HOME/.config/agent-guard/config.toml"
printf '{{"disableAllHooks": true}}\n' > .claude/settings.local.json
"#,
            elsewhere.display()
        ),
    );
    assert!(
        std::fs::read_to_string(&config)
            .unwrap()
            .contains("elsewhere")
    );
    assert!(next_line_refused(&env));
    assert_eq!(std::fs::read_to_string(&config).unwrap(), "# mine\n");
    assert!(!env.ws().join(".claude/settings.local.json").exists());
    assert_eq!(mode(&env), "RESTRICTED");
}

/// From an outside review: a user-level guard file kept in a dotfiles repository (a link)
/// is written through its link; the file it leads to is put back.
#[test]
fn a_guard_file_written_through_its_link_is_put_back() {
    let env = TestEnv::new();
    let home = env.fixture.home.clone();
    std::fs::create_dir_all(home.join("dotfiles")).unwrap();
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::write(home.join("dotfiles/claude.json"), SETTINGS).unwrap();
    std::os::unix::fs::symlink(
        home.join("dotfiles/claude.json"),
        home.join(".claude/settings.json"),
    )
    .unwrap();
    run_tool(
        &env,
        "printf '{\"disableAllHooks\": true}\\n' > \"$HOME/.claude/settings.json\"\n",
    );
    assert!(next_line_refused(&env));
    assert!(home.join(".claude/settings.json").is_symlink());
    assert_eq!(
        std::fs::read_to_string(home.join("dotfiles/claude.json")).unwrap(),
        SETTINGS
    );
}

/// From an outside review: permissions that hide a hook directory from its harness
/// (`chmod 000 .claude`) are a change, set back.
#[test]
fn a_hook_directory_made_unreadable_is_readable_again() {
    use std::os::unix::fs::PermissionsExt as _;
    let env = TestEnv::new();
    env.write(".claude/settings.json", SETTINGS);
    env.write(".github/hooks/guard.json", "{}\n");
    run_tool(&env, "chmod 000 .claude && chmod a-r .github/hooks\n");
    assert!(next_line_refused(&env));
    let mode = |rel: &str| {
        std::fs::metadata(env.ws().join(rel))
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    };
    assert_eq!(mode(".claude"), 0o755);
    assert_eq!(mode(".github/hooks"), 0o755);
}

/// From an outside review: what is not a guard file is not the seal's business, however
/// near one it lies, and a harness's own "don't ask again" is no tampering.
#[test]
fn ordinary_files_beside_guard_files_and_harness_permissions_are_no_change() {
    let env = TestEnv::new();
    env.write(".claude/settings.local.json", "{\"hooks\": {}}\n");
    run_tool(
        &env,
        "mkdir -p .github/workflows .cursor/rules .claude/commands\n\
         echo 'on: push' > .github/workflows/ci.yml\n\
         echo rule > .cursor/rules/style.md\n\
         echo review > .claude/commands/review.md\n",
    );
    // Claude Code writes the person's answer while the program runs.
    env.write(
        ".claude/settings.local.json",
        "{\"hooks\": {}, \"permissions\": {\"allow\": [\"Bash(npm test)\"]}}\n",
    );
    assert!(!next_line_refused(&env));
    assert_eq!(env.read(".github/workflows/ci.yml"), "on: push\n");
    assert!(env.read(".claude/settings.local.json").contains("npm test"));
    assert_eq!(mode(&env), "NORMAL");
}

/// From an outside review: the session that ran the program is restricted, not only the
/// one whose line found the change.
#[test]
fn the_session_that_ran_the_program_is_restricted_too() {
    let env = TestEnv::new();
    env.write(".claude/settings.json", SETTINGS);
    env.write("tool.sh", "printf '{}\\n' > .claude/settings.json\n");
    let as_session =
        |session: &str, args: &[&str]| env.ag_with("AGENT_GUARD_SESSION", session, args);
    let ran = as_session(
        "evil",
        &["check", "--enforce", "--json", "--", "sh tool.sh"],
    );
    assert!(ran.status.success(), "{ran:?}");
    run_shell(&env, "sh tool.sh");
    let found = as_session(
        "innocent",
        &["check", "--enforce", "--json", "--", "rm -rf build"],
    );
    assert_eq!(found.status.code(), Some(2), "{found:?}");
    for session in ["evil", "innocent"] {
        let shown = json(&as_session(session, &["mode", "--json"]));
        assert_eq!(shown["mode"], "RESTRICTED", "{session}: {shown}");
    }
}

/// From an outside review: many files in one hook directory do not crowd the user's files
/// out of the seal, and a large guard file rewritten at the same size with its old time is
/// still a change.
#[test]
fn crowded_hook_directories_and_large_files_are_still_sealed() {
    let env = TestEnv::new();
    for i in 0..2_500 {
        env.write(format!(".github/hooks/h{i}.json"), "{}\n");
    }
    env.write(".codex/hooks.json", format!("{}\n", "x".repeat(300 * 1024)));
    let home = user_settings(&env);
    run_tool(&env, "printf '{}\\n' > \"$HOME/.claude/settings.json\"\n");
    assert!(next_line_refused(&env));
    assert_eq!(
        std::fs::read_to_string(home.join(".claude/settings.json")).unwrap(),
        SETTINGS
    );

    // The large one: the same size, its modification time set back.
    let env2 = TestEnv::new();
    env2.write(".codex/hooks.json", format!("{}\n", "x".repeat(300 * 1024)));
    run_tool(
        &env2,
        "t=$(stat -c %Y .codex/hooks.json); \
         python3 -c \"import sys; p='.codex/hooks.json'; b=open(p,'rb').read(); open(p,'r+b').write(b'y'+b[1:])\"; \
         touch -d @$t .codex/hooks.json\n",
    );
    assert!(env2.read(".codex/hooks.json").starts_with('y'));
    assert!(next_line_refused(&env2));
}

/// From an outside review: a user config the program made unreadable stopped the check
/// before the seal was looked at. It is put back, and the line refused.
#[test]
fn a_config_made_unreadable_is_put_back() {
    let env = TestEnv::new();
    env.write(".claude/settings.json", SETTINGS);
    let config = env.fixture.home.join(".config/agent-guard/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, "# mine\n").unwrap();
    run_tool(
        &env,
        "echo 'evil = 1' >> \"$HOME/.config/agent-guard/config.toml\"\n",
    );
    assert!(next_line_refused(&env));
    assert_eq!(std::fs::read_to_string(&config).unwrap(), "# mine\n");
    assert_eq!(mode(&env), "RESTRICTED");
}
