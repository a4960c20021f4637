//! The audit chain end to end: `audit verify`'s reports and exit codes, a real process killed
//! mid-append, concurrent writers, and `status`'s chain line.

use std::os::unix::fs::MetadataExt as _;

use crate::support::TestEnv;

fn verify(env: &TestEnv) -> (i32, serde_json::Value) {
    let output = env.ag(&["audit", "verify", "--json"]);
    let report: serde_json::Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}: {output:?}"));
    let code = output.status.code().expect("verify exits normally");
    assert_eq!(report["exit"], code, "{report}");
    (code, report)
}

fn safe_delete(env: &TestEnv, path: &str) {
    env.ag_ok(&["safe-delete", path]);
}

fn audit_lines(env: &TestEnv) -> Vec<String> {
    std::fs::read_to_string(env.trash().join("audit.jsonl"))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn an_intact_chain_verifies_and_the_key_is_private_and_outside() {
    let env = TestEnv::new();
    let (code, report) = verify(&env);
    assert_eq!((code, report["state"].as_str()), (0, Some("empty")));
    assert!(report["key_id"].is_null(), "verify creates no key");

    env.ag_ok(&["check", "--enforce", "--", "rm -rf build"]);
    safe_delete(&env, "notes.txt");
    let (code, report) = verify(&env);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["state"], "intact");
    assert_eq!(report["chained"], report["records"]);
    let key_id = report["key_id"].as_str().unwrap();
    assert!(!audit_lines(&env).is_empty());

    let key = env
        .fixture
        .home
        .join(".local/state/agent-guard/keys/audit-chain.key");
    assert_eq!(std::fs::metadata(&key).unwrap().mode() & 0o777, 0o600);
    assert_eq!(
        std::fs::metadata(key.parent().unwrap()).unwrap().mode() & 0o777,
        0o700
    );
    let secret = std::fs::read_to_string(&key).unwrap();
    let log = audit_lines(&env).join("\n");
    assert!(!log.contains(secret.trim()), "the log never holds the key");
    assert!(log.contains(key_id));

    let human = env.ag(&["audit", "verify"]);
    let text = String::from_utf8(human.stdout).unwrap();
    assert!(text.contains("chain       intact"), "{text}");

    let status = env.ag(&["status"]);
    let text = String::from_utf8(status.stdout).unwrap();
    assert!(text.contains("audit chain intact: "), "{text}");
    let status: serde_json::Value =
        serde_json::from_slice(&env.ag(&["status", "--json"]).stdout).unwrap();
    assert_eq!(status["audit_chain"]["state"], "intact", "{status}");
}

#[test]
fn xdg_state_home_holds_the_key_when_set() {
    let env = TestEnv::new();
    let state = env.fixture.home.join("xdg-state");
    env.cmd("agent-guard")
        .env("XDG_STATE_HOME", &state)
        .args(["safe-delete", "notes.txt"])
        .assert()
        .success();
    assert!(state.join("agent-guard/keys/audit-chain.key").is_file());
    assert!(
        !env.fixture
            .home
            .join(".local/state/agent-guard/keys")
            .exists(),
        "only one key location is used"
    );
}

#[test]
fn tampering_exits_5_with_the_line() {
    let env = TestEnv::new();
    for path in ["notes.txt", "build", "dist"] {
        safe_delete(&env, path);
    }
    let mut lines = audit_lines(&env);
    assert!(lines.len() >= 4, "{lines:?}");
    lines.remove(1);
    std::fs::write(
        env.trash().join("audit.jsonl"),
        format!("{}\n", lines.join("\n")),
    )
    .unwrap();
    let (code, report) = verify(&env);
    assert_eq!(code, 5, "{report}");
    assert_eq!(report["state"], "tampered");
    assert_eq!(report["findings"][0]["line"], 2);
    assert_eq!(report["findings"][0]["kind"], "gap");

    let status = env.ag(&["status"]);
    let text = String::from_utf8(status.stdout).unwrap();
    assert!(
        text.contains("audit chain TAMPERED") && text.contains("first bad line 2"),
        "{text}"
    );
}

#[test]
pub(crate) fn a_process_killed_mid_append_leaves_a_torn_tail_the_next_append_repairs() {
    let env = TestEnv::new();
    safe_delete(&env, "notes.txt");
    let before = audit_lines(&env).len();
    let crashed = env.ag_with(
        "AGENT_GUARD_FAULT",
        "audit-torn-append",
        &["safe-delete", "build"],
    );
    assert_eq!(
        crashed.status.code(),
        None,
        "the process dies mid-append: {crashed:?}"
    );
    assert!(
        env.ws().join("build").exists(),
        "nothing moved before the intent"
    );
    let (code, report) = verify(&env);
    assert_eq!(code, 4, "{report}");
    assert_eq!(report["state"], "torn-tail");
    let torn = &report["torn"][0];
    assert_eq!(torn["status"], "pending", "{report}");
    assert_eq!(torn["line"], before + 1);
    assert!(torn["length"].as_u64().unwrap() > 0);
    assert!(report["findings"].as_array().unwrap().is_empty());

    // The next destructive command continues the chain over the torn line.
    safe_delete(&env, "build");
    let (code, report) = verify(&env);
    assert_eq!(code, 4, "{report}");
    assert_eq!(report["state"], "repaired");
    assert_eq!(report["torn"][0]["status"], "repaired");
    assert_eq!(report["torn"][0]["repaired_by"], before + 2);
    assert!(
        report["findings"].as_array().unwrap().is_empty(),
        "{report}"
    );
    assert_eq!(report["chained"], report["records"]);
}

#[test]
fn an_unchained_log_is_not_tampered_and_an_upgrade_verifies() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.trash()).unwrap();
    // Lines as the reference tool and earlier versions wrote them: no chain fields.
    std::fs::write(
        env.trash().join("audit.jsonl"),
        concat!(
            r#"{"code":"RELOCATE_TREE","command":"<redacted>","decision":"RELOCATE","event":"check","schema":1,"ts":"2026-01-01T00:00:00Z"}"#,
            "\n",
            r#"{"event":"outcome","outcome":"relocated to quarantine","tool":"safe_delete","ts":"2026-01-01T00:00:01Z"}"#,
            "\n"
        ),
    )
    .unwrap();
    let (code, report) = verify(&env);
    assert_eq!((code, report["state"].as_str()), (0, Some("unchained")));

    safe_delete(&env, "notes.txt");
    let (code, report) = verify(&env);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["state"], "intact");
    assert_eq!(report["unchained_prefix"], 2);
    assert!(report["chained"].as_u64().unwrap() >= 2);
}

#[test]
fn concurrent_processes_keep_one_chain_and_one_key() {
    let env = TestEnv::new();
    let targets = ["notes.txt", "build", "dist", "src/main.rs"];
    let children: Vec<_> = targets
        .iter()
        .map(|path| {
            env.std_cmd(
                assert_cmd::cargo::cargo_bin!("agent-guard")
                    .to_str()
                    .unwrap(),
            )
            .args(["safe-delete", path])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
        })
        .collect();
    for mut child in children {
        // Whatever each decides, its records join the one chain.
        child.wait().unwrap();
    }
    let (code, report) = verify(&env);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["state"], "intact");
    assert_eq!(
        std::fs::read_dir(env.fixture.home.join(".local/state/agent-guard/keys"))
            .unwrap()
            .count(),
        1,
        "one key, however many first uses race"
    );
}
