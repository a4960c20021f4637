use std::collections::HashSet;
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

use super::*;
use agent_guard_fsops as fsops;

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    store: CheckpointStore,
    selection: Selection,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = fs_err::canonicalize(dir.path()).unwrap().join("ws");
    fs_err::create_dir_all(root.join(".agent-trash")).unwrap();
    let store = CheckpointStore::open(&root.join(".agent-trash/checkpoints")).unwrap();
    let selection = Selection {
        workspace: root.clone(),
        skip: vec![root.join(".agent-trash")],
        artifacts: vec!["node_modules".into()],
        skip_regenerable: true,
        max_file_bytes: 1000,
        git_user_dir: None,
    };
    Fixture {
        _dir: dir,
        root,
        store,
        selection,
    }
}

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    fs_err::create_dir_all(path.parent().unwrap()).unwrap();
    fs_err::write(path, text).unwrap();
}

/// `git fsck --strict` (the CLI is the oracle) of the store at `dir`.
fn fsck(dir: &Path) -> std::process::Output {
    std::process::Command::new("git")
        .arg("--git-dir")
        .arg(dir)
        .args(["fsck", "--strict", "--no-dangling"])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap()
}

fn kinds(diff: &CheckpointDiff) -> Vec<(String, ChangeKind)> {
    diff.changes
        .iter()
        .map(|c| (String::from_utf8_lossy(&c.path).into_owned(), c.kind))
        .collect()
}

#[test]
fn a_second_checkpoint_of_an_unchanged_workspace_writes_nothing() {
    let f = fixture();
    write(&f.root, "src/a.py", "print(1)\n");
    write(&f.root, ".env", "SECRET=1\n");
    write(&f.root, "big.bin", &"x".repeat(2000));
    let first = f.store.take(&f.selection).unwrap();
    assert_eq!(first.files, 2);
    assert_eq!(first.hashed, 2);
    assert_eq!(first.new_objects, 2);
    assert_eq!(first.not_kept.len(), 1);
    assert_eq!(first.not_kept[0].reason, NotKeptReason::TooLarge);
    let (objects_before, _) = f.store.disk_usage();
    let second = f.store.take(&f.selection).unwrap();
    assert_eq!(second.commit, first.commit, "same workspace, same commit");
    assert_eq!(second.new_objects, 0);
    assert_eq!(f.store.disk_usage().0, objects_before);
    f.store.store_ref("tx1", &first.commit).unwrap();
    assert!(f.store.intact(&first.commit));
}

#[test]
fn diff_and_write_back_restore_deleted_and_modified_files() {
    let f = fixture();
    write(&f.root, "src/a.py", "print(1)\n");
    write(&f.root, "keep/b.txt", "b\n");
    write(&f.root, ".env", "SECRET=1\n");
    fs_err::set_permissions(f.root.join(".env"), std::fs::Permissions::from_mode(0o600)).unwrap();
    fs_err::create_dir_all(f.root.join("logs")).unwrap();
    let taken = f.store.take(&f.selection).unwrap();
    f.store.store_ref("tx1", &taken.commit).unwrap();

    fsops::remove_file(&f.root.join(".env")).unwrap();
    fsops::remove_tree(&f.root.join("keep")).unwrap();
    fsops::remove_dir(&f.root.join("logs")).unwrap();
    write(&f.root, "src/a.py", "print(2)\n");
    write(&f.root, "new.txt", "created\n");
    write(
        &f.root,
        "node_modules/x.js",
        "regenerable but not ignored: kept as created\n",
    );

    let diff = f.store.diff(&taken.commit, &f.selection, &[]).unwrap();
    assert_eq!(
        kinds(&diff),
        [
            (".env".to_owned(), ChangeKind::Deleted),
            ("keep/b.txt".to_owned(), ChangeKind::Deleted),
            ("new.txt".to_owned(), ChangeKind::Created),
            ("node_modules/x.js".to_owned(), ChangeKind::Created),
            ("src/a.py".to_owned(), ChangeKind::Modified),
        ]
    );
    assert_eq!(diff.missing_dirs, [b"logs".to_vec()]);
    assert!(diff.had_directory(b"keep") && !diff.had_directory(b"new"));
    let stat = f.store.line_stats(&f.root, &diff.changes[4]);
    assert_eq!((stat.added, stat.removed), (1, 1));

    let scoped = f
        .store
        .diff(&taken.commit, &f.selection, &[b"keep".to_vec()])
        .unwrap();
    assert_eq!(
        kinds(&scoped),
        [("keep/b.txt".to_owned(), ChangeKind::Deleted)]
    );

    for change in diff
        .changes
        .iter()
        .filter(|c| c.kind == ChangeKind::Deleted)
    {
        assert_eq!(
            f.store.write_back(&f.root, change).unwrap(),
            WriteBack::Written
        );
    }
    assert_eq!(
        f.store.write_back(&f.root, &diff.changes[4]).unwrap(),
        WriteBack::Occupied,
        "a modified file is never overwritten"
    );
    assert!(f.store.make_dir(&f.root, b"logs").unwrap());
    assert_eq!(
        fs_err::read_to_string(f.root.join(".env")).unwrap(),
        "SECRET=1\n"
    );
    let mode = fs_err::metadata(f.root.join(".env"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o7777, 0o600);
    assert_eq!(
        fs_err::read_to_string(f.root.join("keep/b.txt")).unwrap(),
        "b\n"
    );
    assert!(f.root.join("logs").is_dir());
}

#[test]
fn a_symlinked_ancestor_is_never_written_through() {
    let f = fixture();
    write(&f.root, "d/a.txt", "a\n");
    let taken = f.store.take(&f.selection).unwrap();
    fsops::remove_tree(&f.root.join("d")).unwrap();
    let outside = f.root.parent().unwrap().join("outside");
    fs_err::create_dir_all(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, f.root.join("d")).unwrap();
    let diff = f.store.diff(&taken.commit, &f.selection, &[]).unwrap();
    let deleted = diff
        .changes
        .iter()
        .find(|c| c.kind == ChangeKind::Deleted)
        .unwrap();
    assert_eq!(
        f.store.write_back(&f.root, deleted).unwrap(),
        WriteBack::Occupied
    );
    assert!(!outside.join("a.txt").exists());
}

#[test]
fn prune_frees_what_only_purged_checkpoints_held() {
    let mut f = fixture();
    write(&f.root, "a.txt", "one\n");
    let first = f.store.take(&f.selection).unwrap();
    f.store.store_ref("tx1", &first.commit).unwrap();
    write(&f.root, "a.txt", "two, longer\n");
    write(&f.root, "b.txt", "b\n");
    let second = f.store.take(&f.selection).unwrap();
    f.store.store_ref("tx2", &second.commit).unwrap();
    assert_eq!(second.new_objects, 2);

    let live = HashSet::from(["tx2".to_owned()]);
    let pruned = f.store.prune(&live, &[]).unwrap();
    assert_eq!(pruned.refs, 1);
    // tx1's commit, root tree, files tree and its `a.txt` blob (its meta blob is shared).
    assert_eq!(pruned.objects, 4, "{pruned:?}");
    assert!(f.store.intact(&second.commit));
    assert!(!f.store.intact(&first.commit));
    assert_eq!(f.store.checkpoint_txids(), ["tx2"]);

    // What an interrupted pack write left goes too.
    let leftover = f.store.dir().join("objects/pack/tmp_pack-interrupted.pack");
    fs_err::write(&leftover, b"PACK").unwrap();
    let pruned = f.store.prune(&HashSet::new(), &[]).unwrap();
    assert_eq!(pruned.refs, 1);
    assert_eq!(f.store.disk_usage().0, 0);
    assert!(!leftover.exists());
    // With nothing left, the next checkpoint hashes and stores everything again.
    let again = f.store.take(&f.selection).unwrap();
    assert_eq!(again.new_objects, 2);
    assert!(f.store.intact(&again.commit));
}

/// A checkpoint whose ref a crash lost keeps its objects while the journal records it live:
/// the recorded commit is a root of the prune too.
#[test]
fn prune_keeps_a_recorded_checkpoint_whose_ref_is_gone() {
    let mut f = fixture();
    write(&f.root, "a.txt", "one\n");
    let taken = f.store.take(&f.selection).unwrap();
    f.store.store_ref("tx1", &taken.commit).unwrap();
    assert!(f.store.delete_ref("tx1"));
    let live = HashSet::from(["tx1".to_owned()]);
    let pruned = f
        .store
        .prune(&live, std::slice::from_ref(&taken.commit))
        .unwrap();
    assert_eq!(pruned.objects, 0, "{pruned:?}");
    assert!(f.store.intact(&taken.commit));
    // Recorded ids whose commit is not in the store do not stop the prune.
    let gone = "0123456789012345678901234567890123456789".to_owned();
    let pruned = f.store.prune(&HashSet::new(), &[gone]).unwrap();
    assert!(pruned.objects > 0, "{pruned:?}");
    assert!(!f.store.intact(&taken.commit));
}

/// The trees are written without libgit2's tree builder: `git fsck --strict` (the CLI is
/// the oracle) accepts every object of two checkpoints, the second rebuilding one directory.
#[test]
fn git_fsck_accepts_the_checkpoint_objects() {
    let f = fixture();
    for (path, text) in [
        ("a/b.txt", "1\n"),
        ("a.b", "2\n"),
        ("a-b/c", "3\n"),
        ("z/deep/er/file", "4\n"),
        ("run.sh", "#!/bin/sh\n"),
    ] {
        write(&f.root, path, text);
    }
    fs_err::set_permissions(
        f.root.join("run.sh"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    std::os::unix::fs::symlink("a/b.txt", f.root.join("link")).unwrap();
    let first = f.store.take(&f.selection).unwrap();
    f.store.store_ref("tx1", &first.commit).unwrap();
    write(&f.root, "z/deep/er/file", "changed\n");
    let second = f.store.take(&f.selection).unwrap();
    f.store.store_ref("tx2", &second.commit).unwrap();
    let fsck = fsck(f.store.dir());
    assert!(fsck.status.success(), "{fsck:?}");
    // The private store has no branch (checkpoints live under refs/checkpoints/).
    let stderr = String::from_utf8_lossy(&fsck.stderr);
    let problems: Vec<&str> = stderr
        .lines()
        .filter(|line| !line.starts_with("notice: HEAD points to an unborn branch"))
        .collect();
    assert!(problems.is_empty() && fsck.stdout.is_empty(), "{fsck:?}");
}

/// A checkpoint that adds more than a pack's worth of content (hashed on several threads)
/// writes several packs and no loose object, and every blob is there for `git fsck` (the
/// oracle) and for the checkpoint's own check.
#[test]
fn a_large_first_checkpoint_writes_bounded_packs_and_no_loose_object() {
    let mut f = fixture();
    f.selection.max_file_bytes = 1 << 20;
    // A pack per MiB staged (16 MiB in use), so that every thread writes several.
    f.store.pack_bytes = 1 << 20;
    let files: u64 = 600;
    let size = 40_000;
    for i in 0..files {
        let text: String = format!("{i:08}\n").repeat(size / 9);
        write(&f.root, &format!("d{:02}/f{i:04}.txt", i % 20), &text);
    }
    let taken = f.store.take(&f.selection).unwrap();
    f.store.store_ref("tx1", &taken.commit).unwrap();
    assert_eq!(taken.new_objects, files);
    assert!(f.store.intact(&taken.commit));
    let objects = f.store.dir().join("objects");
    let loose: Vec<_> = fs_err::read_dir(&objects)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().len() == 2)
        .collect();
    assert!(loose.is_empty(), "loose objects: {loose:?}");
    let names: Vec<String> = fs_err::read_dir(objects.join("pack"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let packs = names
        .iter()
        .filter(|n| Path::new(n).extension().is_some_and(|e| e == "pack"))
        .count();
    assert!(packs >= 2, "{names:?}");
    assert!(names.iter().all(|n| !n.starts_with("tmp_")), "{names:?}");
    let fsck = fsck(f.store.dir());
    assert!(fsck.status.success(), "{fsck:?}");
    // Unchanged, the next checkpoint adds nothing.
    let again = f.store.take(&f.selection).unwrap();
    assert_eq!((again.new_objects, again.commit), (0, taken.commit));
}

/// The commit a checkpoint writes by hand is the one libgit2 writes for the same tree.
#[test]
fn checkpoint_commits_are_what_libgit2_writes() {
    let dir = tempfile::tempdir().unwrap();
    let repo = Repository::init_bare(dir.path()).unwrap();
    let tree = repo.treebuilder(None).unwrap().write().unwrap();
    let signature = git2::Signature::new(
        "agent-guard",
        "agent-guard@localhost",
        &git2::Time::new(0, 0),
    )
    .unwrap();
    let oracle = repo
        .commit(
            None,
            &signature,
            &signature,
            "agent-guard checkpoint\n",
            &repo.find_tree(tree).unwrap(),
            &[],
        )
        .unwrap();
    let ours = Oid::hash_object(git2::ObjectType::Commit, &super::commit_text(tree)).unwrap();
    assert_eq!(ours, oracle);
}

/// The incremental path (stat index, delta, rebuilt trees, the unchanged shortcut) gives
/// exactly the checkpoint a store with no index gives: after every step of edits, adds,
/// removals, permission changes, links and empty directories — a few files at a time
/// (the index's delta) and most of them at once (a new base) — both commits are equal.
#[test]
fn incremental_checkpoints_match_a_checkpoint_taken_from_scratch() {
    let f = fixture();
    for i in 0..300 {
        write(
            &f.root,
            &format!("d{}/f{i:03}.txt", i % 7),
            &format!("{i}\n"),
        );
    }
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |n: u64| {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        (seed >> 33) % n
    };
    let index = f.store.dir().join(STAT_CACHE_FILE);
    let mut saw_delta = false;
    let mut bases = HashSet::new();
    for step in 0..14 {
        let touched = 1 + next(12);
        if step == 9 {
            for i in 0..300 {
                write(&f.root, &format!("d{}/f{i:03}.txt", i % 7), "all at once\n");
            }
        }
        for _ in 0..touched {
            let i = next(320);
            let path = f.root.join(format!("d{}/f{i:03}.txt", i % 7));
            match next(6) {
                0 => {
                    let _ = fsops::remove_file(&path);
                }
                1 => {
                    let _ = fs_err::set_permissions(&path, std::fs::Permissions::from_mode(0o600));
                }
                2 => {
                    let _ = fsops::remove_file(&path);
                    let _ = std::os::unix::fs::symlink(format!("f{i:03}"), &path);
                }
                3 => fs_err::create_dir_all(f.root.join(format!("e{step}/empty"))).unwrap(),
                _ => write(
                    &f.root,
                    &format!("d{}/f{i:03}.txt", i % 7),
                    &format!("{step}/{i}\n"),
                ),
            }
        }
        let ours = f.store.take(&f.selection).unwrap();
        let again = f.store.take(&f.selection).unwrap();
        let fresh =
            CheckpointStore::open(&f.root.join(format!(".agent-trash/fresh{step}"))).unwrap();
        let theirs = fresh.take(&f.selection).unwrap();
        assert_eq!(
            ours.commit, theirs.commit,
            "step {step}: {touched} files touched"
        );
        assert_eq!(again.commit, ours.commit, "step {step}: unchanged");
        assert_eq!(again.new_objects, 0);
        assert_eq!(
            (ours.files, ours.bytes, ours.not_kept.len()),
            (theirs.files, theirs.bytes, theirs.not_kept.len())
        );
        saw_delta |= f
            .store
            .dir()
            .join(format!("{STAT_CACHE_FILE}.delta"))
            .exists();
        bases.insert(fs_err::read(&index).unwrap());
    }
    assert!(saw_delta, "a few changes are written as the index's delta");
    assert!(bases.len() >= 2, "many changes are written as a new base");
    // What only the meta says: an empty directory added, then removed.
    let before = f.store.take(&f.selection).unwrap();
    fs_err::create_dir(f.root.join("only-empty")).unwrap();
    let added = f.store.take(&f.selection).unwrap();
    let fresh = CheckpointStore::open(&f.root.join(".agent-trash/fresh-meta")).unwrap();
    assert_eq!(added.commit, fresh.take(&f.selection).unwrap().commit);
    assert_ne!(added.commit, before.commit);
    fsops::remove_dir(&f.root.join("only-empty")).unwrap();
    assert_eq!(f.store.take(&f.selection).unwrap().commit, before.commit);
    assert!(fsck(f.store.dir()).status.success());
}

/// The private index names only objects on disk: it is written once the new packs are
/// flushed, never before.
#[test]
fn the_index_is_written_once_the_packs_are_flushed() {
    let f = fixture();
    write(&f.root, "a.txt", "one\n");
    let index = f.store.dir().join(STAT_CACHE_FILE);
    let (first, flushing) = f.store.take_in_flight(&f.selection).unwrap();
    assert!(!index.exists(), "not before the flush");
    flushing.wait().unwrap();
    assert!(index.exists());
    let before = fs_err::read(&index).unwrap();
    write(&f.root, "a.txt", "two\n");
    let (second, flushing) = f.store.take_in_flight(&f.selection).unwrap();
    assert_ne!(second.commit, first.commit);
    assert_eq!(fs_err::read(&index).unwrap(), before);
    assert!(
        !f.store
            .dir()
            .join(format!("{STAT_CACHE_FILE}.delta"))
            .exists()
    );
    flushing.wait().unwrap();
    assert!(
        f.store
            .dir()
            .join(format!("{STAT_CACHE_FILE}.delta"))
            .exists()
    );
    let third = f.store.take(&f.selection).unwrap();
    assert_eq!(third.commit, second.commit);
}

/// A touched file (same content, new stat data) adds no object; a large content changed
/// back to what an earlier checkpoint holds is found in the store, not stored again.
#[test]
fn touched_files_and_large_contents_changed_back_add_no_object() {
    let mut f = fixture();
    f.selection.max_file_bytes = 1 << 20;
    let big = |byte: u8| String::from_utf8(vec![byte; 100 << 10]).unwrap();
    write(&f.root, "a.txt", "one\n");
    write(&f.root, "big.bin", &big(b'a'));
    let first = f.store.take(&f.selection).unwrap();
    assert_eq!(first.new_objects, 2);

    let file = fs_err::File::options()
        .write(true)
        .open(f.root.join("a.txt"))
        .unwrap();
    file.set_modified(std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(7))
        .unwrap();
    let touched = f.store.take(&f.selection).unwrap();
    // Hashed again (with any file written in the index's second: racy), stored once.
    assert!(touched.hashed >= 1);
    assert_eq!(touched.new_objects, 0);
    assert_eq!(touched.commit, first.commit);

    write(&f.root, "big.bin", &big(b'b'));
    assert_eq!(f.store.take(&f.selection).unwrap().new_objects, 1);
    write(&f.root, "big.bin", &big(b'a'));
    let back = f.store.take(&f.selection).unwrap();
    assert_eq!(back.new_objects, 0, "the large blob is found in the store");
    assert_eq!(back.commit, first.commit);
    assert!(fsck(f.store.dir()).status.success());
}

// gc and the private index (found by a review: each failed before gc rewrote the index
// first, as one flushed base, without its racy entries).

fn age(path: &Path) {
    let file = fs_err::File::options().write(true).open(path).unwrap();
    file.set_modified(std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(7))
        .unwrap();
}

/// Every object the commit reaches is in the store (git CLI oracle).
fn complete(dir: &Path, commit: &str) -> bool {
    std::process::Command::new("git")
        .arg("--git-dir")
        .arg(dir)
        .args(["rev-list", "--objects", commit])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap()
        .success()
}

/// After gc, losing the index's delta never gives a checkpoint whose commit was pruned (the
/// base gc leaves names only what it kept).
#[test]
fn a_lost_delta_after_gc_names_no_pruned_commit() {
    let mut f = fixture();
    write(&f.root, "a.txt", "one\n");
    age(&f.root.join("a.txt"));
    fs_err::create_dir(f.root.join("e")).unwrap();
    let c1 = f.store.take(&f.selection).unwrap();
    f.store.store_ref("tx1", &c1.commit).unwrap();
    fsops::remove_dir(&f.root.join("e")).unwrap();
    let c2 = f.store.take(&f.selection).unwrap();
    assert_ne!(c1.commit, c2.commit);
    f.store.store_ref("tx2", &c2.commit).unwrap();
    assert!(
        f.store
            .dir()
            .join(format!("{STAT_CACHE_FILE}.delta"))
            .exists()
    );
    f.store
        .prune(&HashSet::from(["tx2".to_owned()]), &[])
        .unwrap();
    assert!(!complete(f.store.dir(), &c1.commit), "c1 pruned");
    // The delta is lost (crash, or killed in save() between removing it and writing a base).
    let _ = fsops::remove_file(&f.store.dir().join(format!("{STAT_CACHE_FILE}.delta")));
    fs_err::create_dir(f.root.join("e")).unwrap();
    let c3 = f.store.take(&f.selection).unwrap();
    assert!(
        complete(f.store.dir(), &c3.commit),
        "checkpoint {} (= c1 {}) is not in the store",
        c3.commit,
        c1.commit
    );
}

/// Same, with a blob: no index entry left by gc names a pruned blob for an unchanged file.
#[test]
fn a_lost_delta_after_gc_names_no_pruned_blob() {
    let mut f = fixture();
    write(&f.root, "a.txt", "0123456789\n");
    write(&f.root, "b.txt", "b\n");
    age(&f.root.join("a.txt"));
    age(&f.root.join("b.txt"));
    let c1 = f.store.take(&f.selection).unwrap();
    f.store.store_ref("tx1", &c1.commit).unwrap();
    f.selection.max_file_bytes = 5;
    let c2 = f.store.take(&f.selection).unwrap();
    f.store.store_ref("tx2", &c2.commit).unwrap();
    f.store
        .prune(&HashSet::from(["tx2".to_owned()]), &[])
        .unwrap();
    let _ = fsops::remove_file(&f.store.dir().join(format!("{STAT_CACHE_FILE}.delta")));
    f.selection.max_file_bytes = 1000;
    write(&f.root, "b.txt", "b changed\n"); // so that the shortcut does not hide it
    let c3 = f.store.take(&f.selection).unwrap();
    let fresh = CheckpointStore::open(&f.root.join(".agent-trash/fresh")).unwrap();
    assert_eq!(c3.commit, fresh.take(&f.selection).unwrap().commit);
    assert!(
        complete(f.store.dir(), &c3.commit),
        "checkpoint {} names the pruned blob of a.txt",
        c3.commit
    );
}

/// An entry racy when the index was written (modified in the index's tick) stays untrusted
/// until it is hashed again: gc rewrites the index (a newer write time) without hashing, so
/// it drops such entries rather than make them look trusted.
#[test]
fn gc_never_turns_a_racy_entry_into_a_trusted_one() {
    let mut f = fixture();
    write(&f.root, "a.txt", "one\n");
    fs_err::create_dir(f.root.join("e")).unwrap();
    let c0 = f.store.take(&f.selection).unwrap();
    f.store.store_ref("tx0", &c0.commit).unwrap();
    fsops::remove_dir(&f.root.join("e")).unwrap();
    let _c1 = f.store.take(&f.selection).unwrap(); // no ref: pruned below
    let a = stat_cache::Stat::of(&std::fs::symlink_metadata(f.root.join("a.txt")).unwrap());
    let mtime = std::time::UNIX_EPOCH
        + std::time::Duration::new(u64::try_from(a.mtime.0).unwrap(), a.mtime.1);
    // Simulate: the index was written in the tick of a.txt's last write.
    for name in [
        STAT_CACHE_FILE.to_owned(),
        format!("{STAT_CACHE_FILE}.delta"),
    ] {
        let p = f.store.dir().join(name);
        if p.exists() {
            fs_err::File::options()
                .write(true)
                .open(&p)
                .unwrap()
                .set_modified(mtime)
                .unwrap();
        }
    }
    let loaded = stat_cache::Index::load(&f.store.dir().join(STAT_CACHE_FILE));
    let e = loaded
        .to_vec()
        .into_iter()
        .find(|e| e.path == b"a.txt")
        .unwrap();
    assert!(!loaded.unchanged(&e.stat, &a), "racy before the prune");
    drop(loaded);
    std::thread::sleep(std::time::Duration::from_millis(20));
    f.store
        .prune(&HashSet::from(["tx0".to_owned()]), &[])
        .unwrap();
    let loaded = stat_cache::Index::load(&f.store.dir().join(STAT_CACHE_FILE));
    let kept = loaded.to_vec().into_iter().find(|e| e.path == b"a.txt");
    assert!(
        kept.is_none_or(|e| !loaded.unchanged(&e.stat, &a)),
        "a racy entry is dropped by gc, never trusted: it was never hashed again"
    );
}

/// The repository's state is kept whatever the size cap: a `.git/index` over
/// `max_file_bytes` is in the checkpoint (a change to it is seen), while a workspace file
/// over the cap is listed as not kept.
#[test]
fn the_repository_state_is_kept_over_the_size_cap() {
    let mut f = fixture();
    let git = |args: &[&str]| {
        let output = std::process::Command::new("git")
            .arg("-C")
            .arg(&f.root)
            .args(args)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .unwrap();
        assert!(output.status.success(), "git {args:?}: {output:?}");
    };
    git(&["init", "-q"]);
    for n in 0..20 {
        write(&f.root, &format!("src/file{n}.txt"), "x\n");
    }
    git(&["add", "src"]);
    write(&f.root, "big.bin", &"y".repeat(600));
    let index = fs_err::metadata(f.root.join(".git/index")).unwrap().len();
    f.selection.max_file_bytes = 500;
    assert!(index > 500, "the index ({index} bytes) is over the cap");
    let taken = f.store.take(&f.selection).unwrap();
    let not_kept: Vec<String> = taken
        .not_kept
        .iter()
        .map(|n| String::from_utf8_lossy(&n.path).into_owned())
        .collect();
    assert_eq!(not_kept, ["big.bin"]);
    f.store.store_ref("tx1", &taken.commit).unwrap();
    git(&["rm", "-q", "--cached", "src/file3.txt"]);
    let diff = f
        .store
        .diff(&taken.commit, &f.selection, &[b".git/index".to_vec()])
        .unwrap();
    assert_eq!(
        kinds(&diff),
        [(".git/index".to_owned(), ChangeKind::Modified)]
    );
}
