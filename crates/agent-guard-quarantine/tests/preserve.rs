//! Preservation: the current version of files a command overwrites is kept first, and restore
//! writes it back in place (same inode), keeping what the command left.

#![allow(clippy::unwrap_used, reason = "test helpers and fixtures fail loudly")]

mod support;

use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};

use agent_guard_quarantine::{
    KeptBy, MANIFEST_SCHEMA, NoProgress, PreserveIntent, PreserveItem, Record, RestoreOptions,
    StoredPath, TxState,
};
use support::{Env, rm, txid};

fn item(env: &Env, rel: &str, copy: bool) -> PreserveItem {
    PreserveItem {
        origin: env.ws.join(rel),
        raw: rel.to_owned(),
        copy,
    }
}

fn preserve(
    env: &Env,
    id: u32,
    items: &[PreserveItem],
) -> agent_guard_quarantine::PreservationReport {
    env.store
        .preserve(items, &txid(id), serde_json::Map::new(), &NoProgress)
        .unwrap()
}

#[test]
fn a_copy_leaves_the_file_untouched_and_keeps_its_bytes() {
    let env = Env::new();
    let path = env.write("notes.txt", "old notes\n");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
    let before = std::fs::metadata(&path).unwrap();
    let report = preserve(&env, 1, &[item(&env, "notes.txt", true)]);
    assert!(report.complete(), "{report:?}");
    assert_eq!(report.kept.len(), 1);
    assert!(matches!(report.kept[0].by, KeptBy::Reflink | KeptBy::Copy));
    let after = std::fs::metadata(&path).unwrap();
    assert_eq!((after.ino(), after.mode()), (before.ino(), before.mode()));
    assert_eq!(std::fs::read(&path).unwrap(), b"old notes\n");
    let kept = report.kept[0].trash.path();
    assert_eq!(std::fs::read(kept).unwrap(), b"old notes\n");
    assert_eq!(std::fs::metadata(kept).unwrap().mode() & 0o7777, 0o640);
    let tx = env.store.transaction(&txid(1)).unwrap().unwrap();
    assert!(tx.is_preserve());
    assert_eq!(tx.state(), TxState::Restorable);
}

#[test]
fn restore_writes_the_old_bytes_back_into_the_same_inode_and_keeps_the_new_ones() {
    let env = Env::new();
    let path = env.write("notes.txt", "old notes\n");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    let link = env.ws.join("hardlink.txt");
    std::fs::hard_link(&path, &link).unwrap();
    let ino = std::fs::metadata(&path).unwrap().ino();
    preserve(&env, 1, &[item(&env, "notes.txt", true)]);

    // The command: `echo new > notes.txt` truncates and rewrites in place.
    std::fs::write(&path, "new\n").unwrap();
    assert_eq!(std::fs::read(&link).unwrap(), b"new\n");

    let report = env.restore(txid(1).as_str(), &RestoreOptions::default());
    assert!(report.ok, "{report:?}");
    assert_eq!(std::fs::read(&path).unwrap(), b"old notes\n");
    assert_eq!(
        std::fs::read(&link).unwrap(),
        b"old notes\n",
        "hard links see it"
    );
    let meta = std::fs::metadata(&path).unwrap();
    assert_eq!(meta.ino(), ino, "the same inode");
    assert_eq!(meta.mode() & 0o7777, 0o600);
    assert_eq!(report.backup_txids.len(), 1, "{report:?}");
    let backup = agent_guard_types::TxId::parse(&report.backup_txids[0]).unwrap();
    let kept = env.store.transaction(&backup).unwrap().unwrap();
    assert_eq!(std::fs::read(&kept.items[0].trash).unwrap(), b"new\n");

    // Idempotent: nothing changes the second time.
    let again = env.restore(txid(1).as_str(), &RestoreOptions::default());
    assert!(again.ok && again.already_restored, "{again:?}");
    assert_eq!(std::fs::read(&path).unwrap(), b"old notes\n");
    // And the new version can be had back by restoring the backup.
    let redo = env.restore(backup.as_str(), &RestoreOptions::default());
    assert!(redo.ok, "{redo:?}");
    assert_eq!(std::fs::read(&path).unwrap(), b"new\n");
    assert_eq!(std::fs::metadata(&path).unwrap().ino(), ino);
}

#[test]
fn a_consumed_input_comes_back_where_it_was() {
    let env = Env::new();
    let path = env.write("data.csv", "a,b\n1,2\n");
    preserve(&env, 1, &[item(&env, "data.csv", true)]);
    rm(&path); // `gzip data.csv` removes it.
    let report = env.restore(txid(1).as_str(), &RestoreOptions::default());
    assert!(report.ok, "{report:?}");
    assert_eq!(std::fs::read(&path).unwrap(), b"a,b\n1,2\n");
    assert!(report.backup_txids.is_empty());
}

#[test]
fn a_file_replaced_unread_is_moved_and_its_replacement_kept_on_restore() {
    let env = Env::new();
    let path = env.write("b.txt", "old b\n");
    let report = preserve(&env, 1, &[item(&env, "b.txt", false)]);
    assert_eq!(report.kept[0].by, KeptBy::Move);
    assert!(!path.exists(), "moved away before `mv a.txt b.txt`");
    std::fs::write(&path, "was a\n").unwrap(); // the command
    let report = env.restore(txid(1).as_str(), &RestoreOptions::default());
    assert!(report.ok, "{report:?}");
    assert_eq!(std::fs::read(&path).unwrap(), b"old b\n");
    assert_eq!(report.backup_txids.len(), 1);
}

#[test]
fn absent_files_need_nothing_and_write_nothing() {
    let env = Env::new();
    let report = preserve(&env, 1, &[item(&env, "new.txt", true)]);
    assert!(report.complete() && report.kept.is_empty());
    assert!(env.store.transaction(&txid(1)).unwrap().is_none());
}

#[test]
fn an_interrupted_copy_is_reconciled_without_touching_the_file() {
    let env = Env::new();
    let path = env.write("notes.txt", "notes\n");
    // A crash right after the durable intent: no copy exists.
    let tx_dir = env.store.tx_dir(&txid(7));
    let intent = |rel: &str| {
        Record::PreserveIntent(PreserveIntent {
            txid: txid(7).to_string(),
            origin_path: StoredPath::new(env.ws.join(rel)),
            trash_path: StoredPath::new(tx_dir.join(rel)),
            raw: Some(rel.to_owned()),
            size: 6,
            ts: "2026-11-30T12:00:00Z".into(),
            schema: MANIFEST_SCHEMA,
        })
    };
    env.start(txid(7).as_str());
    env.store.append(&[intent("notes.txt")]).unwrap();
    // …and one whose copy was already renamed into place.
    env.write("other.txt", "other\n");
    std::fs::create_dir_all(&tx_dir).unwrap();
    std::fs::write(tx_dir.join("other.txt"), "other\n").unwrap();
    env.store.append(&[intent("other.txt")]).unwrap();

    let summary = env.store.reconcile().unwrap();
    assert_eq!(
        (summary.relocated, summary.not_moved),
        (1, 1),
        "{summary:?}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), b"notes\n", "untouched");
    let tx = env.store.transaction(&txid(7)).unwrap().unwrap();
    assert_eq!(tx.items.len(), 1);
    assert!(tx.items[0].kept_from.is_some());
    assert_eq!(tx.failures.len(), 1);
    // A second reconciliation finds nothing open.
    assert_eq!(env.store.reconcile().unwrap().total(), 0);
}

#[test]
fn a_kept_version_is_refused_when_the_callers_intent_is_not_durable() {
    // The copy, the journal's intent and the caller's audit intent share one flush; when the
    // audit intent's flush fails, the preservation is incomplete (the command is refused),
    // the file is untouched and the journal says why.
    let env = Env::new();
    let path = env.write("notes.txt", "notes\n");
    let failed = env
        .store
        .clone()
        .with_before_effect(agent_guard_fsops::SyncInFlight::done(Err(
            "disk gone".to_owned()
        )));
    let report = failed
        .preserve(
            &[item(&env, "notes.txt", true)],
            &txid(3),
            serde_json::Map::new(),
            &NoProgress,
        )
        .unwrap();
    assert!(!report.complete(), "{report:?}");
    assert!(report.kept.is_empty(), "{report:?}");
    assert!(
        report.skipped[0]
            .reason
            .contains("audit intent is not durable"),
        "{report:?}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), b"notes\n");
    let tx = env.store.transaction(&txid(3)).unwrap().unwrap();
    assert!(tx.items.is_empty() && tx.failures.len() == 1, "{tx:?}");

    // With a sync that succeeds, the same call keeps the version under its final name and
    // leaves no temporary copy behind.
    let log = std::fs::File::create(env.ws.join("intent.log")).unwrap();
    let ok = env
        .store
        .clone()
        .with_before_effect(agent_guard_fsops::SyncInFlight::start(log));
    let report = ok
        .preserve(
            &[item(&env, "notes.txt", true)],
            &txid(4),
            serde_json::Map::new(),
            &NoProgress,
        )
        .unwrap();
    assert!(report.complete() && report.kept.len() == 1, "{report:?}");
    let kept = &report.kept[0].trash.0;
    assert_eq!(std::fs::read(kept).unwrap(), b"notes\n");
    let names: Vec<_> = std::fs::read_dir(kept.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("notes.txt")]);
}
