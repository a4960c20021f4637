//! Ops judged where the line's literal directory changes lead (issue 38, point 5).
//!
//! The classifier leaves the shape F1 off an op when every `cd` before it certainly ran in
//! the line's own shell (or the op is a git command with its own literal `-C DIR`), and
//! lists the changes in [`OpSpec::cd`]. Here the world says whether each leads to a
//! directory the command can enter: then a `cd` cannot fail, and the op is judged as if it
//! ran there, by the same rules as any other. A path op has its relative paths spelled from
//! that directory (so every rule of the line sees the same paths); a git op is judged with
//! that directory as its working directory. When one does not lead anywhere (a directory
//! that does not exist, that cannot be entered, a name that is not UTF-8), the op takes the
//! shape F1, as before: a question, with a checkpoint first.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use agent_guard_types::{Decision, OpKind, OpSpec, ReasonCode, Shape, Target, Verdict, World};

use crate::PolicyContext;

/// The most directory changes before one op the guard follows: each costs a probe, and a
/// line of thousands is not one an agent writes (it keeps the question).
const MAX_CHANGES: usize = 32;

/// An op as the policy judges it, and the working directory it is judged in when that is not
/// the line's.
pub(crate) struct Seen<'a> {
    /// The op, its relative paths spelled from where the line goes when it is a path op.
    pub(crate) op: Cow<'a, OpSpec>,
    /// The directory a followed git op runs in.
    pub(crate) cwd: Option<PathBuf>,
    /// The op was judged where the line's directory changes go.
    pub(crate) followed: bool,
}

/// How `op` is judged (see the module documentation).
pub(crate) fn follow<'a>(op: &'a OpSpec, ctx: &PolicyContext, world: &dyn World) -> Seen<'a> {
    let unchanged = Seen {
        op: Cow::Borrowed(op),
        cwd: None,
        followed: false,
    };
    // A work-tree move finds its repository by following the changes itself (`guard_tree`).
    if op.cd.is_empty() || op.shape == Some(Shape::F1) || op.kind == OpKind::GitMoveWorkTree {
        return unchanged;
    }
    let Some(dir) = (ctx.follow_cd && op.cd.len() <= MAX_CHANGES && followed_kind(op))
        .then(|| lead(&op.cd, &ctx.cwd, world))
        .flatten()
    else {
        return asked(op);
    };
    let mut seen = op.clone();
    seen.cd.clear();
    seen.note(format!(
        "judged in {}, where the line's directory change goes",
        dir.display()
    ));
    if op.kind.is_git() {
        // A repository outside the workspace is not one the guard keeps: the question
        // names what it cannot keep.
        let at = world.path(&Target::literal("./"), &dir);
        if !at.inside_workspace || at.inside_trash {
            return asked(op);
        }
        return Seen {
            op: Cow::Owned(seen),
            cwd: Some(dir),
            followed: true,
        };
    }
    for target in seen.targets.iter_mut().chain(seen.sources.iter_mut()) {
        if !spell_from(target, &dir) {
            return asked(op);
        }
        // Compensating a target that holds the directory would move the line's own `cd`
        // out from under it (`cd src && rm -rf ../src; rm -rf build`).
        let spec = world.path(target, &dir);
        if spec
            .physical
            .as_ref()
            .is_none_or(|physical| dir.starts_with(physical))
        {
            return asked(op);
        }
    }
    Seen {
        op: Cow::Owned(seen),
        cwd: None,
        followed: true,
    }
}

/// The checkpoint a line whose ops were judged where its `cd` goes also takes (the line
/// keeps its code, `aggregate`): should the shell go elsewhere after all (a `cd` function,
/// an alias or a `CDPATH` shell variable an earlier line of a persistent shell defined, none
/// of which the guard can see), what the line destroys in the workspace is still kept.
pub(crate) fn checkpoint(
    seen: &[Seen<'_>],
    aggregate: &Verdict,
    verdicts: &[Verdict],
    ctx: &PolicyContext,
) -> Option<Verdict> {
    let runs = aggregate.decision.rank() <= Decision::Snapshot.rank();
    let has_one = verdicts
        .iter()
        .any(|v| matches!(v.plan, agent_guard_types::Plan::Checkpoint(_)));
    (seen.iter().any(|s| s.followed) && runs && ctx.checkpoint.enabled() && !has_one).then(|| {
        Verdict::of(ReasonCode::SnapshotCheckpoint)
            .with_plan(crate::reasons::snapshot_checkpoint::plan(ctx))
            .because("the line's ops were judged where its directory change goes")
    })
}

/// `op` with the shape F1 (unless it has F2 already): a question, with a checkpoint first.
fn asked(op: &OpSpec) -> Seen<'_> {
    let mut asked = op.clone();
    asked.shape = asked.shape.or(Some(Shape::F1));
    Seen {
        op: Cow::Owned(asked),
        cwd: None,
        followed: false,
    }
}

/// Kinds whose effect the working directory decides and that are judged where the line goes.
/// A program the guard cannot see into is judged by where it runs already (its directory is
/// its target), a work-tree move by the repository it finds (`guard_tree`), and stash
/// positions are followed across the line in one repository (`stash_line`).
fn followed_kind(op: &OpSpec) -> bool {
    match op.kind {
        OpKind::FsDelete
        | OpKind::Overwrite
        | OpKind::SideEffectDelete
        | OpKind::Move
        | OpKind::Append
        | OpKind::Metadata => op.sub.is_none() && op.listed_writes.is_none(),
        OpKind::GitClean
        | OpKind::GitDiscard
        | OpKind::GitResetHard
        | OpKind::GitBranchDelete
        | OpKind::GitRefDelete
        | OpKind::GitReflogExpire
        | OpKind::GitSymbolicRef => true,
        _ => false,
    }
}

/// The directory the changes `cd` lead to from `cwd`, when each is a literal directory the
/// command can enter (so the change cannot fail) and the shell's reading of it (logical:
/// `lnk/..` is where the line started) and the system's (physical: the parent of where
/// `lnk` leads) agree, so `cd -L`, `cd -P` and git's `-C` all go there; `None` otherwise.
fn lead(cd: &[Option<Target>], cwd: &Path, world: &dyn World) -> Option<PathBuf> {
    let mut dir = cwd.to_path_buf();
    let mut logical = cwd.to_path_buf();
    for change in cd {
        let target = change.as_ref().filter(|t| t.is_concrete())?;
        let through = |text: &str, base: &Path| {
            world.path(
                &Target {
                    through_symlink: true,
                    tilde: target.tilde,
                    ..Target::literal(format!("{}/", text.trim_end_matches('/')))
                },
                base,
            )
        };
        let spec = through(&target.text, &dir);
        if !spec.is_dir() {
            return None;
        }
        let next = spec.physical?;
        if !world.enterable(&next) {
            return None;
        }
        if target.tilde {
            logical.clone_from(&next);
            dir = next;
            continue;
        }
        // The shell folds `..` against the path it came by, before it looks.
        let folded = agent_guard_types::logical_join(&logical, &target.text);
        if through(folded.to_str()?, &dir).physical.as_deref() != Some(next.as_path()) {
            return None;
        }
        logical = folded;
        dir = next;
    }
    Some(dir)
}

/// Spells a relative `target` from `dir`; `false` when it cannot: a directory that is not
/// UTF-8, or a last name `.` or `..`, which means the directory itself (`rm -rf .` refuses
/// it; the question keeps judging it from where the line started). Absolute, home-relative
/// and unknown targets stay as they are.
fn spell_from(target: &mut Target, dir: &Path) -> bool {
    if target.tilde || target.opaque.is_some() || target.text.starts_with('/') {
        return true;
    }
    let last = target.text.trim_end_matches('/').rsplit('/').next();
    if matches!(last, Some("." | "..")) {
        return false;
    }
    if let Some(exact) = &target.exact
        && exact.is_relative()
    {
        target.exact = Some(dir.join(exact));
    }
    let Some(base) = dir.to_str() else {
        return false;
    };
    target.text = if target.text.is_empty() {
        base.to_owned()
    } else {
        format!("{}/{}", base.trim_end_matches('/'), target.text)
    };
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{FakeWorld, dir, rm};

    #[test]
    fn a_path_op_is_spelled_from_the_directory_it_runs_in() {
        let world = FakeWorld::with([dir("src/"), dir("/ws/src/")]);
        let mut op = rm(&["build", "/abs", "../up"], true);
        op.cd = vec![Some(Target::literal("src"))];
        let ctx = PolicyContext::new("/ws");
        let seen = follow(&op, &ctx, &world);
        let texts: Vec<&str> = seen.op.targets.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(texts, ["/ws/src/build", "/abs", "/ws/src/../up"]);
        assert!(seen.op.cd.is_empty());
        assert_eq!(seen.op.shape, None);
    }

    #[test]
    fn a_change_that_may_fail_keeps_the_question() {
        let world = FakeWorld::default();
        let mut op = rm(&["build"], true);
        op.cd = vec![Some(Target::literal("missing"))];
        let seen = follow(&op, &PolicyContext::new("/ws"), &world);
        assert_eq!(seen.op.shape, Some(Shape::F1));
        assert_eq!(seen.op.targets[0].text, "build");
        op.cd = vec![None];
        let seen = follow(&op, &PolicyContext::new("/ws"), &world);
        assert_eq!(seen.op.shape, Some(Shape::F1));
    }
}
