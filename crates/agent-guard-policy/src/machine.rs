//! The per-op state machine (reference §3.2 step 2) and line aggregation.

use agent_guard_types::{Decision, OpKind, OpSpec, ReasonCode, Target, Verdict, World};

use crate::PolicyContext;
use crate::batch::{DeleteMode, decide_paths};
use crate::reasons::{
    allow_noop, ask_database_destroy, ask_outside_destroy, block_force_push,
    block_git_reset_collision, block_restricted_mode, block_self_protection,
    block_undeterminable_effect, block_wildcard, compound_create_delete, compound_cwd_delete,
    relocate_via_clean_enumerate, snapshot_checkpoint, snapshot_checkpoint_delete,
    snapshot_git_refs, snapshot_git_stash,
};
use crate::stash_line::Followed;

/// The verdicts on a line: one per op that has one, and the aggregate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decided {
    /// Per-op verdicts, in line order.
    pub verdicts: Vec<Verdict>,
    /// The highest-ranked verdict (ties: the first); `ALLOW_NOOP` when there is none.
    pub aggregate: Verdict,
    /// When the aggregate is ASK: what is kept before the question is put, and what cannot
    /// be kept.
    pub ask: Option<crate::AskPlan>,
}

/// Decides a classified line.
pub fn decide(ops: &[OpSpec], ctx: &PolicyContext, world: &dyn World) -> Decided {
    // Each op where the line's literal `cd`s lead, when the world says they cannot fail.
    let seen: Vec<crate::followed_cd::Seen<'_>> = ops
        .iter()
        .map(|op| crate::followed_cd::follow(op, ctx, world))
        .collect();
    let moved: Vec<Option<PolicyContext>> = seen
        .iter()
        .map(|s| {
            s.cwd
                .clone()
                .map(|cwd| PolicyContext { cwd, ..ctx.clone() })
        })
        .collect();
    let ctx_of = |index: usize| moved[index].as_ref().unwrap_or(ctx);
    let owned: Option<Vec<OpSpec>> = seen
        .iter()
        .any(|s| matches!(s.op, std::borrow::Cow::Owned(_)))
        .then(|| seen.iter().map(|s| s.op.as_ref().clone()).collect());
    let ops: &[OpSpec] = owned.as_deref().unwrap_or(ops);
    let followed = crate::stash_line::follow(ops);
    let mut verdicts: Vec<Verdict> = ops
        .iter()
        .enumerate()
        .filter_map(|(index, op)| {
            let ctx = ctx_of(index);
            let verdict = match &followed[index] {
                None => decide_op(op, ctx, world),
                Some(Followed::Targets(targets)) => {
                    let mut seen = op.clone();
                    seen.targets.clone_from(targets);
                    follow_stash_sources(&mut seen);
                    decide_op(&seen, ctx, world)
                }
                Some(Followed::DropsCreated) => {
                    let mut verdict = Verdict::of(ReasonCode::CompoundCreateDelete);
                    verdict.reasons.push(
                        "the stash entry it drops is made earlier in the line, so it cannot be \
                         kept first"
                            .to_owned(),
                    );
                    Some(verdict)
                }
                Some(Followed::Nothing) => Some(Verdict::of(ReasonCode::AllowNoop)),
                Some(Followed::Unplaceable) => {
                    let mut seen = op.clone();
                    seen.mark_undeterminable(
                        "a stash selector that is not a position, in a line that changes the \
                         stash list",
                    );
                    Some(undeterminable(&seen))
                }
            };
            verdict.map(|v| v.for_op(index))
        })
        .collect();
    // The hard-reset preflight reads git state; run it only when nothing already blocks,
    // and for every reset before any compensation of the line.
    if Verdict::worst(&verdicts).is_none_or(|w| w.decision != Decision::Block) {
        for verdict in &mut verdicts {
            let Some(index) = verdict.op_index else {
                continue;
            };
            if ops[index].kind == OpKind::GitResetHard
                && verdict.code == ReasonCode::SnapshotGitStash
            {
                *verdict = block_git_reset_collision::preflight(&ops[index], ctx_of(index), world)
                    .for_op(index);
            }
        }
    }
    crate::writes::unlink_shared(&mut verdicts, ops, ctx, world);
    crate::moves::chained_sources(&mut verdicts, ops, ctx, world);
    crate::moves::copy_when_overwritten(&mut verdicts, ops, ctx, world);
    crate::moves::merge(&mut verdicts);
    // One checkpoint covers the whole line: the later ones would record the same workspace.
    let mut checkpointed = false;
    for verdict in &mut verdicts {
        if matches!(verdict.plan, agent_guard_types::Plan::Checkpoint(_)) {
            if checkpointed {
                verdict.plan = agent_guard_types::Plan::Nothing;
            }
            checkpointed = true;
        }
    }
    if let Some(checkpoint) = snapshot_checkpoint::always(&verdicts, ctx) {
        // Taken last: what the line's own compensations move is in their transactions, so
        // the checkpoint records the rest, and the line keeps its own code.
        verdicts.push(checkpoint);
    }
    let aggregate = Verdict::worst(&verdicts)
        .cloned()
        .unwrap_or_else(|| Verdict::of(ReasonCode::AllowNoop));
    verdicts.extend(crate::followed_cd::checkpoint(
        &seen, &aggregate, &verdicts, ctx,
    ));
    let ask =
        (aggregate.decision == Decision::Ask).then(|| crate::ask::before_asking(&verdicts, ctx));
    Decided {
        verdicts,
        aggregate,
        ask,
    }
}

/// An undeterminable op: a checkpoint when a `find` (or a copy) confines it to the
/// workspace, else refused.
fn confined_or_undeterminable(op: &OpSpec, ctx: &PolicyContext, world: &dyn World) -> Verdict {
    let confinable = matches!(
        op.kind,
        OpKind::FsDelete | OpKind::Overwrite | OpKind::SideEffectDelete
    );
    confinable
        .then(|| snapshot_checkpoint_delete::find(op, ctx, world))
        .flatten()
        .unwrap_or_else(|| undeterminable(op))
}

/// Decides one op; `None` for an op that has no verdict (kind `other`).
pub fn decide_op(op: &OpSpec, ctx: &PolicyContext, world: &dyn World) -> Option<Verdict> {
    // A git command that would undo or remove a guard file's changes.
    if let Some(verdict) = block_self_protection::git_verdict(op, ctx, world) {
        return Some(verdict);
    }
    // A git command that writes another commit's hook files into the work tree.
    if let Some(verdict) = crate::guard_tree::verdict(op, ctx, world) {
        return Some(verdict);
    }
    if op.kind == OpKind::GitMoveWorkTree {
        // Otherwise it destroys nothing uncommitted (git keeps local changes or refuses):
        // no verdict, unless the guard cannot tell which repository or command it is.
        return op.undeterminable.then(|| undeterminable(op));
    }
    // A stash push keeps what it takes; it only matters to the stash ops after it.
    if matches!(op.kind, OpKind::Other | OpKind::GitStashPush) {
        return None;
    }
    if op.kind == OpKind::GuardVerb {
        let mut verdict = Verdict::of(ReasonCode::BlockSelfProtection);
        verdict.reasons.clone_from(&op.notes);
        return Some(verdict);
    }
    // The files that keep the guard on, before anything else: no mode, shape or
    // compensation makes changing them acceptable.
    if let Some(verdict) = block_self_protection::verdict(op, ctx, world) {
        return Some(verdict);
    }
    if op.kind == OpKind::Unknown {
        return Some(undeterminable(op));
    }
    if op.kind == OpKind::OpaqueProgram {
        // Where it visibly runs outside the workspace (`cd / && make clean`, `make -C /`,
        // `find / -exec ./x.sh {} +`), or in `.git` or the quarantine, a checkpoint
        // protects nothing of what it changes there.
        if let Some(verdict) = snapshot_checkpoint::runs_outside(op, ctx, world) {
            return Some(verdict);
        }
        // Otherwise, whatever it does, the checkpoint covers the whole workspace: neither
        // the session mode nor the line's shape (a `cd` before it) changes what it protects.
        return Some(snapshot_checkpoint::program(op, ctx));
    }
    if op.kind == OpKind::Metadata {
        // No content is lost: only the protected paths hold, as for an append.
        return Some(crate::writes::metadata(op, ctx, world));
    }
    if op.kind == OpKind::Append {
        // Nothing is lost, whatever the session mode or the line's shape: only the
        // protected paths hold.
        return Some(crate::writes::append(op, ctx, world));
    }
    if block_restricted_mode::op_applies(op, ctx) {
        return Some(Verdict::of(ReasonCode::BlockRestrictedMode));
    }
    if block_force_push::applies(op) {
        return Some(Verdict::of(ReasonCode::BlockForcePush));
    }
    // What it destroys lives outside the workspace: a person decides, whatever the line's
    // shape.
    match op.kind {
        OpKind::DatabaseDestroy => return Some(ask_database_destroy::verdict(op)),
        OpKind::OutsideDestroy => return Some(ask_outside_destroy::verdict(op)),
        _ => {}
    }
    if block_undeterminable_effect::op_applies(op) {
        return Some(confined_or_undeterminable(op, ctx, world));
    }
    if block_wildcard::op_applies(op) {
        return Some(Verdict::of(ReasonCode::BlockWildcard));
    }
    let writes = matches!(
        op.kind,
        OpKind::Overwrite | OpKind::SideEffectDelete | OpKind::EditTool | OpKind::Move
    );
    // F2 on a write (the classifier sets it only there): a command before it can leave a
    // link it would write through.
    let shape_code = if compound_create_delete::applies(op) {
        Some(ReasonCode::CompoundCreateDelete)
    } else if compound_cwd_delete::applies(op) {
        Some(ReasonCode::CompoundCwdDelete)
    } else {
        None
    };
    if let Some(code) = shape_code {
        // Hard boundaries still win: judge the targets against the declared cwd first.
        if op.kind == OpKind::FsDelete && !op.targets.is_empty() {
            let verdict = literal_paths(op, ctx, world);
            if verdict.decision == Decision::Block {
                return Some(verdict);
            }
        }
        if writes {
            let verdict = if op.kind == OpKind::Move {
                crate::moves::decide(op, ctx, world)
            } else {
                crate::writes::decide(op, ctx, world)
            };
            if verdict.decision == Decision::Block {
                return Some(verdict);
            }
        }
        return Some(crate::ask::shape(op, code, ctx, world));
    }
    Some(match op.kind {
        OpKind::FsDelete if allow_noop::op_applies(op) => Verdict::of(ReasonCode::AllowNoop),
        OpKind::FsDelete => paths(op, ctx, world),
        OpKind::GitClean if op.dry_run => Verdict::of(ReasonCode::AllowNoop),
        OpKind::GitClean => relocate_via_clean_enumerate::verdict(op, ctx),
        // Preflighted by `decide` once the whole line is known not to block.
        OpKind::GitResetHard => Verdict::of(ReasonCode::SnapshotGitStash),
        OpKind::GitDiscard => snapshot_git_stash::discard(op, ctx),
        OpKind::GitStashDrop
        | OpKind::GitBranchDelete
        | OpKind::GitRefDelete
        | OpKind::GitReflogExpire
        | OpKind::GitSymbolicRef => snapshot_git_refs::verdict(op, ctx),
        OpKind::Overwrite | OpKind::SideEffectDelete | OpKind::EditTool => {
            crate::writes::decide(op, ctx, world)
        }
        OpKind::Move => crate::moves::decide(op, ctx, world),
        _ => undeterminable(op),
    })
}

/// A stash op whose entry the line's earlier stash ops moved (`git stash drop; git stash
/// pop`): the entry it applies is the one its target now names (`stash branch` checks out
/// the commit that entry was made on).
fn follow_stash_sources(op: &mut OpSpec) {
    let [entry] = op.targets.as_slice() else {
        return;
    };
    for source in &mut op.tree_sources {
        match source.part {
            agent_guard_types::TreePart::Stash => source.rev = Some(entry.clone()),
            agent_guard_types::TreePart::Whole => {
                source.rev = Some(Target {
                    text: format!("{}^", entry.text),
                    ..entry.clone()
                });
            }
            _ => {}
        }
    }
}

fn undeterminable(op: &OpSpec) -> Verdict {
    let mut verdict = Verdict::of(ReasonCode::BlockUndeterminableEffect);
    verdict.reasons.clone_from(&op.notes);
    verdict
}

/// Resolves an fs-delete op's targets and decides the batch; wildcards the workspace
/// confines are checkpointed.
fn paths(op: &OpSpec, ctx: &PolicyContext, world: &dyn World) -> Verdict {
    let specs: Vec<_> = op.targets.iter().map(|t| world.path(t, &ctx.cwd)).collect();
    if specs.iter().any(|s| s.glob)
        && let Some(verdict) =
            snapshot_checkpoint_delete::globs(op, &specs, delete_mode(op), ctx, world)
    {
        return verdict;
    }
    decide_paths(specs, delete_mode(op), ctx, world)
}

/// Resolves an fs-delete op's targets and decides the batch as written (no checkpoint).
fn literal_paths(op: &OpSpec, ctx: &PolicyContext, world: &dyn World) -> Verdict {
    let specs = op.targets.iter().map(|t| world.path(t, &ctx.cwd)).collect();
    decide_paths(specs, delete_mode(op), ctx, world)
}

/// How `op`'s program treats directory targets.
pub fn delete_mode(op: &OpSpec) -> DeleteMode {
    DeleteMode {
        recursive: op.recursive,
        files_only: op.files_only,
        name_match: op.name_match,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{FakeWorld, dir, file, protected, rm};
    use agent_guard_types::{Dialect, Protected, ResetPreflight, SessionMode, Shape, Target};

    fn code(ops: &[OpSpec], world: &FakeWorld) -> ReasonCode {
        decide(ops, &PolicyContext::new("/ws"), world)
            .aggregate
            .code
    }

    #[test]
    fn empty_line_is_noop() {
        assert_eq!(code(&[], &FakeWorld::default()), ReasonCode::AllowNoop);
    }

    #[test]
    fn worst_verdict_wins() {
        let world = FakeWorld::with([
            dir("build"),
            protected(dir("/home/u"), Protected::AncestorRoot),
        ]);
        let ops = [rm(&["build"], true), rm(&["/home/u"], true)];
        assert_eq!(code(&ops, &world), ReasonCode::BlockProtectedAncestor);
    }

    #[test]
    fn shapes_ask_unless_a_boundary_blocks() {
        let world = FakeWorld::with([dir("build"), protected(dir("."), Protected::WorkspaceRoot)]);
        let mut op = rm(&["build"], true);
        op.shape = Some(Shape::F1);
        assert_eq!(code(&[op.clone()], &world), ReasonCode::CompoundCwdDelete);
        op.targets = vec![Target::literal(".")];
        assert_eq!(code(&[op.clone()], &world), ReasonCode::BlockProtectedPath);
        op.shape = Some(Shape::F2);
        op.targets = vec![Target::literal("a.tmp")];
        assert_eq!(code(&[op], &world), ReasonCode::CompoundCreateDelete);
    }

    #[test]
    fn force_push_wins_over_shapes_and_restricted_wins_over_push() {
        let mut push = OpSpec::new("git", OpKind::GitPushForce, Dialect::Posix);
        push.shape = Some(Shape::F1);
        assert_eq!(
            code(&[push.clone()], &FakeWorld::default()),
            ReasonCode::BlockForcePush
        );
        let mut ctx = PolicyContext::new("/ws");
        ctx.mode = SessionMode::Restricted;
        let decided = decide(&[push], &ctx, &FakeWorld::default());
        assert_eq!(decided.aggregate.code, ReasonCode::BlockRestrictedMode);
    }

    #[test]
    fn reset_preflight_runs_only_when_nothing_blocks() {
        let mut world = FakeWorld::with([protected(dir("."), Protected::WorkspaceRoot)]);
        world.preflight = Some(ResetPreflight::Collision(vec!["x".into()]));
        let reset = OpSpec::new("git", OpKind::GitResetHard, Dialect::Posix);
        assert_eq!(
            code(std::slice::from_ref(&reset), &world),
            ReasonCode::BlockGitResetCollision
        );
        let decided = decide(
            &[reset, rm(&["."], true)],
            &PolicyContext::new("/ws"),
            &world,
        );
        assert_eq!(decided.aggregate.code, ReasonCode::BlockProtectedPath);
        assert_eq!(decided.verdicts[0].code, ReasonCode::SnapshotGitStash);
    }

    #[test]
    fn git_kinds() {
        let world = FakeWorld::default();
        let mut clean = OpSpec::new("git", OpKind::GitClean, Dialect::Posix);
        clean.force = true;
        assert_eq!(
            code(&[clean.clone()], &world),
            ReasonCode::RelocateViaCleanEnumerate
        );
        clean.dry_run = true;
        assert_eq!(code(&[clean], &world), ReasonCode::AllowNoop);
        let discard = OpSpec::new("git", OpKind::GitDiscard, Dialect::Posix);
        assert_eq!(code(&[discard], &world), ReasonCode::SnapshotGitStash);
        let drop = OpSpec::new("git", OpKind::GitStashDrop, Dialect::Posix);
        assert_eq!(code(&[drop], &world), ReasonCode::SnapshotGitRefs);
    }

    #[test]
    fn rm_without_r_leaves_directories() {
        let world = FakeWorld::with([dir("build"), file("a")]);
        assert_eq!(
            code(&[rm(&["build"], false)], &world),
            ReasonCode::AllowNoop
        );
        assert_eq!(
            code(&[rm(&["build", "a"], false)], &world),
            ReasonCode::RelocatePaths
        );
    }
}
