//! The checkpoint compensation against a real filesystem: take, change, restore through the
//! registry, purge and prune.

#![allow(clippy::unwrap_used, reason = "test setup helpers")]

use std::path::{Path, PathBuf};

use agent_guard_recovery::{
    CheckpointStore, GcPolicy, GcSelection, Job, NoProgress, Quarantine, RestoreOptions,
    compensation, ensure_layout, purge, restore,
};
use agent_guard_types::{CheckpointPlan, Plan, Strategy, TxId};

fn txid(n: u32) -> TxId {
    TxId::generated("20260101-000000", n).expect("valid id")
}

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    fs_err::create_dir_all(path.parent().unwrap()).unwrap();
    fs_err::write(path, text).unwrap();
}

/// A temporary workspace (kept alive by the returned directory) with its quarantine laid
/// out: (directory, workspace, quarantine root, store).
fn workspace() -> (tempfile::TempDir, PathBuf, PathBuf, Quarantine) {
    let dir = tempfile::tempdir().unwrap();
    let ws = fs_err::canonicalize(dir.path()).unwrap();
    let trash = ws.join(".agent-trash");
    ensure_layout(&ws, &trash).unwrap();
    let store = Quarantine::new(ws.clone(), trash.clone());
    (dir, ws, trash, store)
}

fn plan() -> Plan {
    Plan::Checkpoint(CheckpointPlan {
        artifacts: vec!["node_modules".into()],
        skip_regenerable: true,
        max_file_bytes: 1 << 20,
    })
}

fn take(store: &Quarantine, id: &TxId) -> agent_guard_recovery::Applied {
    let job = Job {
        store,
        txid: id.clone(),
        origin: agent_guard_recovery::Origin::default(),
        progress: &NoProgress,
    };
    compensation(Strategy::Checkpoint)
        .unwrap()
        .apply(&job, &plan())
}

#[test]
fn restore_brings_back_deleted_and_modified_files_and_keeps_created_ones() {
    let (_dir, ws, trash, store) = workspace();
    write(&ws, "a.txt", "a\n");
    write(&ws, "d/b.txt", "b\n");

    let applied = take(&store, &txid(1));
    assert!(applied.succeeded(), "{applied:?}");
    assert_eq!(applied.moved, 2);

    agent_guard_fsops::remove_file(&ws.join("d/b.txt")).unwrap();
    write(&ws, "a.txt", "changed\n");
    write(&ws, "new/c.txt", "created\n");

    let mut ids = (10..).map(txid);
    let report = restore(
        &store,
        txid(1).as_str(),
        &RestoreOptions::default(),
        &mut || ids.next().unwrap(),
        &NoProgress,
    );
    assert!(report.ok, "{report:?}");
    assert_eq!(fs_err::read_to_string(ws.join("a.txt")).unwrap(), "a\n");
    assert_eq!(fs_err::read_to_string(ws.join("d/b.txt")).unwrap(), "b\n");
    assert!(
        !ws.join("new").exists(),
        "created files moved away, their dir too"
    );
    let backup = trash.join(&report.backup_txids[0]);
    assert_eq!(
        fs_err::read_to_string(backup.join("new/c.txt")).unwrap(),
        "created\n"
    );
    assert_eq!(
        fs_err::read_to_string(backup.join("a.txt")).unwrap(),
        "changed\n"
    );
    // The checkpoint counts as restored now.
    let tx = store.transaction(&txid(1)).unwrap().unwrap();
    assert_eq!(tx.restorable_items(), 0);
}

#[test]
fn gc_frees_what_only_purged_checkpoints_held() {
    let (_dir, ws, trash, store) = workspace();
    write(&ws, "a.txt", "a\n");
    assert!(take(&store, &txid(1)).succeeded());
    write(&ws, "a.txt", "a second, longer version\n");
    assert!(take(&store, &txid(2)).succeeded());
    let checkpoints = CheckpointStore::open_existing(&trash.join("checkpoints")).unwrap();
    let (objects_before, _) = checkpoints.disk_usage();

    let policy = GcPolicy {
        grace_minutes: 0,
        ..GcPolicy::defaults(chrono::Utc::now())
    };
    let selection = GcSelection::Ids(vec![txid(1).to_string()]);
    let outcome = purge(&store, &policy, &selection).unwrap();
    assert_eq!(outcome.purged, [txid(1).to_string()]);
    assert_eq!(checkpoints.checkpoint_txids(), [txid(2).to_string()]);
    let (objects_after, _) = checkpoints.disk_usage();
    assert!(
        objects_after < objects_before,
        "{objects_before} → {objects_after}"
    );
}
