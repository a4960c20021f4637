//! `SNAPSHOT_GIT_STASH`.

use agent_guard_types::{OpSpec, Plan, ReasonCode, Verdict};

use crate::PolicyContext;

super::reason!(
    SnapshotGitStash, SnapshotGitStash, "SNAPSHOT_GIT_STASH",
    catches: "`git reset --hard [commit]` (after its collision preflight), and commands that discard work-tree changes: `git checkout -- <path>`, `git checkout .`, `git checkout -f`, `git restore <path>`, `git restore --source=<rev> <path>`, `git switch -f`/`--discard-changes`, `git rm -f`.",
    why: "The tracked changes these commands throw away are captured first as commits under a private ref (`refs/agent-guard/snapshots/<txid>`), without touching the user's index or stash list.",
    example: "git reset --hard HEAD~1",
    verdict: "SNAPSHOT (advisory); ALLOW after the snapshot under `--enforce`.",
    recovery: "`agent-guard restore <txid>` applies the snapshot back, as `git stash apply` would.",
    enforcement: DurableIntent,
    hint: "Undo with `agent-guard restore <txid>`, which re-applies the snapshot without overwriting later changes.",
    coverage: Coverage::CorpusExcept(WINDOWS, "git discards are floored in Windows dialects"),
);

/// The verdict and plan for a discard op.
pub(crate) fn discard(op: &OpSpec, ctx: &PolicyContext) -> Verdict {
    // `git restore --source=REV` writes REV's content: restore may overwrite it.
    let source = op
        .extra_flags
        .iter()
        .find_map(|f| f.strip_prefix("--source="))
        .map(str::to_owned);
    Verdict::of(ReasonCode::SnapshotGitStash).with_plan(Plan::Snapshot {
        cwd: ctx.cwd.clone(),
        reset_target: source,
        pathspecs: op.targets.iter().map(|t| t.text.clone()).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_guard_types::{Dialect, OpKind, Target};

    #[test]
    fn discard_plan_lists_pathspecs() {
        let mut op = OpSpec::new("git", OpKind::GitDiscard, Dialect::Posix);
        op.targets.push(Target::literal("src/main.py"));
        let v = discard(&op, &PolicyContext::new("/ws"));
        assert_eq!(v.code, ReasonCode::SnapshotGitStash);
        let Plan::Snapshot {
            pathspecs,
            reset_target,
            ..
        } = v.plan
        else {
            panic!()
        };
        assert_eq!(pathspecs, ["src/main.py"]);
        assert!(reset_target.is_none());
    }
}
