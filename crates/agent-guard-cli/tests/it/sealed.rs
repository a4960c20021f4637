//! A program the guard cannot see into, run for real after `check --enforce`, that changes
//! the guard's own files without naming them on the line (issue 35): the next enforced check
//! puts them back byte for byte, keeps what the program left, restricts the session and
//! refuses; a program that leaves them alone, or a person's own change, costs nothing.

use std::path::Path;

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

fn mode(env: &TestEnv) -> String {
    json(&env.ag_ok(&["mode", "--json"]))["mode"]
        .as_str()
        .unwrap()
        .to_owned()
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
    let home = env.fixture.home.clone();
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::write(home.join(".claude/settings.json"), SETTINGS).unwrap();

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
    let kept_in = env.trash().join("seal/kept").join(
        report["reasons"][0]
            .as_str()
            .unwrap()
            .split("(check ")
            .nth(1)
            .unwrap()
            .split(')')
            .next()
            .unwrap(),
    );
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
    assert!(!env.trash().join("seal/pending.json").exists());
    assert_eq!(mode(&env), "NORMAL");
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
