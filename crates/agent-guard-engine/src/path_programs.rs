//! A line whose command finds a program of the workspace through the environment's `PATH`
//! (or, for cmd, in the working directory) runs that program, not the standard tool of the
//! same name (issue 35, point 6, the environment's part): `git status` with
//! `./node_modules/.bin` first in `PATH` and a `git` there. The classifier lists the names
//! ([`agent_guard_classify::Classification::looked_up`]), the world finds the files that may
//! be the workspace's ([`agent_guard_world::suspect_programs`]); each one inside the
//! workspace becomes an opaque program, checkpointed like a script.

use std::path::Path;

use agent_guard_types::{Dialect, OpSpec};
use agent_guard_world::FoundProgram;

/// Why such a line is an opaque program.
const WORKSPACE_ON_PATH: &str = "PATH finds this program in the workspace: the command runs \
     the workspace's own file, not the standard tool of the same name";

/// The opaque programs a line with the looked-up names `looked_up` runs from the workspace,
/// for `request`'s `PATH`, home and working directory; `root` opens the workspace, only when
/// a suspect is found.
fn found(
    looked_up: &[(String, Dialect)],
    ops: &[OpSpec],
    dialect: Dialect,
    request: &crate::CheckRequest,
    root: impl FnOnce() -> Option<std::path::PathBuf>,
) -> Vec<OpSpec> {
    let made = made_on_the_line(looked_up, ops, dialect);
    if !made.is_empty() {
        return made;
    }
    let suspects = agent_guard_world::suspect_programs(
        looked_up,
        request.env.path.as_deref(),
        &request.cwd,
        request.env.home.as_deref().map(Path::new),
    );
    if suspects.is_empty() {
        return Vec::new();
    }
    inside(&suspects, root().as_deref(), dialect)
}

/// The ops of `classification` (of `command`) with what the programs it runs turn out to
/// be: a copy of the guard's binary first ([`guard_copies`]), then the workspace's own
/// programs found through `PATH` ([`found`]) and the programs the repository makes git run
/// ([`crate::git_programs`]).
pub(crate) fn with_programs(
    classification: agent_guard_classify::Classification,
    command: &str,
    dialect: Dialect,
    request: &crate::CheckRequest,
    root: impl FnOnce() -> Option<std::path::PathBuf>,
) -> Vec<OpSpec> {
    let mut ops = classification.ops;
    let found = found(&classification.looked_up, &ops, dialect, request, root);
    ops.extend(found);
    ops.extend(crate::git_programs::found(
        &classification.git_runs,
        command,
        &request.cwd,
        request.env.home.as_deref().map(Path::new),
        dialect,
    ));
    // A line that runs nothing the guard does not know (no op at all) runs no copy either:
    // the no-op path stays free of the look.
    if !ops.is_empty()
        && let Some(copy) = guard_copies(command, dialect, request)
    {
        ops.insert(0, copy);
    }
    ops
}

/// The refusal for a line that names a copy of the guard's binary under another name
/// (`./x approve ID` after `cp ~/.cargo/bin/agent-guard x`): run or handed on, it escapes
/// the rule that refuses a person-only verb by the guard's name, so the line is judged as one
/// ([`agent_guard_world::copies_of_the_guard`]).
fn guard_copies(command: &str, dialect: Dialect, request: &crate::CheckRequest) -> Option<OpSpec> {
    let exe = std::env::current_exe().ok()?;
    let words = agent_guard_classify::mentioned_files(command);
    let home = request.env.home.as_deref().map(Path::new);
    let copies = agent_guard_world::copies_of_the_guard(&words, &request.cwd, home, &exe);
    let first = copies.first()?;
    let mut op = OpSpec::new("agent-guard", agent_guard_types::OpKind::GuardVerb, dialect);
    op.sub = Some("a copy".to_owned());
    op.note(format!(
        "{} is a copy of agent-guard's binary under another name: a person runs the guard \
         itself; remove the copy",
        first.display()
    ));
    Some(op)
}

/// The opaque programs among `suspects` that lie inside the workspace at `root` (by the file
/// they resolve to: a link from the workspace to `/usr/bin/git` runs the system's `git`);
/// `None` for the root: the workspace could not be opened, so every suspect counts.
fn inside(suspects: &[FoundProgram], root: Option<&Path>, dialect: Dialect) -> Vec<OpSpec> {
    let root = root.map(|root| std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf()));
    suspects
        .iter()
        .filter(|found| {
            let Some(root) = &root else {
                return true;
            };
            std::fs::canonicalize(&found.path).map_or(true, |file| file.starts_with(root))
        })
        .map(|found| {
            let mut op = OpSpec::opaque_program(found.name.as_str(), dialect, WORKSPACE_ON_PATH);
            op.note(format!("found at {}", found.path.display()));
            op
        })
        .collect()
}

/// The programs cmd looks up that an earlier command of the same line writes or moves into
/// place (`echo … > git.bat & git status`, `ren x git.bat & git status`): the file is not
/// there when the guard looks, but it is when cmd does.
fn made_on_the_line(
    looked_up: &[(String, Dialect)],
    ops: &[OpSpec],
    dialect: Dialect,
) -> Vec<OpSpec> {
    looked_up
        .iter()
        .filter(|(_, by)| *by == Dialect::Cmd)
        .filter(|(name, _)| {
            ops.iter().flat_map(|op| &op.targets).any(|target| {
                let file = target
                    .text
                    .rsplit(['/', '\\'])
                    .next()
                    .unwrap_or(&target.text);
                agent_guard_world::cmd_runs_file(name, file)
            })
        })
        .map(|(name, _)| {
            let mut op = OpSpec::opaque_program(name.as_str(), dialect, WORKSPACE_ON_PATH);
            op.note("the line writes the file cmd runs for this name before it runs it");
            op
        })
        .collect()
}
