//! `SNAPSHOT_CHECKPOINT`.

use agent_guard_types::{
    CheckpointMode, CheckpointPlan, OpSpec, Plan, Protected, ReasonCode, Verdict, World,
};

use crate::PolicyContext;

super::reason!(
    SnapshotCheckpoint, SnapshotCheckpoint, "SNAPSHOT_CHECKPOINT",
    catches: "A program whose effects the guard does not model: a script (`./scripts/migrate.sh`, `bash build.sh`, `source env.sh`), an interpreter running a file or code the guard does not flag (`python tools/cleanup.py`, `node -e 'fs.writeFileSync(…)'`), a build tool or task runner (`make clean`, `npm run reset`, `cargo xtask`, `just`, `rake`, `gradle`), and any command the guard does not know. With `[checkpoint] mode = \"always\"`, also every other line that changes something, on top of its own compensation.",
    why: "Whatever such a program deletes or overwrites is invisible before it runs. A workspace checkpoint (every file and the repository's state and objects, but the quarantine and regenerable artifacts, stored once in a private object store, taken incrementally) makes all of it undoable without refusing the command. Outside the workspace a checkpoint protects nothing.",
    example: "python tools/cleanup.py",
    verdict: "SNAPSHOT (advisory); ALLOW with the txid after the checkpoint under `--enforce`. `[checkpoint] mode = \"never\"` turns it into `ALLOW_UNCHECKPOINTED`; files over `[checkpoint] max_file_bytes` are listed in the checkpoint as not kept.",
    recovery: "`agent-guard show <txid>` lists what changed since the checkpoint; `agent-guard restore <txid>` (or `undo`) brings deleted files back, puts old contents back (the current versions are kept in a new transaction), and moves files created since into a new transaction. `--path P` restores part of it.",
    enforcement: DurableIntent,
    hint: "Undo with `agent-guard undo` (or `agent-guard restore <txid>`); `agent-guard show <txid>` lists what changed since the checkpoint.",
    coverage: Coverage::Corpus,
);

/// The checkpoint plan of `ctx`'s workspace settings.
pub(crate) fn plan(ctx: &PolicyContext) -> Plan {
    Plan::Checkpoint(CheckpointPlan {
        artifacts: ctx.artifacts.clone(),
        skip_regenerable: ctx.allow_regenerable,
        max_file_bytes: ctx.checkpoint_max_file_bytes,
    })
}

/// The verdict on an opaque program: a checkpoint, or unprotected when checkpoints are off.
pub(crate) fn program(op: &OpSpec, ctx: &PolicyContext) -> Verdict {
    if ctx.checkpoint == CheckpointMode::Never {
        let mut verdict = Verdict::of(ReasonCode::AllowUncheckpointed);
        verdict.reasons.clone_from(&op.notes);
        return verdict;
    }
    let mut verdict = Verdict::of(ReasonCode::SnapshotCheckpoint).with_plan(plan(ctx));
    verdict.reasons.clone_from(&op.notes);
    verdict
}

/// The refusal of an opaque program that runs in a directory (its targets: a `cd` before
/// it, `make -C`, `find`'s starting points) outside the workspace, in `.git` or in the
/// quarantine, or that cannot be resolved; `None` when every one is inside.
pub(crate) fn runs_outside(op: &OpSpec, ctx: &PolicyContext, world: &dyn World) -> Option<Verdict> {
    let outside = op.targets.iter().find(|target| {
        if target.opaque.is_some() {
            return false;
        }
        let spec = world.path(target, &ctx.cwd);
        let protected = !matches!(spec.protected, None | Some(Protected::WorkspaceRoot));
        spec.error.is_some() || !spec.inside_workspace || spec.inside_trash || protected
    })?;
    Some(
        Verdict::of(ReasonCode::BlockOutOfWorkspace).because(format!(
            "`{}` runs in `{}`, which is outside the workspace (or in `.git` or the quarantine): \
         a checkpoint would protect nothing it changes there",
            op.op, outside.text
        )),
    )
}

/// `[checkpoint] mode = "always"`: one checkpoint for a line that changes something and
/// runs (its other compensations still happen), unless the line already takes one.
pub(crate) fn always(verdicts: &[Verdict], ctx: &PolicyContext) -> Option<Verdict> {
    let runs = Verdict::worst(verdicts)
        .is_some_and(|w| w.decision.rank() <= agent_guard_types::Decision::Snapshot.rank());
    let has_one = verdicts
        .iter()
        .any(|v| matches!(v.plan, Plan::Checkpoint(_)));
    (ctx.checkpoint == CheckpointMode::Always && runs && !has_one).then(|| {
        Verdict::of(ReasonCode::SnapshotCheckpoint)
            .with_plan(plan(ctx))
            .because("[checkpoint] mode = always")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_guard_types::{Dialect, Plan};

    #[test]
    fn programs_are_checkpointed_unless_checkpoints_are_off() {
        let op = OpSpec::opaque_program("make", Dialect::Posix, "a build tool");
        let mut ctx = PolicyContext::new("/ws");
        let verdict = program(&op, &ctx);
        assert_eq!(verdict.code, ReasonCode::SnapshotCheckpoint);
        assert!(matches!(verdict.plan, Plan::Checkpoint(_)));
        ctx.checkpoint = CheckpointMode::Never;
        let verdict = program(&op, &ctx);
        assert_eq!(verdict.code, ReasonCode::AllowUncheckpointed);
        assert_eq!(verdict.plan, Plan::Nothing);
    }

    #[test]
    fn always_adds_one_checkpoint_to_lines_that_run() {
        let mut ctx = PolicyContext::new("/ws");
        let relocate = [Verdict::of(ReasonCode::RelocateTree)];
        assert!(always(&relocate, &ctx).is_none(), "only in mode always");
        ctx.checkpoint = CheckpointMode::Always;
        assert!(always(&relocate, &ctx).is_some());
        assert!(always(&[], &ctx).is_none(), "nothing changes");
        assert!(always(&[Verdict::of(ReasonCode::BlockWildcard)], &ctx).is_none());
        let already = [Verdict::of(ReasonCode::SnapshotCheckpoint).with_plan(plan(&ctx))];
        assert!(always(&already, &ctx).is_none());
    }
}
