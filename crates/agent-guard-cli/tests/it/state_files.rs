//! Issue 35, point 4: what a command can leave at the names of the guard's own state files
//! (a symbolic link into the user's files, a FIFO, a directory) never redirects or stalls
//! the guard. The real binary runs `check --enforce` as a harness does: the command is
//! refused (fail-closed, with a message naming the entry) and nothing is written where the
//! entry points.

use std::path::Path;

use crate::support::{TestEnv, enforce, run_shell};

/// What is planted at a state name.
#[derive(Debug, Clone, Copy)]
enum Plant {
    /// A symbolic link to a file of the user's outside the store.
    LinkToFile,
    /// A symbolic link to a directory of the user's outside the store.
    LinkToDir,
    /// A FIFO, which blocks an open for reading until a writer comes.
    Fifo,
    /// A second name of a file of the user's (a hard link): a write lands in both.
    HardLink,
}

/// Each state entry of the store, with what is planted there.
const ROWS: &[(&str, Plant)] = &[
    ("audit.jsonl", Plant::LinkToFile),
    ("manifest.jsonl", Plant::LinkToFile),
    ("lock", Plant::LinkToFile),
    ("state.json", Plant::LinkToFile),
    ("checkpoints", Plant::LinkToDir),
    ("sessions", Plant::LinkToDir),
    ("watch", Plant::LinkToDir),
    ("watch/lock", Plant::LinkToFile),
    ("watch/off", Plant::LinkToFile),
    ("audit.jsonl", Plant::Fifo),
    ("manifest.jsonl", Plant::Fifo),
    ("lock", Plant::Fifo),
    ("state.json", Plant::Fifo),
    ("manifest.checkpoint", Plant::LinkToFile),
    ("manifest.checkpoint", Plant::Fifo),
    ("manifest.jsonl", Plant::HardLink),
    ("audit.jsonl", Plant::HardLink),
    ("checkpoints/agent-guard-index", Plant::Fifo),
    ("checkpoints/objects", Plant::LinkToDir),
    ("checkpoints/refs", Plant::LinkToDir),
];

/// Runs `check --enforce` under coreutils' `timeout`, so that a guard that hangs fails the
/// test instead of stalling it; returns (exit code, report).
fn enforce_within(env: &TestEnv, command: &str) -> (i32, serde_json::Value) {
    let output = env
        .std_cmd("timeout")
        .arg("60")
        .arg(assert_cmd::cargo::cargo_bin!("agent-guard"))
        .args(["check", "--enforce", "--json", "--", command])
        .output()
        .unwrap();
    let code = output.status.code().unwrap();
    assert_ne!(code, 124, "{command}: check hung on the planted entry");
    (
        code,
        serde_json::from_slice(&output.stdout).unwrap_or_default(),
    )
}

fn listing(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut found: Vec<_> = walkdir::WalkDir::new(dir)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let name = e.path().strip_prefix(dir).unwrap().display().to_string();
            (name, std::fs::read(e.path()).unwrap())
        })
        .collect();
    found.sort();
    found
}

/// For every state entry: a link planted there is not followed (the user's file it points
/// at is unchanged), a FIFO does not stall the guard, and the destructive command is
/// refused with a message naming the entry; once the entry is put back, the same command
/// is allowed and made undoable again.
#[test]
fn a_link_or_fifo_planted_in_the_store_is_refused_and_never_followed() {
    for (name, plant) in ROWS {
        let env = TestEnv::new();
        // A first delete makes the store and its files.
        let (exit, report) = enforce(&env, "rm -rf dist");
        assert_eq!(exit, 0, "{report}");
        run_shell(&env, "rm -rf dist");
        let store = env.trash();
        std::fs::create_dir_all(store.join("checkpoints")).unwrap();
        std::fs::create_dir_all(store.join("sessions")).unwrap();
        std::fs::create_dir_all(store.join("watch")).unwrap();
        std::fs::write(store.join("watch/lock"), "").unwrap();
        std::fs::write(store.join("watch/off"), "").unwrap();
        std::fs::write(store.join("state.json"), "{}").unwrap();

        // The user's own files, outside the store and the workspace.
        let user = env.fixture.home.join("user");
        let victim_file = user.join(".bashrc");
        let victim_dir = user.join("documents");
        std::fs::create_dir_all(&victim_dir).unwrap();
        std::fs::write(&victim_file, "export PATH\n").unwrap();
        std::fs::write(victim_dir.join("letter.txt"), "dear\n").unwrap();
        let before = listing(&user);

        let entry = store.join(name);
        if std::fs::symlink_metadata(&entry).is_err() {
            match plant {
                Plant::LinkToDir => std::fs::create_dir_all(&entry).unwrap(),
                _ => std::fs::write(&entry, "").unwrap(),
            }
        }
        let kept = store.join(format!("{name}.kept"));
        std::fs::rename(&entry, &kept).unwrap();
        match plant {
            Plant::LinkToFile => std::os::unix::fs::symlink(&victim_file, &entry).unwrap(),
            Plant::LinkToDir => std::os::unix::fs::symlink(&victim_dir, &entry).unwrap(),
            Plant::HardLink => std::fs::hard_link(&victim_file, &entry).unwrap(),
            Plant::Fifo => assert!(
                std::process::Command::new("mkfifo")
                    .arg(&entry)
                    .status()
                    .unwrap()
                    .success()
            ),
        }

        let (exit, report) = enforce_within(&env, "rm -rf build");
        assert_eq!(exit, 2, "{name} {plant:?}: {report}");
        assert_eq!(report["decision"], "BLOCK", "{name} {plant:?}: {report}");
        let said = report.to_string();
        let expected = match plant {
            Plant::Fifo => "a FIFO",
            Plant::HardLink => "hard link",
            _ => "symbolic link",
        };
        assert!(said.contains(expected), "{name} {plant:?}: {said}");
        assert!(env.ws().join("build/report.txt").is_file());
        assert!(
            listing(&user) == before,
            "{name} {plant:?}: the user's files changed"
        );

        // Put back, the guard works again.
        std::fs::remove_file(&entry).unwrap();
        std::fs::rename(&kept, &entry).unwrap();
        let (exit, report) = enforce_within(&env, "rm -rf build");
        assert_eq!(exit, 0, "{name} {plant:?} put back: {report}");
        assert_eq!(report["decision"], "ALLOW", "{report}");
    }
}
