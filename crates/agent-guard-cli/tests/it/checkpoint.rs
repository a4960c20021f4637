//! Workspace checkpoints end to end (issue 14): `check --enforce`, then the real program,
//! then `undo`; the workspace (every file, link and mode but `.git` and the quarantine) and
//! git's view of it equal what they were, byte for byte.

use std::path::Path;

use agent_guard_testutil::{Fixture, FixtureSpec};

use crate::support::{Entry, TestEnv, die_at, enforce, json, snapshot};

type Tree = std::collections::BTreeMap<Vec<u8>, Entry>;

/// The workspace as a restore must leave it: contents, kinds and modes (a checkpoint
/// rewrites what it restores, so times are not compared), and `git status`.
fn state(env: &TestEnv) -> (Tree, String) {
    (snapshot(env.ws(), &["**"]), git_status(env.ws()))
}

fn git_status(ws: &Path) -> String {
    if !ws.join(".git").exists() {
        return String::new();
    }
    let output = std::process::Command::new("git")
        .args([
            "status",
            "--porcelain",
            "--ignored",
            "--untracked-files=all",
        ])
        .current_dir(ws)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter(|l| !l.contains(".agent-trash"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Runs `command` with `sh -c` in the workspace, the system's programs first on `PATH` (a
/// version manager's shims need the real `HOME`).
fn run(env: &TestEnv, command: &str) {
    let path = format!(
        "/usr/bin:/bin:{}",
        std::env::var("PATH").unwrap_or_default()
    );
    let status = std::process::Command::new("sh")
        .args(["-c", command])
        .current_dir(env.ws())
        .env("HOME", &env.fixture.home)
        .env("PATH", path)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "`{command}` failed: {status:?}");
}

fn write(env: &TestEnv, path: &str, text: &str) {
    let path = env.ws().join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// `check --enforce` takes one checkpoint and lets `command` run; returns its txid.
fn checkpointed(env: &TestEnv, command: &str, code: &str) -> String {
    let (exit, report) = enforce(env, command);
    assert_eq!(exit, 0, "{command}: {report}");
    assert_eq!(report["code"], code, "{command}: {report}");
    let compensations = report["compensations"].as_array().unwrap();
    assert_eq!(compensations.len(), 1, "{command}: {report}");
    assert_eq!(compensations[0]["strategy"], "checkpoint", "{report}");
    compensations[0]["txid"].as_str().unwrap().to_owned()
}

/// The whole round trip: checkpoint, run, see the change, undo, compare. Returns the undo
/// report.
fn round_trip(env: &TestEnv, command: &str, code: &str) -> serde_json::Value {
    let before = state(env);
    let txid = checkpointed(env, command, code);
    run(env, command);
    assert_ne!(state(env), before, "`{command}` must change something");
    let undo = env.ag(&["undo", "--json"]);
    assert!(undo.status.success(), "{command}: {undo:?}");
    let undo = json(&undo);
    assert_eq!(undo["txid"], txid, "{undo}");
    assert_eq!(state(env), before, "`{command}` undone");
    undo
}

/// A script that deletes a directory, overwrites an untracked file, edits a tracked dirty
/// file, deletes `.env` and creates files.
const CLEANUP: &str = r#"import os, shutil
shutil.rmtree("build")
open("notes.txt", "w").write("overwritten\n")
open("src/main.rs", "a").write("// edited by the script\n")
os.remove(".env")
open("new.txt", "w").write("created\n")
os.makedirs("made/deeper")
open("made/deeper/x.txt", "w").write("x\n")
"#;

fn script_workspace(env: &TestEnv) {
    write(env, "tools/cleanup.py", CLEANUP);
    write(env, ".env", "SECRET=1\n");
    // A tracked file with uncommitted changes.
    write(env, "src/main.rs", "fn main() { println!(\"dirty\"); }\n");
}

#[test]
fn a_python_script_is_undone_byte_for_byte() {
    let env = TestEnv::new();
    script_workspace(&env);
    let undo = round_trip(&env, "python3 tools/cleanup.py", "SNAPSHOT_CHECKPOINT");
    // What the script created and changed is kept in a new transaction, never deleted.
    let backups = undo["backup_txids"].as_array().unwrap();
    assert_eq!(backups.len(), 1, "{undo}");
    let backup = env.trash().join(backups[0].as_str().unwrap());
    assert_eq!(
        std::fs::read_to_string(backup.join("new.txt")).unwrap(),
        "created\n"
    );
    assert_eq!(
        std::fs::read_to_string(backup.join("notes.txt")).unwrap(),
        "overwritten\n"
    );
    // Undoing again finds nothing left to undo in that checkpoint.
    let again = env.ag(&["restore", "--json", undo["txid"].as_str().unwrap()]);
    assert!(again.status.success(), "{again:?}");
}

#[test]
fn the_same_script_in_a_workspace_that_is_not_a_git_repository() {
    let mut spec = FixtureSpec::default();
    for (path, content) in [
        ("build/out/app.o", "object\n"),
        ("src/main.rs", "fn main() {}\n"),
        ("notes.txt", "notes\n"),
    ] {
        spec.files.insert(path.into(), content.into());
    }
    let env = TestEnv {
        fixture: Fixture::build(&spec).unwrap(),
    };
    assert!(!env.ws().join(".git").exists());
    script_workspace(&env);
    round_trip(&env, "python3 tools/cleanup.py", "SNAPSHOT_CHECKPOINT");
}

#[test]
fn a_makefile_clean_target_is_undone() {
    let env = TestEnv::new();
    write(&env, "Makefile", "clean:\n\trm -rf build dist\n");
    round_trip(&env, "make clean", "SNAPSHOT_CHECKPOINT");
}

#[test]
fn rm_of_a_glob_in_the_workspace_is_checkpointed_and_undone() {
    let env = TestEnv::new();
    write(&env, "a.log", "a\n");
    write(&env, "b.log", "b\n");
    write(&env, "keep.txt", "keep\n");
    round_trip(&env, "rm *.log", "SNAPSHOT_CHECKPOINT_DELETE");
    assert!(env.ws().join("a.log").exists());
}

#[test]
fn rm_rf_of_a_directory_glob_is_undone() {
    let env = TestEnv::new();
    round_trip(&env, "rm -rf build/*", "SNAPSHOT_CHECKPOINT_DELETE");
    assert!(env.ws().join("build/out/app.o").exists());
}

#[test]
fn find_delete_is_undone() {
    let env = TestEnv::new();
    write(&env, "a.tmp", "a\n");
    write(&env, "src/deep/b.tmp", "b\n");
    round_trip(
        &env,
        "find . -name '*.tmp' -delete",
        "SNAPSHOT_CHECKPOINT_DELETE",
    );
}

/// `find … -print0 | xargs -0 rm` deletes exactly what the find matched (names with spaces
/// and newlines included): checkpointed like `find -delete`, undone byte for byte.
#[test]
fn find_print0_into_xargs_rm_is_undone() {
    let env = TestEnv::new();
    write(&env, "a.tmp", "a\n");
    write(&env, "src/deep/b c.tmp", "spaced\n");
    write(&env, "src/deep/keep.txt", "kept\n");
    round_trip(
        &env,
        "find . -name '*.tmp' -print0 | xargs -0 rm -f",
        "SNAPSHOT_CHECKPOINT_DELETE",
    );
}

#[test]
fn globs_that_can_reach_outside_or_into_git_stay_refused() {
    let env = TestEnv::new();
    for (line, code) in [
        ("rm -rf /tmp/*", "BLOCK_OUT_OF_WORKSPACE"),
        ("rm -rf ../*", "BLOCK_OUT_OF_WORKSPACE"),
        ("rm -rf .*", "BLOCK_WILDCARD"),
        ("rm -rf $DIR/*", "BLOCK_UNDETERMINABLE_EFFECT"),
        ("find . -delete", "BLOCK_UNDETERMINABLE_EFFECT"),
        (
            "find -L . -name '*.tmp' -delete",
            "BLOCK_UNDETERMINABLE_EFFECT",
        ),
        ("find . -name 'ind*' -delete", "BLOCK_UNDETERMINABLE_EFFECT"),
    ] {
        let report = env.check_json(line);
        assert_eq!(report["code"], code, "{line}: {report}");
    }
}

#[test]
fn a_checkpoint_survives_the_users_git_gc() {
    let env = TestEnv::new();
    script_workspace(&env);
    let before = state(&env);
    checkpointed(&env, "python3 tools/cleanup.py", "SNAPSHOT_CHECKPOINT");
    run(&env, "python3 tools/cleanup.py");
    run(&env, "git gc --prune=now --quiet");
    let undo = env.ag(&["undo", "--json"]);
    assert!(undo.status.success(), "{undo:?}");
    assert_eq!(state(&env), before);
}

#[test]
fn path_restores_part_of_a_checkpoint() {
    let env = TestEnv::new();
    script_workspace(&env);
    let before = state(&env);
    let txid = checkpointed(&env, "python3 tools/cleanup.py", "SNAPSHOT_CHECKPOINT");
    run(&env, "python3 tools/cleanup.py");
    let restored = env.ag(&["restore", "--json", &txid, "--path", "build"]);
    assert!(restored.status.success(), "{restored:?}");
    assert!(env.ws().join("build/out/app.o").exists());
    assert!(!env.ws().join(".env").exists(), "outside --path: untouched");
    assert!(
        env.ws().join("new.txt").exists(),
        "outside --path: untouched"
    );
    let rest = env.ag(&["restore", "--json", &txid]);
    assert!(rest.status.success(), "{rest:?}");
    assert_eq!(state(&env), before);
}

#[test]
fn show_lists_the_changes_since_the_checkpoint_and_what_it_did_not_keep() {
    let env = TestEnv::new();
    write(
        &env,
        ".agent-guard.toml",
        "[checkpoint]\nmax_file_bytes = 100\n",
    );
    env.trust_config();
    write(&env, "big.bin", &"x".repeat(500));
    script_workspace(&env);
    let txid = checkpointed(&env, "python3 tools/cleanup.py", "SNAPSHOT_CHECKPOINT");
    run(&env, "python3 tools/cleanup.py");
    let show = env.ag(&["show", "--json", &txid]);
    assert!(show.status.success(), "{show:?}");
    let show = json(&show);
    let snapshot = &show["snapshots"][0];
    assert_eq!(snapshot["subject"], "checkpoint", "{show}");
    let paths: Vec<(&str, &str)> = snapshot["diffstat"]
        .as_array()
        .unwrap()
        .iter()
        .zip(snapshot["changes"].as_array().unwrap())
        .map(|(stat, kind)| (stat["path"].as_str().unwrap(), kind.as_str().unwrap()))
        .collect();
    for expected in [
        (".env", "deleted"),
        ("build/out/app.o", "deleted"),
        ("new.txt", "created"),
        ("notes.txt", "modified"),
        ("src/main.rs", "modified"),
    ] {
        assert!(paths.contains(&expected), "{expected:?} in {paths:?}");
    }
    // The cap (100 bytes here) applies to the repository's state too (`.git/config`, …).
    let big = snapshot["not_kept"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["path"] == "big.bin")
        .unwrap_or_else(|| panic!("big.bin not kept: {show}"));
    assert_eq!(big["reason"], "too-large", "{show}");
    let human = env.ag(&["show", &txid]);
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(
        text.contains("big.bin") && text.contains("not kept"),
        "{text}"
    );
}

#[test]
fn checkpoints_off_lets_programs_run_unprotected_and_no_ops_write_nothing() {
    let env = TestEnv::new();
    let report = env.check_json("ls -la && git status && cat notes.txt | grep n");
    assert_eq!(report["code"], "ALLOW_NOOP", "{report}");
    let (exit, report) = enforce(&env, "ls -la");
    assert_eq!(exit, 0, "{report}");
    assert!(!env.trash().exists(), "the no-op path writes nothing");
    write(
        &env,
        ".agent-guard.toml",
        "[checkpoint]\nmode = \"never\"\n",
    );
    env.trust_config();
    let (exit, report) = enforce(&env, "make clean");
    assert_eq!(exit, 0, "{report}");
    assert_eq!(report["code"], "ALLOW_UNCHECKPOINTED", "{report}");
    assert!(
        !env.trash().join("checkpoints").exists(),
        "nothing was checkpointed"
    );
    assert_eq!(env.check_json("rm *.log")["code"], "BLOCK_WILDCARD");
}

#[test]
fn status_and_gc_account_for_checkpoint_storage() {
    let env = TestEnv::new();
    write(&env, "data.txt", &"d".repeat(4096));
    checkpointed(&env, "make clean", "SNAPSHOT_CHECKPOINT");
    let status = json(&env.ag(&["status", "--json"]));
    assert!(
        status["usage"]["checkpoint_bytes"].as_u64().unwrap() > 0,
        "{status}"
    );
    // Blobs, trees, the meta and the commit, all in packs.
    assert!(
        status["usage"]["checkpoint_objects"].as_u64().unwrap() >= 4,
        "{status}"
    );
    // The checkpoint's transaction weighs what it added: `list`, and gc's size limit.
    let list = json(&env.ag(&["list", "--json"]));
    assert!(
        list["transactions"][0]["bytes"].as_u64().unwrap() >= 4096,
        "{list}"
    );
    let plan = json(&env.ag(&["gc", "--json"]));
    assert!(
        plan["plan"]["total_bytes"].as_u64().unwrap() >= 4096,
        "{plan}"
    );
    env.ag_ok(&["gc", "--execute", "--all", "--now", "--yes", "--json"]);
    let status = json(&env.ag(&["status", "--json"]));
    assert_eq!(status["usage"]["checkpoint_objects"], 0, "{status}");
}

/// `check --enforce` with a fault armed: the process dies at the point.
fn crash(env: &TestEnv, args: &[&str], point: &str) {
    die_at(env.cmd("agent-guard").args(args), point);
}

#[test]
fn a_crash_while_taking_a_checkpoint_loses_nothing() {
    for point in ["checkpoint-after-objects", "checkpoint-after-ref"] {
        let env = TestEnv::new();
        script_workspace(&env);
        let before = state(&env);
        let line = "python3 tools/cleanup.py";
        crash(&env, &["check", "--enforce", "--json", "--", line], point);
        // The guard died before answering, so the command never ran; nothing moved.
        assert_eq!(state(&env), before, "{point}");
        let status = env.ag(&["status", "--json"]);
        assert!(status.status.success(), "{point}: {status:?}");
        // The next checkpoint reuses the objects already written and is undoable.
        round_trip(&env, line, "SNAPSHOT_CHECKPOINT");
    }
}

#[test]
fn a_crash_while_restoring_a_checkpoint_loses_nothing() {
    for point in [
        "after-intent",
        "after-move",
        "checkpoint-restore-after-backup",
        "checkpoint-restore-after-first-write",
    ] {
        let env = TestEnv::new();
        script_workspace(&env);
        let before = state(&env);
        let line = "python3 tools/cleanup.py";
        let txid = checkpointed(&env, line, "SNAPSHOT_CHECKPOINT");
        run(&env, line);
        crash(&env, &["restore", "--json", &txid], point);
        // Reconciliation, then the same restore again, finishes the job.
        let status = env.ag(&["status", "--json"]);
        assert!(status.status.success(), "{point}: {status:?}");
        let restored = env.ag(&["restore", "--json", &txid]);
        assert!(restored.status.success(), "{point}: {restored:?}");
        assert_eq!(state(&env), before, "{point}: restored");
        // What the script left is kept, in the transactions the restores made.
        let list = json(&env.ag(&["list", "--json"]));
        let backups: Vec<&str> = list["transactions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["backup"] == true)
            .filter_map(|t| t["txid"].as_str())
            .collect();
        assert!(!backups.is_empty(), "{point}: {list}");
        let kept = |name: &str| {
            backups
                .iter()
                .any(|b| env.trash().join(b).join(name).exists())
        };
        assert!(kept("new.txt") && kept("notes.txt"), "{point}: {list}");
    }
}

#[test]
fn mode_always_checkpoints_after_the_lines_own_compensation() {
    let env = TestEnv::new();
    write(
        &env,
        ".agent-guard.toml",
        "[checkpoint]\nmode = \"always\"\n",
    );
    let before = state(&env);
    let (exit, report) = enforce(&env, "rm -rf build && touch made.txt");
    assert_eq!(exit, 0, "{report}");
    assert_eq!(report["code"], "RELOCATE_TREE", "{report}");
    let strategies: Vec<&str> = report["compensations"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["strategy"].as_str())
        .collect();
    assert_eq!(strategies, ["relocate", "checkpoint"], "{report}");
    run(&env, "rm -rf build && touch made.txt");
    // One command, one undo: both of its transactions (issue 34).
    let undo = env.ag(&["undo", "--json"]);
    assert!(undo.status.success(), "{undo:?}");
    assert_eq!(state(&env), before);
}

/// `restore --to` puts quarantined files elsewhere; a checkpoint restores into the
/// workspace only, so it is refused with what to do instead, and nothing moves (found by an
/// outside review: it reported success and restored nothing).
#[test]
fn restore_to_another_directory_refuses_a_checkpoint_and_says_what_to_do() {
    let env = TestEnv::new();
    script_workspace(&env);
    let txid = checkpointed(&env, "python3 tools/cleanup.py", "SNAPSHOT_CHECKPOINT");
    run(&env, "python3 tools/cleanup.py");
    let after = state(&env);
    let rescue = env.fixture.root().join("rescue");
    let to = env.ag(&["restore", "--json", &txid, "--to", rescue.to_str().unwrap()]);
    assert!(!to.status.success(), "{to:?}");
    let report = json(&to);
    let error = report["error"].as_str().unwrap();
    assert!(error.contains("without --to"), "{report}");
    assert!(!rescue.exists());
    assert_eq!(state(&env), after, "nothing moved");
    // The checkpoint is still there to undo.
    let undo = env.ag(&["undo", "--json"]);
    assert!(undo.status.success(), "{undo:?}");
}

/// Every directory's permission bits, below the workspace (the quarantine and `.git` left
/// out).
fn dir_modes(ws: &Path) -> Vec<(String, u32)> {
    use std::os::unix::fs::PermissionsExt as _;
    let mut modes = Vec::new();
    let mut pending = vec![ws.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().map(Result::unwrap) {
            let name = entry.file_name();
            if !entry.file_type().unwrap().is_dir() || name == ".git" || name == ".agent-trash" {
                continue;
            }
            let path = entry.path();
            let bits = entry.metadata().unwrap().permissions().mode() & 0o7777;
            modes.push((path.strip_prefix(ws).unwrap().display().to_string(), bits));
            pending.push(path);
        }
    }
    modes.sort();
    modes
}

/// A private directory deleted by a script comes back private, a sticky one sticky, and a
/// script that only `chmod`s a directory is undone too; `show` lists the mode change (found
/// by an outside review: directories came back 0755).
#[test]
fn directory_permissions_are_undone() {
    let env = TestEnv::new();
    write(&env, "private/key.txt", "k\n");
    write(&env, "shared/tmp/x", "x\n");
    write(&env, "open/o.txt", "o\n");
    write(
        &env,
        "tools/go.sh",
        "rm -rf private shared e && chmod 700 open && mkdir made\n",
    );
    run(
        &env,
        "chmod 700 private && chmod 1777 shared/tmp && mkdir -p e && chmod 711 e",
    );
    let (before, modes) = (state(&env), dir_modes(env.ws()));
    checkpointed(&env, "sh tools/go.sh", "SNAPSHOT_CHECKPOINT");
    run(&env, "sh tools/go.sh");
    assert_ne!(dir_modes(env.ws()), modes);
    let show = json(&env.ag(&["show", "@", "--json"]));
    let directories = show["snapshots"][0]["directories"].as_array().unwrap();
    assert!(
        directories.contains(&serde_json::json!(
            { "path": "open", "change": "mode", "mode": "0755", "now": "0700" }
        )),
        "{show}"
    );
    let undo = env.ag(&["undo", "--json"]);
    assert!(undo.status.success(), "{undo:?}");
    assert_eq!(state(&env), before);
    assert_eq!(dir_modes(env.ws()), modes);
}

/// `redo` after undoing a checkpoint puts the command's versions of the files it modified
/// and created back, and keeps what the undo had written in a new transaction (found by an
/// outside review: every modified file was a conflict). What the command deleted is not
/// deleted again (docs/checkpoints.md).
#[test]
fn redo_after_a_checkpoint_undo_puts_the_commands_versions_back() {
    let env = TestEnv::new();
    script_workspace(&env);
    let line = "python3 tools/cleanup.py";
    checkpointed(&env, line, "SNAPSHOT_CHECKPOINT");
    run(&env, line);
    let read = |path: &str| std::fs::read_to_string(env.ws().join(path)).ok();
    let after: Vec<Option<String>> = ["notes.txt", "src/main.rs", "new.txt", "made/deeper/x.txt"]
        .iter()
        .map(|p| read(p))
        .collect();
    let undo = env.ag(&["undo", "--json"]);
    assert!(undo.status.success(), "{undo:?}");
    assert_eq!(read("new.txt"), None);
    let redo = env.ag(&["redo", "--json"]);
    assert!(redo.status.success(), "{redo:?}");
    let redo = json(&redo);
    assert_eq!(redo["conflicts"], serde_json::json!([]), "{redo}");
    let now: Vec<Option<String>> = ["notes.txt", "src/main.rs", "new.txt", "made/deeper/x.txt"]
        .iter()
        .map(|p| read(p))
        .collect();
    assert_eq!(now, after, "the command's versions are back");
    assert_eq!(
        read(".env").as_deref(),
        Some("SECRET=1\n"),
        "deletions are not redone"
    );
    // What the undo had put back is kept, not lost: the redo's own backup holds it.
    let kept: Vec<String> = redo["backup_txids"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|id| {
            std::fs::read_to_string(env.trash().join(id.as_str().unwrap()).join("notes.txt")).ok()
        })
        .collect();
    assert_eq!(kept.len(), 1, "{redo}");
    assert_ne!(
        kept[0], "overwritten\n",
        "the undo's version of notes.txt is kept"
    );
}

/// A repository nested in the workspace: its work-tree files are kept and come back, its
/// `.git` is never kept, and `show` says so rather than dropping it without a word (found
/// by an outside review).
#[test]
fn a_nested_repositorys_git_is_listed_as_not_kept() {
    let env = TestEnv::new();
    write(&env, "vendor/lib/v.txt", "v\n");
    write(&env, "vendor/lib/.git/HEAD", "ref: refs/heads/main\n");
    checkpointed(&env, "make clean", "SNAPSHOT_CHECKPOINT");
    let show = json(&env.ag(&["show", "@", "--json"]));
    let not_kept = show["snapshots"][0]["not_kept"].as_array().unwrap();
    assert!(
        not_kept.contains(&serde_json::json!(
            { "path": "vendor/lib/.git", "size": 0, "reason": "nested-repository" }
        )),
        "{show}"
    );
    run(&env, "rm -rf vendor");
    let undo = env.ag(&["undo", "--json"]);
    assert!(undo.status.success(), "{undo:?}");
    assert_eq!(env.read("vendor/lib/v.txt"), "v\n");
}

/// Checks `command` under `--enforce` (expecting `code`), runs it for real, and undoes it:
/// the workspace and git state must be back byte for byte.
fn undone_for_real(env: &TestEnv, command: &str, code: &str) {
    let before = state(env);
    let (exit, report) = enforce(env, command);
    assert_eq!(exit, 0, "{command}: {report}");
    assert_eq!(report["code"], code, "{command}: {report}");
    run(env, command);
    assert_ne!(state(env), before, "`{command}` must change something");
    let undo = env.ag(&["undo", "--json"]);
    assert!(undo.status.success(), "{command}: {undo:?}");
    assert_eq!(state(env), before, "`{command}` undone");
}

/// The readers and archivers that were `ALLOW_NOOP` and lost what they wrote over (outside
/// reviews): each is now checkpointed or preserved, and undone after really running.
#[test]
fn overwriting_readers_and_archivers_are_undone_for_real() {
    let env = TestEnv::new();
    write(&env, "notes.txt", "precious, uncommitted\n");
    // An archive (outside the workspace) holding another notes.txt.
    let source = env.fixture.root().join("release");
    std::fs::create_dir_all(&source).unwrap();
    std::fs::write(source.join("notes.txt"), "from the archive\n").unwrap();
    let archive = env.fixture.root().join("release.tar");
    let made = std::process::Command::new("tar")
        .arg("cf")
        .arg(&archive)
        .arg("-C")
        .arg(&source)
        .arg("notes.txt")
        .status()
        .unwrap();
    assert!(made.success());
    undone_for_real(
        &env,
        &format!("tar xf {}", archive.display()),
        "SNAPSHOT_CHECKPOINT",
    );
    undone_for_real(
        &env,
        "find . -maxdepth 0 -fprint notes.txt",
        "SNAPSHOT_OVERWRITE",
    );
    undone_for_real(&env, "git diff --output=notes.txt", "SNAPSHOT_OVERWRITE");
    undone_for_real(&env, "git archive -o notes.txt HEAD", "SNAPSHOT_OVERWRITE");
    write(&env, "tools/wipe.sh", "rm -f \"$@\"\n");
    run(&env, "chmod +x tools/wipe.sh");
    undone_for_real(
        &env,
        "git grep -l --untracked -O./tools/wipe.sh precious",
        "SNAPSHOT_CHECKPOINT",
    );
}

/// A checkpoint leaves out regenerable artifacts (`node_modules`, ignored). A program that
/// removes the `.gitignore` that made them so used to have them set aside by its undo, as
/// if they had arrived since: the checkpoint now records what it left out, and undo leaves
/// it where it is.
#[test]
fn undo_leaves_a_regenerable_artifact_alone_when_its_gitignore_went() {
    let env = TestEnv::new();
    write(&env, ".gitignore", "node_modules/\n");
    write(&env, "node_modules/pkg/index.js", "module.exports = 1;\n");
    write(&env, "node_modules/pkg/empty/.keep", "");
    write(
        &env,
        "tools/drop.sh",
        "rm .gitignore\necho made > made.txt\n",
    );
    round_trip(&env, "sh tools/drop.sh", "SNAPSHOT_CHECKPOINT");
    assert_eq!(
        env.read("node_modules/pkg/index.js"),
        "module.exports = 1;\n"
    );
}

/// From an outside review: a link the command puts where a left-out artifact was
/// (`node_modules -> elsewhere`) arrived since the checkpoint: undo sets it aside.
#[test]
fn undo_sets_aside_a_link_put_where_a_left_out_artifact_was() {
    let env = TestEnv::new();
    write(&env, ".gitignore", "node_modules/\n");
    write(&env, "node_modules/pkg/index.js", "module.exports = 1;\n");
    std::fs::create_dir_all(&env.fixture.outside).unwrap();
    let script = format!(
        "rm .gitignore\nrm -rf node_modules\nln -s {} node_modules\n",
        env.fixture.outside.display()
    );
    write(&env, "tools/swap.sh", &script);
    checkpointed(&env, "sh tools/swap.sh", "SNAPSHOT_CHECKPOINT");
    run(&env, "sh tools/swap.sh");
    let undo = env.ag(&["undo", "--json"]);
    assert!(undo.status.success(), "{undo:?}");
    assert_eq!(env.read(".gitignore"), "node_modules/\n");
    assert!(
        env.ws().join("node_modules").symlink_metadata().is_err(),
        "the link the command made is set aside"
    );
}
