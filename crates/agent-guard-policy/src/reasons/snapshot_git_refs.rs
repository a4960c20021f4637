//! `SNAPSHOT_GIT_REFS`.

use agent_guard_types::{OpSpec, Plan, ReasonCode, Verdict};

use crate::PolicyContext;

super::reason!(
    SnapshotGitRefs, SnapshotGitRefs, "SNAPSHOT_GIT_REFS",
    catches: "Commands that drop commits from every ref: `git stash drop [n]`, `git stash clear`, `git stash pop`, `git branch -D <name>` (and `--delete --force`), forced branch overwrites (`git branch -f`, `-M`, `-C`, `checkout -B`), tag deletion and moves (`git tag -d`, `git tag -f`), `git update-ref [-d]` of a full ref name, and reflog expiry (`git reflog expire`, `git reflog delete`).",
    why: "Dropped stash entries, deleted branch tips, deleted tags (an annotated tag is an object of its own) and commits only an expired reflog reached become unreachable and are eventually pruned. Keeping them under private refs (`refs/agent-guard/…`) first, and a reflog's lines in the manifest, makes the command recoverable.",
    example: "git branch -D experiment",
    verdict: "SNAPSHOT (advisory); ALLOW after the refs are kept under `--enforce`.",
    recovery: "`agent-guard restore <txid>` puts the stash entries back into the stash list, recreates the branch or tag, or writes the dropped reflog lines back; `--force` resets one that points elsewhere now, keeping its current value in a new transaction.",
    enforcement: DurableIntent,
    hint: "Undo with `agent-guard restore <txid>`, which puts the stash entries, branches or tags back.",
    coverage: Coverage::CorpusExcept(WINDOWS, "git stash/branch drops are floored in Windows dialects"),
);

/// The verdict and plan for a ref-dropping op.
pub(crate) fn verdict(op: &OpSpec, ctx: &PolicyContext) -> Verdict {
    Verdict::of(ReasonCode::SnapshotGitRefs).with_plan(Plan::PreserveRefs {
        cwd: ctx.cwd.clone(),
        refs: op.targets.iter().map(|t| t.text.clone()).collect(),
        stash: op.kind == agent_guard_types::OpKind::GitStashDrop,
        reflogs: op.kind == agent_guard_types::OpKind::GitReflogExpire,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_guard_types::{Dialect, OpKind, Target};

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
