//! safe-delete, restore (with occupants, idempotent, hostile ids), undo, list, show, gc.

use crate::support::{TestEnv, json, snapshot};

#[test]
fn safe_delete_then_restore_round_trips() {
    let env = TestEnv::new();
    let before = snapshot(env.ws(), &[""]);
    let output = env.ag(&["safe-delete", "--json", "build", "notes.txt"]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let report = json(&output);
    assert_eq!(report["outcome"], "relocated to quarantine");
    assert_eq!(report["verdict"]["code"], "RELOCATE_TREE");
    let txid = report["txid"].as_str().unwrap().to_owned();
    assert!(!env.ws().join("build").exists() && !env.ws().join("notes.txt").exists());

    // Repeating the call reports "already absent", not a failure.
    let again = env.ag(&["safe-delete", "--json", "build", "notes.txt"]);
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(json(&again)["outcome"], "nothing to do (already absent)");

    env.cmd("restore").arg(&txid).assert().success();
    assert_eq!(snapshot(env.ws(), &[""]), before);
    // A second restore is a no-op that exits 0.
    let second = env.ag(&["restore", "--json", &txid]);
    assert_eq!(second.status.code(), Some(0));
    assert_eq!(json(&second)["already_restored"], true);
    assert_eq!(snapshot(env.ws(), &[""]), before);
}

#[test]
fn safe_delete_expands_globs_itself() {
    let env = TestEnv::new();
    env.write("a.log", "a");
    env.write("b.log", "b");
    let output = env
        .cmd("safe_delete")
        .args(["--json", "*.log", "*.nothing"])
        .output()
        .unwrap();
    let report = json(&output);
    assert_eq!(report["targets"], serde_json::json!(["a.log", "b.log"]));
    assert_eq!(report["no_match"], serde_json::json!(["*.nothing"]));
    assert_eq!(report["outcome"], "relocated to quarantine");
    let unmatched = env
        .cmd("safe_delete")
        .args(["--json", "*.nothing"])
        .output()
        .unwrap();
    assert_eq!(json(&unmatched)["outcome"], "nothing to do (no matches)");
}

#[test]
fn safe_delete_refuses_protected_paths_with_exit_2() {
    let env = TestEnv::new();
    for path in [".", ".git", "../outside", "/"] {
        let output = env.ag(&["safe-delete", "--json", path]);
        assert_eq!(output.status.code(), Some(2), "{path}");
        assert_eq!(json(&output)["verdict"]["decision"], "BLOCK", "{path}");
    }
    assert!(env.ws().join(".git").exists());
}

#[test]
fn safe_delete_dry_run_moves_nothing() {
    let env = TestEnv::new();
    let output = env.ag(&["safe-delete", "--dry-run", "--json", "build"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(json(&output)["outcome"], "would relocate (RELOCATE_TREE)");
    assert!(env.ws().join("build").exists());
}

#[test]
fn regenerable_artifacts_are_deleted_directly() {
    let env = TestEnv::new();
    let output = env.ag(&["safe-delete", "--json", "node_modules"]);
    let report = json(&output);
    assert_eq!(report["verdict"]["code"], "ALLOW_REGENERABLE");
    assert_eq!(report["outcome"], "deleted directly (provably regenerable)");
    assert!(!env.ws().join("node_modules").exists());
}

#[test]
fn restore_over_an_occupant_conflicts_or_preserves_it() {
    let env = TestEnv::new();
    let output = env.ag(&["safe-delete", "--json", "notes.txt"]);
    let txid = json(&output)["txid"].as_str().unwrap().to_owned();
    env.write("notes.txt", "the agent's new version");

    let conflict = env.ag(&["restore", "--json", &txid]);
    assert_eq!(conflict.status.code(), Some(3), "conflicts exit 3");
    assert_eq!(env.read("notes.txt"), "the agent's new version");

    let forced = env.ag(&["restore", "--json", "--force", &txid]);
    assert_eq!(forced.status.code(), Some(0), "{forced:?}");
    let report = json(&forced);
    assert_eq!(env.read("notes.txt"), "notes\n");
    let backup = report["backup_txids"][0].as_str().unwrap().to_owned();
    // The occupant was preserved, and is restorable in turn.
    env.write("keep-me", "x");
    env.ag_ok(&["restore", "--force", &backup]);
    assert_eq!(env.read("notes.txt"), "the agent's new version");
}

#[test]
fn hostile_transaction_ids_are_refused() {
    let env = TestEnv::new();
    for id in ["..", "../../x", "/x", "a/b", ".", "a\\b"] {
        let output = env.ag(&["restore", "--json", "--", id]);
        assert_eq!(output.status.code(), Some(1), "{id}");
        // A target that is not a transaction id may be a path (`restore src/app.py`); these
        // name neither, and nothing is touched.
        let error = json(&output)["error"].as_str().unwrap().to_owned();
        assert!(
            error == "invalid quarantine transaction id"
                || error.contains("names no transaction of this workspace"),
            "{id}: {error}"
        );
    }
    let unknown = env.ag(&["restore", "--json", "20260101-000000-deadbeef"]);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(!env.trash().exists(), "refusals create nothing");
}

#[test]
fn undo_restores_the_newest_transaction() {
    let env = TestEnv::new();
    env.ag_ok(&["safe-delete", "notes.txt"]);
    env.ag_ok(&["safe-delete", "build"]);
    env.ag_ok(&["undo"]);
    assert!(env.ws().join("build/report.txt").exists());
    assert!(!env.ws().join("notes.txt").exists());
    env.ag_ok(&["undo"]);
    assert!(env.ws().join("notes.txt").exists());
    let nothing = env.ag(&["undo"]);
    assert_eq!(nothing.status.code(), Some(1), "nothing left to undo");
}

#[test]
fn list_and_show_describe_transactions() {
    let env = TestEnv::new();
    let output = env.ag(&["safe-delete", "--json", "build"]);
    let txid = json(&output)["txid"].as_str().unwrap().to_owned();
    let list = json(&env.ag(&["list", "--json"]));
    assert_eq!(list["transactions"][0]["txid"], txid.as_str());
    assert_eq!(list["transactions"][0]["state"], "RESTORABLE");
    let show = json(&env.ag(&["show", "--json", &txid]));
    assert_eq!(show["items"][0]["kind"], "dir");
    assert_eq!(show["items"][0]["files"], 2);
    assert!(
        show["items"][0]["origin"]
            .as_str()
            .unwrap()
            .ends_with("/build")
    );
    let text = env.ag(&["list"]);
    assert!(String::from_utf8_lossy(&text.stdout).contains(&txid));
}

#[test]
fn gc_plans_by_default_and_respects_the_grace_window() {
    let env = TestEnv::new();
    let output = env.ag(&["safe-delete", "--json", "build"]);
    let txid = json(&output)["txid"].as_str().unwrap().to_owned();
    let plan = json(&env.cmd("gc").args(["--json"]).output().unwrap());
    assert_eq!(plan["plan"]["eligible"], serde_json::json!([]));
    let refused = env
        .cmd("gc")
        .args(["--json", "--execute", "--txid", &txid])
        .output()
        .unwrap();
    assert_eq!(
        refused.status.code(),
        Some(1),
        "a fresh transaction is never purged"
    );
    assert!(env.trash().join(&txid).exists());
    // 40 days later it is eligible by age, and purged on request.
    let later = env
        .cmd("gc")
        .env("AGENT_GUARD_NOW", "2099-01-01T00:00:00Z")
        .args(["--json", "--execute", "--all-eligible"])
        .output()
        .unwrap();
    assert_eq!(later.status.code(), Some(0), "{later:?}");
    assert!(!env.trash().join(&txid).exists());
    let nothing = env
        .cmd("gc")
        .env("AGENT_GUARD_NOW", "2099-01-01T00:00:00Z")
        .args(["--execute", "--all-eligible"])
        .output()
        .unwrap();
    // Nothing eligible is not a failure: a cron job on a quiet day succeeds (issue 16).
    assert_eq!(nothing.status.code(), Some(0), "nothing to purge");
    // --execute alone selects nothing and says how to select.
    let bare = env.cmd("gc").arg("--execute").output().unwrap();
    assert_eq!(bare.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&bare.stderr);
    assert!(
        stderr.contains("--txid") && stderr.contains("--all-eligible"),
        "{stderr}"
    );
}

#[test]
fn status_reports_usage_and_decisions() {
    let env = TestEnv::new();
    env.ag_ok(&["safe-delete", "build"]);
    env.check_json("rm -rf .");
    let status = json(&env.cmd("status").args(["--json"]).output().unwrap());
    assert_eq!(status["usage"]["transactions"], 1);
    assert!(status["decisions"]["RELOCATE_TREE"].as_u64().unwrap() >= 1);
    assert!(
        status["decisions"]["BLOCK_PROTECTED_PATH"]
            .as_u64()
            .unwrap()
            >= 1
    );
}

#[test]
fn errors_under_json_are_json_on_stdout() {
    let env = TestEnv::new();
    let parse = |output: &std::process::Output| -> serde_json::Value {
        serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {output:?}"))
    };
    // A command-specific error: an unknown transaction.
    let show = env.ag(&["show", "--json", "no-such-tx"]);
    assert_eq!(show.status.code(), Some(1));
    let report = parse(&show);
    assert_eq!(report["txid"], "no-such-tx");
    assert!(
        report["error"]
            .as_str()
            .unwrap()
            .contains("unknown transaction")
    );
    // A generic error (the working directory does not exist), from the umbrella and from a
    // thin binary.
    let missing = std::path::Path::new("/nonexistent-agent-guard-test/dir");
    for (bin, sub) in [("agent-guard", Some("list")), ("status", None)] {
        let mut cmd = env.cmd(bin);
        cmd.args(sub).args(["--json", "--cwd"]).arg(missing);
        let output = cmd.output().unwrap();
        assert_eq!(output.status.code(), Some(1), "{bin}: {output:?}");
        let report = parse(&output);
        assert_eq!(report["exit"], 1, "{bin}");
        assert!(report["error"].is_string(), "{bin}: {report}");
        assert!(!output.stderr.is_empty(), "the text error stays on stderr");
    }
}
