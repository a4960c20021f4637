//! Which git subcommands run which hook: a hook that no subcommand of the line runs costs
//! nothing (a `pre-commit` hook does not make `git add` a program). Data, for the hooks
//! the usual hook managers install (husky, pre-commit), kept generous; a hook this table
//! does not name (`reference-transaction`, `post-index-change`, which even `git status` and
//! `git diff` run when they refresh the index) counts for every subcommand. Configured
//! programs are not narrowed: an outside review found each narrowing wrong (`git log -p`
//! fetches through a promisor remote's `uploadpack`, `git status --help` runs a man
//! viewer, `git show --remerge-diff` a merge driver).

/// Subcommands that make commits (`pre-commit`, `prepare-commit-msg`, `commit-msg`,
/// `post-commit`).
const COMMITTERS: &[&str] = &[
    "commit",
    "merge",
    "pull",
    "cherry-pick",
    "revert",
    "rebase",
    "am",
];

/// Subcommands other than [`COMMITTERS`] that may run `gc --auto` (`pre-auto-gc`).
const AUTO_GC: &[&str] = &[
    "fetch",
    "gc",
    "maintenance",
    "push",
    "clone",
    "receive-pack",
];

/// Subcommands that check out a tree (`post-checkout`).
const CHECKOUTS: &[&str] = &[
    "checkout",
    "switch",
    "clone",
    "worktree",
    "rebase",
    "bisect",
    "pull",
    "submodule",
    "restore",
    "reset",
    "stash",
    "sparse-checkout",
];

/// Subcommands that may push into, or fetch from, a repository of the workspace, whose
/// receiving or serving hooks run.
const RECEIVERS: &[&str] = &[
    "push",
    "fetch",
    "pull",
    "clone",
    "ls-remote",
    "remote",
    "submodule",
    "maintenance",
    "send-pack",
    "receive-pack",
];

/// Whether hook `name` runs for subcommand `sub` (`*`: not literal, any).
pub(super) fn hook_runs(name: &str, sub: &str) -> bool {
    let subs: &[&str] = match name {
        "pre-commit" | "prepare-commit-msg" | "commit-msg" | "post-commit" => COMMITTERS,
        "pre-auto-gc" => return COMMITTERS.contains(&sub) || AUTO_GC.contains(&sub) || sub == "*",
        "pre-merge-commit" | "post-merge" => &["merge", "pull"],
        "pre-rebase" => &["rebase", "pull"],
        "post-rewrite" => &["commit", "rebase", "pull", "am", "cherry-pick"],
        "post-checkout" => CHECKOUTS,
        "pre-push" => &["push"],
        "applypatch-msg" | "pre-applypatch" | "post-applypatch" => &["am"],
        "sendemail-validate" => &["send-email"],
        "pre-receive" | "update" | "proc-receive" | "post-receive" | "post-update"
        | "push-to-checkout" => RECEIVERS,
        _ => return true,
    };
    sub == "*" || subs.contains(&sub)
}
