//! The verdict on a command that moves or renames paths (`OpKind::Move`).
//!
//! A move is judged on both ends. Its sources leave their names: moving the workspace root,
//! `.git`, the quarantine or a filesystem root is refused as deleting them would be. Its
//! destinations are replaced, as by an overwrite that replaces: protected ones are refused,
//! an existing one outside the workspace is refused, an existing file inside is kept first.
//! What remains is recorded ([`MovePlan`]): where every source inside the workspace is, what
//! every destination inside it holds, and a copy of each source that may leave the workspace.
//!
//! All the moves of a line become one plan ([`merge`]), so that one undo reverses a chain
//! (`mv a b && mv b c`) or a swap through a temporary name together.

use agent_guard_types::{
    EntryKind, MovePlan, MovedSource, OpKind, OpSpec, PathSpec, Plan, Preserved, Protected,
    ReasonCode, Unkept, UnkeptWhy, Verdict, World,
};

use crate::PolicyContext;
use crate::reasons::{
    ask_preserve_too_large, block_protected_ancestor, block_protected_path,
    block_undeterminable_effect, block_wildcard, snapshot_checkpoint_delete,
};

/// Decides a move op.
pub(crate) fn decide(op: &OpSpec, ctx: &PolicyContext, world: &dyn World) -> Verdict {
    let sources: Vec<PathSpec> = op.sources.iter().map(|t| world.path(t, &ctx.cwd)).collect();
    let destinations: Vec<PathSpec> = op.targets.iter().map(|t| world.path(t, &ctx.cwd)).collect();
    if let Some(verdict) = refusal(op, &sources, &destinations, ctx, world) {
        return verdict;
    }
    let leaves = destinations.iter().any(|s| !s.inside_workspace);
    let landings_of = |index: usize| -> Vec<std::path::PathBuf> {
        op.landing_of
            .iter()
            .zip(&destinations)
            .filter(|(of, _)| **of == Some(index))
            .filter_map(|(_, d)| d.physical.clone())
            .collect()
    };
    let moved: Vec<MovedSource> = sources
        .iter()
        .enumerate()
        .filter(|(_, s)| s.exists() && s.inside_workspace)
        .map(|(index, spec)| MovedSource {
            spec: spec.clone(),
            copy: leaves,
            max_copy: ctx.preserve_max_bytes,
            landings: landings_of(index),
        })
        .collect();
    let kept: Vec<Preserved> = destinations
        .iter()
        .filter(|s| s.inside_workspace && s.exists() && s.is_file_or_symlink())
        .map(|spec| Preserved {
            spec: spec.clone(),
            mode: op.write,
            // Not where a source of the same op names it (`mv --exchange a b`): the linked
            // inode would stay in the workspace with a second name.
            link: !op.in_compound_line
                && !moved
                    .iter()
                    .any(|m| m.spec.physical.is_some() && m.spec.physical == spec.physical),
            max_copy: ctx.preserve_max_bytes,
        })
        .collect();
    if moved.is_empty()
        && kept.is_empty()
        && !destinations.iter().any(|d| d.inside_workspace)
        && sources.iter().all(PathSpec::exists)
    {
        // Nothing of the workspace leaves its name, is replaced or appears (`mv /tmp/a
        // /tmp/b`). A source the line makes first (`mv a t && mv t b`) is recorded where it
        // lands, and found where it was before the line ([`chained_sources`]).
        return Verdict::of(ReasonCode::AllowNoop);
    }
    let copied: Vec<&PathSpec> = moved
        .iter()
        .filter(|m| m.copy && !m.spec.is_dir())
        .map(|m| &m.spec)
        .filter(|s| {
            !s.physical
                .as_deref()
                .is_some_and(|path| world.shares_extents(path))
        })
        .collect();
    let too_large: Vec<PathSpec> = ask_preserve_too_large::over(&copied, ctx.preserve_max_bytes)
        .into_iter()
        .cloned()
        .collect();
    // Over the cap, a person decides. The move is still recorded (undo looks for the file
    // where it lands), but no copy of it is kept: the question names it.
    let moved = moved
        .into_iter()
        .map(|m| MovedSource {
            copy: m.copy && !too_large.contains(&m.spec),
            ..m
        })
        .collect();
    let code = if too_large.is_empty() {
        ReasonCode::SnapshotMove
    } else {
        ReasonCode::AskPreserveTooLarge
    };
    let mut verdict = Verdict::of(code)
        .with_plan(Plan::Move(MovePlan {
            sources: moved,
            destinations,
            kept,
            index: op.kind == OpKind::Move && op.sub.as_deref() == Some("mv"),
        }))
        .not_keeping(too_large.iter().map(|big| {
            Unkept::new(crate::ask::display(big), UnkeptWhy::OverPreserveCap).sized(big.size)
        }));
    verdict.reasons.extend(
        too_large
            .iter()
            .map(|big| ask_preserve_too_large::reason(&big.raw, big.size, ctx.preserve_max_bytes)),
    );
    verdict
}

/// The verdict that refuses the move (or, for sources only the shell knows, checkpoints
/// it) before anything is planned; `None` when it is to be planned.
fn refusal(
    op: &OpSpec,
    sources: &[PathSpec],
    destinations: &[PathSpec],
    ctx: &PolicyContext,
    world: &dyn World,
) -> Option<Verdict> {
    let both = || {
        sources
            .iter()
            .chain(destinations)
            .cloned()
            .collect::<Vec<_>>()
    };
    if let Some(verdict) = block_undeterminable_effect::batch(&both()) {
        return Some(verdict);
    }
    if block_protected_ancestor::applies(&both()) {
        return Some(Verdict::of(ReasonCode::BlockProtectedAncestor));
    }
    // Moving `.git`, the quarantine or the workspace away takes it from the workspace; moving
    // onto them, or into the quarantine, tampers with them.
    if block_protected_path::applies(&both())
        || both().iter().any(|s| s.inside_trash)
        || destinations
            .iter()
            .any(|s| s.entry == EntryKind::Special && !s.inside_workspace)
    {
        return Some(Verdict::of(ReasonCode::BlockProtectedPath));
    }
    if destinations
        .iter()
        .any(|s| s.exists() && s.protected == Some(Protected::OutsideWorkspace))
    {
        return Some(Verdict::of(ReasonCode::BlockOutOfWorkspace));
    }
    if block_wildcard::applies(&both()) {
        // Sources only the shell knows, landing inside the workspace: a checkpoint.
        return Some(
            snapshot_checkpoint_delete::moves(op, destinations, ctx, world)
                .unwrap_or_else(|| Verdict::of(ReasonCode::BlockWildcard)),
        );
    }
    None
}

/// Records, for a source the line itself moves into place first (`mv dir y && mv y/x z`),
/// the path it has before the line runs (`dir/x`): its identity is what undo looks for.
pub(crate) fn chained_sources(
    verdicts: &mut [Verdict],
    ops: &[OpSpec],
    ctx: &PolicyContext,
    world: &dyn World,
) {
    use std::path::PathBuf;
    if ops.iter().filter(|op| op.kind == OpKind::Move).count() < 2 {
        return;
    }
    let physical = |t: &agent_guard_types::Target| {
        t.is_concrete()
            .then(|| world.path(t, &ctx.cwd).physical)
            .flatten()
    };
    // (where it may land, what lands there), per move op, in line order.
    let mut pairs: Vec<(PathBuf, PathBuf)> = Vec::new();
    for (index, op) in ops.iter().enumerate() {
        if op.kind != OpKind::Move {
            continue;
        }
        let mut found: Vec<MovedSource> = Vec::new();
        for (source_index, source) in op.sources.iter().enumerate() {
            let Some(mut path) = physical(source) else {
                continue;
            };
            if world.path(source, &ctx.cwd).exists() {
                continue;
            }
            // Back through the earlier moves, newest first, until it names something that
            // exists before the line runs.
            let mut rebased = false;
            for (landing, from) in pairs.iter().rev() {
                if let Ok(rest) = path.strip_prefix(landing) {
                    path = if rest.as_os_str().is_empty() {
                        from.clone()
                    } else {
                        from.join(rest)
                    };
                    rebased = true;
                }
            }
            if !rebased {
                continue;
            }
            let spec = world.path(
                &agent_guard_types::Target::literal(path.to_string_lossy()),
                &ctx.cwd,
            );
            if spec.exists() && spec.inside_workspace && spec.protected.is_none() {
                let landings = op
                    .targets
                    .iter()
                    .zip(&op.landing_of)
                    .filter(|(_, of)| **of == Some(source_index))
                    .filter_map(|(t, _)| physical(t))
                    .collect();
                found.push(MovedSource {
                    spec,
                    copy: false,
                    max_copy: ctx.preserve_max_bytes,
                    landings,
                });
            }
        }
        // A destination the line itself makes a symbolic link (`mv link c && mv -b c c`):
        // where a source lands through it depends on where the link leads from its new
        // place, which nothing before the line shows.
        let through_made_link = op.targets.iter().filter_map(&physical).any(|target| {
            pairs.iter().any(|(landing, from)| {
                target == *landing
                    && world
                        .path(
                            &agent_guard_types::Target::literal(from.to_string_lossy()),
                            &ctx.cwd,
                        )
                        .entry
                        == agent_guard_types::EntryKind::Symlink
            })
        });
        if through_made_link
            && let Some(verdict) = verdicts.iter_mut().find(|v| v.op_index == Some(index))
        {
            *verdict = Verdict::of(ReasonCode::BlockUndeterminableEffect)
                .because(
                    "a destination is a symbolic link an earlier move of the line makes: where \
                     the move lands through it is only known when the line runs",
                )
                .for_op(index);
            continue;
        }
        if let Some(Plan::Move(plan)) = verdicts
            .iter_mut()
            .find(|v| v.op_index == Some(index))
            .map(|v| &mut v.plan)
        {
            let leaves = plan.destinations.iter().any(|d| !d.inside_workspace);
            plan.sources
                .extend(found.into_iter().map(|s| MovedSource { copy: leaves, ..s }));
        }
        for (target, landing) in op.targets.iter().zip(&op.landing_of) {
            let from = landing.and_then(|i| op.sources.get(i)).and_then(&physical);
            if let (Some(target), Some(from)) = (physical(target), from) {
                pairs.push((target, from));
            }
        }
    }
}

/// Keeps a copy of a moved source when another op of the line writes over where it may have
/// landed (`mv a b && echo x > b`, `mv a d/x && mv c d/x`, a numbered backup name), or
/// names the source itself (`sed -i s/x/y/ a && mv a b` gives it a new inode first): the line
/// itself destroys or changes it, so its identity alone would find nothing to move back.
pub(crate) fn copy_when_overwritten(
    verdicts: &mut [Verdict],
    ops: &[OpSpec],
    ctx: &PolicyContext,
    world: &dyn World,
) {
    if !verdicts.iter().any(|v| matches!(v.plan, Plan::Move(_))) {
        return;
    }
    let named: Vec<Vec<std::path::PathBuf>> = ops
        .iter()
        .map(|op| {
            op.targets
                .iter()
                .filter(|t| t.is_concrete())
                .filter_map(|t| world.path(t, &ctx.cwd).physical)
                .collect()
        })
        .collect();
    for verdict in verdicts.iter_mut() {
        let own = verdict.op_index;
        let Plan::Move(plan) = &mut verdict.plan else {
            continue;
        };
        let landings: Vec<&std::path::Path> = plan
            .destinations
            .iter()
            .filter_map(|d| d.physical.as_deref())
            .collect();
        // Where it may land, or a numbered backup of it (`mv --backup=numbered a b && echo x
        // > b.~1~`), or the source itself (`sed -i s/x/y/ a && mv a b`: its identity changes).
        let sources: Vec<&std::path::Path> = plan
            .sources
            .iter()
            .filter_map(|s| s.spec.physical.as_deref())
            .collect();
        let overwritten = named.iter().enumerate().any(|(index, paths)| {
            Some(index) != own
                && paths.iter().any(|p| {
                    landings.iter().any(|landing| landing.starts_with(p))
                        || landings
                            .iter()
                            .chain(&sources)
                            .any(|l| is_numbered_backup(p, l))
                        || sources
                            .iter()
                            .any(|source| source.starts_with(p) || p.starts_with(source))
                })
        });
        if overwritten {
            for source in &mut plan.sources {
                source.copy = true;
            }
        }
    }
}

/// Whether `path` is a GNU numbered backup of `of` (`<of>.~N~`).
fn is_numbered_backup(path: &std::path::Path, of: &std::path::Path) -> bool {
    if path.parent() != of.parent() {
        return false;
    }
    let (Some(name), Some(base)) = (path.file_name(), of.file_name()) else {
        return false;
    };
    let mut prefix = base.to_os_string();
    prefix.push(".~");
    name.as_encoded_bytes()
        .strip_prefix(prefix.as_encoded_bytes())
        .and_then(|rest| rest.strip_suffix(b"~"))
        .is_some_and(|digits| !digits.is_empty() && digits.iter().all(u8::is_ascii_digit))
}

/// Folds every move plan of the line into the first one, so that one transaction (and one
/// undo) covers them all; the later move verdicts keep their code and carry no plan.
pub(crate) fn merge(verdicts: &mut [Verdict]) {
    let mut first: Option<usize> = None;
    for index in 0..verdicts.len() {
        if !matches!(verdicts[index].plan, Plan::Move(_)) {
            continue;
        }
        let Some(into) = first else {
            first = Some(index);
            continue;
        };
        let Plan::Move(later) = std::mem::take(&mut verdicts[index].plan) else {
            continue;
        };
        if let Plan::Move(plan) = &mut verdicts[into].plan {
            plan.index |= later.index;
            for source in later.sources {
                match plan
                    .sources
                    .iter_mut()
                    .find(|s| s.spec.physical == source.spec.physical)
                {
                    // Moved twice: a copy if either move needs one.
                    Some(existing) => {
                        existing.copy |= source.copy;
                        existing.landings.extend(source.landings);
                    }
                    None => plan.sources.push(source),
                }
            }
            for destination in later.destinations {
                if !plan
                    .destinations
                    .iter()
                    .any(|d| d.physical == destination.physical)
                {
                    plan.destinations.push(destination);
                }
            }
            for kept in later.kept {
                match plan
                    .kept
                    .iter_mut()
                    .find(|k| k.spec.physical == kept.spec.physical)
                {
                    Some(existing) => existing.link &= kept.link,
                    None => plan.kept.push(kept),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{FakeWorld, absent, dir, file, protected};
    use agent_guard_types::{Dialect, Target, WriteMode};

    fn mv(sources: &[&str], targets: &[&str]) -> OpSpec {
        let mut op = OpSpec::new("mv", OpKind::Move, Dialect::Posix);
        op.sources = sources.iter().map(|t| Target::literal(*t)).collect();
        op.targets = targets.iter().map(|t| Target::literal(*t)).collect();
        op.write = WriteMode::Replace;
        op
    }

    fn decided(op: &OpSpec, world: &FakeWorld) -> Verdict {
        decide(op, &PolicyContext::new("/ws"), world)
    }

    #[test]
    fn a_rename_records_the_source_and_keeps_the_destination() {
        let world = FakeWorld::with([file("a"), file("b"), absent("b/a")]);
        let verdict = decided(&mv(&["a"], &["b", "b/a"]), &world);
        assert_eq!(verdict.code, ReasonCode::SnapshotMove);
        let Plan::Move(plan) = verdict.plan else {
            panic!("{verdict:?}")
        };
        assert_eq!(plan.sources.len(), 1);
        assert!(!plan.sources[0].copy, "it stays in the workspace");
        assert_eq!(plan.destinations.len(), 2);
        assert_eq!(plan.kept.len(), 1);
        assert!(plan.kept[0].link);
    }

    #[test]
    fn a_move_to_a_new_name_is_still_recorded() {
        let world = FakeWorld::with([file("a"), absent("new"), absent("new/a")]);
        assert_eq!(
            decided(&mv(&["a"], &["new", "new/a"]), &world).code,
            ReasonCode::SnapshotMove
        );
    }

    #[test]
    fn nothing_of_the_workspace_moves() {
        let world = FakeWorld::with([
            protected(file("/tmp/a"), Protected::OutsideWorkspace),
            protected(absent("/tmp/b"), Protected::OutsideWorkspace),
            absent("gone"),
            absent("new"),
        ]);
        assert_eq!(
            decided(&mv(&["/tmp/a"], &["/tmp/b"]), &world).code,
            ReasonCode::AllowNoop
        );
        // A source the line makes first: where it lands is recorded all the same.
        assert_eq!(
            decided(&mv(&["gone"], &["new"]), &world).code,
            ReasonCode::SnapshotMove
        );
    }

    #[test]
    fn a_source_leaving_the_workspace_is_copied() {
        let world = FakeWorld::with([
            file("a"),
            protected(absent("/tmp/a"), Protected::OutsideWorkspace),
        ]);
        let verdict = decided(&mv(&["a"], &["/tmp/a"]), &world);
        let Plan::Move(plan) = verdict.plan else {
            panic!("{verdict:?}")
        };
        assert!(plan.sources[0].copy);
        assert!(
            !plan.destinations[0].inside_workspace,
            "outside is only where undo looks for it"
        );
    }

    #[test]
    fn protected_ends_are_refused() {
        let world = FakeWorld::with([
            protected(dir(".git"), Protected::GitMetadata),
            file("a"),
            protected(file("/etc/hosts"), Protected::OutsideWorkspace),
            protected(dir("/"), Protected::AncestorRoot),
        ]);
        assert_eq!(
            decided(&mv(&[".git"], &["x"]), &world).code,
            ReasonCode::BlockProtectedPath
        );
        assert_eq!(
            decided(&mv(&["a"], &[".git"]), &world).code,
            ReasonCode::BlockProtectedPath
        );
        assert_eq!(
            decided(&mv(&["a"], &["/etc/hosts"]), &world).code,
            ReasonCode::BlockOutOfWorkspace
        );
        assert_eq!(
            decided(&mv(&["/"], &["x"]), &world).code,
            ReasonCode::BlockProtectedAncestor
        );
    }

    #[test]
    fn an_exchanged_path_is_not_linked() {
        let world = FakeWorld::with([file("a"), file("b")]);
        let verdict = decided(&mv(&["a", "b"], &["b", "a"]), &world);
        let Plan::Move(plan) = verdict.plan else {
            panic!("{verdict:?}")
        };
        assert_eq!(plan.kept.len(), 2);
        assert!(plan.kept.iter().all(|k| !k.link));
    }

    #[test]
    fn the_moves_of_a_line_share_one_plan() {
        let world = FakeWorld::with([file("a"), absent("b"), absent("c")]);
        let mut verdicts = vec![
            decided(&mv(&["a"], &["b"]), &world),
            decided(&mv(&["b"], &["c"]), &world),
        ];
        merge(&mut verdicts);
        let Plan::Move(plan) = &verdicts[0].plan else {
            panic!("{verdicts:?}")
        };
        assert_eq!(plan.sources.len(), 1, "a (b does not exist yet)");
        assert_eq!(plan.destinations.len(), 2, "b and c");
        assert_eq!(verdicts[1].plan, Plan::Nothing);
        assert_eq!(verdicts[1].code, ReasonCode::SnapshotMove);
    }
}
