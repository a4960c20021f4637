//! `agent-guard check` and the `check` binary, advisory mode.

use crate::support::{TestEnv, json, tree};

#[test]
fn options_after_operands_relocate_the_tree() {
    let env = TestEnv::new();
    let report = env.check_json("rm ./build -rf");
    assert_eq!(report["decision"], "RELOCATE");
    assert_eq!(report["code"], "RELOCATE_TREE");
    // The command is shown to the person who ran `check` (issue 16); the audit log redacts it.
    assert_eq!(report["command"], "rm ./build -rf");
    assert_eq!(report["enforced"], false);
    assert_eq!(report["exit"], 0);
    assert!(
        env.ws().join("build/report.txt").exists(),
        "advisory mode moves nothing"
    );
}

#[test]
fn json_has_the_contract_fields() {
    let env = TestEnv::new();
    let report = env.check_json("rm -rf build");
    for field in [
        "command",
        "check_id",
        "mode",
        "dialect",
        "dialect_requested",
        "dialect_outcome",
        "decision",
        "code",
        "explanation",
        "reasons",
        "guard_latency_ms",
        "ops",
        "enforced",
        "exit",
    ] {
        assert!(report.get(field).is_some(), "missing {field}: {report}");
    }
    assert_eq!(report["ops"][0]["op"], "rm");
    assert_eq!(report["ops"][0]["kind"], "fs-delete");
    assert_eq!(report["dialect"], "posix");
    assert!(report["dialect_requested"].is_null());
    let id = report["check_id"].as_str().unwrap();
    assert!(agent_guard_types::is_generated_id(id), "{id}");
}

#[test]
fn control_flow_and_brace_lists_are_not_allowed() {
    let env = TestEnv::new();
    for command in ["if true; then rm -rf build; fi", "rm -rf {build,dist}"] {
        let report = env.check_json(command);
        assert_ne!(report["decision"], "ALLOW", "{command}: {report}");
        assert_eq!(report["code"], "RELOCATE_TREE", "{command}");
    }
}

#[test]
fn home_directory_blocks_the_line() {
    let env = TestEnv::new();
    let report = env.check_json("rm -rf build; rm -rf ~");
    assert_eq!(report["decision"], "BLOCK");
    assert_eq!(report["code"], "BLOCK_PROTECTED_ANCESTOR");
}

#[test]
fn data_mentioning_rm_writes_nothing() {
    let env = TestEnv::new();
    let before = tree(env.ws());
    let report = env.check_json("grep -r \"rm -rf\" .");
    assert_eq!(report["decision"], "ALLOW");
    assert_eq!(report["code"], "ALLOW_NOOP");
    assert_eq!(tree(env.ws()), before, "a no-op check creates nothing");
    assert!(!env.trash().exists());
}

#[test]
fn destructive_check_appends_one_redacted_audit_record() {
    let env = TestEnv::new();
    let report = env.check_json("rm -rf build && printf private_marker_7392");
    let audit = std::fs::read_to_string(env.trash().join("audit.jsonl")).unwrap();
    let lines: Vec<&str> = audit.lines().collect();
    assert_eq!(lines.len(), 1, "{audit}");
    let record: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(record["event"], "check");
    assert_eq!(record["check_id"], report["check_id"]);
    assert_eq!(record["code"], "RELOCATE_TREE");
    assert_eq!(record["command"], "<redacted>");
    assert!(
        !audit.contains("private_marker"),
        "the raw command is never stored"
    );
    // The store is outside the workspace (issue 34): git is neither told nor touched.
    assert!(!env.trash().starts_with(env.ws()));
    let exclude = std::fs::read_to_string(env.ws().join(".git/info/exclude")).unwrap_or_default();
    assert!(!exclude.contains("agent-trash"), "{exclude}");
    let status = std::process::Command::new("git")
        .args(["status", "--porcelain", "--ignored=no"])
        .current_dir(env.ws())
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&status.stdout).contains(".agent-trash"));
}

#[test]
fn a_named_store_inside_the_workspace_is_excluded_from_git_first() {
    let env = TestEnv::new();
    let output = env.ag_with(
        "AGENT_GUARD_TRASH",
        ".agent-trash",
        &["check", "--json", "--", "rm -rf build"],
    );
    assert!(output.status.success(), "{output:?}");
    let exclude = env.read(".git/info/exclude");
    assert!(
        exclude.contains("/.agent-trash/"),
        "the quarantine is excluded from git first"
    );
}

#[test]
fn advisory_exit_is_zero_even_for_block() {
    let env = TestEnv::new();
    let output = env.cmd("check").args(["--", "rm -rf ."]).output().unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.starts_with("BLOCK [BLOCK_PROTECTED_PATH]"),
        "{stdout}"
    );
}

#[test]
fn unknown_dialect_is_a_verdict_not_a_usage_error() {
    let env = TestEnv::new();
    let output = env.ag(&[
        "check",
        "--json",
        "--dialect",
        "fish-private_marker",
        "--",
        "rm -rf build",
    ]);
    assert!(output.status.success());
    let report = json(&output);
    assert_eq!(report["code"], "BLOCK_DIALECT_UNKNOWN");
    assert_eq!(report["dialect_outcome"], "unusable");
    assert_eq!(report["dialect_requested"], "<redacted>");
    assert_eq!(report["ops"], serde_json::json!([]));
    assert!(!String::from_utf8_lossy(&output.stdout).contains("private_marker"));
}

#[test]
fn dialect_comes_from_the_environment() {
    let env = TestEnv::new();
    let output = env.ag_with(
        "AGENT_GUARD_DIALECT",
        "bash",
        &["check", "--json", "--", "rm -rf build"],
    );
    let report = json(&output);
    assert_eq!(report["dialect_requested"], "bash");
    assert_eq!(report["code"], "RELOCATE_TREE");
}

#[test]
fn cwd_flag_sets_the_base_directory() {
    let env = TestEnv::new();
    let output = env
        .cmd("agent-guard")
        .current_dir(&env.fixture.home)
        .args(["check", "--json", "--cwd"])
        .arg(env.ws().join("build"))
        .args(["--", "rm report.txt"])
        .output()
        .unwrap();
    let report = json(&output);
    assert_eq!(report["code"], "RELOCATE_PATHS", "{report}");
}

/// The README's first command: on a fresh temporary workspace the demo runs a delete, an
/// overwrite, a git reset and a script for real after `check --enforce`, each doing its
/// damage, lists what the guard kept, and undoes all four byte for byte; then each row of
/// its table shows the verdict it claims to show.
#[test]
fn the_demo_runs_the_whole_job_and_shows_the_verdicts_it_names() {
    let env = TestEnv::new();
    let output = env.ag_ok(&["demo", "--json"]);
    let demo: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let story = &demo["story"];
    let runs: Vec<(&str, &str)> = story["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["command"].as_str().unwrap(), r["code"].as_str().unwrap()))
        .collect();
    assert_eq!(
        runs,
        [
            ("rm -rf build", "RELOCATE_TREE"),
            ("echo reset > notes.txt", "SNAPSHOT_OVERWRITE"),
            ("git reset --hard", "SNAPSHOT_GIT_STASH"),
            ("sh tidy.sh", "SNAPSHOT_CHECKPOINT"),
        ]
    );
    let damage = |i: usize, key: &str| story["runs"][i][key].as_array().unwrap().len();
    assert!(
        story["runs"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["ran"] == true)
    );
    assert_eq!(damage(0, "deleted"), 2, "{story}");
    assert_eq!(damage(1, "changed"), 1, "{story}");
    assert_eq!(damage(2, "changed"), 1, "{story}");
    assert_eq!(damage(3, "deleted"), 2, "{story}");
    assert_eq!(story["undone"].as_array().unwrap().len(), 4, "{story}");
    assert!(story["listed"].as_array().unwrap().len() >= 4, "{story}");
    assert_eq!(story["different"], serde_json::json!([]), "{story}");
    assert!(story["files"].as_u64().unwrap() >= 10);
    let rows = demo["verdicts"].as_array().unwrap();
    let expected = [
        ("ls -la && git status", "ALLOW_NOOP"),
        ("grep -r \"rm -rf\" .", "ALLOW_NOOP"),
        ("rm -rf build", "RELOCATE_TREE"),
        ("rm ./build -rf", "RELOCATE_TREE"),
        ("if true; then rm -rf build; fi", "RELOCATE_TREE"),
        ("rm -rf {build,dist}", "RELOCATE_TREE"),
        ("rm notes.txt", "RELOCATE_PATHS"),
        ("rm -rf node_modules", "ALLOW_REGENERABLE"),
        ("git clean -fdx", "RELOCATE_VIA_CLEAN_ENUMERATE"),
        ("git reset --hard", "SNAPSHOT_GIT_STASH"),
        ("echo reset > notes.txt", "SNAPSHOT_OVERWRITE"),
        ("sed -i 's/draft/final/' notes.txt", "SNAPSHOT_OVERWRITE"),
        ("gzip notes.txt", "SNAPSHOT_CONSUMED_INPUT"),
        ("cd src && rm -rf ../dist", "RELOCATE_TREE"),
        ("cd \"$OUT\" && rm -rf build", "COMPOUND_CWD_DELETE"),
        ("rm *.log", "SNAPSHOT_CHECKPOINT_DELETE"),
        ("rm -rf \"$BUILD_DIR\"", "BLOCK_UNDETERMINABLE_EFFECT"),
        (
            "python3 -c \"import shutil; shutil.rmtree('build')\"",
            "BLOCK_UNDETERMINABLE_EFFECT",
        ),
        ("uv run rm -rf build", "RELOCATE_TREE"),
        ("rm -rf ../other-project", "BLOCK_OUT_OF_WORKSPACE"),
        ("rm -rf .git", "BLOCK_PROTECTED_PATH"),
        ("rm -rf build; rm -rf ~", "BLOCK_PROTECTED_ANCESTOR"),
        ("git push --force origin main", "BLOCK_FORCE_PUSH"),
    ];
    let got: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| (r["command"].as_str().unwrap(), r["code"].as_str().unwrap()))
        .collect();
    assert_eq!(got, expected);
}
