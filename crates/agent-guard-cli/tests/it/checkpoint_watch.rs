//! The checkpoint watcher end to end: the first checkpoint starts it in the background, the
//! next ones ask it instead of walking the workspace, and what the real program then
//! destroys is still undone byte for byte. It goes when the workspace goes, and never
//! starts when `AGENT_GUARD_CHECKPOINT_WATCH=0`.

use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::support::{TestEnv, enforce, json, run_shell, snapshot, txids};

fn socket(env: &TestEnv) -> PathBuf {
    env.trash().join("watch/sock")
}

/// Waits until `ready` holds, for at most ten seconds.
fn wait_for(what: &str, ready: impl Fn() -> bool) {
    let started = Instant::now();
    while !ready() {
        assert!(started.elapsed() < Duration::from_secs(10), "{what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The checkpoint record of `txid` in the manifest: how many files it kept and hashed.
fn kept_and_hashed(env: &TestEnv, txid: &str) -> (u64, u64) {
    let manifest = std::fs::read_to_string(env.trash().join("manifest.jsonl")).unwrap();
    let record: serde_json::Value = manifest
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|r| r["txid"] == txid && r["meta"]["strategy"] == "checkpoint")
        .unwrap_or_else(|| panic!("no checkpoint record for {txid}"));
    (
        record["meta"]["checkpoint"]["files"].as_u64().unwrap(),
        record["meta"]["checkpoint"]["hashed"].as_u64().unwrap(),
    )
}

fn write(ws: &Path, path: &str, text: &str) {
    let path = ws.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The process ids of the watchers of `ws`.
fn watchers(ws: &Path) -> Vec<u32> {
    let needle = format!("__checkpoint-watch\0{}\0", ws.display());
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains(&needle))
        })
        .collect()
}

const SCRIPT: &str = r##"import os, shutil
shutil.rmtree("lib/old")
open("notes.txt", "w").write("overwritten\n")
open("lib/a/m0.py", "a").write("# edited\n")
os.remove("lib/b/m3.py")
os.rename("lib/c", "lib/c-moved")
os.makedirs("made")
open("made/x.txt", "w").write("x\n")
"##;

#[test]
fn with_a_watcher_a_scripts_changes_are_still_undone_byte_for_byte() {
    let env = TestEnv::new();
    let ws = env.ws().to_owned();
    for dir in ["a", "b", "c", "old"] {
        for i in 0..25 {
            write(
                &ws,
                &format!("lib/{dir}/m{i}.py"),
                &format!("# {dir} {i}\n"),
            );
        }
    }
    write(&ws, "tools/cleanup.py", SCRIPT);
    // The first checkpoint finds no watcher, walks, and starts one.
    let (exit, report) = enforce(&env, "python3 tools/first.py");
    assert_eq!(exit, 0, "{report}");
    wait_for("a watcher listens", || {
        UnixStream::connect(socket(&env)).is_ok()
    });
    assert_eq!(watchers(&ws).len(), 1, "one watcher for the workspace");
    // Changes between two commands: heard, not walked for.
    write(&ws, "lib/a/m1.py", "# changed between commands\n");
    let before = snapshot(&ws, &["**"]);
    let (exit, report) = enforce(&env, "python3 tools/cleanup.py");
    assert_eq!(exit, 0, "{report}");
    let ids = txids(&report);
    assert_eq!(ids.len(), 1, "{report}");
    let (files, hashed) = kept_and_hashed(&env, &ids[0]);
    assert!(files > 100, "{files} kept");
    assert!(
        hashed <= 2,
        "only what the watcher heard is read: {hashed} hashed"
    );
    run_shell(&env, "python3 tools/cleanup.py");
    assert_ne!(
        snapshot(&ws, &["**"]),
        before,
        "the script changed the workspace"
    );
    env.ag_ok(&["undo", "--json"]);
    assert_eq!(snapshot(&ws, &["**"]), before, "undone byte for byte");
    // What the undo wrote back is heard and read once; after that, nothing changed, and
    // the next checkpoint is the last one with nothing hashed.
    let (_, report) = enforce(&env, "python3 tools/first.py");
    let (_, hashed) = kept_and_hashed(&env, &txids(&report)[0]);
    assert!((1..=60).contains(&hashed), "{hashed} hashed after the undo");
    let (_, report) = enforce(&env, "python3 tools/first.py");
    let (_, hashed) = kept_and_hashed(&env, &txids(&report)[0]);
    assert_eq!(hashed, 0, "nothing changed since the last checkpoint");
    // The watcher goes with the workspace.
    let pids = watchers(&ws);
    drop(env);
    wait_for("the watcher exits once the workspace is gone", || {
        pids.iter()
            .all(|pid| !Path::new(&format!("/proc/{pid}")).exists())
    });
}

#[test]
fn no_watcher_starts_when_turned_off() {
    let env = TestEnv::new();
    let output = env.ag_with(
        "AGENT_GUARD_CHECKPOINT_WATCH",
        "off",
        &["check", "--enforce", "--json", "--", "python3 tools/x.py"],
    );
    assert!(output.status.success(), "{output:?}");
    let report = json(&output);
    assert_eq!(report["code"], "SNAPSHOT_CHECKPOINT", "{report}");
    std::thread::sleep(Duration::from_millis(500));
    assert!(!socket(&env).exists(), "no watcher was started");
    assert!(watchers(env.ws()).is_empty());
}

/// The watcher a hook starts keeps none of the caller's descriptors: a harness that reads
/// its hook's pipe to the end (here through a descriptor the hook only inherited) is not
/// kept waiting for as long as the watcher runs.
#[test]
fn the_watcher_keeps_no_pipe_of_its_caller_open() {
    let env = TestEnv::new();
    let guard = assert_cmd::cargo::cargo_bin!("agent-guard");
    let script = format!(
        "exec 3>&1; '{}' check --enforce --json -- 'python3 tools/x.py' >/dev/null 2>&1",
        guard.display()
    );
    let mut child = env
        .std_cmd("sh")
        .args(["-c", &script])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut all = Vec::new();
        let read = std::io::Read::read_to_end(&mut stdout, &mut all);
        sender.send(read.is_ok()).unwrap();
    });
    assert!(child.wait().unwrap().success());
    wait_for("a watcher listens", || {
        UnixStream::connect(socket(&env)).is_ok()
    });
    let ended = receiver.recv_timeout(Duration::from_secs(10));
    assert_eq!(
        ended,
        Ok(true),
        "the pipe reached its end while the watcher runs"
    );
    assert_eq!(watchers(env.ws()).len(), 1);
}

/// A directory of the workspace reachable by two paths (a bind mount): an event names one
/// of them only, so the watcher says why it cannot serve this workspace and exits, and
/// checkpoints walk.
#[test]
fn a_directory_with_two_paths_keeps_the_watcher_out() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.ws().join("mirror")).unwrap();
    let guard = assert_cmd::cargo::cargo_bin!("agent-guard");
    let off = env.trash().join("watch/off");
    let script = format!(
        "mount --bind '{ws}/src' '{ws}/mirror' || exit 97
         '{guard}' check --enforce --json -- 'python3 tools/x.py' >/dev/null || exit 98
         i=0; while [ ! -f '{off}' ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done",
        ws = env.ws().display(),
        guard = guard.display(),
        off = off.display(),
    );
    let status = env
        .std_cmd("unshare")
        .args(["-m", "sh", "-c", &script])
        .status()
        .unwrap();
    if status.code() != Some(0) && status.code() != Some(98) {
        // Mount namespaces need root (or user namespaces); `.ci/run` has them and sets
        // AGENT_GUARD_REQUIRE_NAMESPACES so that this never passes by skipping there.
        assert!(
            std::env::var_os("AGENT_GUARD_REQUIRE_NAMESPACES").is_none(),
            "cannot bind-mount in a private mount namespace: {status:?}"
        );
        eprintln!("skipping: cannot bind-mount in a private mount namespace here");
        return;
    }
    assert!(status.success(), "{status:?}");
    let why = std::fs::read_to_string(&off).unwrap();
    assert!(why.contains("bind mount"), "{why}");
    wait_for("the watcher exits", || watchers(env.ws()).is_empty());
}

/// `status` says whether the watcher runs, and what to expect of checkpoints meanwhile.
#[test]
fn status_tells_whether_the_watcher_runs() {
    let env = TestEnv::new();
    let status = |extra: &[(&str, &str)]| -> serde_json::Value {
        let mut cmd = env.cmd("agent-guard");
        for (key, value) in extra {
            cmd.env(key, value);
        }
        let output = cmd.args(["status", "--json"]).output().unwrap();
        assert!(output.status.success(), "{output:?}");
        serde_json::from_slice(&output.stdout).unwrap()
    };
    assert_eq!(
        status(&[])["checkpoint_watcher"],
        serde_json::Value::Null,
        "no checkpoint yet"
    );
    let (exit, report) = enforce(&env, "python3 tools/x.py");
    assert_eq!(exit, 0, "{report}");
    wait_for("a watcher listens", || {
        UnixStream::connect(socket(&env)).is_ok()
    });
    assert_eq!(status(&[])["checkpoint_watcher"]["state"], "running");
    let off = status(&[("AGENT_GUARD_CHECKPOINT_WATCH", "0")]);
    assert_eq!(off["checkpoint_watcher"]["state"], "disabled");
    let human = env.ag(&["status"]);
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("watcher     running"), "{text}");
    for pid in watchers(env.ws()) {
        std::process::Command::new("kill")
            .arg(pid.to_string())
            .status()
            .unwrap();
    }
    wait_for("the watcher is gone", || watchers(env.ws()).is_empty());
    assert_eq!(status(&[])["checkpoint_watcher"]["state"], "not-running");
}

/// The watcher is found by the running executable's path, not by its name (issue 38, point
/// 4): a copy of the binary installed as `ag` starts one, and it is that copy that runs it.
#[test]
fn a_renamed_binary_starts_its_own_watcher() {
    let env = TestEnv::new();
    let bin = tempfile::tempdir().unwrap();
    let renamed = bin.path().join("ag");
    std::fs::copy(assert_cmd::cargo::cargo_bin!("agent-guard"), &renamed).unwrap();
    let output = env
        .std_cmd(&renamed)
        .args(["check", "--enforce", "--json", "--", "python3 tools/x.py"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(json(&output)["code"], "SNAPSHOT_CHECKPOINT");
    wait_for("a watcher listens", || {
        UnixStream::connect(socket(&env)).is_ok()
    });
    let pids = watchers(env.ws());
    assert_eq!(pids.len(), 1);
    let exe = std::fs::read_link(format!("/proc/{}/exe", pids[0])).unwrap();
    assert_eq!(exe, renamed, "the renamed copy runs the watcher");
    for pid in pids {
        let _ = std::process::Command::new("kill")
            .arg(pid.to_string())
            .status();
    }
}
