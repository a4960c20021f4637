//! Preservation: the current version of files a command overwrites is kept first, and restore
//! writes it back in place (same inode), keeping what the command left.

#![allow(
    clippy::unwrap_used,
    clippy::disallowed_methods,
    reason = "test helpers and fixtures fail loudly; the tests play the command (rename)"
)]

mod support;

use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};

use agent_guard_quarantine::{
    KeptBy, MANIFEST_SCHEMA, NoProgress, PreservationReport, PreserveIntent, PreserveItem,
    Quarantine, Record, RestoreOptions, StoredPath, TxMeta, TxState,
};
use support::{Env, durable, not_durable, rm, txid, undurable};

/// An item for `rel`; `link`: the command only replaces its name.
fn item(env: &Env, rel: &str, link: bool) -> PreserveItem {
    PreserveItem {
        origin: env.ws.join(rel),
        raw: rel.to_owned(),
        link,
        max_copy: None,
        by_name: link,
    }
}

fn preserve(env: &Env, id: u32, items: &[PreserveItem]) -> PreservationReport {
    preserve_through(&env.store, id, items)
}

/// [`preserve`] through `store` (the environment's, with a caller's intent to wait for).
fn preserve_through(store: &Quarantine, id: u32, items: &[PreserveItem]) -> PreservationReport {
    store
        .preserve(items, &txid(id), TxMeta::default(), &NoProgress)
        .unwrap()
}

#[test]
fn a_copy_leaves_the_file_untouched_and_keeps_its_bytes() {
    let env = Env::new();
    let path = env.write("notes.txt", "old notes\n");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
    let before = std::fs::metadata(&path).unwrap();
    let report = preserve(&env, 1, &[item(&env, "notes.txt", false)]);
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
    preserve(&env, 1, &[item(&env, "notes.txt", false)]);

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
    preserve(&env, 1, &[item(&env, "data.csv", false)]);
    rm(&path); // `gzip data.csv` removes it.
    let report = env.restore(txid(1).as_str(), &RestoreOptions::default());
    assert!(report.ok, "{report:?}");
    assert_eq!(std::fs::read(&path).unwrap(), b"a,b\n1,2\n");
    assert!(report.backup_txids.is_empty());
}

#[test]
fn a_file_replaced_by_name_is_linked_and_stays_where_it_is() {
    let env = Env::new();
    let path = env.write("b.txt", "old b\n");
    let ino = std::fs::metadata(&path).unwrap().ino();
    let report = preserve(&env, 1, &[item(&env, "b.txt", true)]);
    assert_eq!(report.kept[0].by, KeptBy::Link);
    // The command finds the file as it was: `sort b.txt > t && mv t b.txt` reads it first.
    assert_eq!(std::fs::read(&path).unwrap(), b"old b\n");
    assert_eq!(std::fs::metadata(&path).unwrap().ino(), ino);
    let kept = report.kept[0].trash.path().to_path_buf();
    assert_eq!(
        std::fs::metadata(&kept).unwrap().ino(),
        ino,
        "the same inode"
    );

    // The command: `mv a.txt b.txt` renames another file over the name.
    let a = env.write("a.txt", "was a\n");
    std::fs::rename(&a, &path).unwrap();
    assert_eq!(
        std::fs::read(&kept).unwrap(),
        b"old b\n",
        "the old inode lives on"
    );

    let report = env.restore(txid(1).as_str(), &RestoreOptions::default());
    assert!(report.ok, "{report:?}");
    assert_eq!(std::fs::read(&path).unwrap(), b"old b\n");
    assert_eq!(std::fs::metadata(&path).unwrap().ino(), ino, "back by name");
    assert_eq!(report.backup_txids.len(), 1, "the replacement is kept");
    let backup = agent_guard_types::TxId::parse(&report.backup_txids[0]).unwrap();
    let kept = env.store.transaction(&backup).unwrap().unwrap();
    assert_eq!(std::fs::read(&kept.items[0].trash).unwrap(), b"was a\n");
}

#[test]
fn a_linked_version_goes_back_by_name_never_into_a_shared_inode() {
    // `ln -f a.txt b.txt`: afterwards b.txt is another name of a.txt. Writing b's old bytes
    // into the file at b.txt would overwrite a.txt too.
    let env = Env::new();
    let b = env.write("b.txt", "old b\n");
    let a = env.write("a.txt", "a stays a\n");
    preserve(&env, 1, &[item(&env, "b.txt", true)]);
    rm(&b);
    std::fs::hard_link(&a, &b).unwrap();
    let report = env.restore(txid(1).as_str(), &RestoreOptions::default());
    assert!(report.ok, "{report:?}");
    assert_eq!(std::fs::read(&b).unwrap(), b"old b\n");
    assert_eq!(std::fs::read(&a).unwrap(), b"a stays a\n");
}

#[test]
fn a_version_kept_by_link_that_the_command_never_replaced_is_restored_by_dropping_the_link() {
    let env = Env::new();
    let path = env.write("b.txt", "b\n");
    let report = preserve(&env, 1, &[item(&env, "b.txt", true)]);
    let kept = report.kept[0].trash.path().to_path_buf();
    // The command never ran (refused, or the person said no).
    let report = env.restore(txid(1).as_str(), &RestoreOptions::default());
    assert!(report.ok, "{report:?}");
    assert_eq!(std::fs::read(&path).unwrap(), b"b\n", "never truncated");
    assert!(!kept.exists(), "the quarantine's name is gone");
    assert_eq!(std::fs::metadata(&path).unwrap().nlink(), 1);
    assert!(report.backup_txids.is_empty(), "{report:?}");
}

#[test]
fn a_replaced_file_kept_by_copy_still_goes_back_by_name() {
    // `ln -f h f` over an `f` with a second name: kept by copy, and yet restored by name: the
    // file now at `f` is `h`, whose bytes must not be overwritten.
    let env = Env::new();
    let f = env.write("f", "original f\n");
    std::fs::hard_link(&f, env.ws.join("f2")).unwrap();
    let h = env.write("h", "hh\n");
    let report = preserve(&env, 1, &[item(&env, "f", true)]);
    assert!(matches!(report.kept[0].by, KeptBy::Reflink | KeptBy::Copy));
    rm(&f);
    std::fs::hard_link(&h, &f).unwrap();
    let report = env.restore(txid(1).as_str(), &RestoreOptions::default());
    assert!(report.ok, "{report:?}");
    assert_eq!(std::fs::read(&f).unwrap(), b"original f\n");
    assert_eq!(std::fs::read(&h).unwrap(), b"hh\n", "h is untouched");
}

#[test]
fn a_file_with_another_name_is_copied_not_linked() {
    // A second name could be written in place later, changing a linked version.
    let env = Env::new();
    let path = env.write("b.txt", "b\n");
    std::fs::hard_link(&path, env.ws.join("alias.txt")).unwrap();
    let report = preserve(&env, 1, &[item(&env, "b.txt", true)]);
    assert!(
        matches!(report.kept[0].by, KeptBy::Reflink | KeptBy::Copy),
        "{report:?}"
    );
    std::fs::write(env.ws.join("alias.txt"), "changed\n").unwrap();
    assert_eq!(std::fs::read(report.kept[0].trash.path()).unwrap(), b"b\n");
}

#[test]
fn a_symlink_is_kept_as_a_link_and_comes_back_as_one() {
    let env = Env::new();
    let link = env.ws.join("current");
    std::os::unix::fs::symlink("releases/v1", &link).unwrap();
    let report = preserve(&env, 1, &[item(&env, "current", true)]);
    assert_eq!(report.kept[0].by, KeptBy::Symlink);
    assert_eq!(
        std::fs::read_link(&link).unwrap(),
        std::path::Path::new("releases/v1")
    );
    // `ln -sfn releases/v2 current`.
    rm(&link);
    std::os::unix::fs::symlink("releases/v2", &link).unwrap();
    let report = env.restore(txid(1).as_str(), &RestoreOptions::default());
    assert!(report.ok, "{report:?}");
    assert_eq!(
        std::fs::read_link(&link).unwrap(),
        std::path::Path::new("releases/v1")
    );
}

#[test]
fn a_copy_over_the_cap_is_refused_before_anything_is_written() {
    let env = Env::new();
    let path = env.write("big.bin", &"x".repeat(100));
    let mut big = item(&env, "big.bin", false);
    big.max_copy = Some(10);
    let report = preserve(&env, 1, &[big]);
    if report.kept.first().is_some_and(|k| k.by == KeptBy::Reflink) {
        // A reflink keeps any size: the cap only holds for byte copies.
        return;
    }
    assert!(!report.complete());
    assert_eq!(
        report.skipped[0].kind,
        agent_guard_quarantine::SkipKind::TooLarge
    );
    assert!(report.skipped[0].reason.contains("100 bytes"), "{report:?}");
    assert_eq!(std::fs::read(&path).unwrap().len(), 100);
    let mut stack = vec![env.store.tx_dir(&txid(1))];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten() {
            let path = entry.unwrap().path();
            assert!(
                !path.is_file(),
                "a partial copy was left: {}",
                path.display()
            );
            stack.push(path);
        }
    }
}

#[test]
fn absent_files_need_nothing_and_write_nothing() {
    let env = Env::new();
    let report = preserve(&env, 1, &[item(&env, "new.txt", false)]);
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
    let failed = undurable(&env.store);
    let report = preserve_through(&failed, 3, &[item(&env, "notes.txt", false)]);
    assert!(!report.complete(), "{report:?}");
    assert!(report.kept.is_empty(), "{report:?}");
    assert!(not_durable(&report.skipped[0].reason), "{report:?}");
    assert_eq!(std::fs::read(&path).unwrap(), b"notes\n");
    let tx = env.store.transaction(&txid(3)).unwrap().unwrap();
    assert!(tx.items.is_empty() && tx.failures.len() == 1, "{tx:?}");

    // With a sync that succeeds, the same call keeps the version under its final name and
    // leaves no temporary copy behind.
    let ok = durable(&env.store, &env.ws.join("intent.log"));
    let report = preserve_through(&ok, 4, &[item(&env, "notes.txt", false)]);
    assert!(report.complete() && report.kept.len() == 1, "{report:?}");
    let kept = &report.kept[0].trash.0;
    assert_eq!(std::fs::read(kept).unwrap(), b"notes\n");
    let names: Vec<_> = std::fs::read_dir(kept.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("notes.txt")]);
}
