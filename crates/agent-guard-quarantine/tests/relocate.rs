//! Relocation and crash reconciliation against the real filesystem.

#![allow(
    clippy::unwrap_used,
    clippy::disallowed_methods,
    reason = "tests arrange crash states by hand"
)]

mod support;

use std::fs;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

use agent_guard_quarantine::{
    Intent, ItemKind, MANIFEST_SCHEMA, Method, NoProgress, Quarantine, QuarantineError, Record,
    RelocateItem, RelocationReport, SkipKind, StoredPath, TxMeta, TxState, ensure_layout,
};
use agent_guard_types::TxId;
use support::txid;

struct Env {
    _dir: tempfile::TempDir,
    ws: PathBuf,
    store: Quarantine,
}

fn env_with_trash(trash: Option<PathBuf>) -> Env {
    let dir = tempfile::tempdir().unwrap();
    let ws = fs::canonicalize(dir.path()).unwrap().join("ws");
    fs::create_dir_all(ws.join("build/out")).unwrap();
    fs::write(ws.join("build/out/a.o"), "object").unwrap();
    fs::write(ws.join("notes.txt"), "notes").unwrap();
    std::os::unix::fs::symlink("notes.txt", ws.join("link")).unwrap();
    let trash = trash.unwrap_or_else(|| ws.join(".agent-trash"));
    ensure_layout(&ws, &trash).unwrap();
    let store = Quarantine::new(&ws, &trash);
    Env {
        _dir: dir,
        ws,
        store,
    }
}

fn env() -> Env {
    env_with_trash(None)
}

fn item(env: &Env, rel: &str) -> RelocateItem {
    RelocateItem {
        origin: env.ws.join(rel),
        raw: rel.to_owned(),
    }
}

/// Relocates `items` as transaction `txid(n)` through `store`.
fn relocate_items(
    store: &Quarantine,
    items: &[RelocateItem],
    n: u32,
) -> Result<RelocationReport, QuarantineError> {
    store.relocate(items, &txid(n), TxMeta::default(), &NoProgress)
}

/// Relocates the workspace paths `rels` as transaction `txid(n)`.
fn relocate(env: &Env, rels: &[&str], n: u32) -> RelocationReport {
    let items: Vec<RelocateItem> = rels.iter().map(|rel| item(env, rel)).collect();
    relocate_items(&env.store, &items, n).unwrap()
}

#[test]
fn a_tree_moves_with_one_rename_and_keeps_its_inode() {
    let env = env();
    let inode = fs::symlink_metadata(env.ws.join("build")).unwrap().ino();
    let report = relocate(&env, &["build"], 1);
    assert!(report.complete(), "{report:?}");
    assert_eq!(report.moved.len(), 1);
    assert_eq!(report.moved[0].method, Method::Rename);
    let dest = env.store.trash().join(txid(1).as_str()).join("build");
    assert_eq!(fs::symlink_metadata(&dest).unwrap().ino(), inode);
    assert!(!env.ws.join("build").exists());
    assert_eq!(fs::read_to_string(dest.join("out/a.o")).unwrap(), "object");
    let tx = env.store.transaction(&txid(1)).unwrap().unwrap();
    assert_eq!(tx.state(), TxState::Restorable);
    assert_eq!(tx.items[0].kind, Some(ItemKind::Dir));
}

#[test]
fn symlinks_move_as_links() {
    let env = env();
    let report = relocate(&env, &["link"], 2);
    assert!(report.complete());
    let dest = env.store.trash().join(txid(2).as_str()).join("link");
    assert_eq!(fs::read_link(&dest).unwrap(), Path::new("notes.txt"));
    assert_eq!(
        fs::read_to_string(env.ws.join("notes.txt")).unwrap(),
        "notes",
        "the target is untouched"
    );
}

#[test]
fn absent_items_are_reported_not_failed() {
    let env = env();
    let report = relocate(&env, &["missing", "notes.txt"], 3);
    assert!(report.complete());
    assert_eq!(report.skipped[0].kind, SkipKind::Absent);
}

#[test]
fn nested_targets_are_moved_with_their_ancestor() {
    let env = env();
    let report = relocate(&env, &["build/out", "build"], 4);
    assert!(report.complete(), "{report:?}");
    assert_eq!(report.moved.len(), 1);
}

#[test]
fn items_outside_the_workspace_are_refused() {
    let env = env();
    let outside = env.ws.parent().unwrap().join("outside.txt");
    fs::write(&outside, "keep").unwrap();
    let outside_item = RelocateItem {
        origin: outside.clone(),
        raw: "../outside.txt".into(),
    };
    let report = relocate_items(&env.store, &[outside_item], 5).unwrap();
    assert!(!report.complete());
    assert!(outside.exists());
}

#[test]
fn an_existing_transaction_id_is_refused() {
    let env = env();
    relocate(&env, &["notes.txt"], 6);
    assert!(relocate_items(&env.store, &[item(&env, "build")], 6).is_err());
    assert!(env.ws.join("build").exists());
}

#[test]
fn cross_device_moves_are_verified_copies() {
    let Ok(shm) = tempfile::tempdir_in("/dev/shm") else {
        return;
    };
    let shm_dev = fs::metadata(shm.path()).unwrap().dev();
    let probe = env();
    if fs::metadata(&probe.ws).unwrap().dev() == shm_dev {
        return;
    }
    let env = env_with_trash(Some(shm.path().join("q")));
    let report = relocate(&env, &["build", "link"], 7);
    assert!(report.complete(), "{report:?}");
    assert!(report.moved.iter().all(|m| m.method == Method::Copy));
    assert!(!env.ws.join("build").exists());
    let dest = env.store.trash().join(txid(7).as_str());
    assert_eq!(
        fs::read_to_string(dest.join("build/out/a.o")).unwrap(),
        "object"
    );
    assert_eq!(
        fs::read_link(dest.join("link")).unwrap(),
        Path::new("notes.txt")
    );
}

/// Writes an intent by hand, as a crash right after it would leave it.
fn intent(env: &Env, id: &TxId, rel: &str) -> PathBuf {
    let trash_path = env.store.trash().join(id.as_str()).join(rel);
    env.store
        .append(&[Record::RelocateIntent(Intent {
            txid: id.to_string(),
            origin_path: StoredPath::new(env.ws.join(rel)),
            trash_path: StoredPath::new(&trash_path),
            raw: Some(rel.to_owned()),
            kind: None,
            ts: "2026-11-30T12:00:00Z".into(),
            schema: MANIFEST_SCHEMA,
        })])
        .unwrap();
    trash_path
}

#[test]
fn reconcile_resolves_every_crash_state() {
    let env = env();
    fs::write(env.ws.join("moved.txt"), "m").unwrap();
    fs::write(env.ws.join("stayed.txt"), "s").unwrap();
    fs::write(env.ws.join("both.txt"), "b").unwrap();
    // Crash after the move, before the record.
    let moved = intent(&env, &txid(10), "moved.txt");
    fs::create_dir_all(moved.parent().unwrap()).unwrap();
    fs::rename(env.ws.join("moved.txt"), &moved).unwrap();
    // Crash after the intent, before the move.
    let stayed = intent(&env, &txid(11), "stayed.txt");
    // Crash with both halves present.
    let both = intent(&env, &txid(12), "both.txt");
    fs::create_dir_all(both.parent().unwrap()).unwrap();
    fs::write(&both, "b").unwrap();
    // An interrupted cross-device copy left a partial.
    let partial = stayed.with_file_name(".agent-guard-partial-stayed.txt");
    fs::create_dir_all(partial.parent().unwrap()).unwrap();
    fs::write(&partial, "half").unwrap();

    let summary = env.store.reconcile().unwrap();
    assert_eq!(
        (
            summary.relocated,
            summary.not_moved,
            summary.both_kept,
            summary.vanished
        ),
        (1, 1, 1, 0)
    );
    let txs = env.store.transactions().unwrap();
    let by_id = |id: &TxId| txs.iter().find(|t| t.txid == id.as_str()).unwrap();
    assert_eq!(by_id(&txid(10)).state(), TxState::Restorable);
    assert!(by_id(&txid(10)).items[0].recovered_from_intent);
    assert_eq!(by_id(&txid(11)).state(), TxState::Failed);
    assert!(env.ws.join("stayed.txt").exists());
    assert!(by_id(&txid(12)).items[0].origin_leftovers);
    assert!(!partial.exists(), "partial copies are removed");
    // Idempotent: nothing left to reconcile.
    assert_eq!(env.store.reconcile().unwrap().total(), 0);
}

/// The manifest's read-from mark written by relocations (see `read_from.rs`).
fn checkpoint(env: &Env) -> Option<serde_json::Value> {
    let text = fs::read(env.store.trash().join("manifest.checkpoint")).ok()?;
    serde_json::from_slice(&text).ok()
}

#[test]
fn relocations_checkpoint_the_manifest_and_later_crashes_are_still_reconciled() {
    let env = env();
    for (n, rel) in [(1, "build"), (2, "notes.txt"), (3, "link")] {
        let report = relocate(&env, &[rel], n);
        assert!(report.complete());
    }
    let manifest = fs::read(env.store.manifest().path()).unwrap();
    let offset = checkpoint(&env).unwrap()["offset"].as_u64().unwrap();
    let offset = usize::try_from(offset).unwrap();
    assert!(0 < offset && offset < manifest.len());
    assert_eq!(
        manifest[offset - 1],
        b'\n',
        "the checkpoint is at a line start"
    );

    // A crash after the move, in a transaction after the checkpoint.
    fs::write(env.ws.join("late.txt"), "late").unwrap();
    let moved = intent(&env, &txid(20), "late.txt");
    fs::create_dir_all(moved.parent().unwrap()).unwrap();
    fs::rename(env.ws.join("late.txt"), &moved).unwrap();
    let summary = env.store.reconcile().unwrap();
    assert_eq!(summary.relocated, 1);
    let txs = env.store.transactions().unwrap();
    let late = txs.iter().find(|t| t.txid == txid(20).as_str()).unwrap();
    assert_eq!(late.state(), TxState::Restorable);
    assert_eq!(env.store.reconcile().unwrap().total(), 0);
    for n in 1..=3 {
        let tx = txs.iter().find(|t| t.txid == txid(n).as_str()).unwrap();
        assert_eq!(tx.state(), TxState::Restorable, "{}", tx.txid);
    }
}

#[test]
fn a_checkpoint_of_another_manifest_never_hides_an_open_intent() {
    let env = env();
    for (n, rel) in [(1, "build"), (2, "notes.txt")] {
        relocate(&env, &[rel], n);
    }
    let stale = fs::read(env.store.trash().join("manifest.checkpoint")).unwrap();
    // The manifest is replaced (deleted by hand, restored from a backup…): its first record
    // is an open intent, and it grows past the old checkpoint's offset.
    fs::remove_file(env.store.manifest().path()).unwrap();
    fs::write(env.ws.join("early.txt"), "early").unwrap();
    let moved = intent(&env, &txid(30), "early.txt");
    fs::create_dir_all(moved.parent().unwrap()).unwrap();
    fs::rename(env.ws.join("early.txt"), &moved).unwrap();
    let filler: Vec<Record> = (0..200)
        .map(|n| {
            Record::Purged(agent_guard_quarantine::Purged {
                txid: txid(1000 + n).to_string(),
                ts: "2026-11-30T12:00:00Z".into(),
                schema: MANIFEST_SCHEMA,
            })
        })
        .collect();
    env.store.append(&filler).unwrap();
    fs::write(env.store.trash().join("manifest.checkpoint"), stale).unwrap();
    let summary = env.store.reconcile().unwrap();
    assert_eq!(
        summary.relocated, 1,
        "the open intent before the offset is found"
    );
}

/// The caller's intent (the audit log's, synced in flight) must be on disk before anything
/// moves: a relocation waits for it after its own durable intent, and a sync that failed
/// stops the move with the item still in place. A direct delete waits the same way.
#[test]
fn nothing_moves_before_the_callers_intent_is_durable() {
    let env = env();
    let failed = support::undurable(&env.store);
    let report = relocate_items(&failed, &[item(&env, "notes.txt")], 1).unwrap();
    assert!(!report.complete(), "{report:?}");
    assert!(report.moved.is_empty(), "{report:?}");
    assert!(
        support::not_durable(&report.skipped[0].reason),
        "{report:?}"
    );
    assert_eq!(
        fs::read_to_string(env.ws.join("notes.txt")).unwrap(),
        "notes"
    );
    assert_eq!(
        failed.delete_direct(&env.ws.join("build")),
        agent_guard_quarantine::DirectOutcome::Failed
    );
    assert!(env.ws.join("build/out/a.o").exists());

    // A sync that succeeds (started on a real file) lets the move through.
    let ok = support::durable(&env.store, &env.ws.join("intent.log"));
    let report = relocate_items(&ok, &[item(&env, "notes.txt")], 2).unwrap();
    assert!(report.complete(), "{report:?}");
    assert!(!env.ws.join("notes.txt").exists());
}
