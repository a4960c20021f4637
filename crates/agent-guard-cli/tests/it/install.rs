//! `agent-guard install`, `uninstall` and `doctor` against real files in a fake home.
//!
//! Every harness and scope: install into a missing file and into one with other settings,
//! twice (idempotent); doctor finds the hook; uninstall puts every file and directory back
//! byte for byte; an edit made after install survives uninstall.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::support::{TestEnv, snapshot};

const HARNESSES: [&str; 9] = [
    "claude-code",
    "codex",
    "gemini",
    "copilot",
    "cursor",
    "cline",
    "windsurf",
    "qwen-code",
    "opencode",
];

/// The harnesses whose hook is a file of its own (a script, a plugin), not a JSON entry.
const OWN_FILE: [&str; 2] = ["cline", "opencode"];

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
        ("qwen-code", _) => ".qwen/settings.json",
        ("opencode", "project") => ".opencode/plugins/agent-guard.js",
        ("opencode", _) => ".config/opencode/plugins/agent-guard.js",
        _ => unreachable!(),
    };
    base.join(relative)
}

fn codex_config(env: &TestEnv) -> PathBuf {
    env.fixture.home.join(".codex/config.toml")
}

/// The hook launcher install writes (`$XDG_STATE_HOME/agent-guard/bin/agent-guard-hook`).
fn launcher(env: &TestEnv) -> PathBuf {
    state_home(env).join("agent-guard/bin/agent-guard-hook")
}

/// The launcher's script, as the install crate holds it.
const LAUNCHER_SCRIPT: &str = include_str!("../../../agent-guard-install/src/launcher.sh");

/// Trusts the workspace for Copilot CLI the way install's hint says: the folder in
/// `trustedFolders` of `$HOME/.copilot/config.json`. Without it Copilot skips a repository's
/// hooks silently, and a project install fails.
fn trust_copilot_folder(env: &TestEnv) {
    let config = env.fixture.home.join(".copilot/config.json");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(
        &config,
        serde_json::json!({"trustedFolders": [env.ws()]}).to_string(),
    )
    .unwrap();
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
        "qwen-code" => {
            "{\n  \"$version\": 4,\n  \"hooks\": {\"PreToolUse\": [{\"matcher\": \"write_file\", \"hooks\": [{\"type\": \"command\", \"command\": \"lint-edit\"}]}]}\n}\n"
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
    // The guard's own store (per user, under the home since issue 34) is left out, as the
    // workspace snapshot leaves `.agent-trash` out.
    let mut home = snapshot(&env.fixture.home, &["**"]);
    home.retain(|key, _| !key.starts_with(b".local"));
    (snapshot(env.ws(), &["**"]), home)
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
    if harness == "windsurf" {
        assert_eq!(check(entry, "edits"), "pass", "{entry:#}");
    }
    let launched = if harness == "opencode" {
        "missing"
    } else {
        "pass"
    };
    assert_eq!(check(entry, "launcher"), launched, "{entry:#}");
    assert_eq!(check(entry, "launcher-deny"), launched, "{entry:#}");
    if hook_mode_available(env) {
        assert_eq!(check(entry, "deny"), "pass", "{entry:#}");
        assert_eq!(check(entry, "no-op"), "pass", "{entry:#}");
        // A project hook in a folder the harness does not trust never fires: a FAIL.
        let project_untrusted = scope == "project"
            && match harness {
                "codex" => check(entry, "project-trust") == "fail",
                "copilot" => check(entry, "folder-trust") == "fail",
                _ => false,
            };
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
    if (harness, scope) == ("copilot", "project") {
        trust_copilot_folder(&env);
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
    // Every command hook runs the guard through the launcher; the plugin is its own.
    let launched = format!("{}' --timeout 25 '", launcher(&env).display());
    if harness == "opencode" {
        assert!(
            !launcher(&env).exists() && !text.contains(&launched),
            "{text}"
        );
    } else {
        assert!(text.contains(&launched), "{text}");
        assert_eq!(
            std::fs::read_to_string(launcher(&env)).unwrap(),
            LAUNCHER_SCRIPT
        );
    }
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
    assert!(
        !launcher(&env).exists() && !launcher(&env).parent().unwrap().exists(),
        "the last uninstall removes the launcher"
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
    for harness in HARNESSES.into_iter().filter(|h| !OWN_FILE.contains(h)) {
        for scope in ["project", "user"] {
            round_trip(harness, scope, true);
        }
    }
}

#[test]
fn edits_made_after_install_survive_uninstall() {
    for harness in HARNESSES.into_iter().filter(|h| !OWN_FILE.contains(h)) {
        for scope in ["project", "user"] {
            let env = TestEnv::new();
            let path = config(&env, harness, scope);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, existing_config(harness)).unwrap();
            if (harness, scope) == ("copilot", "project") {
                trust_copilot_folder(&env);
            }
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

/// The hook runs this binary through the launcher, whose timeout (25 s) is below the
/// harness's (30 s): a guard that hangs is denied by the launcher before the harness gives up.
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
        format!(
            "'{}' --timeout 25 '{}' check --enforce --harness cursor",
            launcher(&env).display(),
            exe.display()
        )
    );
    assert_eq!(entry["failClosed"], true);
    assert_eq!(entry["timeout"], 30);
    assert_eq!(doc["version"], 1);
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(launcher(&env)).unwrap().permissions(),
    );
    assert_eq!(mode & 0o777, 0o755);
    assert_eq!(
        std::fs::read_to_string(launcher(&env)).unwrap(),
        LAUNCHER_SCRIPT
    );
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

/// Windsurf sends edits as `pre_write_code`, not through its shell event: install registers
/// the hook for both, the installed command keeps the file an edit replaces (and `undo`
/// brings it back), and doctor warns when the edit event lost its entry.
#[test]
fn windsurf_edits_are_registered_kept_and_checked() {
    let env = TestEnv::new();
    ok(&env, &["install", "windsurf", "--project"]);
    let path = config(&env, "windsurf", "project");
    let doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let command = |event: &str| {
        doc["hooks"][event][0]["command"]
            .as_str()
            .map(str::to_owned)
    };
    let shell = command("pre_run_command").expect("the shell event runs the hook");
    assert_eq!(command("pre_write_code"), Some(shell.clone()), "{doc:#}");

    // What Cascade does before an edit: run the registered command with the payload.
    let payload = serde_json::json!({"agent_action_name": "pre_write_code",
        "trajectory_id": "tr-1", "execution_id": "ex-1", "timestamp": "2026-12-01T00:00:00Z",
        "tool_info": {"file_path": env.ws().join("notes.txt"),
            "edits": [{"old_string": "notes", "new_string": "changed"}]}});
    let output = env
        .std_cmd("sh")
        .args(["-c", &shell])
        .current_dir(env.ws())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write as _;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(payload.to_string().as_bytes())?;
            child.wait_with_output()
        })
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "the edit proceeds: {output:?}"
    );
    std::fs::write(env.ws().join("notes.txt"), "changed\n").unwrap();
    ok(&env, &["undo"]);
    assert_eq!(
        std::fs::read(env.ws().join("notes.txt")).unwrap(),
        b"notes\n",
        "the edit is undone"
    );

    // An install from before edits were registered: doctor warns and says what to run.
    let mut doc = doc;
    doc["hooks"]
        .as_object_mut()
        .unwrap()
        .remove("pre_write_code");
    std::fs::write(&path, doc.to_string()).unwrap();
    let (_, report) = doctor(&env);
    let entry = hook(&report, "windsurf", "project");
    assert_eq!(check(entry, "edits"), "warn", "{entry:#}");
    ok(&env, &["install", "windsurf", "--project"]);
    let (_, report) = doctor(&env);
    assert_eq!(check(hook(&report, "windsurf", "project"), "edits"), "pass");
}

/// A hook whose command line is not what install writes — a mistyped option, an extra flag, a
/// wrapper — FAILs (issue 12, item 7): it would judge nothing, or refuse every call.
#[test]
fn doctor_fails_a_hook_whose_command_is_not_what_install_writes() {
    let exe = assert_cmd::cargo::cargo_bin!("agent-guard")
        .display()
        .to_string();
    for command in [
        format!("'{exe}' check --enfroce --harness claude-code"),
        format!("'{exe}' check --enforce --harness claude-code --json"),
        format!("'{exe}' check --harness claude-code"),
        format!("sh -c \"'{exe}' check --enforce --harness claude-code || true\""),
    ] {
        let env = TestEnv::new();
        let path = config(&env, "claude-code", "user");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let doc = serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "Bash",
            "hooks": [{"type": "command", "command": command}]}]}});
        std::fs::write(&path, doc.to_string()).unwrap();
        let (code, report) = doctor(&env);
        assert_eq!(code, 1, "{command}: {report:#}");
        let entry = hook(&report, "claude-code", "user");
        assert_eq!(check(entry, "command"), "fail", "{command}: {report:#}");
    }
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

fn notes(output: &Output) -> Vec<String> {
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    report["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_owned())
        .collect()
}

/// Copilot CLI skips repository hooks silently in a folder it does not trust (issue 35): a
/// project install there writes the hook but exits 1 with the step that trusts the folder, and
/// doctor FAILs it, until the folder is trusted; then both pass.
#[test]
fn doctor_fails_an_untrusted_copilot_folder() {
    let env = TestEnv::new();
    let ws = env.ws().display().to_string();
    let copilot_config = env.fixture.home.join(".copilot/config.json");
    let output = run(&env, &["install", "copilot", "--project"]);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "error: copilot will not run this hook: Copilot CLI does not trust `{ws}`"
        )),
        "{stderr}"
    );
    let hint = format!(
        "hint: trust the folder yourself: run `cd '{ws}' && copilot` and answer \"Yes, and remember this folder for future sessions\", or add \"{ws}\" to `trustedFolders` in `{}`; or install with --user",
        copilot_config.display()
    );
    assert!(stderr.contains(&hint), "{stderr}");
    let installed = std::fs::read_to_string(config(&env, "copilot", "project")).unwrap();
    assert!(
        installed.contains("check --enforce --harness copilot"),
        "the hook is written, ready for when the folder is trusted: {installed}"
    );

    // The same with --json: the report lists the inactive check, the exit code is 1.
    let output = run(&env, &["install", "copilot", "--project", "--json"]);
    assert_eq!(output.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let inactive = report["inactive"].as_array().unwrap();
    assert_eq!(inactive.len(), 1, "{report:#}");
    assert_eq!(inactive[0]["name"], "folder-trust");
    assert_eq!(inactive[0]["status"], "fail");
    assert!(
        inactive[0]["hint"]
            .as_str()
            .unwrap()
            .contains("trustedFolders"),
        "{report:#}"
    );

    let (code, report) = doctor(&env);
    assert_eq!(code, 1, "{report:#}");
    let entry = hook(&report, "copilot", "project");
    assert_eq!(check(entry, "folder-trust"), "fail", "{entry:#}");
    let text = String::from_utf8_lossy(&run(&env, &["doctor"]).stdout).into_owned();
    assert!(
        text.contains("FAIL  folder-trust") && text.contains("hint: trust the folder yourself"),
        "{text}"
    );

    // The user trusts a parent folder, as Copilot itself writes it (with its comments).
    std::fs::create_dir_all(copilot_config.parent().unwrap()).unwrap();
    let parent = env.ws().parent().unwrap().display().to_string();
    std::fs::write(
        &copilot_config,
        format!(
            "// User settings belong in settings.json.\n// This file is managed automatically.\n{{\n  \"trustedFolders\": [\n    {parent:?}\n  ]\n}}\n"
        ),
    )
    .unwrap();
    let (code, report) = doctor(&env);
    let entry = hook(&report, "copilot", "project");
    assert_eq!(check(entry, "folder-trust"), "pass", "{entry:#}");
    if hook_mode_available(&env) {
        assert_eq!(code, 0, "{report:#}");
    }
    ok(&env, &["install", "copilot", "--project"]);

    // Following the hint to the letter: the workspace itself in `trustedFolders`.
    let env = TestEnv::new();
    assert_eq!(
        run(&env, &["install", "copilot", "--project"])
            .status
            .code(),
        Some(1)
    );
    trust_copilot_folder(&env);
    ok(&env, &["install", "copilot", "--project"]);
    let (_, report) = doctor(&env);
    assert_eq!(
        check(hook(&report, "copilot", "project"), "folder-trust"),
        "pass"
    );

    // A user install needs no trust.
    let env = TestEnv::new();
    ok(&env, &["install", "copilot", "--user"]);
    let (_, report) = doctor(&env);
    assert_eq!(
        check(hook(&report, "copilot", "user"), "folder-trust"),
        "missing"
    );
}

/// Doctor checks the launcher of every command hook (issue 35): present, executable, exactly
/// what install writes, its timeout below the harness's, and denying in front of a guard that
/// does not exist; each failure names the install that repairs it.
#[test]
fn doctor_checks_the_launcher() {
    let env = TestEnv::new();
    ok(&env, &["install", "qwen-code", "--project"]);
    let launcher = launcher(&env);
    let launcher_check = |env: &TestEnv| {
        let (code, report) = doctor(env);
        let entry = hook(&report, "qwen-code", "project").clone();
        let found = entry["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "launcher")
            .cloned()
            .unwrap_or(Value::Null);
        (code, entry, found)
    };
    let (_, entry, _) = launcher_check(&env);
    assert_eq!(check(&entry, "launcher"), "pass", "{entry:#}");
    assert_eq!(check(&entry, "launcher-deny"), "pass", "{entry:#}");

    let set_mode = |mode: u32| {
        std::fs::set_permissions(
            &launcher,
            std::os::unix::fs::PermissionsExt::from_mode(mode),
        )
        .unwrap();
    };
    let broken: [(&str, &dyn Fn(), &str); 3] = [
        ("not executable", &|| set_mode(0o644), "is not executable"),
        (
            "edited",
            &|| {
                let text = std::fs::read_to_string(&launcher).unwrap();
                std::fs::write(&launcher, text.replace("exit 2", "exit 0")).unwrap();
            },
            "differs from what install writes",
        ),
        (
            "missing",
            &|| std::fs::remove_file(&launcher).unwrap(),
            "is missing",
        ),
    ];
    for (case, breaking, detail) in broken {
        breaking();
        let (code, entry, found) = launcher_check(&env);
        assert_eq!(code, 1, "{case}: {entry:#}");
        assert_eq!(found["status"], "fail", "{case}: {entry:#}");
        assert!(
            found["detail"].as_str().unwrap().contains(detail),
            "{case}: {found:#}"
        );
        assert!(
            found["hint"]
                .as_str()
                .unwrap()
                .contains("agent-guard install qwen-code --project"),
            "{case}: {found:#}"
        );
        assert_eq!(check(&entry, "launcher-deny"), "missing", "{case}");
        // The repair the hint names.
        ok(&env, &["install", "qwen-code", "--project"]);
        let (_, entry, _) = launcher_check(&env);
        assert_eq!(
            check(&entry, "launcher"),
            "pass",
            "{case}: repaired: {entry:#}"
        );
        assert_eq!(
            std::fs::read_to_string(&launcher).unwrap(),
            LAUNCHER_SCRIPT,
            "{case}"
        );
    }

    // A harness timeout at or below the launcher's: the harness gives up first.
    let path = config(&env, "qwen-code", "project");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut doc: Value = serde_json::from_str(&text).unwrap();
    let slot = &mut doc["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"];
    assert_eq!(*slot, 30, "{text}");
    *slot = Value::from(20);
    std::fs::write(&path, doc.to_string()).unwrap();
    let (code, entry, found) = launcher_check(&env);
    assert_eq!(
        (code, found["status"].as_str()),
        (1, Some("fail")),
        "{entry:#}"
    );
    assert!(
        found["detail"]
            .as_str()
            .unwrap()
            .contains("is not below qwen-code's (20 s)"),
        "{found:#}"
    );
}

/// A hook from before the launcher (the guard run directly) FAILs doctor's `launcher` check
/// where the harness runs the tool on a failed hook (Qwen Code), and warns where the harness
/// blocks by itself (Claude Code with `onFailure: "block"`).
#[test]
fn doctor_fails_a_hook_without_the_launcher() {
    let exe = std::fs::canonicalize(assert_cmd::cargo::cargo_bin!("agent-guard")).unwrap();
    let direct = format!("'{}' check --enforce --harness", exe.display());
    for (harness, on_failure, status) in [
        ("qwen-code", None, "fail"),
        ("claude-code", Some("block"), "warn"),
    ] {
        let env = TestEnv::new();
        let path = config(&env, harness, "user");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut handler = serde_json::json!({"type": "command",
            "command": format!("{direct} {harness}"), "timeout": 30});
        if let Some(value) = on_failure {
            handler["onFailure"] = Value::from(value);
        }
        let matcher = if harness == "qwen-code" {
            "run_shell_command"
        } else {
            "Bash"
        };
        let doc = serde_json::json!({"hooks": {"PreToolUse": [{"matcher": matcher,
            "hooks": [handler]}]}});
        std::fs::write(&path, doc.to_string()).unwrap();
        let (_, report) = doctor(&env);
        let entry = hook(&report, harness, "user");
        assert_eq!(check(entry, "launcher"), status, "{harness}: {entry:#}");
    }
}

/// A repository's `.github/copilot/settings.json` with `disableAllHooks` switches agent-guard
/// off, whichever scope it is installed in.
#[test]
fn doctor_fails_a_copilot_repository_that_disables_hooks() {
    let env = TestEnv::new();
    ok(&env, &["install", "copilot", "--user"]);
    let repo = env.ws().join(".github/copilot");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::write(repo.join("settings.json"), r#"{"disableAllHooks": true}"#).unwrap();
    let (code, report) = doctor(&env);
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(
        check(hook(&report, "copilot", "user"), "hooks-enabled"),
        "fail"
    );
    std::fs::write(
        repo.join("settings.local.json"),
        r#"{"disableAllHooks": false}"#,
    )
    .unwrap();
    let (_, report) = doctor(&env);
    assert_eq!(
        check(hook(&report, "copilot", "user"), "hooks-enabled"),
        "pass",
        "the local file outranks the shared one"
    );
}

/// Gemini CLI runs no hooks in a folder it does not trust, and honours the hook switches of
/// its settings layers.
#[test]
fn doctor_reads_gemini_folder_trust_and_hook_switches() {
    let env = TestEnv::new();
    let output = ok(&env, &["install", "gemini", "--project", "--json"]);
    assert!(
        notes(&output).iter().any(|n| n.contains("trusted folders")),
        "{:?}",
        notes(&output)
    );
    let gemini = env.fixture.home.join(".gemini");
    std::fs::create_dir_all(&gemini).unwrap();
    let state = |env: &TestEnv| {
        let (code, report) = doctor(env);
        let entry = hook(&report, "gemini", "project").clone();
        (
            code,
            check(&entry, "folder-trust").to_owned(),
            check(&entry, "hooks-enabled").to_owned(),
        )
    };
    assert_eq!(&state(&env).1, "warn", "not yet trusted: Gemini asks");

    let ws = env.ws().display().to_string();
    std::fs::write(
        gemini.join("trustedFolders.json"),
        format!("{{{ws:?}: \"DO_NOT_TRUST\"}}"),
    )
    .unwrap();
    let (code, trust, _) = state(&env);
    assert_eq!((code, trust.as_str()), (1, "fail"));

    std::fs::write(
        gemini.join("trustedFolders.json"),
        format!("{{{ws:?}: \"TRUST_FOLDER\"}}"),
    )
    .unwrap();
    let (_, trust, hooks) = state(&env);
    assert_eq!((trust.as_str(), hooks.as_str()), ("pass", "pass"));

    std::fs::write(
        gemini.join("settings.json"),
        "{\n  // mine\n  \"hooksConfig\": {\"disabled\": [\"agent-guard\"]}\n}\n",
    )
    .unwrap();
    let (code, _, hooks) = state(&env);
    assert_eq!((code, hooks.as_str()), (1, "fail"));

    std::fs::write(
        gemini.join("settings.json"),
        r#"{"hooksConfig": {"enabled": false}, "security": {"folderTrust": {"enabled": false}}}"#,
    )
    .unwrap();
    let (code, trust, hooks) = state(&env);
    assert_eq!((code, trust.as_str(), hooks.as_str()), (1, "pass", "fail"));
}

/// Qwen Code: folder trust is off by default; `disableAllHooks` in any layer that wins turns
/// the hook off.
#[test]
fn doctor_reads_qwen_disable_all_hooks() {
    let env = TestEnv::new();
    ok(&env, &["install", "qwen-code", "--project"]);
    let (_, report) = doctor(&env);
    let entry = hook(&report, "qwen-code", "project");
    assert_eq!(check(entry, "folder-trust"), "pass", "{entry:#}");
    assert_eq!(check(entry, "hooks-enabled"), "pass", "{entry:#}");
    let qwen = env.fixture.home.join(".qwen");
    std::fs::create_dir_all(&qwen).unwrap();
    std::fs::write(qwen.join("settings.json"), r#"{"disableAllHooks": true}"#).unwrap();
    let (code, report) = doctor(&env);
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(
        check(hook(&report, "qwen-code", "project"), "hooks-enabled"),
        "fail"
    );
    std::fs::write(
        qwen.join("settings.json"),
        r#"{"security": {"folderTrust": {"enabled": true}}}"#,
    )
    .unwrap();
    let (_, report) = doctor(&env);
    let entry = hook(&report, "qwen-code", "project");
    assert_eq!(check(entry, "folder-trust"), "warn", "{entry:#}");
    assert_eq!(check(entry, "hooks-enabled"), "pass", "{entry:#}");
}

/// A Node script that loads the `OpenCode` plugin (argv: the plugin, the workspace, the
/// call's arguments as JSON), runs one `bash` call through its hooks and prints what
/// happened as JSON.
const PLUGIN_DRIVER: &str = r#"const [plugin, directory, args] = process.argv.slice(2);
const hooks = await (await import(plugin)).AgentGuard({ directory, worktree: directory });
const call = { tool: "bash", sessionID: "s", callID: "c1" };
const output = { args: JSON.parse(args) };
try {
  await hooks["tool.execute.before"](call, output);
  const result = { output: "tool output" };
  await hooks["tool.execute.after"](call, result);
  console.log(JSON.stringify({ ran: true, args: output.args, output: result.output }));
} catch (error) {
  console.log(JSON.stringify({ ran: false, error: error.message }));
}
"#;

/// Guards that do not give an explicit allow: the name of the case, the guard's shell script
/// (empty: the guard is missing), the plugin's timeout in milliseconds, and what the
/// plugin's error says.
const FAILING_GUARDS: &[(&str, &str, u64, &str)] = &[
    ("missing", "", 30_000, "could not judge"),
    (
        "exit-1",
        "cat >/dev/null; echo crash >&2; exit 1",
        30_000,
        "exit 1: crash",
    ),
    (
        "allow-exit-3",
        "cat >/dev/null; echo '{\"decision\":\"allow\"}'; exit 3",
        30_000,
        "exit 3",
    ),
    (
        "garbage",
        "cat >/dev/null; echo allow",
        30_000,
        "no verdict",
    ),
    ("silent", "cat >/dev/null", 30_000, "no verdict"),
    (
        "stall",
        "cat >/dev/null; exec sleep 30",
        300,
        "no answer within 300 ms",
    ),
];

/// The `OpenCode` plugin install writes, driven by `node` outside `OpenCode`: it lets a call
/// run only on the guard's explicit allow, applies the rewrite, appends the note, and throws
/// on a deny, a guard that cannot start, fails, answers garbage or does not answer in time.
#[test]
fn the_opencode_plugin_runs_a_call_only_on_an_explicit_allow() {
    let node_works = std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success());
    if !node_works {
        eprintln!("skipping: `node` is not on PATH");
        return;
    }
    let env = TestEnv::new();
    ok(&env, &["install", "opencode", "--project"]);
    let plugin = std::fs::read_to_string(config(&env, "opencode", "project")).unwrap();
    let scratch = env.fixture.outside.join("plugin");
    std::fs::create_dir_all(&scratch).unwrap();
    let driver = scratch.join("drive.mjs");
    std::fs::write(&driver, PLUGIN_DRIVER).unwrap();
    // The plugin with its guard replaced by `guard` (a shell script, or a missing path).
    let drive = |name: &str, guard: Option<&str>, timeout_ms: u64, command: &str| -> Value {
        let mut text = plugin.replace("TIMEOUT_MS = 30000", &format!("TIMEOUT_MS = {timeout_ms}"));
        if let Some(script) = guard {
            let path = scratch.join(name);
            if !script.is_empty() {
                std::fs::write(&path, format!("#!/bin/sh\n{script}\n")).unwrap();
                std::fs::set_permissions(
                    &path,
                    std::os::unix::fs::PermissionsExt::from_mode(0o755),
                )
                .unwrap();
            }
            let start = text.find("const GUARD = ").unwrap();
            let end = start + text[start..].find('\n').unwrap();
            text.replace_range(
                start..end,
                &format!("const GUARD = [{:?}];", path.display().to_string()),
            );
        }
        let file = scratch.join(format!("{name}.js"));
        std::fs::write(&file, text).unwrap();
        let out = std::process::Command::new("node")
            .arg(&driver)
            .arg(&file)
            .arg(env.ws())
            .arg(serde_json::json!({"command": command, "description": "d"}).to_string())
            .env("HOME", &env.fixture.home)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .unwrap();
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{name}: {e}: {out:?}"))
    };

    let moved = drive("real", None, 30_000, "rm -r build");
    assert_eq!(moved["ran"], true, "{moved}");
    assert!(!env.ws().join("build").exists(), "relocated");
    let rewritten = moved["args"]["command"].as_str().unwrap();
    assert!(
        rewritten.starts_with("echo 'agent-guard: moved build"),
        "{moved}"
    );
    assert_eq!(
        moved["args"]["description"], "d",
        "other arguments are kept"
    );
    assert!(
        moved["output"]
            .as_str()
            .unwrap()
            .contains("agent-guard restore "),
        "the note is appended to the tool output: {moved}"
    );

    let refused = drive("real", None, 30_000, "rm -r ../outside");
    assert_eq!(refused["ran"], false, "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .contains("BLOCKED [BLOCK_OUT_OF_WORKSPACE]"),
        "{refused}"
    );

    for &(name, script, timeout_ms, says) in FAILING_GUARDS {
        let result = drive(name, Some(script), timeout_ms, "ls");
        assert_eq!(result["ran"], false, "{name}: {result}");
        let error = result["error"].as_str().unwrap();
        assert!(
            error.contains(says) && error.contains("fail-closed"),
            "{name}: {error}"
        );
    }
}

/// `qwen` names Qwen Code (issue 35, point 7): `install qwen` writes the same hook as
/// `install qwen-code`, with the stable name in the command, and `uninstall qwen` removes it.
#[test]
fn qwen_is_a_name_for_qwen_code() {
    let env = TestEnv::new();
    ok(&env, &["install", "qwen", "--project"]);
    let settings = std::fs::read_to_string(env.ws().join(".qwen/settings.json")).unwrap();
    assert!(
        settings.contains("--harness qwen-code"),
        "the stable name is written: {settings}"
    );
    let (_, report) = doctor(&env);
    assert_eq!(
        check(hook(&report, "qwen-code", "project"), "hooks-enabled"),
        "pass"
    );
    ok(&env, &["uninstall", "qwen", "--project"]);
    let settings =
        std::fs::read_to_string(env.ws().join(".qwen/settings.json")).unwrap_or_default();
    assert!(!settings.contains("agent-guard"), "{settings}");
}
