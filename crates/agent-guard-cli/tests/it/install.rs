//! `agent-guard install`, `uninstall` and `doctor` against real files in a fake home.
//!
//! Every harness and scope: install into a missing file and into one with other settings,
//! twice (idempotent); doctor finds the hook; uninstall puts every file and directory back
//! byte for byte; an edit made after install survives uninstall.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::support::{TestEnv, snapshot};

const HARNESSES: [&str; 7] = [
    "claude-code",
    "codex",
    "gemini",
    "copilot",
    "cursor",
    "cline",
    "windsurf",
];

/// The state directory lives outside both snapshots (workspace and home).
fn state_home(env: &TestEnv) -> PathBuf {
    env.fixture.outside.join("state")
}

fn run(env: &TestEnv, args: &[&str]) -> Output {
    env.cmd("agent-guard")
        .env("XDG_STATE_HOME", state_home(env))
        .args(args)
        .output()
        .unwrap()
}

fn ok(env: &TestEnv, args: &[&str]) -> Output {
    let output = run(env, args);
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// The hook config file of `harness` in `scope`.
fn config(env: &TestEnv, harness: &str, scope: &str) -> PathBuf {
    let base = if scope == "project" {
        env.ws()
    } else {
        env.fixture.home.as_path()
    };
    let relative = match (harness, scope) {
        ("claude-code", _) => ".claude/settings.json",
        ("codex", _) => ".codex/hooks.json",
        ("gemini", _) => ".gemini/settings.json",
        ("copilot", "project") => ".github/hooks/agent-guard.json",
        ("copilot", _) => ".copilot/hooks/agent-guard.json",
        ("cursor", _) => ".cursor/hooks.json",
        ("cline", "project") => ".clinerules/hooks/PreToolUse",
        ("cline", _) => "Documents/Cline/Hooks/PreToolUse",
        ("windsurf", "project") => ".windsurf/hooks.json",
        ("windsurf", _) => ".codeium/windsurf/hooks.json",
        _ => unreachable!(),
    };
    base.join(relative)
}

fn codex_config(env: &TestEnv) -> PathBuf {
    env.fixture.home.join(".codex/config.toml")
}

/// A config with other settings and hooks, in the harness's own shape and a foreign style.
fn existing_config(harness: &str) -> &'static str {
    match harness {
        "claude-code" => {
            "{\n    \"permissions\": {\"allow\": [\"Bash(ls:*)\"]},\n    \"hooks\": {\n        \"PreToolUse\": [\n            {\"matcher\": \"Edit\", \"hooks\": [{\"type\": \"command\", \"command\": \"lint-edit\"}]}\n        ],\n        \"Stop\": []\n    },\n    \"model\": \"opus\"\n}\n"
        }
        "codex" => {
            "{\"hooks\": {\"PreToolUse\": [{\"matcher\": \"Read\", \"hooks\": [{\"type\": \"command\", \"command\": \"lint-edit\"}]}]}}"
        }
        "gemini" => {
            "{\n  \"general\": {\"vimMode\": true},\n  \"hooks\": {\"AfterTool\": [{\"matcher\": \"*\", \"hooks\": [{\"type\": \"command\", \"command\": \"lint-edit\"}]}]}\n}\n"
        }
        "copilot" => {
            "{\"version\": 1, \"hooks\": {\"sessionStart\": [{\"type\": \"command\", \"bash\": \"lint-edit\"}]}}\n"
        }
        "cursor" => {
            "{\"version\": 1, \"hooks\": {\"beforeShellExecution\": [{\"command\": \"lint-edit\"}]}}\n"
        }
        "windsurf" => {
            "{\"hooks\": {\"post_run_command\": [{\"command\": \"lint-edit\", \"show_output\": false}]}}\n"
        }
        _ => unreachable!(),
    }
}

/// Both trees, without install's state directory (which sits outside them).
fn trees(
    env: &TestEnv,
) -> (
    impl PartialEq + std::fmt::Debug,
    impl PartialEq + std::fmt::Debug,
) {
    (
        snapshot(env.ws(), &["**"]),
        snapshot(&env.fixture.home, &["**"]),
    )
}

fn doctor(env: &TestEnv) -> (i32, Value) {
    let output = run(env, &["doctor", "--json"]);
    let report = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stdout)));
    (output.status.code().unwrap(), report)
}

fn hook<'a>(report: &'a Value, harness: &str, scope: &str) -> &'a Value {
    report["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["harness"] == harness && h["scope"] == scope)
        .unwrap_or_else(|| panic!("{harness} ({scope}) not found: {report:#}"))
}

fn check<'a>(hook: &'a Value, name: &str) -> &'a str {
    hook["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .and_then(|c| c["status"].as_str())
        .unwrap_or("missing")
}

/// Whether this build answers in hook mode (`check --harness`); doctor's smoke test needs it.
fn hook_mode_available(env: &TestEnv) -> bool {
    let payload = serde_json::json!({
        "session_id": "t", "cwd": env.ws(), "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": "rm -rf /"}, "tool_use_id": "t"
    });
    // Its audit chain key goes elsewhere: the home's tree is compared byte for byte.
    let state = tempfile::tempdir().unwrap();
    let output = env
        .cmd("agent-guard")
        .env("XDG_STATE_HOME", state.path())
        .args(["check", "--enforce", "--harness", "claude-code"])
        .write_stdin(payload.to_string())
        .output()
        .unwrap();
    String::from_utf8_lossy(&output.stdout).contains("\"deny\"")
}

/// Doctor's verdict on one installed hook: detection always; the smoke test once hook mode
/// exists in this build.
fn assert_doctor_passes(env: &TestEnv, harness: &str, scope: &str) {
    let (code, report) = doctor(env);
    let entry = hook(&report, harness, scope);
    assert_eq!(check(entry, "binary"), "pass", "{entry:#}");
    if harness == "codex" {
        assert_eq!(check(entry, "trust"), "pass", "{entry:#}");
    }
    if harness == "claude-code" || harness == "cursor" {
        assert_eq!(check(entry, "fail-closed"), "pass", "{entry:#}");
    }
    if hook_mode_available(env) {
        assert_eq!(check(entry, "deny"), "pass", "{entry:#}");
        assert_eq!(check(entry, "no-op"), "pass", "{entry:#}");
        let project_untrusted =
            harness == "codex" && scope == "project" && check(entry, "project-trust") == "fail";
        assert_eq!(code, i32::from(project_untrusted), "{report:#}");
    }
}

fn round_trip(harness: &str, scope: &str, existing: bool) {
    let env = TestEnv::new();
    let path = config(&env, harness, scope);
    if existing {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, existing_config(harness)).unwrap();
        if harness == "codex" {
            let text = format!(
                "# my codex config\nmodel = \"o3\"  # the model\n\n[projects.\"{}\"]\ntrust_level = \"trusted\"\n",
                env.ws().display()
            );
            std::fs::create_dir_all(codex_config(&env).parent().unwrap()).unwrap();
            std::fs::write(codex_config(&env), text).unwrap();
        }
    }
    let before = trees(&env);
    let flag = format!("--{scope}");

    ok(&env, &["install", harness, &flag]);
    let installed = std::fs::read(&path).unwrap();
    let text = String::from_utf8_lossy(&installed).into_owned();
    assert!(
        text.contains(&format!("check --enforce --harness {harness}")),
        "{text}"
    );
    if existing {
        assert!(text.contains("lint-edit"), "other hooks are kept: {text}");
    }
    if harness == "codex" {
        let toml = std::fs::read_to_string(codex_config(&env)).unwrap();
        let key = format!("{}:pre_tool_use:", path.display());
        assert!(
            toml.contains(&key) && toml.contains("trusted_hash = \"sha256:"),
            "{toml}"
        );
        if existing {
            assert!(
                toml.starts_with("# my codex config\nmodel = \"o3\"  # the model\n"),
                "{toml}"
            );
        }
    }
    let after_first = trees(&env);

    // Idempotent: a second install changes nothing at all.
    ok(&env, &["install", harness, &flag]);
    assert_eq!(
        trees(&env),
        after_first,
        "second install of {harness} ({scope})"
    );

    assert_doctor_passes(&env, harness, scope);
    assert_eq!(trees(&env), after_first, "doctor changed nothing");

    ok(&env, &["uninstall", harness, &flag]);
    assert_eq!(
        trees(&env),
        before,
        "uninstall of {harness} ({scope}) is byte-exact"
    );

    // Uninstalling again is a no-op.
    ok(&env, &["uninstall", harness, &flag]);
    assert_eq!(trees(&env), before);
}

#[test]
fn install_into_missing_files_round_trips() {
    for harness in HARNESSES {
        for scope in ["project", "user"] {
            round_trip(harness, scope, false);
        }
    }
}

#[test]
fn install_into_existing_files_round_trips() {
    for harness in HARNESSES.into_iter().filter(|h| *h != "cline") {
        for scope in ["project", "user"] {
            round_trip(harness, scope, true);
        }
    }
}

#[test]
fn edits_made_after_install_survive_uninstall() {
    for harness in HARNESSES.into_iter().filter(|h| *h != "cline") {
        for scope in ["project", "user"] {
            let env = TestEnv::new();
            let path = config(&env, harness, scope);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, existing_config(harness)).unwrap();
            let flag = format!("--{scope}");
            ok(&env, &["install", harness, &flag]);
            let text = std::fs::read_to_string(&path).unwrap();
            let edited = text.replacen('{', "{\n  \"userEdit\": true,", 1);
            std::fs::write(&path, &edited).unwrap();

            let output = ok(&env, &["uninstall", harness, &flag]);
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(stderr.contains("entry removed"), "{stderr}");
            let after = std::fs::read_to_string(&path).unwrap();
            let value: Value = serde_json::from_str(&after).unwrap();
            assert_eq!(value["userEdit"], true, "{after}");
            assert!(after.contains("lint-edit"), "{after}");
            assert!(!after.contains("--harness"), "{after}");
        }
    }
}

#[test]
fn codex_trust_follows_the_users_later_hooks() {
    let env = TestEnv::new();
    ok(&env, &["install", "codex", "--user"]);
    let hooks_file = config(&env, "codex", "user");
    // The user adds a hook after ours and trusts it in Codex (index 1).
    let mut doc: Value = serde_json::from_slice(&std::fs::read(&hooks_file).unwrap()).unwrap();
    doc["hooks"]["PreToolUse"].as_array_mut().unwrap().push(
        serde_json::json!({"matcher": "Read", "hooks": [{"type": "command", "command": "audit"}]}),
    );
    std::fs::write(&hooks_file, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    let toml = format!(
        "{}\n[hooks.state.\"{}:pre_tool_use:1:0\"]\ntrusted_hash = \"sha256:user\"\n",
        std::fs::read_to_string(codex_config(&env)).unwrap(),
        hooks_file.display()
    );
    std::fs::write(codex_config(&env), toml).unwrap();

    ok(&env, &["uninstall", "codex", "--user"]);
    let toml = std::fs::read_to_string(codex_config(&env)).unwrap();
    assert_eq!(
        toml.trim(),
        format!(
            "[hooks.state.\"{}:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:user\"",
            hooks_file.display()
        ),
        "the user's hook moved to index 0 and keeps its trust"
    );
    let hooks = std::fs::read_to_string(&hooks_file).unwrap();
    assert!(
        hooks.contains("audit") && !hooks.contains("--harness"),
        "{hooks}"
    );
}

#[test]
fn both_codex_scopes_share_the_trust_file() {
    let env = TestEnv::new();
    let before = trees(&env);
    ok(&env, &["install", "codex", "--user"]);
    ok(&env, &["install", "codex", "--project"]);
    let toml = std::fs::read_to_string(codex_config(&env)).unwrap();
    assert_eq!(toml.matches("trusted_hash").count(), 2, "{toml}");
    let output = ok(&env, &["install", "codex", "--json"]);
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(
        report["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().contains("trusted projects")),
        "{report:#}"
    );
    ok(&env, &["uninstall", "codex", "--user"]);
    ok(&env, &["uninstall", "codex", "--project"]);
    assert_eq!(trees(&env), before);
}

#[test]
fn a_foreign_cline_script_is_left_alone() {
    let env = TestEnv::new();
    let path = config(&env, "cline", "project");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, "#!/bin/sh\necho mine\n").unwrap();
    let output = run(&env, &["install", "cline"]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("left untouched") && stderr.contains("hint:"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "#!/bin/sh\necho mine\n"
    );
}

#[test]
fn generic_and_broken_configs_are_refused_with_hints() {
    let env = TestEnv::new();
    let output = run(&env, &["install", "generic"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("adapters/generic/README.md"));

    let path = config(&env, "claude-code", "project");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, "{ not json").unwrap();
    let output = run(&env, &["install", "claude-code"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("not valid JSON"));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "{ not json");
}

#[test]
fn hook_commands_point_at_this_binary() {
    let env = TestEnv::new();
    ok(&env, &["install", "cursor", "--user"]);
    let doc: Value =
        serde_json::from_slice(&std::fs::read(config(&env, "cursor", "user")).unwrap()).unwrap();
    let entry = &doc["hooks"]["beforeShellExecution"][0];
    let command = entry["command"].as_str().unwrap();
    let exe = std::fs::canonicalize(assert_cmd::cargo::cargo_bin!("agent-guard")).unwrap();
    assert_eq!(
        command,
        format!("'{}' check --enforce --harness cursor", exe.display())
    );
    assert_eq!(entry["failClosed"], true);
    assert_eq!(entry["timeout"], 30);
    assert_eq!(doc["version"], 1);
}

#[test]
fn doctor_reports_a_missing_binary() {
    let env = TestEnv::new();
    let path = config(&env, "claude-code", "user");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(
        &path,
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "'/nonexistent/agent-guard' check --enforce --harness claude-code"}]}]}}"#,
    )
    .unwrap();
    let (code, report) = doctor(&env);
    assert_eq!(code, 1, "{report:#}");
    let entry = hook(&report, "claude-code", "user");
    assert_eq!(check(entry, "binary"), "fail");
    assert_eq!(check(entry, "fail-closed"), "warn");
    let output = run(&env, &["doctor"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("FAIL") && stdout.contains("hint:"),
        "{stdout}"
    );

    let empty = TestEnv::new();
    let (code, report) = doctor(&empty);
    assert_eq!((code, report["hooks"].as_array().unwrap().len()), (0, 0));
}

/// With `AGENT_GUARD_TEST_CODEX=/path/to/codex` (0.169.0), Codex itself confirms that the
/// hook install wrote is trusted: `codex app-server`, `hooks/list`.
#[test]
#[expect(
    clippy::disallowed_methods,
    reason = "test configuration from the environment"
)]
fn codex_itself_reports_the_hook_trusted() {
    let Some(codex) = std::env::var_os("AGENT_GUARD_TEST_CODEX") else {
        return;
    };
    let env = TestEnv::new();
    let text = format!(
        "[projects.\"{}\"]\ntrust_level = \"trusted\"\n",
        env.ws().display()
    );
    std::fs::create_dir_all(codex_config(&env).parent().unwrap()).unwrap();
    std::fs::write(codex_config(&env), text).unwrap();
    ok(&env, &["install", "codex", "--user"]);
    ok(&env, &["install", "codex", "--project"]);
    let listed = codex_hooks_list(Path::new(&codex), &env);
    assert_eq!(listed["warnings"], serde_json::json!([]), "{listed:#}");
    assert_eq!(listed["errors"], serde_json::json!([]), "{listed:#}");
    let hooks = listed["hooks"].as_array().cloned().unwrap_or_default();
    let ours: Vec<&Value> = hooks
        .iter()
        .filter(|h| {
            h["command"]
                .as_str()
                .unwrap_or("")
                .contains("--harness codex")
        })
        .collect();
    assert_eq!(ours.len(), 2, "{hooks:#?}");
    for hook in ours {
        assert_eq!(hook["trustStatus"], "trusted", "{hook:#}");
        assert_eq!(hook["matcher"], "Bash|apply_patch");
    }
}

fn codex_hooks_list(codex: &Path, env: &TestEnv) -> Value {
    use std::io::{BufRead as _, Write as _};
    let mut child = std::process::Command::new(codex)
        .arg("app-server")
        .env("CODEX_HOME", env.fixture.home.join(".codex"))
        .env("HOME", &env.fixture.home)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let mut request = |message: Value| writeln!(stdin, "{message}").unwrap();
    let mut response = |id: u64| loop {
        let message: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
        if message["id"] == id {
            break message;
        }
    };
    request(
        serde_json::json!({"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "it", "version": "0"}}}),
    );
    response(1);
    request(serde_json::json!({"method": "initialized"}));
    request(serde_json::json!({"id": 2, "method": "hooks/list", "params": {"cwds": [env.ws()]}}));
    let reply = response(2);
    child.kill().unwrap();
    child.wait().unwrap();
    reply["result"]["data"][0].clone()
}
