//! Crash safety: abort the process at every injection point of a relocation and of a kept
//! version; the next command reconciles, and every item ends at its origin or in the
//! quarantine, restorable.

use crate::evidence::{Kind, Scenario};
use crate::support::{TestEnv, die_at, json, snapshot};

/// A quarantine on another filesystem (/dev/shm is tmpfs), so moves are verified copies.
pub(crate) fn cross_device_trash() -> Option<tempfile::TempDir> {
    use std::os::unix::fs::MetadataExt as _;
    let dir = tempfile::tempdir_in("/dev/shm").ok()?;
    let here = std::fs::metadata(std::env::temp_dir()).ok()?;
    let there = std::fs::metadata(dir.path()).ok()?;
    (here.dev() != there.dev()).then_some(dir)
}

fn crash_at(point: &str, cross_device: bool) {
    let env = TestEnv::new();
    let shm = if cross_device {
        match cross_device_trash() {
            Some(dir) => Some(dir),
            None => return,
        }
    } else {
        None
    };
    let trash = shm
        .as_ref()
        .map_or_else(|| env.trash(), |d| d.path().join("q"));
    // A crash during source removal leaves the source's directories behind with some entries
    // removed, which changes their mtimes; contents, modes and file times must still match.
    let touched: &[&str] = if point == "during-removal" {
        &["*"]
    } else {
        &[""]
    };
    let before = snapshot(env.ws(), touched);
    die_at(
        env.cmd("agent-guard")
            .env("AGENT_GUARD_TRASH", &trash)
            .args(["safe-delete", "--json", "build"]),
        point,
    );

    let status = env.ag_with("AGENT_GUARD_TRASH", &trash, &["status", "--json"]);
    assert!(status.status.success(), "{status:?}");
    let status = json(&status);
    assert_eq!(
        status["reconciled_now"]["relocated"].as_u64().unwrap()
            + status["reconciled_now"]["not_moved"].as_u64().unwrap()
            + status["reconciled_now"]["both_kept"].as_u64().unwrap(),
        1,
        "{point}: the interrupted item was reconciled: {status}"
    );
    assert_eq!(
        status["reconciled_now"]["vanished"], 0,
        "{point}: nothing is lost"
    );
    assert_eq!(
        status["reconciled_total"], 1,
        "{point}: the journal records one recovery: {status}"
    );
    let again = json(&env.ag_with("AGENT_GUARD_TRASH", &trash, &["status", "--json"]));
    assert_eq!(
        again["reconciled_now"]["relocated"].as_u64().unwrap()
            + again["reconciled_now"]["not_moved"].as_u64().unwrap()
            + again["reconciled_now"]["both_kept"].as_u64().unwrap(),
        0,
        "{point}: reconciliation is done once: {again}"
    );
    assert_eq!(again["reconciled_total"], 1, "{point}: {again}");

    let list = json(&env.ag_with("AGENT_GUARD_TRASH", &trash, &["list", "--json"]));
    for tx in list["transactions"].as_array().unwrap() {
        if tx["state"] == "RESTORABLE" {
            let txid = tx["txid"].as_str().unwrap();
            let restored = env.ag_with("AGENT_GUARD_TRASH", &trash, &["restore", "--force", txid]);
            assert!(restored.status.success(), "{point}: {restored:?}");
        }
    }
    assert_eq!(
        snapshot(env.ws(), touched),
        before,
        "{point}: every item is back where it was"
    );
}

#[test]
fn crash_after_the_intent() {
    crash_at("after-intent", false);
}

#[test]
fn crash_after_the_move() {
    crash_at("after-move", false);
}

#[test]
fn crash_before_the_done_record() {
    crash_at("before-done", false);
}

#[test]
fn crash_during_a_cross_device_copy() {
    crash_at("during-copy", true);
}

#[test]
fn crash_during_source_removal() {
    crash_at("during-removal", true);
}

#[test]
fn crash_after_a_cross_device_move() {
    crash_at("after-move", true);
}

/// A crash while the current version of a file is kept before an overwrite (the preserve
/// compensation, shared by shell writes and edit tools). Where the copy was made, the worst
/// case is assumed: a harness that runs the command although the hook died. The next command
/// reconciles, and the old bytes come back with `restore`.
fn crash_while_keeping(point: &str) {
    let env = TestEnv::new();
    let notes = env.ws().join("notes.txt");
    die_at(
        env.cmd("agent-guard")
            .args(["check", "--enforce", "--json", "--", "echo new > notes.txt"]),
        point,
    );
    let copied = point != "after-intent";
    if copied {
        std::fs::write(&notes, "new\n").unwrap();
    }
    let status = json(&env.ag(&["status", "--json"]));
    let (kept, not_moved) = if copied { (1, 0) } else { (0, 1) };
    assert_eq!(
        (
            status["reconciled_now"]["relocated"].as_u64(),
            status["reconciled_now"]["not_moved"].as_u64(),
            status["reconciled_now"]["vanished"].as_u64(),
        ),
        (Some(kept), Some(not_moved), Some(0)),
        "{point}: {status}"
    );
    if !copied {
        assert_eq!(
            std::fs::read(&notes).unwrap(),
            b"notes\n",
            "{point}: untouched"
        );
        return;
    }
    let list = json(&env.ag(&["list", "--json"]));
    let txid = list["transactions"][0]["txid"].as_str().unwrap().to_owned();
    let restored = env.ag(&["restore", "--force", "--json", &txid]);
    assert!(restored.status.success(), "{point}: {restored:?}");
    assert_eq!(
        std::fs::read(&notes).unwrap(),
        b"notes\n",
        "{point}: the old bytes are back"
    );
    let list = json(&env.ag(&["list", "--json"]));
    let backup = &list["transactions"][0];
    assert!(
        backup["tool"] == "restore" && backup["backup"] == true && backup["first"] == "notes.txt",
        "{point}: the overwritten version was kept in a new transaction: {list}"
    );
}

#[test]
fn crash_after_the_intent_of_a_kept_version() {
    crash_while_keeping("after-intent");
}

#[test]
fn crash_after_a_version_is_kept() {
    crash_while_keeping("after-move");
}

#[test]
fn crash_before_a_kept_version_is_recorded() {
    crash_while_keeping("before-done");
}

/// Every test of this file, for `docs/EVIDENCE.md` (`evidence.rs` checks that none is missing).
pub(crate) const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "crash_after_the_intent",
        run: crash_after_the_intent,
        kind: Kind::Crash,
        second_filesystem: false,
    },
    Scenario {
        name: "crash_after_the_move",
        run: crash_after_the_move,
        kind: Kind::Crash,
        second_filesystem: false,
    },
    Scenario {
        name: "crash_before_the_done_record",
        run: crash_before_the_done_record,
        kind: Kind::Crash,
        second_filesystem: false,
    },
    Scenario {
        name: "crash_during_a_cross_device_copy",
        run: crash_during_a_cross_device_copy,
        kind: Kind::Crash,
        second_filesystem: true,
    },
    Scenario {
        name: "crash_during_source_removal",
        run: crash_during_source_removal,
        kind: Kind::Crash,
        second_filesystem: true,
    },
    Scenario {
        name: "crash_after_a_cross_device_move",
        run: crash_after_a_cross_device_move,
        kind: Kind::Crash,
        second_filesystem: true,
    },
    Scenario {
        name: "crash_after_the_intent_of_a_kept_version",
        run: crash_after_the_intent_of_a_kept_version,
        kind: Kind::Crash,
        second_filesystem: false,
    },
    Scenario {
        name: "crash_after_a_version_is_kept",
        run: crash_after_a_version_is_kept,
        kind: Kind::Crash,
        second_filesystem: false,
    },
    Scenario {
        name: "crash_before_a_kept_version_is_recorded",
        run: crash_before_a_kept_version_is_recorded,
        kind: Kind::Crash,
        second_filesystem: false,
    },
];
