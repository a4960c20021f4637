//! Git compensations against real repositories, with the `git` CLI as the oracle:
//! snapshots restored after the destructive command ran, kept stash entries and branches,
//! and `git clean` enumeration (in `git_support/clean.rs`).

#[path = "git_support/clean.rs"]
mod clean;
mod git_support;

use std::os::unix::fs::symlink;

use agent_guard_git::GitError;
use agent_guard_recovery::{
    GitSnapshot, OtherOutcome as GitRestore, Record, RecoveryError, RefSubject, Subject,
};
use git_support::{Fixture, GitOps as _, chmod, git_output, meta, remove, txid, worktree_state};

/// A repository with a mix of tracked files, an executable and a symlink.
fn project() -> Fixture {
    let fixture = Fixture::with_commit(&[
        ("README.md", "readme v1\n"),
        ("src/lib.rs", "fn lib() {}\n"),
        ("src/deep/mod.rs", "mod deep;\n"),
        ("run.sh", "#!/bin/sh\necho v1\n"),
        ("gone.txt", "will be deleted\n"),
        ("docs/only.md", "the only file of its directory\n"),
        ("中文笔记.txt", "笔记 v1\n"),
    ]);
    chmod(&fixture.path("run.sh"), 0o755);
    symlink("README.md", fixture.path("link")).expect("symlink");
    fixture.git(&["add", "-A"]);
    fixture.git(&["commit", "-q", "-m", "executable and link"]);
    fixture
}

/// Dirties the project: modified, staged, deleted, mode-changed, retargeted link, new
/// staged file.
fn dirty(fixture: &Fixture) {
    fixture.write("README.md", "readme v2 (unstaged)\n");
    fixture.write("src/lib.rs", "fn lib() { staged(); }\n");
    fixture.git(&["add", "src/lib.rs"]);
    fixture.write("src/lib.rs", "fn lib() { staged(); unstaged(); }\n");
    remove(&fixture.path("gone.txt"));
    remove(&fixture.path("docs/only.md"));
    chmod(&fixture.path("src/deep/mod.rs"), 0o755);
    remove(&fixture.path("link"));
    symlink("src/lib.rs", fixture.path("link")).expect("retarget");
    fixture.write("new/added.txt", "added and staged\n");
    fixture.git(&["add", "new/added.txt"]);
    fixture.write("中文笔记.txt", "笔记 v2\n");
    // Staged, then reverted in the work tree: only the index differs from HEAD.
    fixture.write("run.sh", "#!/bin/sh\necho staged\n");
    fixture.git(&["add", "run.sh"]);
    fixture.write("run.sh", "#!/bin/sh\necho v1\n");
}

fn restored_ok(restore: &GitRestore) {
    assert!(
        restore.conflicts.is_empty() && restore.errors.is_empty(),
        "{restore:?}"
    );
    assert!(!restore.restored.is_empty(), "{restore:?}");
}

#[test]
fn reset_hard_round_trip_restores_the_work_tree() {
    let fixture = project();
    dirty(&fixture);
    let before = worktree_state(&fixture.ws);
    let stash_before = fixture.git(&["stash", "list"]);
    let index_before = fs_err::read(fixture.ws.join(".git/index")).unwrap();
    let quarantine = fixture.quarantine();
    let id = txid(1);

    let snapshot = quarantine
        .snapshot_worktree(&fixture.ws.join("src"), &id, meta())
        .unwrap();
    let sha = snapshot.sha.clone().expect("a dirty tree has a snapshot");
    assert_eq!(
        snapshot.refname.as_deref(),
        Some(format!("refs/agent-guard/snapshots/{id}").as_str())
    );
    assert_eq!(
        fixture
            .git(&["rev-parse", &format!("refs/agent-guard/snapshots/{id}")])
            .trim(),
        sha
    );
    assert_eq!(
        fixture.git(&["stash", "list"]),
        stash_before,
        "the stash list is untouched"
    );
    assert_eq!(
        fs_err::read(fixture.ws.join(".git/index")).unwrap(),
        index_before,
        "the index file is untouched"
    );
    assert_eq!(
        worktree_state(&fixture.ws),
        before,
        "the snapshot changes nothing"
    );
    // The same trees `git stash create` records.
    let created = fixture.git(&["stash", "create"]);
    for suffix in ["^{tree}", "^2^{tree}"] {
        assert_eq!(
            fixture.git(&["rev-parse", &format!("{sha}{suffix}")]),
            fixture.git(&["rev-parse", &format!("{}{suffix}", created.trim())]),
            "{suffix}"
        );
    }
    // The commits have git stash's shape: `git stash show` understands them.
    let shown = fixture.git(&["stash", "show", "--name-only", &sha]);
    for path in [
        "README.md",
        "gone.txt",
        "link",
        "new/added.txt",
        "src/lib.rs",
    ] {
        assert!(
            shown.lines().any(|l| l == path),
            "{path} missing from {shown}"
        );
    }
    assert_eq!(
        fixture
            .git(&["show", "-s", "--format=%P", &format!("{sha}^2")])
            .trim(),
        fixture.git(&["rev-parse", "HEAD"]).trim()
    );
    assert_eq!(
        fixture.git(&["show", &format!("{sha}^2:src/lib.rs")]),
        "fn lib() { staged(); }\n",
        "the index commit holds the staged version"
    );

    fixture.git(&["reset", "-q", "--hard"]);
    assert_ne!(worktree_state(&fixture.ws), before);
    let tx = fixture.transaction(&id);
    let restore = quarantine.restore_git_items(&tx);
    restored_ok(&restore);
    assert_eq!(restore.restored, vec![format!("stash:{sha}")]);
    assert_eq!(
        worktree_state(&fixture.ws),
        before,
        "content, modes and links are back"
    );

    // Idempotent.
    let again = quarantine.restore_git_items(&tx);
    restored_ok(&again);
    assert_eq!(worktree_state(&fixture.ws), before);
    // The ref stays until gc.
    assert!(
        git_output(
            &fixture.ws,
            &[
                "rev-parse",
                "--verify",
                "-q",
                &format!("refs/agent-guard/snapshots/{id}")
            ]
        )
        .status
        .success()
    );
}

#[test]
fn the_snapshot_record_is_in_the_manifest() {
    let fixture = project();
    dirty(&fixture);
    let quarantine = fixture.quarantine();
    let id = txid(2);
    let snapshot = quarantine
        .snapshot_worktree(&fixture.ws, &id, meta())
        .unwrap();
    let records = quarantine.manifest().read().unwrap();
    let Some(Record::Snapshot(record)) = records.iter().find(|r| r.txid() == id.as_str()) else {
        panic!("no snapshot record: {records:?}")
    };
    assert_eq!(record.sha, snapshot.sha);
    assert_eq!(record.refname, snapshot.refname);
    assert!(record.stored);
    assert_eq!(record.subject.as_deref(), Some("worktree"));
    assert_eq!(
        record.repository.as_ref().map(|p| p.path().to_path_buf()),
        Some(fixture.ws.clone())
    );
    assert_eq!(record.meta, meta());
    let tx = fixture.transaction(&id);
    assert_eq!(tx.restorable_items(), 1);
}

#[test]
fn a_stale_index_lock_does_not_break_the_snapshot() {
    let fixture = project();
    dirty(&fixture);
    let lock = fixture.ws.join(".git/index.lock");
    fs_err::write(&lock, "another process holds this\n").unwrap();
    let index_before = fs_err::read(fixture.ws.join(".git/index")).unwrap();
    let before = worktree_state(&fixture.ws);

    let snapshot = fixture
        .quarantine()
        .snapshot_worktree(&fixture.ws, &txid(3), meta())
        .unwrap();
    assert!(snapshot.sha.is_some());
    assert_eq!(
        fs_err::read_to_string(&lock).unwrap(),
        "another process holds this\n"
    );
    assert_eq!(
        fs_err::read(fixture.ws.join(".git/index")).unwrap(),
        index_before
    );

    remove(&lock);
    fixture.git(&["reset", "-q", "--hard"]);
    restored_ok(
        &fixture
            .quarantine()
            .restore_git_items(&fixture.transaction(&txid(3))),
    );
    assert_eq!(worktree_state(&fixture.ws), before);
}

#[test]
fn a_clean_tree_records_a_null_sha() {
    let fixture = project();
    let quarantine = fixture.quarantine();
    let snapshot = quarantine
        .snapshot_worktree(&fixture.ws, &txid(4), meta())
        .unwrap();
    assert_eq!(
        snapshot,
        GitSnapshot {
            sha: None,
            refname: None
        }
    );
    let records = quarantine.manifest().read().unwrap();
    let Some(Record::Snapshot(record)) = records.last() else {
        panic!("{records:?}")
    };
    assert_eq!(record.sha, None);
    assert_eq!(
        record.note.as_deref(),
        Some("working tree clean; nothing to snapshot")
    );
    assert!(
        fixture
            .git(&["for-each-ref", "refs/agent-guard"])
            .is_empty()
    );
    // Untracked files are not part of a snapshot.
    fixture.write("untracked.txt", "x");
    assert_eq!(
        quarantine
            .snapshot_worktree(&fixture.ws, &txid(5), meta())
            .unwrap()
            .sha,
        None
    );
}

#[test]
fn an_unborn_branch_cannot_be_snapshotted() {
    let fixture = Fixture::empty();
    fixture.write("a.txt", "a");
    fixture.git(&["add", "a.txt"]);
    let error = fixture
        .quarantine()
        .snapshot_worktree(&fixture.ws, &txid(6), meta())
        .unwrap_err();
    assert!(
        matches!(error, RecoveryError::Git(GitError::UnbornHead { .. })),
        "{error:?}"
    );
}

/// Snapshot, run `command` with the CLI, restore: the work tree is back.
fn round_trip(n: u32, prepare: impl Fn(&Fixture), command: &[&str]) -> Fixture {
    let fixture = project();
    prepare(&fixture);
    let before = worktree_state(&fixture.ws);
    let id = txid(n);
    let quarantine = fixture.quarantine();
    assert!(
        quarantine
            .snapshot_worktree(&fixture.ws, &id, meta())
            .expect("snapshot")
            .sha
            .is_some()
    );
    fixture.git(command);
    assert_ne!(
        worktree_state(&fixture.ws),
        before,
        "{command:?} changed nothing"
    );
    restored_ok(&quarantine.restore_git_items(&fixture.transaction(&id)));
    assert_eq!(worktree_state(&fixture.ws), before, "after {command:?}");
    fixture
}

#[test]
fn checkout_of_a_path_round_trip() {
    round_trip(10, dirty, &["checkout", "--", "README.md", "src"]);
}

#[test]
fn checkout_dot_and_forced_switch_round_trip() {
    round_trip(11, dirty, &["checkout", "."]);
    round_trip(12, dirty, &["checkout", "-f", "main"]);
}

#[test]
fn restore_of_a_path_round_trip() {
    round_trip(13, dirty, &["restore", "README.md", "link", "中文笔记.txt"]);
}

#[test]
fn forced_rm_round_trip_restores_the_content() {
    let fixture = round_trip(
        14,
        |f| f.write("README.md", "edited, then removed\n"),
        &["rm", "-q", "-f", "README.md"],
    );
    assert_eq!(fixture.read("README.md"), "edited, then removed\n");
    // The file is back as content; its index entry is not (like `git stash apply`).
    assert!(
        fixture
            .git(&["status", "--porcelain"])
            .contains("README.md")
    );
}

#[test]
fn a_file_changed_since_is_a_conflict_and_is_kept() {
    let fixture = project();
    dirty(&fixture);
    let quarantine = fixture.quarantine();
    let id = txid(20);
    quarantine
        .snapshot_worktree(&fixture.ws, &id, meta())
        .unwrap();
    fixture.git(&["reset", "-q", "--hard"]);
    fixture.write("README.md", "written after the reset\n");

    let restore = quarantine.restore_git_items(&fixture.transaction(&id));
    assert_eq!(
        restore.conflicts,
        vec![fixture.path("README.md").to_string_lossy().into_owned()]
    );
    assert!(restore.errors.is_empty(), "{restore:?}");
    assert!(
        restore.restored.is_empty(),
        "a partly applied snapshot stays restorable"
    );
    assert_eq!(
        fixture.read("README.md"),
        "written after the reset\n",
        "never overwritten"
    );
    assert_eq!(
        fixture.read("src/lib.rs"),
        "fn lib() { staged(); unstaged(); }\n",
        "the rest was applied"
    );
}

#[test]
fn a_deleted_file_is_not_deleted_again_if_it_changed() {
    let fixture = project();
    remove(&fixture.path("gone.txt"));
    let quarantine = fixture.quarantine();
    let id = txid(21);
    quarantine
        .snapshot_worktree(&fixture.ws, &id, meta())
        .unwrap();
    fixture.git(&["reset", "-q", "--hard"]);
    fixture.write("gone.txt", "a new version\n");
    let restore = quarantine.restore_git_items(&fixture.transaction(&id));
    assert_eq!(
        restore.conflicts,
        vec![fixture.path("gone.txt").to_string_lossy().into_owned()]
    );
    assert_eq!(fixture.read("gone.txt"), "a new version\n");
}

/// The stash list with commit ids, for exact comparisons.
fn stash_list(fixture: &Fixture) -> String {
    fixture.git(&["stash", "list", "--format=%gd %H %gs"])
}

/// A project with three stash entries (one with a message).
fn stashed() -> Fixture {
    let fixture = project();
    for (n, file) in ["README.md", "src/lib.rs", "run.sh"].iter().enumerate() {
        fixture.write(file, &format!("stashed change {n}\n"));
        if n == 1 {
            fixture.git(&["stash", "push", "-q", "-m", "with a message"]);
        } else {
            fixture.git(&["stash", "-q"]);
        }
    }
    fixture
}

#[test]
fn stash_drop_round_trip() {
    for selector in ["stash@{1}", "0", "stash@{2}"] {
        let fixture = stashed();
        let before = stash_list(&fixture);
        let plain_before = fixture.git(&["stash", "list"]);
        let quarantine = fixture.quarantine();
        let id = txid(30);
        let kept = quarantine
            .preserve_refs(
                &fixture.ws,
                &id,
                &RefSubject::StashEntries(vec![selector.to_owned()]),
                meta(),
            )
            .unwrap();
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].subject, Subject::Stash);
        assert_eq!(
            fixture.git(&["rev-parse", &kept[0].refname]).trim(),
            kept[0].sha
        );
        assert_eq!(stash_list(&fixture), before, "preserving changes nothing");

        fixture.git(&["stash", "drop", "-q", selector]);
        assert_ne!(stash_list(&fixture), before);
        let restore = quarantine.restore_git_items(&fixture.transaction(&id));
        restored_ok(&restore);
        assert_eq!(restore.restored, vec![format!("stash:{}", kept[0].sha)]);
        assert_eq!(
            stash_list(&fixture),
            before,
            "{selector}: the entry is back in its place"
        );
        assert_eq!(fixture.git(&["stash", "list"]), plain_before);
        // Already there: nothing changes.
        restored_ok(&quarantine.restore_git_items(&fixture.transaction(&id)));
        assert_eq!(stash_list(&fixture), before);
        // And it still applies.
        fixture.git(&["stash", "apply", "-q", &kept[0].name]);
    }
}

#[test]
fn stash_drop_without_a_selector_keeps_the_newest() {
    let fixture = stashed();
    let before = stash_list(&fixture);
    let quarantine = fixture.quarantine();
    let kept = quarantine
        .preserve_refs(
            &fixture.ws,
            &txid(31),
            &RefSubject::StashEntries(Vec::new()),
            meta(),
        )
        .unwrap();
    assert_eq!(kept[0].name, "stash@{0}");
    fixture.git(&["stash", "drop", "-q"]);
    restored_ok(&quarantine.restore_git_items(&fixture.transaction(&txid(31))));
    assert_eq!(stash_list(&fixture), before);
}

#[test]
fn stash_clear_round_trip() {
    let fixture = stashed();
    let before = stash_list(&fixture);
    let quarantine = fixture.quarantine();
    let id = txid(32);
    let kept = quarantine
        .preserve_refs(&fixture.ws, &id, &RefSubject::AllStashEntries, meta())
        .unwrap();
    assert_eq!(
        kept.iter().map(|k| k.name.as_str()).collect::<Vec<_>>(),
        ["stash@{0}", "stash@{1}", "stash@{2}"]
    );
    fixture.git(&["stash", "clear"]);
    assert!(stash_list(&fixture).is_empty());
    let restore = quarantine.restore_git_items(&fixture.transaction(&id));
    restored_ok(&restore);
    assert_eq!(restore.restored.len(), 3);
    assert_eq!(stash_list(&fixture), before);
    assert!(
        git_output(&fixture.ws, &["fsck", "--no-progress"])
            .status
            .success()
    );
}

#[test]
fn an_unknown_stash_selector_is_an_error() {
    let fixture = stashed();
    let quarantine = fixture.quarantine();
    for selector in ["stash@{3}", "7", "stash@{yesterday}", "HEAD"] {
        let error = quarantine
            .preserve_refs(
                &fixture.ws,
                &txid(33),
                &RefSubject::StashEntries(vec![selector.to_owned()]),
                meta(),
            )
            .unwrap_err();
        assert!(
            matches!(error, RecoveryError::Git(GitError::UnknownRef { .. })),
            "{selector}: {error:?}"
        );
    }
    let empty = project();
    assert!(
        empty
            .quarantine()
            .preserve_refs(
                &empty.ws,
                &txid(34),
                &RefSubject::StashEntries(Vec::new()),
                meta()
            )
            .is_err()
    );
    assert!(
        empty
            .quarantine()
            .preserve_refs(&empty.ws, &txid(35), &RefSubject::AllStashEntries, meta())
            .unwrap()
            .is_empty()
    );
    assert!(
        quarantine
            .manifest()
            .read()
            .unwrap()
            .iter()
            .all(|r| r.txid() != txid(33).as_str()),
        "nothing recorded"
    );
    assert!(
        fixture
            .git(&["for-each-ref", "refs/agent-guard"])
            .is_empty(),
        "no ref left behind"
    );
}

fn branches(fixture: &Fixture) -> String {
    fixture.git(&[
        "for-each-ref",
        "--format=%(refname) %(objectname)",
        "refs/heads",
    ])
}

#[test]
fn branch_delete_round_trip() {
    let fixture = project();
    fixture.git(&["switch", "-q", "-c", "feature/x"]);
    fixture.write("feature.txt", "only on the branch\n");
    fixture.git(&["add", "feature.txt"]);
    fixture.git(&["commit", "-q", "-m", "feature"]);
    fixture.git(&["switch", "-q", "main"]);
    fixture.git(&["branch", "other"]);
    let before = branches(&fixture);
    let quarantine = fixture.quarantine();
    let id = txid(40);
    let names = RefSubject::Branches(vec!["feature/x".to_owned(), "other".to_owned()]);
    let kept = quarantine
        .preserve_refs(&fixture.ws, &id, &names, meta())
        .unwrap();
    assert_eq!(
        kept.iter().map(|k| k.refname.as_str()).collect::<Vec<_>>(),
        [
            format!("refs/agent-guard/branches/{id}/feature/x").as_str(),
            format!("refs/agent-guard/branches/{id}/other").as_str(),
        ]
    );
    fixture.git(&["branch", "-q", "-D", "feature/x", "other"]);
    let restore = quarantine.restore_git_items(&fixture.transaction(&id));
    restored_ok(&restore);
    assert_eq!(restore.restored, ["ref:feature/x", "ref:other"]);
    assert_eq!(branches(&fixture), before);

    // A branch recreated elsewhere in the meantime is a conflict, left alone.
    fixture.git(&["branch", "-q", "-f", "other", "HEAD~1"]);
    let moved = branches(&fixture);
    let restore = quarantine.restore_git_items(&fixture.transaction(&id));
    assert_eq!(restore.conflicts, ["refs/heads/other"]);
    assert_eq!(restore.restored, ["ref:feature/x"]);
    assert_eq!(branches(&fixture), moved);

    // A branch that does not exist has nothing to keep (`git branch -f nope` creates it).
    let kept = quarantine
        .preserve_refs(
            &fixture.ws,
            &txid(41),
            &RefSubject::Branches(vec!["nope".to_owned()]),
            meta(),
        )
        .unwrap();
    assert!(kept.is_empty());
    // A name git cannot have is still an error: what was meant is unknown.
    let error = quarantine
        .preserve_refs(
            &fixture.ws,
            &txid(42),
            &RefSubject::Branches(vec!["bad..name".to_owned()]),
            meta(),
        )
        .unwrap_err();
    assert!(
        matches!(error, RecoveryError::Git(GitError::UnknownRef { .. })),
        "{error:?}"
    );
}

#[test]
fn drop_git_refs_removes_the_private_refs() {
    let fixture = stashed();
    let quarantine = fixture.quarantine();
    quarantine
        .preserve_refs(&fixture.ws, &txid(50), &RefSubject::AllStashEntries, meta())
        .unwrap();
    fixture.write("README.md", "dirty\n");
    quarantine
        .snapshot_worktree(&fixture.ws, &txid(51), meta())
        .unwrap();
    let refs = || fixture.git(&["for-each-ref", "--format=%(refname)", "refs/agent-guard"]);
    assert_eq!(refs().lines().count(), 4);
    assert_eq!(
        quarantine
            .drop_git_refs(&fixture.transaction(&txid(50)))
            .unwrap(),
        3
    );
    assert_eq!(refs().lines().count(), 1);
    assert_eq!(
        quarantine
            .drop_git_refs(&fixture.transaction(&txid(51)))
            .unwrap(),
        1
    );
    assert!(refs().is_empty());
    assert_eq!(
        quarantine
            .drop_git_refs(&fixture.transaction(&txid(51)))
            .unwrap(),
        0,
        "idempotent"
    );
    assert!(
        fixture.git(&["stash", "list"]).lines().count() == 3,
        "the user's stash is untouched"
    );
}

/// Times a snapshot of 20,000 tracked files with 1,000 modified against `git stash create`
/// (run with `cargo test --release --test git -- --ignored --nocapture`).
#[test]
#[ignore = "timing; run explicitly"]
fn snapshot_timing_20k_files() {
    let fixture = Fixture::empty();
    for dir in 0..200 {
        for file in 0..100 {
            fixture.write(
                &format!("d{dir:03}/f{file:03}.txt"),
                &format!("file {dir} {file}\n"),
            );
        }
    }
    fixture.git(&["add", "-A"]);
    fixture.git(&["commit", "-q", "-m", "20k"]);
    // Let the index age past the racy-timestamp window, as in a real work tree.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    fixture.git(&["update-index", "-q", "--refresh"]);
    let modify = |tag: &str| {
        for n in 0..1000 {
            fixture.write(
                &format!("d{:03}/f{:03}.txt", n % 200, n / 200),
                &format!("modified {tag} {n}\n"),
            );
        }
    };
    // Each timed run finds 1,000 files with new content (new objects to write), as a real
    // snapshot would.
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    for round in 0..5 {
        modify(&format!("ours {round}"));
        let started = std::time::Instant::now();
        let snapshot = fixture
            .quarantine()
            .snapshot_worktree(&fixture.ws, &txid(900 + round), meta())
            .unwrap();
        ours.push(started.elapsed());
        let ours_tree = fixture.git(&["rev-parse", &format!("{}^{{tree}}", snapshot.sha.unwrap())]);
        assert_eq!(
            ours_tree,
            fixture.git(&[
                "rev-parse",
                &format!("{}^{{tree}}", fixture.git(&["stash", "create"]).trim())
            ]),
            "same tree as git stash create"
        );
        modify(&format!("theirs {round}"));
        let started = std::time::Instant::now();
        fixture.git(&["stash", "create"]);
        theirs.push(started.elapsed());
    }
    ours.sort();
    theirs.sort();
    println!("snapshot_worktree: median {:?} (all {ours:?})", ours[2]);
    println!("git stash create:  median {:?} (all {theirs:?})", theirs[2]);
}

/// `git branch -M old new` renames over `new`: its old tip was kept, and a forced restore
/// resets `new` to it, keeping what `new` points to now in a new transaction (issue 12,
/// item 2: every ref snapshot must be restorable).
#[test]
fn a_forced_restore_resets_a_renamed_over_branch_and_keeps_its_tip() {
    let fixture = project();
    fixture.git(&["branch", "target"]);
    fixture.git(&["switch", "-q", "-c", "source"]);
    fixture.write("source.txt", "only on source\n");
    fixture.git(&["add", "source.txt"]);
    fixture.git(&["commit", "-q", "-m", "source"]);
    fixture.git(&["switch", "-q", "main"]);
    let target_tip = fixture.git(&["rev-parse", "target"]);
    let source_tip = fixture.git(&["rev-parse", "source"]);
    let quarantine = fixture.quarantine();
    let id = txid(60);
    quarantine
        .preserve_refs(
            &fixture.ws,
            &id,
            &RefSubject::Branches(vec!["target".to_owned(), "source".to_owned()]),
            meta(),
        )
        .unwrap();
    fixture.git(&["branch", "-M", "source", "target"]);
    assert_eq!(fixture.git(&["rev-parse", "target"]), source_tip);

    let restore = |force: bool| {
        let mut ids = (0x70..).map(txid);
        agent_guard_recovery::restore(
            &quarantine,
            id.as_str(),
            &agent_guard_recovery::RestoreOptions {
                force,
                ..Default::default()
            },
            &mut || ids.next().unwrap(),
            &agent_guard_recovery::NoProgress,
        )
    };
    let plain = restore(false);
    assert_eq!(plain.conflicts, ["refs/heads/target"], "{plain:?}");
    assert_eq!(
        fixture.git(&["rev-parse", "source"]),
        source_tip,
        "recreated"
    );
    let forced = restore(true);
    assert!(forced.ok, "{forced:?}");
    assert_eq!(fixture.git(&["rev-parse", "target"]), target_tip);
    assert_eq!(fixture.git(&["rev-parse", "source"]), source_tip);
    assert_eq!(forced.backup_txids.len(), 1, "{forced:?}");
    // The tip that `target` had after the rename is kept and can be put back.
    let backup = agent_guard_types::TxId::parse(&forced.backup_txids[0]).unwrap();
    let kept = fixture.transaction(&backup);
    assert_eq!(kept.snapshots[0].sha.as_deref(), Some(source_tip.trim()));
}
