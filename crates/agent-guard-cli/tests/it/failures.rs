//! Compensations that fail refuse the command, with the code that names why, and leave the
//! targets where they were (or restorable).

use std::process::Command;

use crate::support::{TestEnv, json};

/// A quarantine that cannot be created (its parent is a regular file): the durable intent
/// cannot be written, so nothing moves and the command is refused.
#[test]
fn an_unusable_quarantine_refuses_with_compensation_failed() {
    let env = TestEnv::new();
    env.write("blocker", "a file, not a directory\n");
    let trash = env.ws().join("blocker/q");
    let output = env.ag_with(
        "AGENT_GUARD_TRASH",
        &trash,
        &["check", "--enforce", "--json", "--", "rm -rf build"],
    );
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let report = json(&output);
    assert_eq!(report["decision"], "BLOCK", "{report}");
    assert_eq!(report["code"], "COMPENSATION_FAILED", "{report}");
    // The cause is named: the fix depends on it (issue 16).
    let reasons = report["reasons"].to_string();
    assert!(reasons.contains("blocker"), "{reasons}");
    assert!(env.ws().join("build/report.txt").is_file(), "nothing moved");
    let human = env.ag_with(
        "AGENT_GUARD_TRASH",
        &trash,
        &["check", "--enforce", "--", "rm -rf build"],
    );
    assert!(
        String::from_utf8_lossy(&human.stdout).contains("blocker"),
        "{human:?}"
    );

    let output = env.ag_with(
        "AGENT_GUARD_TRASH",
        &trash,
        &["safe-delete", "--json", "notes.txt"],
    );
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert_eq!(json(&output)["verdict"]["code"], "COMPENSATION_FAILED");
    assert!(env.ws().join("notes.txt").is_file(), "nothing moved");
}

/// A quarantine on a full filesystem (a 128 KiB tmpfs in a private mount namespace, so the
/// move is a cross-device copy that hits `ENOSPC`): the command is refused with
/// `RELOCATE_FAILED_STORAGE` and the tree stays where it was, whole.
#[test]
fn a_full_quarantine_refuses_with_relocate_failed_storage() {
    let env = TestEnv::new();
    let big: Vec<u8> = (0..1024 * 1024).map(|i: u32| (i % 251) as u8).collect();
    env.write("build/big.bin", &big);
    let mount = tempfile::tempdir().unwrap();
    let probe = Command::new("unshare")
        .args(["-m", "sh", "-c"])
        .arg(format!(
            "mount -t tmpfs -o size=128k tmpfs '{}'",
            mount.path().display()
        ))
        .status();
    if !probe.is_ok_and(|s| s.success()) {
        // Mount namespaces need root (or user namespaces); `.ci/run` has them and sets
        // AGENT_GUARD_REQUIRE_NAMESPACES so that this never passes by skipping there.
        assert!(
            std::env::var_os("AGENT_GUARD_REQUIRE_NAMESPACES").is_none(),
            "cannot mount a tmpfs in a private mount namespace"
        );
        eprintln!("skipping: cannot mount a tmpfs in a private mount namespace here");
        return;
    }
    let guard = assert_cmd::cargo::cargo_bin!("agent-guard");
    let script = format!(
        "mount -t tmpfs -o size=128k tmpfs '{dir}' && exec '{guard}' check --enforce --json -- 'rm -rf build'",
        dir = mount.path().display(),
        guard = guard.display(),
    );
    let output = env
        .std_cmd("unshare")
        .args(["-m", "sh", "-c", &script])
        .env("AGENT_GUARD_TRASH", mount.path().join("q"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let report = json(&output);
    assert_eq!(report["decision"], "BLOCK", "{report}");
    assert_eq!(report["code"], "RELOCATE_FAILED_STORAGE", "{report}");
    assert_eq!(
        report["compensations"][0]["status"], "storage-failed",
        "{report}"
    );
    assert_eq!(std::fs::read(env.ws().join("build/big.bin")).unwrap(), big);
    assert!(env.ws().join("build/report.txt").is_file());
}
