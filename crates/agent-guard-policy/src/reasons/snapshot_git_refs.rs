//! `SNAPSHOT_GIT_REFS`.

use agent_guard_types::{OpKind, OpSpec, Plan, ReasonCode, Verdict};

use crate::PolicyContext;

super::reason!(
    SnapshotGitRefs, SnapshotGitRefs, "SNAPSHOT_GIT_REFS",
    catches: "Commands that drop or rewrite refs: `git stash drop [n]`, `git stash clear`, `git stash pop`, `git branch -D <name>` (and `--delete --force`), forced branch overwrites (`git branch -f`, `-M`, `-C`, `checkout -B`, `switch -C`), tag deletion and moves (`git tag -d`, `git tag -f`), `git update-ref [-d]` of a full ref name or `HEAD`, `git replace -d|-f`, `git symbolic-ref [-d]`, the notes writers (`git notes add -f|remove|prune|edit|append|copy|merge`), and reflog expiry (`git reflog expire`, `git reflog delete`). A name built at run time keeps its whole namespace (`refs/heads/`, `refs/tags/`, every stash entry).",
    why: "Dropped stash entries, deleted branch tips, deleted tags (an annotated tag is an object of its own), moved notes and commits only an expired reflog reached become unreachable and are eventually pruned. Keeping them under private refs (`refs/agent-guard/…`) first, with every reflog's lines and each symbolic ref's target in the manifest, makes the command recoverable: refs, the stash list and the reflogs come back as they were.",
    example: "git branch -D experiment",
    verdict: "SNAPSHOT (advisory); ALLOW after the refs are kept under `--enforce`.",
    recovery: "`agent-guard restore <txid>` puts the stash entries back into the stash list, recreates the branch, tag or symbolic ref (with its reflog as it was), and writes dropped reflog lines back; `--force` resets one that points elsewhere now, keeping its current value in a new transaction.",
    enforcement: DurableIntent,
    hint: "Undo with `agent-guard restore <txid>`, which puts the stash entries, branches or tags back.",
    coverage: Coverage::CorpusExcept(WINDOWS, "git stash/branch drops are floored in Windows dialects"),
);

/// The verdict and plan for a ref-dropping op.
pub(crate) fn verdict(op: &OpSpec, ctx: &PolicyContext) -> Verdict {
    let names = || op.targets.iter().map(|t| t.text.clone()).collect();
    let (refs, symbolic) = match op.kind {
        OpKind::GitSymbolicRef => (Vec::new(), names()),
        OpKind::GitReflogExpire => (Vec::new(), Vec::new()),
        _ => (names(), Vec::new()),
    };
    let stash = op.kind == OpKind::GitStashDrop;
    Verdict::of(ReasonCode::SnapshotGitRefs).with_plan(Plan::PreserveRefs {
        cwd: ctx.cwd.clone(),
        refs,
        stash,
        // A ref deleted or moved takes its reflog or adds to it; the stash list is the
        // stash's reflog and comes back entry by entry.
        reflogs: !stash,
        symbolic,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_guard_types::{Dialect, Target};

    #[test]
    fn plan_lists_refs() {
        let mut op = OpSpec::new("git", OpKind::GitBranchDelete, Dialect::Posix);
        op.targets.push(Target::literal("old"));
        let v = verdict(&op, &PolicyContext::new("/ws"));
        let Plan::PreserveRefs { refs, .. } = v.plan else {
            panic!()
        };
        assert_eq!(refs, ["old"]);
    }
}
