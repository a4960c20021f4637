//! The checkpoint watcher's process ([`agent_guard_recovery::watch_checkpoints`]): started
//! in the background after a checkpoint that found none, and run by the `agent-guard`
//! binary's hidden `__checkpoint-watch WORKSPACE TRASH REGENERABLE [PATTERN]…` entry
//! (`REGENERABLE`: `1` when checkpoints leave regenerable artifacts out, else `0`; the
//! patterns are the checkpoint plan's artifact patterns).

use std::path::{Path, PathBuf};
use std::time::Duration;

use agent_guard_config::EnvSnapshot;
use agent_guard_recovery::Quarantine;
use agent_guard_types::CheckpointPlan;

use crate::workspace::Workspace;

/// The hidden argument that runs a watcher.
pub const WATCH_ENTRY: &str = "__checkpoint-watch";

/// How long a watcher waits for a checkpoint before it exits.
const IDLE: Duration = Duration::from_mins(30);

/// A watcher a checkpoint asked for (its store had none): the engine only says so, in
/// [`crate::CheckReport::watcher`]; the binary starts it once it has answered, so that no
/// compensation starts processes and the answer does not wait for a `fork`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatcherStart {
    workspace: PathBuf,
    trash: PathBuf,
    plan: CheckpointPlan,
    allowed: bool,
}

impl WatcherStart {
    /// The watcher of `workspace`'s checkpoint store, for checkpoints taken with `plan`;
    /// `env` may turn watchers off.
    pub(crate) fn new(workspace: &Workspace, env: &EnvSnapshot, plan: &CheckpointPlan) -> Self {
        WatcherStart {
            workspace: workspace.root.clone(),
            trash: workspace.trash().to_path_buf(),
            plan: plan.clone(),
            allowed: env.checkpoint_watch(),
        }
    }

    /// Starts the watcher in the background, detached (its own process group, no standard
    /// streams, `/` as its directory), unless the environment turned watchers off or the
    /// process never said which executable runs watchers ([`serve_watchers`]: a test harness
    /// or a library calling the engine in-process starts none).
    pub fn start(&self) {
        if !self.allowed {
            return;
        }
        let Some(server) = WATCHER_SERVER.get() else {
            return;
        };
        let Ok(exe) = std::env::current_exe() else {
            return;
        };
        let exe = match server {
            // Found by the running executable's path, whatever it is named.
            WatcherServer::Own => exe,
            WatcherServer::Beside => match exe.parent().map(|dir| dir.join("agent-guard")) {
                Some(umbrella) if umbrella.is_file() => umbrella,
                _ => return,
            },
        };
        let _ = spawn(&exe, &self.workspace, &self.trash, &self.plan);
    }
}

/// Which executable runs this process's watchers ([`serve_watchers`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatcherServer {
    /// The running executable answers [`WATCH_ENTRY`] itself: the umbrella binary, however
    /// it is named or wherever it is installed.
    Own,
    /// The thin binaries (`check`, `safe_delete`, …): the `agent-guard` beside them does.
    Beside,
}

/// Set once, by a binary's `main`, before anything else: a plain store, no system call, so
/// that the hook's no-op path pays nothing for it.
static WATCHER_SERVER: std::sync::OnceLock<WatcherServer> = std::sync::OnceLock::new();

/// Declares which executable runs watchers for this process. A process that never calls it
/// starts none.
pub fn serve_watchers(server: WatcherServer) {
    let _ = WATCHER_SERVER.set(server);
}

fn spawn(exe: &Path, workspace: &Path, trash: &Path, plan: &CheckpointPlan) -> std::io::Result<()> {
    use std::os::unix::process::CommandExt as _;
    use std::process::{Command, Stdio};
    let child = Command::new(exe)
        .arg(WATCH_ENTRY)
        .arg(workspace)
        .arg(trash)
        .arg(if plan.skip_regenerable { "1" } else { "0" })
        .args(&plan.artifacts)
        .current_dir("/")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()?;
    // Not waited for: it outlives this process (and is reaped by init once this exits).
    drop(child);
    Ok(())
}

/// Runs a watcher of the checkpoint store of `workspace`'s quarantine at `trash` until it
/// ends, for checkpoints that leave regenerable artifacts out (`skip_regenerable`) by
/// `artifacts`; `false` when it could not start.
pub fn watch(
    workspace: &Path,
    trash: &Path,
    skip_regenerable: bool,
    artifacts: Vec<String>,
) -> bool {
    let store = Quarantine::new(workspace.to_path_buf(), trash.to_path_buf());
    let plan = CheckpointPlan {
        artifacts,
        skip_regenerable,
        max_file_bytes: 0,
    };
    agent_guard_recovery::watch_checkpoints(&store, &plan, IDLE).is_ok()
}
