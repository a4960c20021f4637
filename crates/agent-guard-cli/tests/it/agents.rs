//! Many agents on one workspace at once (issue 34, point 6): each runs `check --enforce` and
//! then the real line — `rm`, `mv`, `echo >`, a script the guard checkpoints — on files of
//! its own and on files it shares with others. Afterwards the journal is consistent (every
//! manifest line whole, `status --json` healthy, `list --json` parses), and restoring every
//! transaction, newest first, gives back every original byte for byte: in place, or kept in
//! the store where a restore set it aside (see `agents`).

#![expect(
    clippy::print_stderr,
    reason = "a test says what it skipped, its seed and how many kills landed"
)]

use std::collections::BTreeMap;
use std::path::Path;

use crate::kill::json;
use crate::support::{TestEnv, run_shell, snapshot};

/// Shared files, each touched by several agents.
const SHARED: usize = 4;

/// The lines agent `i` runs, in order.
fn lines(i: usize) -> Vec<String> {
    let shared = i % SHARED;
    let mut lines = vec![
        format!("echo agent{i} > shared{shared}.txt"),
        format!("rm own{i}.txt"),
        format!("mv move{i}.txt moved{i}.txt"),
        format!("sh script{i}.sh"),
    ];
    if i % 2 == 1 {
        lines.push(format!("rm -f shared{shared}.txt"));
    }
    if i % 3 == 2 {
        lines.push(format!("mv shared{shared}.txt taken{i}.txt"));
    }
    lines
}

fn agents(count: usize) {
    let env = TestEnv::new();
    let ws = env.ws();
    write_files(ws, count);
    let before = snapshot(ws, &["**"]);
    run_agents(&env, count);
    let restorable = check_journal(&env);
    let errors = restore_all(&env, &restorable);
    // Files the agents made are not originals: they are left out of the comparison only if
    // they were kept aside (they are in backup transactions, not lost).
    let after = snapshot(ws, &["**"]);
    let mut extra: Vec<String> = after
        .keys()
        .filter(|k| !before.contains_key(*k))
        .map(|k| String::from_utf8_lossy(k).into_owned())
        .collect();
    extra.sort();
    assert!(
        extra.is_empty(),
        "{count} agents: left behind {extra:?}; restore errors: {errors:?}"
    );
    // Every original is in place, or (when agents raced) its bytes are in the store, where a
    // restore set them aside: the guard orders transactions by when they were checked, not
    // by when each command ran, so restoring one agent's checkpoint may set aside what
    // another agent's undo had already put back. Kept, never lost.
    let kept = |data: &[u8]| {
        walkdir::WalkDir::new(env.trash())
            .into_iter()
            .flatten()
            .any(|e| e.file_type().is_file() && std::fs::read(e.path()).is_ok_and(|b| b == data))
    };
    let mut aside = Vec::new();
    for (path, entry) in &before {
        let name = String::from_utf8_lossy(path);
        if after.get(path) == Some(entry) {
            continue;
        }
        assert!(
            entry.kind == "file" && kept(&entry.data),
            "{count} agents: {name} is neither in place nor in the store (restore errors: {errors:?})"
        );
        aside.push(name.into_owned());
    }
    eprintln!("{count} agents: set aside in the store, not in place: {aside:?}");
    let status = env
        .cmd("agent-guard")
        .args(["status", "--json"])
        .output()
        .unwrap();
    assert!(status.status.success(), "{status:?}");
}

#[test]
fn eight_agents_at_once_lose_nothing() {
    agents(8);
}

#[test]
#[ignore = "heavy: 32 agents at once"]
fn thirty_two_agents_at_once_lose_nothing() {
    agents(32);
}

/// Writes the files the agents work on: the shared ones, and each agent's own.
fn write_files(ws: &Path, count: usize) {
    for j in 0..SHARED {
        std::fs::write(ws.join(format!("shared{j}.txt")), format!("shared {j}\n")).unwrap();
    }
    for i in 0..count {
        std::fs::write(ws.join(format!("own{i}.txt")), format!("own {i}\n")).unwrap();
        std::fs::write(ws.join(format!("move{i}.txt")), format!("move {i}\n")).unwrap();
        std::fs::write(ws.join(format!("edit{i}.txt")), format!("edit {i}\n")).unwrap();
        std::fs::write(
            ws.join(format!("script{i}.sh")),
            format!("echo changed >> edit{i}.txt\nrm -f notes.txt\n"),
        )
        .unwrap();
    }
}

/// Runs `count` agents at once, each checking then running its [`lines`]; a refusal must
/// name why.
fn run_agents(env: &TestEnv, count: usize) {
    let refused = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for i in 0..count {
            let (env, refused) = (env, &refused);
            scope.spawn(move || {
                for line in lines(i) {
                    let output = env
                        .cmd("agent-guard")
                        .args(["check", "--enforce", "--json", "--", &line])
                        .output()
                        .unwrap();
                    let report = json(&output);
                    match output.status.code() {
                        Some(0) => run_shell(env, &line),
                        Some(_) => {
                            // A refusal is allowed (the line does not run), never a silent
                            // allow: the refusal names why.
                            assert_ne!(report["decision"], "ALLOW", "`{line}`: {report}");
                            refused.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                        None => panic!("`{line}`: the guard died: {output:?}"),
                    }
                }
            });
        }
    });
    eprintln!(
        "{count} agents: {} lines refused",
        refused.load(std::sync::atomic::Ordering::Relaxed)
    );
}

/// Checks that the journal is consistent (whole lines, a healthy status, a list that parses)
/// and returns the restorable transactions, newest first.
fn check_journal(env: &TestEnv) -> Vec<String> {
    // The journal: whole lines, a healthy status, a list that parses.
    let manifest = std::fs::read_to_string(env.trash().join("manifest.jsonl")).unwrap();
    for (n, line) in manifest.lines().enumerate() {
        let value: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("line {n}: {e}: {line}"));
        assert!(value.is_object(), "line {n}");
    }
    let status = env
        .cmd("agent-guard")
        .args(["status", "--json"])
        .output()
        .unwrap();
    assert!(status.status.success(), "{status:?}");
    let status = json(&status);
    assert_eq!(status["reconciled_now"]["vanished"], 0, "{status}");
    let list = json(
        &env.cmd("agent-guard")
            .args(["list", "--json", "--limit", "0"])
            .output()
            .unwrap(),
    );
    list["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["state"] == "RESTORABLE" && t["backup"] != true)
        .map(|t| t["txid"].as_str().unwrap().to_owned())
        .collect()
}

/// Restores every transaction in `restorable`, in order, keeping what stands in the way;
/// returns the errors of the ones that failed.
fn restore_all(env: &TestEnv, restorable: &[String]) -> BTreeMap<String, String> {
    // Everything back, newest first; what stands in the way is kept (`--force`).
    let mut errors: BTreeMap<String, String> = BTreeMap::new();
    for txid in restorable {
        let output = env
            .cmd("agent-guard")
            .args(["restore", "--force", "--json", txid])
            .output()
            .unwrap();
        if !output.status.success() {
            errors.insert(txid.clone(), json(&output)["errors"].to_string());
        }
    }
    errors
}
