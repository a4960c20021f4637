//! The demo's story: four destructive commands run for real after `check --enforce` (a
//! delete, an overwrite, a git reset and a script the guard cannot see into), the damage,
//! `list`, and `undo` bringing every byte back.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use agent_guard_engine::{
    CheckRequest, EnvSnapshot, Exit as _, ListOptions, NoProgress, RestoreRequest, RestoreTarget,
    check, list, restore,
};
use agent_guard_types::{Decision, ExitCode, ReasonCode};

/// The commands the story runs, in order: a delete, an overwrite, a git reset and a script
/// the guard cannot see into.
pub(super) const RUNS: &[&str] = &[
    "rm -rf build",
    "echo reset > notes.txt",
    "git reset --hard",
    "sh tidy.sh",
];

/// One command of the story.
#[derive(Debug, Serialize)]
pub(super) struct Run {
    /// The command line.
    pub command: &'static str,
    /// The guard's decision under `--enforce`.
    pub decision: Decision,
    /// Its reason code.
    pub code: ReasonCode,
    /// The transactions its compensations made.
    pub txids: Vec<String>,
    /// Whether the guard let it run (and it was run, by `sh -c`).
    pub ran: bool,
    /// The files it deleted, workspace-relative.
    pub deleted: Vec<String>,
    /// The files it changed.
    pub changed: Vec<String>,
}

/// One transaction `list` shows.
#[derive(Debug, Serialize)]
pub(super) struct Kept {
    /// Its id (what `restore` takes).
    pub txid: String,
    /// What it holds, as `list` says.
    pub what: String,
    /// The story's command that made it.
    pub command: String,
}

/// The whole story.
#[derive(Debug, Serialize)]
pub(super) struct Story {
    /// The four commands.
    pub runs: Vec<Run>,
    /// `list` after them: what each transaction holds.
    pub listed: Vec<Kept>,
    /// The commands `undo` took back, newest first.
    pub undone: Vec<String>,
    /// How many files the workspace held before the story.
    pub files: usize,
    /// The files not back byte for byte after the undos (empty: all back).
    pub different: Vec<String>,
}

/// The workspace's files (outside `.git`): relative path → bytes.
fn files(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut found = BTreeMap::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = fs_err::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.file_name().is_some_and(|n| n == ".git") {
                continue;
            }
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => dirs.push(path),
                Ok(_) => {
                    let bytes = fs_err::read(&path).unwrap_or_default();
                    let rel = path.strip_prefix(root).unwrap_or(&path);
                    found.insert(rel.to_string_lossy().into_owned(), bytes);
                }
                Err(_) => {}
            }
        }
    }
    found
}

/// Runs the story in `workspace` with `env` (the demo's own home and store).
///
/// # Errors
/// `list` or `undo` cannot open the workspace's store.
pub(super) fn tell(workspace: &Path, env: &EnvSnapshot) -> anyhow::Result<Story> {
    let before = files(workspace);
    let mut runs = Vec::new();
    for command in RUNS {
        // Before the check: a relocation takes its targets into the quarantine already.
        let prior = files(workspace);
        let report = check(&CheckRequest {
            command: (*command).to_owned(),
            cwd: workspace.to_path_buf(),
            enforce: true,
            env: env.clone(),
            ..CheckRequest::default()
        });
        let txids = report
            .compensations
            .iter()
            .flatten()
            .map(|applied| applied.txid.clone())
            .collect();
        let ran = report.exit_code() == ExitCode::Success && shell(command, workspace, env);
        let now = files(workspace);
        runs.push(Run {
            command,
            decision: report.decision,
            code: report.code,
            txids,
            ran,
            deleted: prior
                .keys()
                .filter(|path| !now.contains_key(*path))
                .cloned()
                .collect(),
            changed: now
                .iter()
                .filter(|(path, bytes)| prior.get(*path).is_some_and(|old| old != *bytes))
                .map(|(path, _)| path.clone())
                .collect(),
        });
    }
    let made_by = |txid: &str| {
        runs.iter()
            .find(|run| run.txids.iter().any(|t| t == txid))
            .map_or("", |run| run.command)
    };
    let listed = list(workspace, env, ListOptions::default())?
        .transactions
        .iter()
        .map(|tx| Kept {
            txid: tx.txid.clone(),
            what: tx.what.clone(),
            command: made_by(&tx.txid).to_owned(),
        })
        .collect();
    let mut undone = Vec::new();
    while undone.len() < RUNS.len() {
        let outcome = restore(
            &RestoreRequest {
                target: RestoreTarget::Undo,
                cwd: workspace.to_path_buf(),
                env: env.clone(),
                ..RestoreRequest::default()
            },
            &NoProgress,
        );
        match outcome {
            Ok(outcome) if outcome.report.ok => {
                undone.push(made_by(&outcome.report.txid).to_owned());
            }
            _ => break,
        }
    }
    let after = files(workspace);
    let different = before
        .keys()
        .chain(after.keys())
        .filter(|path| before.get(*path) != after.get(*path))
        .cloned()
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    Ok(Story {
        runs,
        listed,
        undone,
        files: before.len(),
        different,
    })
}

/// Runs `command` with `sh -c` in `workspace`, the demo's home as `HOME`; `true` when it
/// could be started.
fn shell(command: &str, workspace: &Path, env: &EnvSnapshot) -> bool {
    let mut sh = std::process::Command::new("sh");
    sh.args(["-c", command])
        .current_dir(workspace)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    if let Some(home) = &env.home {
        sh.env("HOME", PathBuf::from(home));
    }
    sh.status().is_ok()
}
