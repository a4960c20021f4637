//! Restore, usage and gc against real temporary directories (reference 5.6, 5.9, 8.12).

#![allow(clippy::unwrap_used, reason = "test helpers and fixtures fail loudly")]

mod support;

use std::os::unix::fs::{PermissionsExt as _, symlink};
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use agent_guard_quarantine::{
    GcPolicy, GcSelection, MANIFEST_SCHEMA, Purged, QuarantineError, Record, RestoreOptions,
    TxState,
};
use chrono::TimeDelta;

use support::{Env, force, mv, now, relocated, rm, tree, txid};

const TARGET_OUTSIDE: &str = "restore target is outside workspace or cannot be resolved";
const SOURCE_OUTSIDE: &str = "restore source is outside its transaction or cannot be resolved";

fn state(env: &Env, id: &str) -> TxState {
    let id = agent_guard_types::TxId::parse(id).unwrap();
    env.store.transaction(&id).unwrap().unwrap().state()
}

fn text(path: &std::path::Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

// ---------------------------------------------------------------- restore: the basics

#[test]
fn a_file_comes_back_byte_identical_with_its_mode_and_mtime() {
    let env = Env::new();
    let file = env.write("src/data.bin", "");
    let bytes: Vec<u8> = (0..=255u8).cycle().take(70_000).collect();
    std::fs::write(&file, &bytes).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
    let mtime = SystemTime::UNIX_EPOCH + Duration::from_secs(1_600_000_000);
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    let id = txid(1);
    env.relocate(&id, &["src/data.bin"]);
    assert!(!file.exists());
    assert_eq!(state(&env, id.as_str()), TxState::Restorable);

    let report = env.restore(id.as_str(), &RestoreOptions::default());
    assert!(report.ok && !report.already_restored, "{report:?}");
    assert_eq!(report.restored, [file.display().to_string()]);
    assert_eq!(std::fs::read(&file).unwrap(), bytes);
    let metadata = file.symlink_metadata().unwrap();
    assert_eq!(metadata.permissions().mode() & 0o7777, 0o640);
    assert_eq!(metadata.modified().unwrap(), mtime);
    assert!(
        !env.trash.join(id.as_str()).exists(),
        "the emptied transaction directory is removed"
    );
    assert_eq!(state(&env, id.as_str()), TxState::Restored);
    let records = env.store.manifest().read().unwrap();
    let Some(Record::Restore(last)) = records.last() else {
        panic!("{records:?}")
    };
    assert_eq!(last.schema, MANIFEST_SCHEMA);
    assert_eq!(last.restored.len(), 1);
}

#[test]
fn a_directory_tree_comes_back_whole() {
    let env = Env::new();
    env.write("proj/a.txt", "a");
    env.write("proj/deep/er/b.txt", "b");
    std::fs::create_dir_all(env.ws.join("proj/empty")).unwrap();
    std::fs::set_permissions(
        env.ws.join("proj/deep"),
        std::fs::Permissions::from_mode(0o750),
    )
    .unwrap();
    let before = tree(&env.ws.join("proj"));
    let id = txid(2);
    env.relocate(&id, &["proj"]);
    let report = env.restore(id.as_str(), &RestoreOptions::default());
    assert!(report.ok, "{report:?}");
    assert_eq!(tree(&env.ws.join("proj")), before);
}

#[test]
fn symlinks_come_back_as_links_with_their_targets_untouched() {
    let env = Env::new();
    env.write("target.txt", "inside");
    let outside = env.root.join("outside.txt");
    std::fs::write(&outside, "outside").unwrap();
    symlink("target.txt", env.ws.join("inner")).unwrap();
    symlink(&outside, env.ws.join("outer")).unwrap();
    symlink(env.root.join("nowhere"), env.ws.join("dangling")).unwrap();
    let id = txid(3);
    env.relocate(&id, &["inner", "outer", "dangling"]);
    let report = env.restore(id.as_str(), &RestoreOptions::default());
    assert!(report.ok, "{report:?}");
    assert_eq!(
        std::fs::read_link(env.ws.join("inner")).unwrap(),
        PathBuf::from("target.txt")
    );
    assert_eq!(std::fs::read_link(env.ws.join("outer")).unwrap(), outside);
    assert_eq!(
        std::fs::read_link(env.ws.join("dangling")).unwrap(),
        env.root.join("nowhere")
    );
    assert_eq!(text(&env.ws.join("target.txt")), "inside");
    assert_eq!(text(&outside), "outside");
    assert!(!env.root.join("nowhere").exists());
}

#[test]
fn missing_parents_are_recreated() {
    let env = Env::new();
    let file = env.write("a/b/c.txt", "c");
    let id = txid(4);
    env.relocate(&id, &["a/b/c.txt"]);
    rm(&env.ws.join("a"));
    let report = env.restore(id.as_str(), &RestoreOptions::default());
    assert!(report.ok, "{report:?}");
    assert_eq!(text(&file), "c");
}

#[test]
fn restoring_twice_changes_nothing_the_second_time() {
    let env = Env::new();
    env.write("x.txt", "x");
    let id = txid(5);
    env.relocate(&id, &["x.txt"]);
    assert!(env.restore(id.as_str(), &RestoreOptions::default()).ok);
    let manifest = env.manifest();
    let workspace = tree(&env.ws);
    for options in [RestoreOptions::default(), force()] {
        let again = env.restore(id.as_str(), &options);
        assert!(again.ok && again.already_restored, "{again:?}");
        assert!(again.restored.is_empty() && again.errors.is_empty());
    }
    assert_eq!(env.manifest(), manifest);
    assert_eq!(tree(&env.ws), workspace);
}

#[test]
fn non_utf8_names_and_an_aliased_quarantine_restore_exactly() {
    use std::os::unix::ffi::OsStrExt as _;
    let env = Env::new();
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
    std::fs::write(env.ws.join(name), "latin-1").unwrap();
    let id = txid(24);
    let items = [agent_guard_quarantine::RelocateItem {
        origin: env.ws.join(name),
        raw: "cafe".into(),
    }];
    env.store
        .relocate(
            &items,
            &id,
            agent_guard_quarantine::TxMeta::default(),
            &agent_guard_quarantine::NoProgress,
        )
        .unwrap();
    assert!(!env.ws.join(name).exists());

    // The same quarantine reached through a symlink (the recorded paths use the real one).
    let alias = env.root.join("alias");
    symlink(&env.trash, &alias).unwrap();
    let aliased = agent_guard_quarantine::Quarantine::new(&env.ws, &alias);
    let report = aliased.restore(
        id.as_str(),
        &RestoreOptions::default(),
        &mut || txid(0),
        &agent_guard_quarantine::NoProgress,
        &agent_guard_quarantine::FilesOnly,
    );
    assert!(report.ok, "{report:?}");
    assert_eq!(text(&env.ws.join(name)), "latin-1");
    let records = env.store.manifest().read().unwrap();
    let Some(Record::Restore(last)) = records.last() else {
        panic!()
    };
    assert_eq!(
        last.restored[0].path(),
        env.ws.join(name),
        "the journal keeps the exact bytes"
    );
}

// ---------------------------------------------------------------- occupied origins

#[test]
fn an_occupied_origin_is_a_conflict_and_the_occupant_is_untouched() {
    let env = Env::new();
    let file = env.write("notes.txt", "old");
    let id = txid(6);
    env.relocate(&id, &["notes.txt"]);
    std::fs::write(&file, "new").unwrap();
    let report = env.restore(id.as_str(), &RestoreOptions::default());
    assert!(!report.ok, "{report:?}");
    assert!(report.errors.is_empty() && report.backup_txids.is_empty());
    assert_eq!(report.conflicts, [file.display().to_string()]);
    assert_eq!(text(&file), "new");
    assert_eq!(text(&env.trash.join(id.as_str()).join("notes.txt")), "old");
    assert_eq!(state(&env, id.as_str()), TxState::Restorable);
}

#[test]
fn force_preserves_the_occupant_in_a_new_restorable_transaction() {
    for occupant_is_dir in [false, true] {
        let env = Env::new();
        let file = env.write("notes.txt", "old");
        let id = txid(7);
        env.relocate(&id, &["notes.txt"]);
        if occupant_is_dir {
            env.write("notes.txt/inner", "new");
        } else {
            std::fs::write(&file, "new").unwrap();
        }
        let report = env.restore(id.as_str(), &force());
        assert!(report.ok, "{report:?}");
        let backup = txid(0xb0);
        assert_eq!(report.backup_txids, [backup.to_string()]);
        assert_eq!(text(&file), "old");
        let kept = env.trash.join(backup.as_str()).join("notes.txt");
        let kept = if occupant_is_dir {
            kept.join("inner")
        } else {
            kept
        };
        assert_eq!(text(&kept), "new");
        let preserved = env.store.transaction(&backup).unwrap().unwrap();
        assert_eq!(preserved.state(), TxState::Restorable);
        assert_eq!(
            preserved.meta.origin,
            agent_guard_quarantine::Origin::restoring(id.as_str())
        );
        assert_eq!(state(&env, id.as_str()), TxState::Restored);

        // The preserved version is itself restorable the same way.
        let back = env.restore(backup.as_str(), &force());
        assert!(back.ok, "{back:?}");
        let restored = if occupant_is_dir {
            file.join("inner")
        } else {
            file.clone()
        };
        assert_eq!(text(&restored), "new");
    }
}

#[test]
fn force_with_a_taken_backup_id_preserves_nothing() {
    let env = Env::new();
    let file = env.write("f.txt", "old");
    let id = txid(8);
    env.relocate(&id, &["f.txt"]);
    std::fs::write(&file, "new").unwrap();
    std::fs::create_dir(env.trash.join(txid(0xb0).as_str())).unwrap();
    let report = env.restore(id.as_str(), &force());
    assert!(!report.ok && report.backup_txids.is_empty(), "{report:?}");
    assert_eq!(text(&file), "new");
    assert_eq!(text(&env.trash.join(id.as_str()).join("f.txt")), "old");
}

#[test]
fn force_never_preserves_an_ancestor_of_the_quarantine() {
    // The quarantine lives in `ws/sub/.agent-trash`; an item recorded at `ws/sub` would
    // have to move the quarantine itself out of the way.
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let ws = root.join("ws");
    let trash = ws.join("sub/.agent-trash");
    std::fs::create_dir_all(&trash).unwrap();
    let store = agent_guard_quarantine::Quarantine::new(&ws, &trash);
    let copy = trash.join("t1/sub");
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
    std::fs::write(&copy, "quarantined").unwrap();
    let records = [relocated(
        "t1",
        ws.join("sub"),
        copy.clone(),
        None,
        "2026-11-30T12:00:00Z".into(),
    )];
    store.append(&records).unwrap();
    let mut ids = || txid(0xc0);
    let report = store.restore(
        "t1",
        &force(),
        &mut ids,
        &agent_guard_quarantine::NoProgress,
        &agent_guard_quarantine::FilesOnly,
    );
    assert_eq!(
        report.error.as_ref().map(ToString::to_string).as_deref(),
        Some("restore target overlaps the quarantine"),
        "{report:?}"
    );
    assert!(trash.join("manifest.jsonl").exists() && copy.exists());
    assert!(!trash.join(txid(0xc0).as_str()).exists());
}

#[test]
fn directories_merge_and_clashes_are_conflicts_or_preserved() {
    let env = Env::new();
    env.write("proj/a.txt", "a");
    env.write("proj/sub/b.txt", "b");
    env.write("proj/clash.txt", "old");
    let id = txid(9);
    env.relocate(&id, &["proj"]);
    env.write("proj/clash.txt", "new");
    env.write("proj/sub/mine.txt", "mine");

    let report = env.restore(id.as_str(), &RestoreOptions::default());
    assert!(!report.ok, "{report:?}");
    assert_eq!(
        report.conflicts,
        [env.ws.join("proj/clash.txt").display().to_string()]
    );
    assert_eq!(text(&env.ws.join("proj/a.txt")), "a");
    assert_eq!(text(&env.ws.join("proj/sub/b.txt")), "b");
    assert_eq!(text(&env.ws.join("proj/sub/mine.txt")), "mine");
    assert_eq!(text(&env.ws.join("proj/clash.txt")), "new");
    let left: Vec<_> = tree(&env.trash.join(id.as_str())).into_keys().collect();
    assert_eq!(
        left,
        [PathBuf::from("proj"), PathBuf::from("proj/clash.txt")]
    );

    let report = env.restore(id.as_str(), &force());
    assert!(report.ok, "{report:?}");
    assert_eq!(text(&env.ws.join("proj/clash.txt")), "old");
    let backup = env
        .trash
        .join(&report.backup_txids[0])
        .join("proj/clash.txt");
    assert_eq!(text(&backup), "new");
    assert!(!env.trash.join(id.as_str()).exists());
    assert_eq!(state(&env, id.as_str()), TxState::Restored);
}

// ---------------------------------------------------------------- --to and --path

#[test]
fn to_restores_into_another_directory() {
    let env = Env::new();
    env.write("docs/x.txt", "x");
    let id = txid(10);
    env.relocate(&id, &["docs/x.txt"]);
    let elsewhere = env.root.join("elsewhere/new");
    let inside_trash = RestoreOptions {
        to: Some(env.trash.join("x")),
        ..RestoreOptions::default()
    };
    let refused = env.restore(id.as_str(), &inside_trash);
    assert_eq!(
        refused.error.as_ref().map(ToString::to_string).as_deref(),
        Some("restore target overlaps the quarantine")
    );
    assert!(!env.trash.join("x").exists());

    let options = RestoreOptions {
        to: Some(elsewhere.clone()),
        ..RestoreOptions::default()
    };
    let report = env.restore(id.as_str(), &options);
    assert!(report.ok, "{report:?}");
    assert_eq!(text(&elsewhere.join("docs/x.txt")), "x");
    assert!(!env.ws.join("docs/x.txt").exists());
    let records = env.store.manifest().read().unwrap();
    let Some(Record::Restore(last)) = records.last() else {
        panic!()
    };
    assert_eq!(
        last.to.as_ref().map(|p| p.path().to_path_buf()),
        Some(elsewhere)
    );
}

#[test]
fn path_restores_a_subtree_and_a_full_restore_merges_the_rest() {
    let env = Env::new();
    env.write("proj/sub/a.txt", "a");
    env.write("proj/sub/b.txt", "b");
    env.write("proj/c.txt", "c");
    env.write("other.txt", "o");
    let id = txid(11);
    env.relocate(&id, &["proj", "other.txt"]);

    let nothing = RestoreOptions {
        paths: vec!["nope".into()],
        ..RestoreOptions::default()
    };
    let climbing = RestoreOptions {
        paths: vec!["../ws/proj".into()],
        ..RestoreOptions::default()
    };
    let report = env.restore(id.as_str(), &climbing);
    assert_eq!(
        report.error.as_ref().map(ToString::to_string).as_deref(),
        Some("invalid restore path: ../ws/proj")
    );
    let report = env.restore(id.as_str(), &nothing);
    assert_eq!(
        report.error.as_ref().map(ToString::to_string).as_deref(),
        Some("no quarantined item matches nope")
    );

    let options = RestoreOptions {
        paths: vec!["proj/sub".into()],
        ..RestoreOptions::default()
    };
    let report = env.restore(id.as_str(), &options);
    assert!(report.ok, "{report:?}");
    assert_eq!(
        report.restored,
        [env.ws.join("proj/sub").display().to_string()]
    );
    assert_eq!(text(&env.ws.join("proj/sub/a.txt")), "a");
    assert!(!env.ws.join("proj/c.txt").exists() && !env.ws.join("other.txt").exists());
    assert_eq!(state(&env, id.as_str()), TxState::Restorable);

    let report = env.restore(id.as_str(), &RestoreOptions::default());
    assert!(report.ok, "{report:?}");
    assert_eq!(text(&env.ws.join("proj/c.txt")), "c");
    assert_eq!(text(&env.ws.join("other.txt")), "o");
    assert!(!env.trash.join(id.as_str()).exists());
    assert!(
        env.restore(id.as_str(), &RestoreOptions::default())
            .already_restored
    );
}

#[test]
fn path_selects_every_item_at_or_below_it() {
    let env = Env::new();
    env.write("docs/a.txt", "a");
    env.write("docs/more/b.txt", "b");
    env.write("x.txt", "x");
    let id = txid(23);
    env.relocate(&id, &["docs/a.txt", "docs/more/b.txt", "x.txt"]);
    let options = RestoreOptions {
        paths: vec!["./docs/".into(), "docs/more".into()],
        ..RestoreOptions::default()
    };
    let report = env.restore(id.as_str(), &options);
    assert!(report.ok, "{report:?}");
    assert_eq!(report.restored.len(), 2, "{report:?}");
    assert_eq!(text(&env.ws.join("docs/more/b.txt")), "b");
    assert!(!env.ws.join("x.txt").exists());
    let left: Vec<_> = tree(&env.trash.join(id.as_str())).into_keys().collect();
    assert_eq!(left, [PathBuf::from("x.txt")]);
}

// ---------------------------------------------------------------- cross-device

#[test]
fn a_quarantine_on_another_filesystem_restores_by_verified_copy() {
    let Some((env, _shm)) = Env::cross_device() else {
        eprintln!("skipped: no second filesystem at /dev/shm");
        return;
    };
    env.write("tree/a.txt", "a");
    env.write("tree/deep/b.txt", "b");
    symlink("a.txt", env.ws.join("tree/link")).unwrap();
    std::fs::set_permissions(
        env.ws.join("tree/a.txt"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    let before = tree(&env.ws.join("tree"));
    let id = txid(12);
    env.relocate(&id, &["tree"]);
    assert!(!env.ws.join("tree").exists());
    let report = env.restore(id.as_str(), &RestoreOptions::default());
    assert!(report.ok, "{report:?}");
    assert_eq!(tree(&env.ws.join("tree")), before);
    assert!(!env.trash.join(id.as_str()).exists());
    let leftovers: Vec<_> = std::fs::read_dir(&env.ws)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(leftovers, ["tree"], "no temporary copy is left behind");
}

#[test]
fn a_version_created_while_the_copy_runs_is_never_overwritten() {
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Writes a "concurrent" version at `path` when the `nth` copy starts.
    struct Intruder {
        path: PathBuf,
        nth: usize,
        starts: AtomicUsize,
    }
    impl agent_guard_quarantine::Progress for Intruder {
        fn start(&self, _total_bytes: u64) {
            if self.starts.fetch_add(1, Ordering::SeqCst) + 1 == self.nth {
                std::fs::write(&self.path, "concurrent").unwrap();
            }
        }
    }

    for forced in [false, true] {
        let Some((env, _shm)) = Env::cross_device() else {
            eprintln!("skipped: no second filesystem at /dev/shm");
            return;
        };
        let file = env.write("f.txt", "old");
        let id = txid(22);
        env.relocate(&id, &["f.txt"]);
        if forced {
            std::fs::write(&file, "mine").unwrap();
        }
        // Forced: the first copy preserves "mine", the second puts "old" back.
        let intruder = Intruder {
            path: file.clone(),
            nth: if forced { 2 } else { 1 },
            starts: AtomicUsize::new(0),
        };
        let options = RestoreOptions {
            force: forced,
            ..RestoreOptions::default()
        };
        let report = env.store.restore(
            id.as_str(),
            &options,
            &mut || txid(0xd0),
            &intruder,
            &agent_guard_quarantine::FilesOnly,
        );
        assert!(!report.ok, "{report:?}");
        assert_eq!(report.conflicts, [file.display().to_string()], "{report:?}");
        assert_eq!(text(&file), "concurrent");
        assert_eq!(text(&env.trash.join(id.as_str()).join("f.txt")), "old");
        if forced {
            assert_eq!(report.backup_txids, [txid(0xd0).to_string()]);
            assert_eq!(
                text(&env.trash.join(txid(0xd0).as_str()).join("f.txt")),
                "mine"
            );
        }
        let names: Vec<_> = std::fs::read_dir(&env.ws)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["f.txt"], "no temporary copy is left behind");
    }
}

// ---------------------------------------------------------------- refusals

#[test]
fn hostile_ids_are_refused_without_reading_or_creating_anything() {
    let env = Env::new();
    env.write("f.txt", "f");
    env.relocate(&txid(13), &["f.txt"]);
    let before = (tree(&env.root), env.manifest());
    for id in [
        "",
        ".",
        "..",
        "../../x",
        "/x",
        "a/b",
        "a\\b",
        "a\nb",
        "C:outside",
    ] {
        let report = env.restore(id, &force());
        assert_eq!(
            report.error.as_ref().map(ToString::to_string).as_deref(),
            Some("invalid quarantine transaction id"),
            "{id:?}"
        );
        assert!(!report.ok && report.errors.len() == 1);
    }
    let unknown = env.restore("legacy_1", &force());
    assert_eq!(
        unknown.error.as_ref().map(ToString::to_string).as_deref(),
        Some("unknown transaction: legacy_1")
    );
    assert_eq!((tree(&env.root), env.manifest()), before);

    // An unknown id against a quarantine that does not exist creates nothing.
    let dir = tempfile::tempdir().unwrap();
    let store =
        agent_guard_quarantine::Quarantine::new(dir.path(), dir.path().join(".agent-trash"));
    let report = store.restore(
        "legacy_1",
        &force(),
        &mut || txid(0),
        &agent_guard_quarantine::NoProgress,
        &agent_guard_quarantine::FilesOnly,
    );
    assert_eq!(
        report.error.as_ref().map(ToString::to_string).as_deref(),
        Some("unknown transaction: legacy_1")
    );
    assert!(!dir.path().join(".agent-trash").exists());
}

#[test]
fn a_transaction_directory_replaced_by_a_symlink_is_refused() {
    let env = Env::new();
    env.write("f.txt", "f");
    env.write("g.txt", "g");
    let id = txid(14);
    env.relocate(&id, &["f.txt"]);
    env.relocate(&txid(15), &["g.txt"]);
    let tx_dir = env.trash.join(id.as_str());
    let outside = env.root.join("outside-tx");
    mv(&tx_dir, &outside);
    for target in [outside.clone(), env.trash.join(txid(15).as_str())] {
        symlink(&target, &tx_dir).unwrap();
        let report = env.restore(id.as_str(), &force());
        assert_eq!(
            report.error.as_ref().map(ToString::to_string).as_deref(),
            Some(SOURCE_OUTSIDE),
            "{report:?}"
        );
        assert!(!env.ws.join("f.txt").exists() && !env.ws.join("g.txt").exists());
        rm(&tx_dir);
    }
    assert!(outside.join("f.txt").exists());
}

#[test]
fn one_unsafe_origin_blocks_the_whole_batch() {
    let env = Env::new();
    let bad_origins = [
        env.root.join("outside.txt"),
        env.ws.clone(),
        PathBuf::from("relative.txt"),
        env.ws.join("sub/../escape.txt"),
        env.ws.join("./dot.txt"),
        env.root.join("wsx/sibling.txt"),
    ];
    for (n, bad) in bad_origins.iter().enumerate() {
        let id = format!("batch_{n}");
        env.start(&id);
        let (good, copy) = env.stash(&id, "good.txt", "good");
        let bad_copy = env.trash.join(&id).join("bad.txt");
        std::fs::write(&bad_copy, "bad").unwrap();
        env.record(&id, bad, &bad_copy);
        let report = env.restore(&id, &force());
        assert_eq!(
            report.error.as_ref().map(ToString::to_string).as_deref(),
            Some(TARGET_OUTSIDE),
            "{bad:?}: {report:?}"
        );
        assert!(
            !good.exists() && copy.exists() && bad_copy.exists(),
            "{bad:?}"
        );
    }
    assert!(!env.root.join("outside.txt").exists() && !env.root.join("wsx").exists());
}

#[test]
fn quarantine_paths_must_stay_inside_their_own_transaction() {
    let env = Env::new();
    env.write("theirs.txt", "theirs");
    env.relocate(&txid(16), &["theirs.txt"]);
    let external = env.root.join("external.txt");
    std::fs::write(&external, "external").unwrap();
    let bad_sources = [
        external.clone(),
        env.trash.join(txid(16).as_str()).join("theirs.txt"),
        env.trash.join("manifest.jsonl"),
        env.trash.join("src_3"),
        PathBuf::from("relative"),
    ];
    for (n, bad) in bad_sources.iter().enumerate() {
        let id = format!("src_{n}");
        env.start(&id);
        let (good, copy) = env.stash(&id, "good.txt", "good");
        env.record(&id, env.ws.join("stolen.txt"), bad);
        let report = env.restore(&id, &force());
        assert_eq!(
            report.error.as_ref().map(ToString::to_string).as_deref(),
            Some(SOURCE_OUTSIDE),
            "{bad:?}: {report:?}"
        );
        assert!(!good.exists() && copy.exists() && !env.ws.join("stolen.txt").exists());
    }
    assert_eq!(text(&external), "external");

    // A source parent redirected outside is refused; an alias inside the transaction is fine.
    env.start("alias_1");
    let real = env.trash.join("alias_1/real");
    std::fs::create_dir_all(&real).unwrap();
    std::fs::write(real.join("a.txt"), "a").unwrap();
    symlink(&real, env.trash.join("alias_1/alias")).unwrap();
    env.record(
        "alias_1",
        env.ws.join("a.txt"),
        env.trash.join("alias_1/alias/a.txt"),
    );
    assert!(env.restore("alias_1", &RestoreOptions::default()).ok);
    assert_eq!(text(&env.ws.join("a.txt")), "a");

    env.start("redirect_1");
    std::fs::create_dir_all(env.root.join("elsewhere")).unwrap();
    std::fs::write(env.root.join("elsewhere/e.txt"), "e").unwrap();
    std::fs::create_dir_all(env.trash.join("redirect_1")).unwrap();
    symlink(env.root.join("elsewhere"), env.trash.join("redirect_1/dir")).unwrap();
    env.record(
        "redirect_1",
        env.ws.join("e.txt"),
        env.trash.join("redirect_1/dir/e.txt"),
    );
    let report = env.restore("redirect_1", &force());
    assert_eq!(
        report.error.as_ref().map(ToString::to_string).as_deref(),
        Some(SOURCE_OUTSIDE)
    );
    assert!(env.root.join("elsewhere/e.txt").exists());
}

#[test]
fn a_parent_replaced_by_a_symlink_to_outside_is_refused_until_repaired() {
    let env = Env::new();
    let file = env.write("sub/file.txt", "f");
    let id = txid(17);
    env.relocate(&id, &["sub/file.txt"]);
    rm(&env.ws.join("sub"));
    let outside = env.root.join("outside");
    std::fs::create_dir(&outside).unwrap();
    symlink(&outside, env.ws.join("sub")).unwrap();
    for options in [RestoreOptions::default(), force()] {
        let report = env.restore(id.as_str(), &options);
        assert_eq!(
            report.error.as_ref().map(ToString::to_string).as_deref(),
            Some(TARGET_OUTSIDE),
            "{report:?}"
        );
    }
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
    rm(&env.ws.join("sub"));
    let report = env.restore(id.as_str(), &RestoreOptions::default());
    assert!(report.ok, "{report:?}");
    assert_eq!(text(&file), "f");
}

#[test]
fn each_item_is_checked_again_after_the_items_before_it_moved() {
    // Restoring the first item (a link to outside) redirects the second item's parent.
    let env = Env::new();
    let outside = env.root.join("outside");
    std::fs::create_dir(&outside).unwrap();
    env.start("chain_1");
    let link = env.trash.join("chain_1/sub");
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    symlink(&outside, &link).unwrap();
    env.record("chain_1", env.ws.join("sub"), &link);
    let copy = env.trash.join("chain_1/x/file.txt");
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
    std::fs::write(&copy, "f").unwrap();
    env.record("chain_1", env.ws.join("sub/file.txt"), &copy);
    let report = env.restore("chain_1", &force());
    assert!(!report.ok, "{report:?}");
    let target = env.ws.join("sub/file.txt");
    assert_eq!(
        report.errors,
        [format!("{TARGET_OUTSIDE}: {}", target.display())]
    );
    assert_eq!(std::fs::read_link(env.ws.join("sub")).unwrap(), outside);
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
    assert_eq!(text(&copy), "f");
}

#[test]
fn a_vanished_copy_is_an_error_and_the_current_version_is_kept() {
    let env = Env::new();
    let file = env.write("v.txt", "old");
    let id = txid(18);
    env.relocate(&id, &["v.txt"]);
    let copy = env.trash.join(id.as_str()).join("v.txt");
    rm(&copy);
    std::fs::write(&file, "current").unwrap();
    let report = env.restore(id.as_str(), &force());
    assert_eq!(
        report.errors,
        [format!("quarantine copy vanished: {}", copy.display())]
    );
    assert!(!report.ok && report.backup_txids.is_empty());
    assert_eq!(text(&file), "current");
}

#[test]
fn purged_and_foreign_transactions_are_refused() {
    let env = Env::new();
    env.write("p.txt", "p");
    let id = txid(19);
    env.relocate(&id, &["p.txt"]);
    let other = tempfile::tempdir().unwrap();
    let foreign = agent_guard_quarantine::Quarantine::new(other.path(), &env.trash);
    let report = foreign.restore(
        id.as_str(),
        &force(),
        &mut || txid(0),
        &agent_guard_quarantine::NoProgress,
        &agent_guard_quarantine::FilesOnly,
    );
    assert!(!report.ok && report.error.is_some(), "{report:?}");
    assert!(!env.ws.join("p.txt").exists());

    let purge = Record::Purged(Purged {
        txid: id.to_string(),
        ts: env.store.now(),
        schema: MANIFEST_SCHEMA,
    });
    env.store.append(&[purge]).unwrap();
    let report = env.restore(id.as_str(), &RestoreOptions::default());
    assert_eq!(
        report.error.as_ref().map(ToString::to_string),
        Some(format!("transaction {id} was purged"))
    );
}

// ---------------------------------------------------------------- usage

#[test]
fn usage_counts_files_bytes_and_restorable_items() {
    let env = Env::new();
    env.write("a.txt", "12345");
    env.write("b.txt", "123");
    symlink("a.txt", env.ws.join("l")).unwrap();
    env.relocate(&txid(20), &["a.txt", "l"]);
    env.relocate(&txid(21), &["b.txt"]);
    assert!(
        env.restore(txid(21).as_str(), &RestoreOptions::default())
            .ok
    );
    let usage = env.store.usage().unwrap();
    assert_eq!(usage.transactions, 2);
    assert_eq!(usage.restorable_transactions, 1);
    assert_eq!(usage.restorable_items, 2);
    assert_eq!(env.store.tx_bytes(&txid(20)), 5);
    let manifest = env.manifest().len() as u64;
    let lock = std::fs::metadata(env.trash.join("lock")).unwrap().len();
    let checkpoint = std::fs::metadata(env.trash.join("manifest.checkpoint"))
        .unwrap()
        .len();
    assert_eq!(usage.bytes, 5 + manifest + lock + checkpoint);
    assert_eq!(
        usage.files, 5,
        "a.txt, the link, the manifest, its checkpoint and the lock"
    );
}

// ---------------------------------------------------------------- gc

fn policy(max_bytes: u64) -> GcPolicy {
    GcPolicy {
        retention_days: 30,
        max_bytes,
        grace_minutes: 60,
        now: now(),
    }
}

/// A transaction `days` old holding one file of `bytes` bytes.
fn aged(env: &Env, n: u32, days: i64, bytes: usize) -> String {
    let rel = format!("file-{n}.bin");
    std::fs::write(env.ws.join(&rel), vec![7u8; bytes]).unwrap();
    let id = txid(n);
    env.relocate_with(&env.store_at(TimeDelta::days(days)), &id, &[rel.as_str()]);
    id.to_string()
}

#[test]
fn the_plan_marks_by_age_then_by_capacity_and_never_fresh_ones() {
    let env = Env::new();
    let fresh = {
        std::fs::write(env.ws.join("fresh.bin"), [1u8; 10]).unwrap();
        env.relocate_with(
            &env.store_at(TimeDelta::minutes(5)),
            &txid(30),
            &["fresh.bin"],
        );
        txid(30).to_string()
    };
    let old = aged(&env, 31, 31, 100);
    let plan = env.store.gc_plan(&policy(u64::MAX)).unwrap();
    assert_eq!(plan.transactions, 2);
    assert_eq!(plan.total_bytes, 110);
    let eligible: Vec<_> = plan
        .eligible
        .iter()
        .map(|e| (e.txid.as_str(), e.reason.as_str(), e.bytes))
        .collect();
    assert_eq!(eligible, [(old.as_str(), "age", 100)]);
    assert_eq!(plan.remaining_bytes_after_gc, 10);

    // Even a zero cap never marks the fresh transaction.
    let plan = env.store.gc_plan(&policy(0)).unwrap();
    assert!(plan.eligible.iter().all(|e| e.txid != fresh));

    let env = Env::new();
    let old = aged(&env, 32, 10, 2048);
    aged(&env, 33, 1, 4096);
    let plan = env.store.gc_plan(&policy(4096)).unwrap();
    let eligible: Vec<_> = plan
        .eligible
        .iter()
        .map(|e| (e.txid.as_str(), e.reason.as_str()))
        .collect();
    assert_eq!(eligible, [(old.as_str(), "capacity")]);
    assert_eq!(plan.remaining_bytes_after_gc, 4096);
}

#[test]
fn execute_purges_appends_tombstones_and_reports_missing_ids() {
    let env = Env::new();
    let old = aged(&env, 40, 40, 64);
    let keep = aged(&env, 41, 2, 64);
    let selection = GcSelection::Ids(vec![old.clone(), "20200101-000000-00000000".into()]);
    let outcome = env.store.gc_execute(&policy(u64::MAX), &selection).unwrap();
    assert_eq!(outcome.purged, std::slice::from_ref(&old));
    assert_eq!(outcome.missing, ["20200101-000000-00000000"]);
    assert!(outcome.errors.is_empty());
    assert!(!env.trash.join(&old).exists() && env.trash.join(&keep).exists());
    let records = env.store.manifest().read().unwrap();
    assert!(matches!(records.last(), Some(Record::Purged(p)) if p.txid == old));
    assert_eq!(state(&env, &old), TxState::Purged);

    let plan = env.store.gc_plan(&policy(u64::MAX)).unwrap();
    assert_eq!(plan.transactions, 1);
    assert!(plan.eligible.is_empty());
    let manifest = env.manifest();
    let again = env
        .store
        .gc_execute(&policy(u64::MAX), &GcSelection::AllEligible);
    assert!(
        matches!(again, Err(QuarantineError::NothingSelected)),
        "{again:?}"
    );
    assert_eq!(again.unwrap_err().to_string(), "nothing selected");
    assert_eq!(env.manifest(), manifest);

    // A directory recreated under the purged id is neither walked nor purged.
    std::fs::create_dir(env.trash.join(&old)).unwrap();
    std::fs::write(env.trash.join(&old).join("x"), [0u8; 999]).unwrap();
    assert_eq!(
        env.store.gc_plan(&policy(u64::MAX)).unwrap().total_bytes,
        64
    );
    let refused = env
        .store
        .gc_execute(&policy(u64::MAX), &GcSelection::Ids(vec![old.clone()]));
    assert!(
        matches!(refused, Err(QuarantineError::UnmanagedDirectory { .. })),
        "{refused:?}"
    );
    assert!(env.trash.join(&old).join("x").exists());
}

#[test]
fn all_eligible_purges_the_plan() {
    let env = Env::new();
    let a = aged(&env, 42, 50, 8);
    let b = aged(&env, 43, 40, 8);
    let c = aged(&env, 44, 3, 8);
    let outcome = env
        .store
        .gc_execute(&policy(u64::MAX), &GcSelection::AllEligible)
        .unwrap();
    assert_eq!(outcome.purged, [a, b]);
    assert!(env.trash.join(c).exists());
}

#[test]
fn the_grace_window_protects_fresh_transactions_even_by_explicit_id() {
    let env = Env::new();
    let old = aged(&env, 50, 40, 8);
    std::fs::write(env.ws.join("new.bin"), [0u8; 8]).unwrap();
    env.relocate_with(
        &env.store_at(TimeDelta::minutes(10)),
        &txid(51),
        &["new.bin"],
    );
    let fresh = txid(51).to_string();
    let selection = GcSelection::Ids(vec![old.clone(), fresh.clone()]);
    let refused = env.store.gc_execute(&policy(u64::MAX), &selection);
    match refused {
        Err(QuarantineError::TooRecent {
            txid,
            grace_minutes: 60,
        }) => assert_eq!(txid, fresh),
        other => panic!("{other:?}"),
    }
    assert!(env.trash.join(&old).exists() && env.trash.join(&fresh).exists());
}

#[test]
fn an_invalid_symlinked_or_unmanaged_id_rejects_the_whole_batch() {
    type Check = fn(&QuarantineError) -> bool;
    let env = Env::new();
    let old = aged(&env, 60, 40, 8);
    let sentinel = env.trash.parent().unwrap().join("sentinel");
    std::fs::create_dir(&sentinel).unwrap();
    std::fs::write(sentinel.join("keep"), "keep").unwrap();
    let outside = env.root.join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("keep"), "keep").unwrap();
    symlink(&outside, env.trash.join("linked_1")).unwrap();
    std::fs::create_dir(env.trash.join("stray_1")).unwrap();
    let cases: [(&str, Check); 5] = [
        ("../sentinel", |e| {
            matches!(e, QuarantineError::InvalidTxId { .. })
        }),
        ("", |e| matches!(e, QuarantineError::InvalidTxId { .. })),
        ("linked_1", |e| {
            matches!(e, QuarantineError::SymlinkedTransaction { .. })
        }),
        ("stray_1", |e| {
            matches!(e, QuarantineError::UnmanagedDirectory { .. })
        }),
        ("sessions", |e| {
            matches!(e, QuarantineError::UnmanagedDirectory { .. })
        }),
    ];
    for (bad, expected) in cases {
        let selection = GcSelection::Ids(vec![old.clone(), bad.to_owned()]);
        let error = env
            .store
            .gc_execute(&policy(u64::MAX), &selection)
            .unwrap_err();
        assert!(expected(&error), "{bad:?}: {error:?}");
        assert!(env.trash.join(&old).exists(), "{bad:?}: nothing is deleted");
    }
    assert_eq!(text(&sentinel.join("keep")), "keep");
    assert_eq!(text(&outside.join("keep")), "keep");
    assert!(env.trash.join("stray_1").exists());
}

#[test]
fn a_restored_transaction_is_purged_by_tombstone_only() {
    let env = Env::new();
    let old = aged(&env, 70, 40, 8);
    assert!(env.restore(&old, &RestoreOptions::default()).ok);
    assert!(!env.trash.join(&old).exists());
    let outcome = env
        .store
        .gc_execute(&policy(u64::MAX), &GcSelection::AllEligible)
        .unwrap();
    assert_eq!(outcome.purged, std::slice::from_ref(&old));
    assert_eq!(state(&env, &old), TxState::Purged);
    assert!(env.ws.join("file-70.bin").exists());
}

#[test]
fn usage_and_the_plan_stay_fast_with_ten_thousand_transactions() {
    use std::io::Write as _;
    let env = Env::new();
    let mut manifest = std::io::BufWriter::new(
        std::fs::File::options()
            .append(true)
            .create(true)
            .open(env.trash.join("manifest.jsonl"))
            .unwrap(),
    );
    for n in 0..10_000u32 {
        let id = txid(n);
        let copy = env.trash.join(id.as_str()).join("f.txt");
        std::fs::create_dir(copy.parent().unwrap()).unwrap();
        std::fs::write(&copy, "x").unwrap();
        let ts = if n % 2 == 0 {
            "2026-01-01T00:00:00Z"
        } else {
            "2026-11-29T00:00:00Z"
        };
        let start = serde_json::json!({"type": "tx-start", "txid": id.as_str(), "strategy": "relocate",
            "meta": {}, "workspace": env.ws, "ts": ts, "schema": 1});
        let item = serde_json::json!({"type": "relocate", "txid": id.as_str(), "origin_path": env.ws.join("f.txt"),
            "trash_path": copy, "ts": ts, "schema": 1});
        writeln!(manifest, "{start}\n{item}").unwrap();
    }
    drop(manifest);
    // Timing is measured by bench/quarantine.sh, never asserted here.
    let usage = env.store.usage().unwrap();
    let plan = env.store.gc_plan(&policy(u64::MAX)).unwrap();
    assert_eq!(
        (usage.transactions, usage.restorable_items),
        (10_000, 10_000)
    );
    assert_eq!(plan.eligible.len(), 5_000);
}
