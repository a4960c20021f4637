//! End-to-end dialect parity under `--enforce`: a cmd or PowerShell delete relocates exactly
//! like its POSIX twin — the same verdict, the same quarantine (paths, kinds, contents,
//! modes), the same manifest records and the same workspace afterwards — and `restore` brings
//! the tree back from either.

use std::collections::BTreeMap;
use std::path::Path;

use crate::support::{Entry, TestEnv, enforce_in, json, snapshot, txids};

/// Every entry under a root but `.git` and `.agent-trash`: kind, permission bits and content
/// (or link target). Mtimes are left out: each run builds its own fixture, so they differ
/// between runs.
type Listing = BTreeMap<Vec<u8>, Entry>;

fn listing(root: &Path) -> Listing {
    snapshot(root, &["**"])
}

/// What one enforced check did.
#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    code: String,
    /// The transaction's quarantine directory.
    quarantine: Listing,
    /// `relocate-intent` and `relocate` records: type, origin (relative to the workspace),
    /// quarantine path (relative to the transaction) and kind.
    records: Vec<(String, String, String, String)>,
    /// The workspace after the relocation.
    workspace: Listing,
}

/// Runs `check --enforce --dialect DIALECT -- COMMAND` in a fresh workspace, then restores
/// the transaction and checks that the tree is back.
fn enforce(dialect: &str, command: &str) -> Outcome {
    let env = TestEnv::new();
    let before = listing(env.ws());
    let (code, report) = enforce_in(&env, dialect, command);
    let context = format!("[{dialect}] `{command}`: {report}");
    assert_eq!(code, 0, "{context}");
    assert_eq!(report["decision"], "ALLOW", "{context}");
    assert_eq!(report["dialect"], dialect, "{context}");
    let ids = txids(&report);
    assert_eq!(ids.len(), 1, "{context}");
    let txid = &ids[0];
    let tx = env.trash().join(txid);
    let ws = env.ws().canonicalize().unwrap();
    let relative = |path: &str, base: &Path| {
        Path::new(path)
            .strip_prefix(base)
            .unwrap_or_else(|_| panic!("{path} is not under {}", base.display()))
            .to_string_lossy()
            .into_owned()
    };
    let manifest = std::fs::read_to_string(env.trash().join("manifest.jsonl")).unwrap();
    let tx_base = env.trash().join(txid);
    let records = manifest
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .filter(|r| r["txid"] == txid.as_str())
        .filter(|r| matches!(r["type"].as_str(), Some("relocate-intent" | "relocate")))
        .map(|r| {
            (
                r["type"].as_str().unwrap().to_owned(),
                relative(r["origin_path"].as_str().unwrap(), &ws),
                relative(r["trash_path"].as_str().unwrap(), &tx_base),
                r["kind"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let outcome = Outcome {
        code: report["code"].as_str().unwrap().to_owned(),
        quarantine: listing(&tx),
        records,
        workspace: listing(env.ws()),
    };
    env.ag_ok(&["restore", txid]);
    assert_eq!(
        listing(env.ws()),
        before,
        "{context}: restore did not bring the tree back"
    );
    outcome
}

/// Enforces every spelling and requires the same outcome as the POSIX one.
fn parity(posix: &str, cmd: &[&str], powershell: &[&str], code: &str) {
    let expected = enforce("posix", posix);
    assert_eq!(expected.code, code, "`{posix}`");
    assert!(
        !expected.quarantine.is_empty(),
        "`{posix}` quarantined nothing"
    );
    for (dialect, commands) in [("cmd", cmd), ("powershell", powershell)] {
        for command in commands {
            let outcome = enforce(dialect, command);
            assert_eq!(
                outcome, expected,
                "[{dialect}] `{command}` differs from its POSIX twin `{posix}`"
            );
        }
    }
}

#[test]
fn a_tree_delete_relocates_like_rm_rf() {
    parity(
        "rm -rf build",
        &["rd /s /q build", "RMDIR /S /Q build"],
        &["Remove-Item -Recurse -Force build", "ri build -r -fo"],
        "RELOCATE_TREE",
    );
}

#[test]
fn a_file_delete_relocates_like_rm() {
    parity(
        "rm notes.txt",
        &["del notes.txt", "erase /q notes.txt"],
        &["Remove-Item notes.txt", "del notes.txt"],
        "RELOCATE_PATHS",
    );
}

#[test]
fn backslash_paths_and_several_targets_relocate_the_same_paths() {
    parity(
        "rm -rf build/out dist",
        &["rd /s /q build\\out dist"],
        &["ri .\\build\\out,dist -r -fo"],
        "RELOCATE_TREE",
    );
    parity(
        "rm build/report.txt",
        &["del build\\report.txt"],
        &["Remove-Item .\\build\\report.txt"],
        "RELOCATE_PATHS",
    );
}

#[test]
fn nested_hosts_relocate_like_the_direct_command() {
    parity(
        "bash -c 'rm -rf build'",
        &[
            "cmd /c \"rd /s /q build\"",
            "powershell -Command \"Remove-Item -Recurse build\"",
        ],
        &[
            "cmd /c \"rd /s /q build\"",
            "pwsh -NoProfile -c 'ri build -r -fo'",
        ],
        "RELOCATE_TREE",
    );
}

#[test]
fn a_refused_windows_delete_moves_nothing() {
    for (dialect, command) in [
        ("cmd", "rm -rf build"),
        ("cmd", "del /s /q notes.txt"),
        ("powershell", "Get-ChildItem *.log | Remove-Item"),
        ("powershell", "ri build -r -wi"),
    ] {
        let env = TestEnv::new();
        let before = listing(env.ws());
        let (code, report) = enforce_in(&env, dialect, command);
        assert_eq!(code, 2, "[{dialect}] `{command}`: {report}");
        assert_eq!(
            report["code"], "BLOCK_UNDETERMINABLE_EFFECT",
            "[{dialect}] `{command}`"
        );
        assert!(txids(&report).is_empty(), "[{dialect}] `{command}`");
        assert_eq!(
            listing(env.ws()),
            before,
            "[{dialect}] `{command}` changed the tree"
        );
    }
}

/// Issue 5's acceptance commands, through the binary exactly as written there.
#[test]
fn the_windows_acceptance_commands_get_their_verdicts() {
    let env = TestEnv::new();
    for (dialect, command, code) in [
        ("cmd", "rd /s /q build", "RELOCATE_TREE"),
        ("powershell", "ri build -r -fo", "RELOCATE_TREE"),
        (
            "powershell",
            "Get-ChildItem *.log | Remove-Item",
            "BLOCK_UNDETERMINABLE_EFFECT",
        ),
        ("cmd", "rm -rf build", "BLOCK_UNDETERMINABLE_EFFECT"),
    ] {
        let output = env.ag(&["check", "--json", "--dialect", dialect, "--", command]);
        assert!(output.status.success(), "{dialect} {command}: {output:?}");
        let report = json(&output);
        assert_eq!(report["code"], code, "{dialect} {command}");
    }
}
