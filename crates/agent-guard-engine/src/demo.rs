//! The throw-away workspace of `agent-guard demo`.

use std::path::Path;

use crate::error::{EngineError, Result};

/// The files of the demo workspace: committed sources, a build tree, ignored
/// `node_modules`, a log, notes, an untracked directory and a script that deletes some of it.
const FILES: &[(&str, &str)] = &[
    (".gitignore", "node_modules/\n*.log\n"),
    ("src/main.rs", "fn main() { println!(\"hello\"); }\n"),
    ("build/out/app.o", "object code\n"),
    ("build/report.txt", "build report\n"),
    ("dist/bundle.js", "bundle\n"),
    ("node_modules/left-pad/index.js", "module.exports = 1;\n"),
    ("notes.txt", "my notes\n"),
    ("debug.log", "log line\n"),
    ("scratch/untracked.txt", "not yet committed\n"),
    (
        "tidy.sh",
        "#!/bin/sh\n# Tidies the workspace up: a script the guard does not read.\nrm -rf dist scratch\n",
    ),
];

/// Creates the demo workspace at `workspace` (and a `home` directory beside it): a git
/// repository with `.gitignore` and `src/main.rs` committed, then `src/main.rs` modified.
///
/// # Errors
/// A file or the repository cannot be written.
pub fn prepare_demo_workspace(workspace: &Path) -> Result<()> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| EngineError::Demo { path, source }
    };
    for (path, content) in FILES {
        let path = workspace.join(path);
        if let Some(parent) = path.parent() {
            fs_err::create_dir_all(parent).map_err(io(parent))?;
        }
        fs_err::write(&path, content).map_err(io(&path))?;
    }
    let home = workspace
        .parent()
        .map_or(workspace.to_owned(), |p| p.join("home"));
    fs_err::create_dir_all(&home).map_err(io(&home))?;
    agent_guard_git::init_with_commit(
        workspace,
        &[Path::new(".gitignore"), Path::new("src/main.rs")],
        ("agent-guard demo", "demo@agent-guard.invalid"),
    )
    .map_err(agent_guard_recovery::RecoveryError::from)?;
    let main = workspace.join("src/main.rs");
    fs_err::write(&main, "fn main() { println!(\"changed\"); }\n").map_err(io(&main))?;
    Ok(())
}
