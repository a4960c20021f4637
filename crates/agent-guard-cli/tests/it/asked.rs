//! An approved question still keeps what it can (issue 34, point 3): before the guard answers
//! ASK it keeps, without taking anything away, what can be kept, and the question says what
//! cannot. The person's approval is simulated by running the real command after `check
//! --enforce` asked; `agent-guard undo` then restores byte for byte. A declined question
//! leaves the workspace as it was, and an undo after it changes nothing.

use serde_json::{Value, json};

use crate::hooks::{asks, run_payload, shell_payload};
use crate::support::{Entry, TestEnv, enforce_in, pty, run_shell, snapshot};

type Snapshot = std::collections::BTreeMap<Vec<u8>, Entry>;

/// A workspace with `sub/x` (a small tree), `sub/keep.txt`, `small.txt` and a 4 KiB
/// `big.bin`, with a preservation cap of 64 bytes.
fn prepare() -> TestEnv {
    let env = TestEnv::new();
    let ws = env.ws();
    std::fs::create_dir_all(ws.join("sub/x/deep")).unwrap();
    std::fs::write(ws.join("sub/x/a.txt"), "alpha\n").unwrap();
    std::fs::write(ws.join("sub/x/deep/b.bin"), [0_u8, 1, 2, 255]).unwrap();
    std::fs::write(ws.join("sub/keep.txt"), "keep\n").unwrap();
    std::fs::write(ws.join("small.txt"), "small\n").unwrap();
    std::fs::write(ws.join("big.bin"), vec![7_u8; 4096]).unwrap();
    std::fs::write(ws.join(".agent-guard.toml"), "[preserve]\nmax_bytes = 64\n").unwrap();
    env
}

/// Every entry's kind, mode and bytes (mtimes aside: a checkpoint restores content).
fn state(env: &TestEnv) -> Snapshot {
    snapshot(env.ws(), &["**"])
}

fn undo(env: &TestEnv) -> String {
    let output = env.ag_ok(&["undo"]);
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn strategies(report: &Value) -> Vec<String> {
    report["compensations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["strategy"].as_str().unwrap().to_owned())
        .collect()
}

/// `(cd sub && rm -rf x)` (a `cd` in a subshell is not followed) and its cmd and PowerShell forms, and a line that creates then
/// deletes: the workspace is checkpointed before the question, nothing moves, and once the
/// approved command ran, `undo` brings every byte back.
#[test]
fn an_asked_delete_is_checkpointed_first_and_undone_after_it_runs() {
    for (dialect, line, twin, code) in [
        (
            "posix",
            "(cd sub && rm -rf x)",
            "(cd sub && rm -rf x)",
            "COMPOUND_CWD_DELETE",
        ),
        (
            "cmd",
            "(cd sub && rd /s /q x)",
            "(cd sub && rm -rf x)",
            "COMPOUND_CWD_DELETE",
        ),
        (
            "powershell",
            "& { Set-Location sub; Remove-Item -Recurse -Force x }",
            "(cd sub; rm -rf x)",
            "COMPOUND_CWD_DELETE",
        ),
        (
            "posix",
            "touch sub/x/new.txt && rm -rf sub/x",
            "touch sub/x/new.txt && rm -rf sub/x",
            "COMPOUND_CREATE_DELETE",
        ),
    ] {
        let env = prepare();
        let before = state(&env);
        let (exit, report) = enforce_in(&env, dialect, line);
        assert_eq!(exit, 3, "[{dialect}] {line}: {report}");
        assert_eq!(report["code"], code, "[{dialect}] {line}: {report}");
        assert_eq!(strategies(&report), ["checkpoint"], "{report}");
        let said = report["if_approved"].as_str().unwrap();
        // A literal directory change is followed in every dialect: the question vouches for
        // all of it.
        assert!(
            said.contains("everything it changes can be restored"),
            "[{dialect}] {said}"
        );
        assert!(
            said.contains(report["compensations"][0]["txid"].as_str().unwrap()),
            "the txid is in the question: {said}"
        );
        assert_eq!(state(&env), before, "[{dialect}] {line}: nothing was moved");

        // The person approves: the harness runs the command as it was sent.
        run_shell(&env, twin);
        assert!(!env.ws().join("sub/x").exists(), "[{dialect}] {line} ran");
        undo(&env);
        assert_eq!(
            state(&env),
            before,
            "[{dialect}] {line}: undone byte for byte"
        );
    }
}

/// A question the person declines changes nothing, and an undo after it puts nothing back
/// and says so.
#[test]
fn a_declined_question_changes_nothing() {
    let env = prepare();
    let before = state(&env);
    let (exit, _) = enforce_in(&env, "posix", "(cd sub && rm -rf x)");
    assert_eq!(exit, 3);
    assert_eq!(state(&env), before);
    let said = undo(&env);
    assert!(said.contains("nothing had changed"), "{said}");
    assert_eq!(state(&env), before);
}

/// A line that overwrites a small file and one over the preservation cap: the small one is
/// kept before the question, the big one is named in it with its size; after the approved
/// command ran, undo brings the small one back (the big one stays as the command left it).
#[test]
fn a_file_over_the_cap_is_named_and_the_rest_is_kept() {
    let env = prepare();
    let line = "truncate -s 0 small.txt big.bin";
    let (exit, report) = enforce_in(&env, "posix", line);
    if report["code"] == "SNAPSHOT_OVERWRITE" {
        eprintln!("skipped: this filesystem shares extents, so nothing is too large");
        return;
    }
    assert_eq!(exit, 3, "{report}");
    assert_eq!(report["code"], "ASK_PRESERVE_TOO_LARGE", "{report}");
    assert_eq!(
        report["not_kept"],
        json!([{"what": "`big.bin`", "size": 4096, "why": "over-preserve-cap"}])
    );
    assert_eq!(strategies(&report), ["preserve"], "{report}");
    let said = report["if_approved"].as_str().unwrap();
    assert!(
        said.contains("If you approve, `big.bin` (4.0 KiB) cannot be restored"),
        "{said}"
    );
    assert_eq!(
        std::fs::read(env.ws().join("small.txt")).unwrap(),
        b"small\n"
    );

    // The native question says it too, and gives the agent the txid.
    let payload = shell_payload("claude-code", Some(json!(line)), env.ws());
    let asked = run_payload(&env, "claude-code", &payload);
    assert!(asks("claude-code", &asked), "{asked:?}");
    let reply: Value = serde_json::from_slice(&asked.stdout).unwrap();
    let output = &reply["hookSpecificOutput"];
    let reason = output["permissionDecisionReason"].as_str().unwrap();
    assert!(
        reason.contains("`big.bin` (4.0 KiB) cannot be restored"),
        "{reason}"
    );
    let context = output["additionalContext"].as_str().unwrap();
    assert!(context.contains("kept before asking (txids "), "{context}");

    run_shell(&env, line);
    assert_eq!(std::fs::read(env.ws().join("small.txt")).unwrap(), b"");
    undo(&env);
    assert_eq!(
        std::fs::read(env.ws().join("small.txt")).unwrap(),
        b"small\n"
    );
    assert_eq!(std::fs::read(env.ws().join("big.bin")).unwrap(), b"");
}

/// Where the harness cannot ask, the person approves with `agent-guard approve ID`; the
/// retried command is `ALLOW_APPROVED`, and still keeps every part it can: the checkpoint of
/// the part after `cd`, the preservation of the small file. Undo after the real command.
#[test]
fn an_approved_retry_keeps_what_it_can() {
    for line in ["(cd sub && rm -rf x)", "truncate -s 0 small.txt big.bin"] {
        let env = prepare();
        let before = state(&env);
        let (exit, report) = enforce_in(&env, "posix", line);
        if report["code"] == "SNAPSHOT_OVERWRITE" {
            continue;
        }
        assert_eq!(exit, 3, "{report}");
        let id = report["approval_id"].as_str().unwrap().to_owned();
        let approved = pty(&env, &["approve", &id], "y\n", &[]);
        assert_eq!(approved.code, 0, "{}", approved.text);
        let (exit, retried) = enforce_in(&env, "posix", line);
        assert_eq!(exit, 0, "{retried}");
        assert_eq!(retried["code"], "ALLOW_APPROVED", "{retried}");
        assert!(!strategies(&retried).is_empty(), "{retried}");
        run_shell(&env, line);
        undo(&env);
        if line.starts_with("(cd") {
            assert_eq!(state(&env), before, "{line}: undone byte for byte");
        } else {
            let message = retried["message"].as_str().unwrap();
            assert!(
                message.contains("not kept, so not restorable: `big.bin`"),
                "{message}"
            );
            assert_eq!(retried["not_kept"][0]["what"], "`big.bin`");
            assert_eq!(
                std::fs::read(env.ws().join("small.txt")).unwrap(),
                b"small\n"
            );
        }
    }
}

/// Where the harness cannot ask, the deny that tells the agent to ask names what approving
/// would mean too.
#[test]
fn the_deny_of_a_harness_without_ask_says_what_was_kept() {
    let env = prepare();
    let payload = shell_payload("codex", Some(json!("(cd sub && rm -rf x)")), env.ws());
    let asked = run_payload(&env, "codex", &payload);
    assert!(asks("codex", &asked), "{asked:?}");
    let said = String::from_utf8_lossy(&asked.stderr);
    assert!(
        said.contains("If you approve, everything it changes can be restored"),
        "{said}"
    );
    assert!(said.contains("agent-guard approve "), "{said}");
}
