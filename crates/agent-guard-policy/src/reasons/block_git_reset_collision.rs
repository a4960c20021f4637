//! `BLOCK_GIT_RESET_COLLISION`.

use agent_guard_types::{OpSpec, Plan, ReasonCode, ResetPreflight, Verdict, World};

use crate::PolicyContext;

super::reason!(
    BlockGitResetCollision, BlockGitResetCollision, "BLOCK_GIT_RESET_COLLISION",
    catches: "`git reset --hard [commit]` whose target tree would overwrite untracked or ignored content (a file, a directory, a symlink, a nested repository) or the quarantine.",
    why: "A snapshot preserves tracked changes only; untracked bytes that the reset overwrites would be lost for good.",
    example: "git reset --hard HEAD~3   # where HEAD~3 tracks a file that exists untracked now",
    verdict: "BLOCK. The read-only preflight runs in advisory and enforced mode alike, before any compensation of the line.",
    recovery: "Move or commit the colliding files first (`agent-guard safe-delete <path>`), then reset.",
    enforcement: None,
    hint: "Move the colliding untracked files away first (`agent-guard safe-delete <paths>`), then reset.",
    coverage: Coverage::CorpusExcept(WINDOWS, "git reset is floored in Windows dialects"),
);

/// Runs the read-only preflight for a hard reset whose verdict would be a snapshot.
pub(crate) fn preflight(op: &OpSpec, ctx: &PolicyContext, world: &dyn World) -> Verdict {
    let target = op.targets.first().map(|t| t.text.as_str());
    match world.reset_preflight(&ctx.cwd, target) {
        ResetPreflight::Safe => {
            Verdict::of(ReasonCode::SnapshotGitStash).with_plan(Plan::Snapshot {
                cwd: ctx.cwd.clone(),
                reset_target: Some(target.unwrap_or("HEAD").to_owned()),
                pathspecs: Vec::new(),
            })
        }
        ResetPreflight::Collision(paths) => {
            let mut verdict = Verdict::of(ReasonCode::BlockGitResetCollision);
            verdict.reasons = paths;
            verdict
        }
        ResetPreflight::Undeterminable(why) => {
            Verdict::of(ReasonCode::BlockUndeterminableEffect).because(why)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::FakeWorld;
    use agent_guard_types::{Dialect, OpKind};

    #[test]
    fn preflight_outcomes_map_to_codes() {
        let op = OpSpec::new("git", OpKind::GitResetHard, Dialect::Posix);
        let ctx = PolicyContext::new("/ws");
        let mut world = FakeWorld::default();
        assert_eq!(
            preflight(&op, &ctx, &world).code,
            ReasonCode::SnapshotGitStash
        );
        world.preflight = Some(ResetPreflight::Collision(vec!["collision".into()]));
        assert_eq!(
            preflight(&op, &ctx, &world).code,
            ReasonCode::BlockGitResetCollision
        );
        world.preflight = Some(ResetPreflight::Undeterminable(
            "not a git repository".into(),
        ));
        assert_eq!(
            preflight(&op, &ctx, &world).code,
            ReasonCode::BlockUndeterminableEffect
        );
    }
}
