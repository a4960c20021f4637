//! What an ASK keeps before the question is put, and what it cannot keep (issue 34, point 3).
//!
//! A harness that can ask a person runs the command as soon as the person approves, and the
//! guard never hears of it: whatever is kept must be kept before the guard answers, and must
//! take nothing away, because the person may still say no. So the plan of an ASK line is made
//! of the compensations that only add (hard links and reflinks of files the line only renames
//! over, copies, private refs, git snapshots, moves' records, a workspace checkpoint); a
//! relocation becomes a workspace checkpoint. Whatever none of them keeps is listed, for the
//! question to name ("if you approve, … cannot be restored").
//!
//! The same plans run when the person approves through `agent-guard approve` instead: the ASK
//! parts of the line (`ALLOW_APPROVED`) carry them.

use std::path::PathBuf;

use agent_guard_types::{
    OpKind, OpSpec, PathSpec, Plan, ReasonCode, Strategy, Target, Unkept, UnkeptWhy, Verdict, World,
};

use crate::PolicyContext;
use crate::reasons::{snapshot_checkpoint, snapshot_git_refs};

/// What the line may change outside the workspace, where nothing is kept.
const OUTSIDE: &str =
    "what the line changes after its directory change, where that is outside the workspace";
/// What a ref-dropping git command drops when the guard cannot tell its repository.
const REFS: &str = "the git refs the line drops after its directory change";
/// What a checkpoint would have kept.
const WORKSPACE: &str = "what the line deletes or overwrites in the workspace";

/// What an ASK line keeps before the question is put, and what it cannot keep.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AskPlan {
    /// The verdicts whose plans run before the guard answers (none takes anything away),
    /// each with its op index.
    pub keep: Vec<Verdict>,
    /// What nothing in [`AskPlan::keep`] keeps: the question names it.
    pub unkept: Vec<Unkept>,
}

/// The verdict of a compound-line shape (`COMPOUND_CWD_DELETE`, `COMPOUND_CREATE_DELETE`):
/// its targets are only known when the line runs, so a workspace checkpoint keeps them, as
/// long as they lie in the workspace; a ref-dropping git command keeps its refs from the
/// directory the line goes to, when the guard can follow it there.
pub(crate) fn shape(
    op: &OpSpec,
    code: ReasonCode,
    ctx: &PolicyContext,
    world: &dyn World,
) -> Verdict {
    let verdict = Verdict::of(code);
    let dir = run_dir(op, ctx, world);
    if matches!(
        op.kind,
        OpKind::GitStashDrop
            | OpKind::GitBranchDelete
            | OpKind::GitRefDelete
            | OpKind::GitReflogExpire
            | OpKind::GitSymbolicRef
    ) {
        // A checkpoint keeps files, not refs.
        return match dir {
            Some(cwd) => {
                let moved = PolicyContext { cwd, ..ctx.clone() };
                verdict.with_plan(snapshot_git_refs::verdict(op, &moved).plan)
            }
            None => verdict.not_keeping([Unkept::new(REFS, UnkeptWhy::GitRefs)]),
        };
    }
    let confined = dir.is_some_and(|dir| targets_inside(op, &dir, world));
    let outside = (!confined).then(|| Unkept::new(OUTSIDE, UnkeptWhy::OutsideWorkspace));
    if !ctx.checkpoint.enabled() {
        return verdict.not_keeping(
            outside
                .into_iter()
                .chain([Unkept::new(WORKSPACE, UnkeptWhy::CheckpointsOff)]),
        );
    }
    verdict
        .with_plan(snapshot_checkpoint::plan(ctx))
        .not_keeping(outside)
}

/// The directory `op` runs in, following the line's directory changes before it; `None`
/// when one cannot be followed (not literal, `cd -`, `popd`) or leads out of the workspace,
/// into `.git` or the quarantine. A change into a directory that does not exist fails and
/// leaves the directory as it was. (It assumes `CDPATH` is unset, as it is for an agent's
/// shell; a checkpoint keeps the workspace whatever the line does.)
fn run_dir(op: &OpSpec, ctx: &PolicyContext, world: &dyn World) -> Option<PathBuf> {
    let dir = follow_cds(op, ctx, world, inside)?;
    inside(&world.path(&Target::literal("./"), &dir)).then_some(dir)
}

/// The directory `op` runs in: the line's, after each directory change before it (a `cd`,
/// git's own `-C`); `None` when one is not literal or one it goes to fails `allowed`. A
/// change into a directory that does not exist fails and leaves the directory as it was.
pub(crate) fn follow_cds(
    op: &OpSpec,
    ctx: &PolicyContext,
    world: &dyn World,
    allowed: fn(&PathSpec) -> bool,
) -> Option<PathBuf> {
    let mut dir = ctx.cwd.clone();
    for change in &op.cd {
        let target = change.as_ref().filter(|t| t.is_concrete())?;
        let spec = world.path(
            &Target {
                through_symlink: true,
                tilde: target.tilde,
                ..Target::literal(format!("{}/", target.text.trim_end_matches('/')))
            },
            &dir,
        );
        if !spec.exists() {
            continue;
        }
        if !allowed(&spec) {
            return None;
        }
        dir = spec.physical?;
    }
    Some(dir)
}

/// Whether every path `op` names, resolved from `dir`, lies in the workspace (its root is
/// not a target a checkpoint keeps: deleting it deletes `.git`).
fn targets_inside(op: &OpSpec, dir: &std::path::Path, world: &dyn World) -> bool {
    if op.kind.is_git() {
        // Git finds its repository from the directory and limits its pathspecs to the work
        // tree; a checkpoint of the workspace covers what it changes there.
        return op.targets.iter().all(|t| !t.text.starts_with(':'));
    }
    op.targets.iter().chain(&op.sources).all(|t| {
        t.is_concrete() && {
            let spec = world.path(t, dir);
            inside(&spec) && spec.protected.is_none()
        }
    })
}

/// A resolved path in the workspace and outside its `.git` and quarantine.
fn inside(spec: &PathSpec) -> bool {
    use agent_guard_types::Protected;
    spec.error.is_none()
        && spec.inside_workspace
        && !spec.inside_trash
        && matches!(spec.protected, None | Some(Protected::WorkspaceRoot))
}

/// The plan of a line whose aggregate is ASK: every plan that takes nothing away, and one
/// workspace checkpoint in place of the relocations (or, with checkpoints off, their targets
/// named as not kept).
pub fn before_asking(verdicts: &[Verdict], ctx: &PolicyContext) -> AskPlan {
    let mut plan = AskPlan::default();
    let mut taken_away = Vec::new();
    for verdict in verdicts {
        plan.unkept.extend(verdict.unkept.iter().cloned());
        if verdict.plan.takes_away() {
            taken_away.push(verdict);
        } else if Strategy::for_plan(&verdict.plan).is_some() {
            plan.keep.push(verdict.clone());
        }
    }
    let checkpointed = plan
        .keep
        .iter()
        .any(|v| matches!(v.plan, Plan::Checkpoint(_)));
    if taken_away.is_empty() || checkpointed {
        return plan;
    }
    if ctx.checkpoint.enabled() {
        plan.keep.push(
            Verdict::of(ReasonCode::SnapshotCheckpoint)
                .with_plan(snapshot_checkpoint::plan(ctx))
                .because("kept before asking, instead of a relocation"),
        );
        return plan;
    }
    for verdict in taken_away {
        match &verdict.plan {
            Plan::Relocate(specs) => plan.unkept.extend(
                specs
                    .iter()
                    .map(|s| Unkept::new(display(s), UnkeptWhy::CheckpointsOff)),
            ),
            _ => plan.unkept.push(Unkept::new(
                "what `git clean` removes",
                UnkeptWhy::CheckpointsOff,
            )),
        }
    }
    plan
}

/// A path as a question names it: workspace-relative, in backticks.
pub(crate) fn display(spec: &PathSpec) -> String {
    let name = spec
        .relative
        .as_ref()
        .filter(|r| !r.as_os_str().is_empty())
        .map_or_else(|| spec.raw.clone(), |r| r.display().to_string());
    format!("`{name}`")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{FakeWorld, dir, file, rm};
    use agent_guard_types::{CheckpointMode, Decision, Shape};

    #[test]
    fn a_cd_into_the_workspace_is_kept_by_a_checkpoint() {
        let world = FakeWorld::with([dir("sub/"), file("x")]);
        let mut op = rm(&["x"], true);
        op.shape = Some(Shape::F1);
        op.cd = vec![Some(Target::literal("sub"))];
        let ctx = PolicyContext::new("/ws");
        let verdict = shape(&op, ReasonCode::CompoundCwdDelete, &ctx, &world);
        assert_eq!(verdict.decision, Decision::Ask);
        assert!(matches!(verdict.plan, Plan::Checkpoint(_)), "{verdict:?}");
        // A change the guard cannot follow: still checkpointed, and the outside is named.
        op.cd = vec![None];
        let verdict = shape(&op, ReasonCode::CompoundCwdDelete, &ctx, &world);
        assert!(matches!(verdict.plan, Plan::Checkpoint(_)));
        assert_eq!(verdict.unkept[0].why, UnkeptWhy::OutsideWorkspace);
        let mut off = ctx;
        off.checkpoint = CheckpointMode::Never;
        let verdict = shape(&op, ReasonCode::CompoundCwdDelete, &off, &world);
        assert_eq!(verdict.plan, Plan::Nothing);
        assert!(
            verdict
                .unkept
                .iter()
                .any(|u| u.why == UnkeptWhy::CheckpointsOff)
        );
    }

    #[test]
    fn relocations_become_one_checkpoint_before_asking() {
        let ctx = PolicyContext::new("/ws");
        let verdicts = [
            Verdict::of(ReasonCode::RelocateTree).with_plan(Plan::Relocate(vec![dir("build")])),
            Verdict::of(ReasonCode::CompoundCreateDelete),
        ];
        let plan = before_asking(&verdicts, &ctx);
        assert_eq!(plan.keep.len(), 1);
        assert!(matches!(plan.keep[0].plan, Plan::Checkpoint(_)));
        let mut off = ctx;
        off.checkpoint = CheckpointMode::Never;
        let plan = before_asking(&verdicts, &off);
        assert!(plan.keep.is_empty());
        assert_eq!(plan.unkept[0].what, "`build`");
    }
}
