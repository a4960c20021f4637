//! Commands that delete a whole work tree: `git worktree remove` and `git submodule deinit`.
//!
//! `git worktree remove <dir>` deletes the linked work tree's directory. Without `--force`
//! git refuses only for modified or untracked files; ignored files (`.env`, build outputs)
//! are deleted with it, and with `--force` everything is. `git submodule deinit` removes a
//! submodule's work tree the same way. What is lost is decided by git while it runs, so
//! these are unknown destructive ops: the guard refuses them and says how to do it
//! recoverably.

use agent_guard_types::{OpKind, OpSpec};

use super::git_op;
use crate::args::Arg;

/// `git worktree remove …` (other `worktree` subcommands delete no files).
pub(super) fn worktree(args: &[Arg]) -> Option<OpSpec> {
    (args.first()?.known()? == "remove").then(|| {
        whole_tree(
            "git worktree remove deletes the work tree's directory, ignored files included; \
             move it with `agent-guard safe-delete <dir>`, then run `git worktree prune`",
        )
    })
}

/// `git submodule deinit …` (other `submodule` subcommands keep the work tree).
pub(super) fn submodule(args: &[Arg]) -> Option<OpSpec> {
    let sub = args
        .iter()
        .filter_map(Arg::known)
        .find(|t| !t.starts_with('-'))?;
    (sub == "deinit").then(|| {
        whole_tree(
            "git submodule deinit removes the submodule's work tree; \
             move it with `agent-guard safe-delete <dir>` first",
        )
    })
}

fn whole_tree(note: &str) -> OpSpec {
    let mut op = git_op(OpKind::Unknown);
    op.mark_undeterminable(note);
    op
}
