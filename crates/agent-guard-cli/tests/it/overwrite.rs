//! Issue 11 end to end: `check --enforce` on a command that overwrites or consumes files →
//! the real command via `sh -c` → `restore` → the tree is what it was: content, mode and,
//! for a file rewritten in place, its inode (restore writes the old bytes back into it).

use std::os::unix::fs::MetadataExt as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

use crate::support::{TestEnv, enforce, json, run_shell, snapshot, txids};

/// A workspace with a committed file made dirty, plain files, an executable, a symlink
/// inside and one leading outside.
fn prepare() -> TestEnv {
    let env = TestEnv::new();
    let ws = env.ws();
    std::fs::write(ws.join("report.txt"), "report body\n").unwrap();
    std::fs::write(ws.join("tool.sh"), "#!/bin/sh\necho tool\n").unwrap();
    std::fs::set_permissions(ws.join("tool.sh"), std::fs::Permissions::from_mode(0o750)).unwrap();
    std::fs::set_permissions(ws.join("notes.txt"), std::fs::Permissions::from_mode(0o640)).unwrap();
    // src/main.rs is committed; this edit exists nowhere else.
    std::fs::write(
        ws.join("src/main.rs"),
        "fn main() { println!(\"dirty\"); }\n",
    )
    .unwrap();
    std::os::unix::fs::symlink("notes.txt", ws.join("link-in")).unwrap();
    std::fs::write(env.fixture.outside.join("target.txt"), "outside").unwrap();
    std::os::unix::fs::symlink(env.fixture.outside.join("target.txt"), ws.join("link-out"))
        .unwrap();
    env
}

fn inode(path: &Path) -> u64 {
    std::fs::symlink_metadata(path).unwrap().ino()
}

/// What a round trip checks besides the whole tree.
struct Expect<'a> {
    code: &'a str,
    /// Files rewritten in place: their inode must survive the command and the restore.
    in_place: &'a [&'a str],
    /// New files the command leaves behind (a compressor's output): not part of the
    /// comparison; the restore keeps them.
    created: &'a [&'a str],
}

fn round_trip(command: &str, expect: &Expect<'_>) {
    let env = prepare();
    let ws = env.ws().to_owned();
    let before = snapshot(&ws, &["**"]);
    let inodes: Vec<u64> = expect.in_place.iter().map(|f| inode(&ws.join(f))).collect();

    let (exit, report) = enforce(&env, command);
    assert_eq!(exit, 0, "{command}: {report}");
    assert_eq!(report["decision"], "ALLOW", "{command}: {report}");
    assert_eq!(report["code"], expect.code, "{command}: {report}");
    let ids = txids(&report);
    assert_eq!(ids.len(), 1, "{command}: one transaction: {report}");

    run_shell(&env, command);
    let changed = snapshot(&ws, &["**"]);
    assert_ne!(changed, before, "{command}: the command changed nothing");
    for (file, ino) in expect.in_place.iter().zip(&inodes) {
        assert_eq!(
            inode(&ws.join(file)),
            *ino,
            "{command}: {file} was rewritten in place"
        );
    }

    let restored = env
        .cmd("agent-guard")
        .args(["restore", "--json", &ids[0]])
        .output()
        .unwrap();
    assert!(restored.status.success(), "{command}: {restored:?}");
    let mut after = snapshot(&ws, &["**"]);
    for file in expect.created {
        assert!(
            after.remove(file.as_bytes()).is_some(),
            "{command}: {file} was created"
        );
    }
    assert_eq!(before, after, "{command}: the tree differs after restore");
    for (file, ino) in expect.in_place.iter().zip(&inodes) {
        assert_eq!(
            inode(&ws.join(file)),
            *ino,
            "{command}: restore writes {file} back into the same inode"
        );
    }
    assert_eq!(
        std::fs::read(env.fixture.outside.join("target.txt")).unwrap(),
        b"outside"
    );
}

const IN_PLACE: Expect<'static> = Expect {
    code: "SNAPSHOT_OVERWRITE",
    in_place: &["notes.txt"],
    created: &[],
};

#[test]
fn a_redirection_onto_a_dirty_tracked_file() {
    round_trip(
        "echo reset > src/main.rs",
        &Expect {
            in_place: &["src/main.rs"],
            ..IN_PLACE
        },
    );
}

#[test]
fn truncate() {
    round_trip("truncate -s 0 notes.txt", &IN_PLACE);
}

#[test]
fn cp_onto_a_file() {
    round_trip("cp report.txt notes.txt", &IN_PLACE);
}

#[test]
fn cp_onto_an_executable_keeps_its_mode() {
    round_trip(
        "cp report.txt tool.sh",
        &Expect {
            in_place: &["tool.sh"],
            ..IN_PLACE
        },
    );
}

#[test]
fn mv_onto_a_file() {
    // Issue 34: a move undoes as a move. The overwritten file comes back, and so does the
    // moved source, at its own name.
    let env = prepare();
    let ws = env.ws().to_owned();
    let before = snapshot(&ws, &["*"]);
    let (exit, report) = enforce(&env, "mv report.txt notes.txt");
    assert_eq!(
        (exit, report["code"].as_str()),
        (0, Some("SNAPSHOT_MOVE")),
        "{report}"
    );
    run_shell(&env, "mv report.txt notes.txt");
    assert_eq!(
        std::fs::read(ws.join("notes.txt")).unwrap(),
        b"report body\n"
    );
    let ids = txids(&report);
    env.cmd("agent-guard")
        .args(["restore", &ids[0]])
        .assert()
        .success();
    assert_eq!(snapshot(&ws, &["*"]), before, "both files are back");
}

#[test]
fn sed_in_place() {
    // sed renames a new file over notes.txt: its inode is sed's; content and mode return.
    round_trip(
        "sed -i 's/notes/NOTES/' notes.txt",
        &Expect {
            in_place: &[],
            ..IN_PLACE
        },
    );
}

#[test]
fn tee() {
    round_trip("echo replaced | tee notes.txt", &IN_PLACE);
}

#[test]
fn dd_of() {
    round_trip("dd if=/dev/zero of=notes.txt bs=1 count=3", &IN_PLACE);
}

#[test]
fn gzip_consumes_its_input() {
    round_trip(
        "gzip notes.txt",
        &Expect {
            code: "SNAPSHOT_CONSUMED_INPUT",
            in_place: &[],
            created: &["notes.txt.gz"],
        },
    );
}

#[test]
fn tar_remove_files_consumes_its_inputs() {
    round_trip(
        "tar --remove-files --no-recursion -cf notes.tar notes.txt report.txt",
        &Expect {
            code: "SNAPSHOT_CONSUMED_INPUT",
            in_place: &[],
            created: &["notes.tar"],
        },
    );
}

#[test]
fn tar_remove_files_of_what_may_be_a_tree_is_refused() {
    let env = prepare();
    let before = snapshot(env.ws(), &[""]);
    let (exit, report) = enforce(&env, "tar --remove-files -cf notes.tar notes.txt");
    assert_eq!(exit, 2, "{report}");
    assert_eq!(report["code"], "BLOCK_UNDETERMINABLE_EFFECT");
    assert_eq!(snapshot(env.ws(), &[""]), before);
}

#[test]
fn a_write_through_a_symlink_inside_the_workspace() {
    round_trip("echo replaced > link-in", &IN_PLACE);
}

#[test]
fn a_new_file_needs_nothing() {
    let env = prepare();
    let (exit, report) = enforce(&env, "cat > new.txt <<'EOF'\nhello\nEOF");
    assert_eq!(exit, 0, "{report}");
    assert_eq!(report["code"], "ALLOW_NOOP");
    assert!(txids(&report).is_empty(), "{report}");
}

#[test]
fn a_write_through_a_symlink_leading_outside_is_refused() {
    let env = prepare();
    let (exit, report) = enforce(&env, "echo x > link-out");
    assert_eq!(exit, 2, "{report}");
    assert_eq!(report["code"], "BLOCK_OUT_OF_WORKSPACE");
}

#[test]
fn a_crash_between_the_intent_and_the_copy_loses_nothing() {
    let env = prepare();
    let ws = env.ws().to_owned();
    let before = snapshot(&ws, &["**"]);
    let ino = inode(&ws.join("notes.txt"));
    let crashed = env.ag_with(
        "AGENT_GUARD_FAULT",
        "after-intent",
        &[
            "check",
            "--enforce",
            "--json",
            "--",
            "echo reset > notes.txt",
        ],
    );
    assert_eq!(
        crashed.status.code(),
        None,
        "the process dies right after the durable intent: {crashed:?}"
    );
    // The check never answered, so the harness never ran the command: the file is as it was.
    assert_eq!(snapshot(&ws, &["**"]), before);
    assert_eq!(inode(&ws.join("notes.txt")), ino);

    let status = env.ag_ok(&["status", "--json"]);
    let status = json(&status);
    let now = &status["reconciled_now"];
    let resolved = ["relocated", "not_moved", "both_kept"]
        .iter()
        .map(|k| now[k].as_u64().unwrap())
        .sum::<u64>();
    assert_eq!(
        resolved, 1,
        "the interrupted preservation is reconciled: {status}"
    );
    assert_eq!(now["vanished"], 0, "nothing is lost: {status}");
    assert_eq!(
        snapshot(&ws, &["**"]),
        before,
        "reconciling touches nothing"
    );

    // The next check keeps the old version, and it comes back after the command ran.
    round_trip_in(&env, "echo reset > notes.txt", &before);
    assert_eq!(inode(&ws.join("notes.txt")), ino);
}

/// Enforces, runs and restores `command` in an existing environment; the tree must equal
/// `before` afterwards.
fn round_trip_in(
    env: &TestEnv,
    command: &str,
    before: &std::collections::BTreeMap<Vec<u8>, crate::support::Entry>,
) {
    let (exit, report) = enforce(env, command);
    assert_eq!(exit, 0, "{report}");
    let ids = txids(&report);
    assert_eq!(ids.len(), 1, "{report}");
    run_shell(env, command);
    env.cmd("agent-guard")
        .args(["restore", &ids[0]])
        .assert()
        .success();
    assert_eq!(&snapshot(env.ws(), &["**"]), before);
}

/// `rsync -a --delete` overwrites and deletes below its destination, decided while it runs:
/// confined there, a checkpoint keeps it, and restore brings the destination back — the
/// deleted file, the overwritten one, and the copied ones moved away (issue 11 with issue 14).
#[test]
fn rsync_delete_is_checkpointed_and_restored() {
    let env = prepare();
    let ws = env.ws().to_owned();
    std::fs::create_dir_all(ws.join("mirror/sub")).unwrap();
    std::fs::write(ws.join("mirror/stale.txt"), "only the mirror has this\n").unwrap();
    std::fs::write(ws.join("mirror/main.rs"), "an older copy\n").unwrap();
    std::fs::write(ws.join("mirror/sub/deep.txt"), "deep\n").unwrap();
    let before = snapshot(&ws, &["**"]);
    let command = "rsync -a --delete src/ mirror/";
    let (exit, report) = enforce(&env, command);
    assert_eq!(exit, 0, "{report}");
    assert_eq!(report["code"], "SNAPSHOT_CHECKPOINT_DELETE", "{report}");
    let ids = txids(&report);
    assert_eq!(ids.len(), 1, "{report}");
    run_shell(&env, command);
    assert!(!ws.join("mirror/stale.txt").exists(), "rsync deleted it");
    assert!(!ws.join("mirror/sub").exists(), "rsync deleted the tree");
    env.cmd("agent-guard")
        .args(["restore", &ids[0]])
        .assert()
        .success();
    assert_eq!(snapshot(&ws, &["**"]), before, "{command}: restored");
}

/// An append loses nothing, but one into git metadata or the quarantine is tampering: it is
/// refused before it runs, whichever tool appends and however the path is reached (a
/// symlink inside the workspace that leads into `.git` too).
#[test]
fn appends_into_git_metadata_or_the_quarantine_are_refused() {
    let env = prepare();
    let ws = env.ws().to_owned();
    // A first guarded command creates the quarantine and its audit log.
    let (exit, report) = enforce(&env, "rm report.txt");
    assert_eq!(exit, 0, "{report}");
    std::os::unix::fs::symlink(".git/config", ws.join("cfg")).unwrap();
    let config = std::fs::read(ws.join(".git/config")).unwrap();
    let audit = std::fs::read(env.trash().join("audit.jsonl")).unwrap();
    let store = env.trash().display().to_string();
    for command in [
        "echo '[core] fsmonitor = ./x' >> .git/config".to_owned(),
        "printf x | tee -a .git/config".to_owned(),
        "echo x 2>> .git/config".to_owned(),
        "echo x >> cfg".to_owned(),
        format!("echo '{{}}' >> {store}/audit.jsonl"),
        format!("dd if=notes.txt of={store}/audit.jsonl oflag=append conv=notrunc"),
    ] {
        let command = command.as_str();
        let (exit, report) = enforce(&env, command);
        assert_eq!(exit, 2, "{command}: {report}");
        assert_eq!(
            report["code"], "BLOCK_PROTECTED_PATH",
            "{command}: {report}"
        );
    }
    assert_eq!(std::fs::read(ws.join(".git/config")).unwrap(), config);
    let now = std::fs::read(env.trash().join("audit.jsonl")).unwrap();
    assert!(
        now.starts_with(&audit),
        "the refusals are logged after what was there"
    );
}

/// An append anywhere else is allowed with nothing to keep: the real command runs and the
/// file holds the old bytes followed by the new ones.
#[test]
fn an_append_elsewhere_runs_and_keeps_nothing() {
    let env = prepare();
    let ws = env.ws().to_owned();
    let old = std::fs::read(ws.join("notes.txt")).unwrap();
    for command in [
        "echo more >> notes.txt",
        "echo more | tee -a notes.txt >/dev/null",
    ] {
        let (exit, report) = enforce(&env, command);
        assert_eq!(exit, 0, "{command}: {report}");
        assert_eq!(report["code"], "ALLOW_NOOP", "{command}: {report}");
        assert!(txids(&report).is_empty(), "{command}: {report}");
        run_shell(&env, command);
    }
    let mut expected = old;
    expected.extend_from_slice(b"more\nmore\n");
    assert_eq!(std::fs::read(ws.join("notes.txt")).unwrap(), expected);
}
