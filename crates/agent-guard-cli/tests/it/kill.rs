//! The kill -9 loop (issue 34, point 6): the real `agent-guard` process is aborted at every
//! step of preserve, relocate, move recording, checkpoint, restore, undo and gc
//! (`AGENT_GUARD_FAULT`, a real `abort()` at that step), or killed with a real `SIGKILL` at a
//! random moment of a running `undo`. The next commands must find every byte of the original
//! workspace in place or restorable: the tree is compared byte for byte (contents, modes,
//! symlinks) after recovery, and nothing of the guard's own (a `.agent-guard-partial-*`
//! copy, a `.agent-guard-swap-*` name, a staged checkpoint file) is left in the workspace or
//! kept as if it were the user's.

#![expect(
    clippy::print_stderr,
    reason = "a test says what it skipped, its seed and how many kills landed"
)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::crash::cross_device_trash;
// `agents.rs` reads `json` from here.
pub(crate) use crate::support::json;
use crate::support::{Entry, TestEnv, restorable_txids, run_shell, snapshot};

/// A workspace, its store (on another filesystem when asked) and the tree it started with.
pub(crate) struct Ctx {
    pub(crate) env: TestEnv,
    pub(crate) trash: PathBuf,
    _shm: Option<tempfile::TempDir>,
}

/// The script a checkpoint is taken for: it deletes, rewrites, creates and changes modes.
const SCRIPT: &str = "rm -rf build\necho changed > notes.txt\nmkdir -p gen\necho made > \
                      gen/new.txt\nchmod 600 src/main.rs\nrm -f link\necho more >> dist/bundle.js\n";

impl Ctx {
    /// `None` when a second filesystem was asked for and there is none.
    pub(crate) fn new(cross_device: bool) -> Option<Ctx> {
        let env = TestEnv::new();
        let shm = if cross_device {
            Some(cross_device_trash()?)
        } else {
            None
        };
        let trash = shm
            .as_ref()
            .map_or_else(|| env.trash(), |d| d.path().join("q"));
        let ws = env.ws();
        std::fs::write(ws.join("tool.sh"), SCRIPT).unwrap();
        std::os::unix::fs::symlink("notes.txt", ws.join("link")).unwrap();
        let private = ws.join("build/secret.key");
        std::fs::write(&private, "secret\n").unwrap();
        std::fs::set_permissions(
            &private,
            std::os::unix::fs::PermissionsExt::from_mode(0o600),
        )
        .unwrap();
        let big: Vec<u8> = (0..256 * 1024).map(|i: u32| (i % 253) as u8).collect();
        std::fs::write(ws.join("build/big.bin"), big).unwrap();
        Some(Ctx {
            env,
            trash,
            _shm: shm,
        })
    }

    pub(crate) fn ws(&self) -> &Path {
        self.env.ws()
    }

    /// `agent-guard <args>` with this store.
    pub(crate) fn guard(&self, args: &[&str], fault: Option<&str>) -> Output {
        let mut cmd = self.env.cmd("agent-guard");
        cmd.env("AGENT_GUARD_TRASH", &self.trash).args(args);
        if let Some(point) = fault {
            cmd.env("AGENT_GUARD_FAULT", point);
        }
        cmd.output().unwrap()
    }

    /// `agent-guard <args>` armed at `point`, which it must reach: it dies by a signal.
    fn crash(&self, point: &str, args: &[&str]) {
        let output = self.guard(args, Some(point));
        assert_eq!(
            output.status.code(),
            None,
            "{point}: `{}` must die at the fault point: {output:?}",
            args.join(" ")
        );
    }

    /// `check --enforce` the line, which must be allowed, then runs it.
    pub(crate) fn enforce_and_run(&self, line: &str) {
        let output = self.guard(&["check", "--enforce", "--json", "--", line], None);
        assert_eq!(output.status.code(), Some(0), "`{line}`: {output:?}");
        run_shell(&self.env, line);
    }

    /// `status --json` and `list --json` parse, and the journal is healthy: nothing vanished.
    pub(crate) fn healthy(&self, what: &str) {
        let status = self.guard(&["status", "--json"], None);
        assert!(status.status.success(), "{what}: {status:?}");
        let status = json(&status);
        assert_eq!(
            status["reconciled_now"]["vanished"], 0,
            "{what}: nothing vanished: {status}"
        );
        let list = self.guard(&["list", "--json", "--limit", "0"], None);
        assert!(list.status.success(), "{what}: {list:?}");
        assert!(json(&list)["transactions"].is_array(), "{what}");
    }

    /// The restorable transactions that are no restore's backup, newest first.
    pub(crate) fn restorable(&self) -> Vec<String> {
        restorable_txids(&json(
            &self.guard(&["list", "--json", "--limit", "0"], None),
        ))
    }

    /// `restore --force` every restorable transaction, newest first.
    pub(crate) fn restore_all(&self, what: &str) {
        for txid in self.restorable() {
            let output = self.guard(&["restore", "--force", "--json", &txid], None);
            assert!(
                output.status.success(),
                "{what}: restore {txid}: {output:?}"
            );
        }
    }

    /// No name of the guard's own is left in the store's transactions: what an interrupted
    /// step left was finished or cleaned, never kept as the user's.
    pub(crate) fn no_own_leftovers(&self, what: &str) {
        let Ok(entries) = std::fs::read_dir(&self.trash) else {
            return;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if !name.starts_with(|c: char| c.is_ascii_digit()) || !path.is_dir() {
                continue;
            }
            for kept in crate::support::tree(&path) {
                assert!(
                    !(kept.contains("agent-guard-partial")
                        || kept.contains("agent-guard-swap")
                        || kept.contains("agent-guard-restore")),
                    "{what}: the guard's own {kept} was kept in {name} as the user's"
                );
            }
        }
    }
}

type Tree = BTreeMap<Vec<u8>, Entry>;

/// Asserts that `now` is `before`, naming the first difference.
pub(crate) fn same_tree(before: &Tree, now: &Tree, what: &str) {
    for (path, entry) in before {
        let path_text = String::from_utf8_lossy(path);
        assert_eq!(now.get(path), Some(entry), "{what}: {path_text} differs");
    }
    for path in now.keys() {
        assert!(
            before.contains_key(path),
            "{what}: {} was not there",
            String::from_utf8_lossy(path)
        );
    }
}

/// A crash in the guard's answer to `line`: the line never ran (the guard never answered).
/// What the crash left is reconciled by the next command, what it had taken away comes back
/// with `restore`, and the next full round (check, run, undo) gives the original back.
fn crash_before(point: &str, line: &str, cross_device: bool) {
    let Some(ctx) = Ctx::new(cross_device) else {
        eprintln!("skipping {point}: no second filesystem");
        return;
    };
    let what = format!("{point} in `{line}`");
    // A checkpoint restore rewrites files (new times); everything else keeps them.
    let times: &[&str] = if line.contains("tool.sh") {
        &["**"]
    } else {
        &["*"]
    };
    let before = snapshot(ctx.ws(), times);
    ctx.crash(point, &["check", "--enforce", "--json", "--", line]);
    ctx.healthy(&what);
    ctx.restore_all(&what);
    same_tree(&before, &snapshot(ctx.ws(), times), &what);
    ctx.no_own_leftovers(&what);
    // The next round works as if nothing had happened.
    ctx.enforce_and_run(line);
    let undo = ctx.guard(&["undo", "--json"], None);
    assert!(undo.status.success(), "{what}: undo: {undo:?}");
    same_tree(&before, &snapshot(ctx.ws(), times), &what);
}

/// A crash while `undo` puts back what `line` did: the next `undo` resumes and finishes it,
/// byte for byte, and keeps nothing of the guard's own as the user's.
fn crash_undo(point: &str, line: &str, cross_device: bool) {
    let Some(ctx) = Ctx::new(cross_device) else {
        eprintln!("skipping {point}: no second filesystem");
        return;
    };
    let what = format!("{point} in the undo of `{line}`");
    let times: &[&str] = if line.contains("tool.sh") {
        &["**"]
    } else {
        &["*"]
    };
    let before = snapshot(ctx.ws(), times);
    ctx.enforce_and_run(line);
    ctx.crash(point, &["undo", "--json"]);
    ctx.healthy(&what);
    let undo = ctx.guard(&["undo", "--json"], None);
    assert!(undo.status.success(), "{what}: the undo resumes: {undo:?}");
    let report = json(&undo);
    assert!(
        report["conflicts"].as_array().is_none_or(Vec::is_empty),
        "{what}: nothing of its own is in its way: {report}"
    );
    same_tree(&before, &snapshot(ctx.ws(), times), &what);
    ctx.no_own_leftovers(&what);
    ctx.healthy(&what);
    // The interrupted undo and its resumption are one undo: `redo` then does what it does
    // after an undo that was never interrupted (the same line, in a fresh workspace).
    let redo = ctx.guard(&["redo", "--json"], None);
    let twin = Ctx::new(cross_device).unwrap();
    twin.enforce_and_run(line);
    let undone = twin.guard(&["undo", "--json"], None);
    assert!(
        undone.status.success(),
        "{what}: the twin's undo: {undone:?}"
    );
    let twin_redo = twin.guard(&["redo", "--json"], None);
    assert_eq!(
        redo.status.code(),
        twin_redo.status.code(),
        "{what}: redo after the resumed undo: {redo:?}\nafter an uninterrupted one: {twin_redo:?}"
    );
    // Content, kinds and modes ("**": two fixtures' times differ).
    same_tree(
        &snapshot(twin.ws(), &["**"]),
        &snapshot(ctx.ws(), &["**"]),
        &format!("{what}, redone"),
    );
    ctx.healthy(&what);
}

/// The steps of a relocation (`rm -rf build`), on the same filesystem and across.
#[test]
fn kill_at_every_step_of_a_relocation() {
    for point in ["after-intent", "after-move", "before-done"] {
        crash_before(point, "rm -rf build", false);
    }
    for point in ["during-copy", "during-removal", "after-move"] {
        crash_before(point, "rm -rf build", true);
    }
}

/// The steps of keeping a version before an overwrite (`echo new > notes.txt`).
#[test]
fn kill_at_every_step_of_a_preservation() {
    for point in [
        "after-intent",
        "preserve-after-copy",
        "after-move",
        "before-done",
    ] {
        crash_before(point, "echo new > notes.txt", false);
    }
    crash_before("preserve-after-copy", "echo new > notes.txt", true);
}

/// The steps of recording a line's moves, and of keeping the file a move replaces.
#[test]
fn kill_at_every_step_of_recording_a_move() {
    crash_before("move-after-records", "mv notes.txt dist/", false);
    crash_before("move-after-records", "mv build out", false);
    crash_before("preserve-after-copy", "mv notes.txt dist/bundle.js", false);
    crash_before("after-move", "mv notes.txt dist/bundle.js", false);
}

/// The steps of a checkpoint before a script.
#[test]
fn kill_at_every_step_of_a_checkpoint() {
    for point in ["checkpoint-after-objects", "checkpoint-after-ref"] {
        crash_before(point, "sh tool.sh", false);
    }
}

/// The steps of a restore of a relocation: across filesystems it copies back, verifies,
/// renames into place and removes the quarantine's copy.
#[test]
fn kill_at_every_step_of_restoring_a_relocation() {
    for point in ["during-copy", "restore-after-copy-back", "during-removal"] {
        crash_undo(point, "rm -rf build", true);
    }
}

/// The steps of putting back a kept version (the restore keeps what the command left first).
#[test]
fn kill_at_every_step_of_restoring_a_kept_version() {
    for point in ["after-intent", "preserve-after-copy", "after-move"] {
        crash_undo(point, "echo new > notes.txt", false);
    }
}

/// The steps of a checkpoint's undo, with the store on the workspace's filesystem and on
/// another one (where files are staged beside their targets).
#[test]
fn kill_at_every_step_of_a_checkpoint_undo() {
    for point in [
        "after-intent",
        "checkpoint-restore-after-backup",
        "checkpoint-restore-after-first-write",
    ] {
        crash_undo(point, "sh tool.sh", false);
    }
    crash_undo("checkpoint-restore-after-first-write", "sh tool.sh", true);
}

/// The steps of a move's undo (sources staged at `.agent-guard-swap-<txid>-<n>`).
#[test]
fn kill_at_every_step_of_a_move_undo() {
    for point in ["undo-move-after-stage", "undo-move-after-aside"] {
        crash_undo(point, "mv notes.txt dist/", false);
        crash_undo(point, "mv build out", false);
        crash_undo(point, "mv notes.txt dist/bundle.js", false);
        // The source's name taken again after the move: the undo sets that file aside.
        crash_undo(point, "mv notes.txt dist/ && echo other > notes.txt", false);
        crash_undo(
            point,
            "mv build out && mkdir build && echo x > build/new",
            false,
        );
    }
}

/// gc killed after a purge, before its tombstone: the next gc finishes it, and what gc was
/// not asked to purge is whole.
#[test]
fn kill_gc_before_its_tombstone() {
    let ctx = Ctx::new(false).unwrap();
    let before = snapshot(ctx.ws(), &["*"]);
    let old = ctx.env.ag_with(
        "AGENT_GUARD_NOW",
        "2020-01-01T00:00:00Z",
        &["safe-delete", "--json", "build"],
    );
    assert!(old.status.success(), "{old:?}");
    ctx.enforce_and_run("rm -rf dist");
    ctx.crash(
        "gc-before-tombstone",
        &["gc", "--execute", "--all-eligible", "--json"],
    );
    ctx.healthy("gc");
    let again = ctx.guard(&["gc", "--execute", "--all-eligible", "--json"], None);
    assert!(again.status.success(), "the next gc finishes: {again:?}");
    let list = json(&ctx.guard(&["list", "--json", "--limit", "0"], None));
    let states: Vec<(String, String)> = list["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["first"].to_string(), t["state"].to_string()))
        .collect();
    assert!(
        states.iter().all(|(first, _)| !first.contains("build")),
        "the old transaction is purged for good: {list}"
    );
    ctx.restore_all("gc");
    let mut expected = before;
    expected.retain(|path, _| !path.starts_with(b"build"));
    same_tree(&expected, &snapshot(ctx.ws(), &["*"]), "gc");
}

/// A small xorshift generator: the kill moments need no quality, only a printed seed.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn seeded() -> Rng {
        let seed: u64 = std::env::var("AGENT_GUARD_TEST_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .subsec_nanos()
                    .into()
            });
        eprintln!("AGENT_GUARD_TEST_SEED={seed}");
        Rng(seed | 1)
    }

    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

/// A real `SIGKILL` at a random moment of a running `undo`, again and again, until an undo
/// runs to its end: the tree is then the original, byte for byte.
fn sigkill_undo(line: &str, cross_device: bool, rounds: usize, rng: &mut Rng) {
    let Some(ctx) = Ctx::new(cross_device) else {
        eprintln!("skipping: no second filesystem");
        return;
    };
    // Enough files that an undo takes a while to put back.
    for i in 0..200 {
        ctx.env
            .write(format!("build/f{i:03}.txt"), format!("{i}\n"));
    }
    let times: &[&str] = if line.contains("tool.sh") {
        &["**"]
    } else {
        &["*"]
    };
    let before = snapshot(ctx.ws(), times);
    ctx.enforce_and_run(line);
    let binary = assert_cmd::cargo::cargo_bin!("agent-guard");
    let mut killed = 0;
    for round in 0..rounds {
        let mut child = ctx
            .env
            .std_cmd(binary)
            .env("AGENT_GUARD_TRASH", &ctx.trash)
            .args(["undo", "--json"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Up to 25 ms: from before the store is opened to well into the copying back.
        std::thread::sleep(std::time::Duration::from_micros(rng.below(25_000)));
        let _ = child.kill();
        let status = child.wait().unwrap();
        if status.code().is_none() {
            killed += 1;
        }
        ctx.healthy(&format!("round {round} of `{line}`"));
    }
    // An undo that finished before the kill took the transaction; the next one would undo
    // something else, so resume only while it is still undone partway.
    let list = json(&ctx.guard(&["list", "--json", "--limit", "0"], None));
    let pending = list["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["state"] == "RESTORABLE" && t["backup"] != true);
    if pending {
        let undo = ctx.guard(&["undo", "--json"], None);
        assert!(
            undo.status.success(),
            "`{line}`: the undo resumes: {undo:?}"
        );
    }
    eprintln!("`{line}`: {killed} of {rounds} undos killed");
    same_tree(&before, &snapshot(ctx.ws(), times), line);
    ctx.no_own_leftovers(line);
}

#[test]
fn sigkill_during_undo_at_random_moments() {
    let mut rng = Rng::seeded();
    sigkill_undo("rm -rf build", true, 3, &mut rng);
    sigkill_undo("sh tool.sh", false, 3, &mut rng);
}

#[test]
#[ignore = "heavy: many kills (AGENT_GUARD_KILL_ROUNDS, default 25)"]
fn sigkill_during_undo_at_random_moments_heavy() {
    let rounds = std::env::var("AGENT_GUARD_KILL_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(25);
    let mut rng = Rng::seeded();
    for cross_device in [false, true] {
        sigkill_undo("rm -rf build", cross_device, rounds, &mut rng);
        sigkill_undo("sh tool.sh", cross_device, rounds, &mut rng);
        sigkill_undo("mv build out", cross_device, rounds, &mut rng);
    }
}
