//! `SNAPSHOT_CHECKPOINT_DELETE`.

use agent_guard_types::{
    Dialect, OpKind, OpSpec, PathSpec, Protected, Reach, ReasonCode, Target, Verdict, World,
};

use crate::PolicyContext;
use crate::batch::{DeleteMode, decide_paths};
use crate::reasons::snapshot_checkpoint;

super::reason!(
    SnapshotCheckpointDelete, SnapshotCheckpointDelete, "SNAPSHOT_CHECKPOINT_DELETE",
    catches: "A delete whose targets only the shell or the program knows, but which cannot leave the workspace: a glob whose literal directory resolves inside it and whose pattern is its last component (`rm *.log`, `rm -rf build/*`), `find` from literal starting points inside it without `-L` that deletes (`find . -name '*.tmp' -delete`, `-exec rm -rf {} +`) in a plain conjunction; in cmd and PowerShell, the one-level forms (`del *.log`, `Remove-Item build\\*.o`, without `/s` or `-Recurse`), and cmd's `del /s DIR\\PATTERN`, read as `find DIR -name PATTERN -delete` (Windows' rules: any case, `*` matches a leading dot, a three-letter extension also matches longer ones through 8.3 short names). A move of such glob sources into a destination inside the workspace (`mv *.log logs/`, `ren *.txt *.bak`) too. Never when what it could match includes the workspace's `.git` or the quarantine (`rm -rf .*`, `find . -delete`) or a file over `[checkpoint] max_file_bytes` (a checkpoint lists it without its content; a delete that names it moves it into the quarantine instead), and never through `..`, a symlink that leads out, a variable, or a pattern ending in `/`.",
    why: "The matches are decided when the command runs, so nothing can be moved aside first; but everything they can be lies in the workspace, so a workspace checkpoint taken just before makes the delete undoable. Agents no longer have to rewrite `rm *.log`.",
    example: "rm -rf build/*",
    verdict: "SNAPSHOT (advisory); ALLOW with the txid after the checkpoint under `--enforce`. With `[checkpoint] mode = \"never\"`, and in a RESTRICTED session, these stay `BLOCK_WILDCARD` and `BLOCK_UNDETERMINABLE_EFFECT`.",
    recovery: "`agent-guard undo` (or `agent-guard restore <txid>`): every deleted file comes back; `agent-guard show <txid>` lists them first.",
    enforcement: DurableIntent,
    hint: "Undo with `agent-guard undo` (or `agent-guard restore <txid>`); `agent-guard show <txid>` lists what the delete removed.",
    coverage: Coverage::Corpus,
);

/// Whether the confined forms may be checkpointed at all in `ctx`.
fn enabled(ctx: &PolicyContext) -> bool {
    ctx.checkpoint.enabled() && !ctx.restricted()
}

/// A literal directory's facts, for a glob's literal part or a `find` starting point: the
/// physical directory when it lies inside the workspace and is no protected path other than
/// the workspace root.
fn confined_dir(spec: &PathSpec) -> Option<&std::path::Path> {
    let allowed = matches!(spec.protected, None | Some(Protected::WorkspaceRoot));
    (spec.error.is_none() && spec.inside_workspace && !spec.inside_trash && allowed)
        .then_some(spec.physical.as_deref())
        .flatten()
}

/// `rm *.log`, `rm -rf build/*`, …: a checkpoint when every glob target is confined and the
/// literal targets pass the batch's hard boundaries. `None` leaves the batch's verdict
/// (`BLOCK_WILDCARD`).
pub(crate) fn globs(
    op: &OpSpec,
    specs: &[PathSpec],
    mode: DeleteMode,
    ctx: &PolicyContext,
    world: &dyn World,
) -> Option<Verdict> {
    // `del /s *.log` and `Remove-Item -Recurse *.log` may match at every depth, into `.git`
    // and the quarantine: in cmd and PowerShell only the one-level forms (`del *.log`,
    // `Remove-Item build\*.o`) are modelled, matched with Windows' rules (a `*` matches a
    // leading dot).
    if !enabled(ctx) || (op.dialect != Dialect::Posix && (op.recursive || mode.recursive)) {
        return None;
    }
    let literal: Vec<PathSpec> = specs.iter().filter(|s| !s.glob).cloned().collect();
    if !literal.is_empty() {
        let verdict = decide_paths(literal, mode, ctx, world);
        if verdict.decision.rank() > agent_guard_types::Decision::Snapshot.rank() {
            return Some(verdict);
        }
    }
    let confined = all_confined(op.targets.iter().filter(|t| t.glob), |t| {
        glob_confined(
            t,
            op.dialect,
            mode.recursive && !mode.files_only,
            false,
            ctx,
            world,
        )
    });
    match confined {
        Ok(()) => Some(verdict_for(op, ctx)),
        Err(Unconfined::OverCap(path)) => Some(over_cap(ReasonCode::BlockWildcard, &path, ctx)),
        Err(Unconfined::Refused) => None,
    }
}

/// Why a glob or a `find` starting point is not checkpointed.
enum Unconfined {
    /// Its matches may lie outside what a checkpoint keeps: the op keeps its refusal.
    Refused,
    /// It can remove or rewrite this file, which is over the checkpoint's size cap.
    OverCap(std::path::PathBuf),
}

/// Every item confined, else the first refusal (a plain one before a file over the cap).
fn all_confined<T>(
    items: impl IntoIterator<Item = T>,
    mut confined: impl FnMut(T) -> Result<(), Unconfined>,
) -> Result<(), Unconfined> {
    let mut over = Ok(());
    for item in items {
        match confined(item) {
            Ok(()) => {}
            Err(Unconfined::Refused) => return Err(Unconfined::Refused),
            Err(large) => over = over.and(Err(large)),
        }
    }
    over
}

/// The refusal (with `code`) of a confined op that can remove or rewrite `path`, a file over
/// `[checkpoint] max_file_bytes`: a checkpoint would list it as not kept, so nothing could
/// bring it back. Naming it keeps it (a literal delete moves it into the quarantine).
fn over_cap(code: ReasonCode, path: &std::path::Path, ctx: &PolicyContext) -> Verdict {
    let shown = path.strip_prefix(&ctx.cwd).unwrap_or(path);
    Verdict::of(code).because(format!(
        "`{}` is larger than the checkpoint keeps (`[checkpoint] max_file_bytes` = {} bytes) \
         and this command could delete or rewrite it: name it instead (`rm {}` moves it into \
         the quarantine), or raise the cap",
        shown.display(),
        ctx.checkpoint_max_file_bytes,
        shown.display()
    ))
}

/// `sed -i 's/a/b/' src/*.py`, `dos2unix *.txt`: an in-place rewrite of files only the
/// shell knows. A checkpoint when every glob target is confined (its matches are rewritten,
/// never followed below); the literal targets were judged before (`None` leaves
/// `BLOCK_WILDCARD`).
pub(crate) fn glob_writes(op: &OpSpec, ctx: &PolicyContext, world: &dyn World) -> Option<Verdict> {
    if !enabled(ctx)
        || op.recursive
        || !matches!(op.kind, OpKind::Overwrite | OpKind::SideEffectDelete)
    {
        return None;
    }
    match all_confined(op.targets.iter().filter(|t| t.glob), |t| {
        glob_confined(t, op.dialect, false, true, ctx, world)
    }) {
        Ok(()) => Some(verdict_for(op, ctx)),
        Err(Unconfined::OverCap(path)) => Some(over_cap(ReasonCode::BlockWildcard, &path, ctx)),
        Err(Unconfined::Refused) => None,
    }
}

/// `mv *.log logs/`, `Move-Item *.txt old\`: a move of sources only the shell knows, into a
/// destination inside the workspace. A checkpoint when every glob source is confined (a
/// matched directory moves whole) and every destination lies inside the workspace: its
/// undo puts back what left and sets aside what arrived. `None` leaves the op's refusal.
pub(crate) fn moves(
    op: &OpSpec,
    destinations: &[PathSpec],
    ctx: &PolicyContext,
    world: &dyn World,
) -> Option<Verdict> {
    if !enabled(ctx) || op.recursive {
        return None;
    }
    // A move keeps a large file's content (undo sets aside what arrived): the cap is not
    // in question.
    let confined = op.sources.iter().filter(|t| t.glob).all(|t| {
        !matches!(
            glob_confined(t, op.dialect, true, false, ctx, world),
            Err(Unconfined::Refused)
        )
    });
    // A destination that is a glob (`dir/*.log`) must lie in a confined directory; a literal
    // one inside the workspace and unprotected.
    let landing = op.targets.iter().zip(destinations).all(|(target, spec)| {
        if target.glob {
            let dir = target.text.rsplit_once('/').map_or(".", |(d, _)| d);
            let dir = if dir.is_empty() { "/" } else { dir };
            let spec = world.path(&Target::literal(format!("{dir}/")), &ctx.cwd);
            confined_dir(&spec).is_some() && !dir.contains(['*', '?', '['])
        } else {
            spec.error.is_none() && spec.inside_workspace && spec.protected.is_none()
        }
    });
    (confined && landing).then(|| verdict(ctx))
}

/// One glob target: wildcards only in its last component, which does not start with a dot
/// (it could match `.git` or the quarantine) or end the word with `/` (a match would be
/// followed through a symlink); its directory is literal, resolves inside the workspace, and
/// none of its matches can be the workspace's `.git` or the quarantine.
fn glob_confined(
    target: &Target,
    dialect: Dialect,
    recursive: bool,
    writes: bool,
    ctx: &PolicyContext,
    world: &dyn World,
) -> Result<(), Unconfined> {
    if target.opaque.is_some() || target.tilde || target.text.ends_with('/') {
        return Err(Unconfined::Refused);
    }
    // Windows: `C:*` names another drive's current directory, and PowerShell's `[!…]` is a
    // range starting at `!`, not a negation: only `*` and `?` are matched here.
    let windows = dialect != Dialect::Posix;
    if windows && (target.text.as_bytes().get(1) == Some(&b':') || target.text.contains(['[', ']']))
    {
        return Err(Unconfined::Refused);
    }
    let (dir, pattern) = match target.text.rsplit_once('/') {
        Some((dir, pattern)) => (if dir.is_empty() { "/" } else { dir }, pattern),
        None => (".", target.text.as_str()),
    };
    let wild = |text: &str| text.contains(['*', '?', '[']);
    // `!(x)`, `@(a|b)`: an extended glob where the shell has `extglob` on.
    if wild(dir)
        || pattern.contains('(')
        || pattern.is_empty()
        || pattern.starts_with('.')
        || dir.split('/').any(|c| c == "..")
    {
        return Err(Unconfined::Refused);
    }
    let spec = world.path(
        &Target {
            through_symlink: true,
            ..Target::literal(format!("{dir}/"))
        },
        &ctx.cwd,
    );
    let Some(physical) = confined_dir(&spec) else {
        return Err(Unconfined::Refused);
    };
    let reach = Reach::Children {
        pattern,
        dot_rule: dialect == Dialect::Posix,
        recursive,
    };
    if !spec.is_dir()
        || world.checkpoint_reach(physical, reach)
        || (writes && world.write_reaches_link(physical, reach))
    {
        return Err(Unconfined::Refused);
    }
    match world.over_cap(physical, reach, ctx.checkpoint_max_file_bytes) {
        Some(path) => Err(Unconfined::OverCap(path)),
        None => Ok(()),
    }
}

/// Whether `op` rewrites files in place (a write may go through a link), rather than
/// deleting or moving names.
fn rewrites(op: &OpSpec) -> bool {
    matches!(op.kind, OpKind::Overwrite | OpKind::SideEffectDelete)
}

/// `find … -delete`, `find … -exec rm {} +`: a checkpoint when every
/// starting point is literal, resolves inside the workspace, and what the expression can
/// match never includes the workspace's `.git` or the quarantine. `None` leaves the op
/// undeterminable.
pub(crate) fn find(op: &OpSpec, ctx: &PolicyContext, world: &dyn World) -> Option<Verdict> {
    let confinement = op.confined.as_ref()?;
    if !enabled(ctx) || op.targets.is_empty() || op.shape.is_some() {
        return None;
    }
    let bounded = confinement.max_depth.is_some() || confinement.files_only;
    let reach = if confinement.names.is_empty() && !bounded {
        Reach::Everything
    } else {
        Reach::Names {
            patterns: &confinement.names,
            ignore_case: confinement.ignore_case,
            whole_matches: confinement.whole_matches,
            max_depth: confinement.max_depth,
            files_only: confinement.files_only,
        }
    };
    let mut any_there = false;
    let mut large = None;
    for target in &op.targets {
        if !target.is_concrete() || target.tilde {
            return None;
        }
        let spec = world.path(target, &ctx.cwd);
        any_there |= spec.exists();
        // A symlinked starting point could lead out (BSD `find`, `-H`, a trailing `/`).
        if spec.entry == agent_guard_types::EntryKind::Symlink {
            return None;
        }
        let physical = confined_dir(&spec)?;
        // A name made from a match (`{}.bak`) is not itself a match: no link anywhere.
        let link_reach = if confinement.derived_names {
            Reach::Everything
        } else {
            reach
        };
        // `find … | xargs rm` without `-0`: a name with a blank in it would be split into
        // words that are not matches (`a /etc`).
        // A copy into it writes new names there (`cp {} dest/`): none may be `.git`, the
        // quarantine or a guard file, whether or not it is there yet.
        if confinement.creates_names && spec.is_dir() && world.creates_guarded(physical, reach) {
            return None;
        }
        if spec.is_dir()
            && (world.checkpoint_reach(physical, reach)
                || ((rewrites(op) || confinement.derived_names)
                    && world.write_reaches_link(physical, link_reach))
                || (confinement.split_names && world.names_split(physical)))
        {
            return None;
        }
        // A file written in place (`find notes.txt -exec sed -i …`, `-exec cp {} notes.txt`)
        // could be a hard link to a file outside, or a link: the test is its own name in
        // its directory.
        if !spec.is_dir()
            && spec.exists()
            && (rewrites(op) || confinement.derived_names)
            && let (Some(parent), Some(name)) = (physical.parent(), physical.file_name())
        {
            let pattern = glob_escape(&name.to_string_lossy());
            let own = Reach::Children {
                pattern: &pattern,
                dot_rule: false,
                recursive: false,
            };
            if world.write_reaches_link(parent, own) {
                return None;
            }
        }
        if large.is_none() {
            large = if spec.is_dir() {
                world.over_cap(physical, reach, ctx.checkpoint_max_file_bytes)
            } else {
                // A starting point that is itself a file (`find big.iso -delete`).
                (spec.exists() && spec.size > ctx.checkpoint_max_file_bytes)
                    .then(|| physical.to_path_buf())
            };
        }
    }
    if let Some(path) = large {
        return Some(over_cap(ReasonCode::BlockUndeterminableEffect, &path, ctx));
    }
    // A copy into a directory that is not there yet (`cp -r src new`, `robocopy src new
    // /e`), a find from a start that is not there: nothing there to lose, unless another
    // command of the line puts something there first (`mv data new && cp -r src new`).
    if !any_there && !op.in_compound_line {
        return Some(Verdict::of(ReasonCode::AllowNoop));
    }
    Some(verdict_for(op, ctx))
}

/// `name` as a pattern that matches only itself.
fn glob_escape(name: &str) -> String {
    let mut pattern = String::with_capacity(name.len());
    for c in name.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern
}

fn verdict(ctx: &PolicyContext) -> Verdict {
    Verdict::of(ReasonCode::SnapshotCheckpointDelete).with_plan(snapshot_checkpoint::plan(ctx))
}

/// The checkpoint verdict for `op`: `SNAPSHOT_CHECKPOINT_WRITE` when it only rewrites.
fn verdict_for(op: &OpSpec, ctx: &PolicyContext) -> Verdict {
    if matches!(op.kind, OpKind::Overwrite | OpKind::SideEffectDelete) {
        Verdict::of(ReasonCode::SnapshotCheckpointWrite).with_plan(snapshot_checkpoint::plan(ctx))
    } else {
        verdict(ctx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{FakeWorld, dir, glob, protected, rm};
    use agent_guard_types::{CheckpointMode, Confinement, OpKind, SessionMode};

    fn glob_op(pattern: &str) -> OpSpec {
        let mut op = rm(&[], true);
        op.targets.push(Target {
            glob: true,
            ..Target::literal(pattern)
        });
        op
    }

    fn run(op: &OpSpec, world: &FakeWorld, ctx: &PolicyContext) -> Option<ReasonCode> {
        let specs: Vec<PathSpec> = op.targets.iter().map(|t| world.path(t, &ctx.cwd)).collect();
        let mode = DeleteMode {
            recursive: op.recursive,
            ..DeleteMode::default()
        };
        globs(op, &specs, mode, ctx, world).map(|v| v.code)
    }

    #[test]
    fn the_fake_world_cannot_look_so_nothing_is_confined() {
        // The default `checkpoint_reach` says a delete could reach protected paths.
        let world = FakeWorld::with([
            dir("build/"),
            dir("build"),
            protected(dir("./"), Protected::WorkspaceRoot),
        ]);
        let ctx = PolicyContext::new("/ws");
        assert_eq!(run(&glob_op("build/*"), &world, &ctx), None);
        let mut find = OpSpec::new("find", OpKind::FsDelete, Dialect::Posix);
        find.targets.push(Target::literal("build"));
        find.confined = Some(Confinement::default());
        assert!(super::find(&find, &ctx, &world).is_none());
        // A world that can look and finds nothing protected below: checkpointed.
        let world = FakeWorld {
            reaches: Some(false),
            ..world
        };
        assert_eq!(
            super::find(&find, &ctx, &world).map(|v| v.code),
            Some(ReasonCode::SnapshotCheckpointDelete)
        );
        assert_eq!(
            run(&glob_op("build/*"), &world, &ctx),
            Some(ReasonCode::SnapshotCheckpointDelete)
        );
    }

    #[test]
    fn shapes_that_could_leave_are_refused_before_asking_the_world() {
        let world = FakeWorld::with([dir("build/"), dir("./")]);
        let ctx = PolicyContext::new("/ws");
        for pattern in ["build/*/", "*/x", ".*", "../*.log", "build/../*"] {
            assert_eq!(run(&glob_op(pattern), &world, &ctx), None, "{pattern}");
        }
        let mut off = ctx.clone();
        off.checkpoint = CheckpointMode::Never;
        assert_eq!(run(&glob_op("build/*"), &world, &off), None);
        let mut restricted = ctx;
        restricted.mode = SessionMode::Restricted;
        assert_eq!(run(&glob_op("build/*"), &world, &restricted), None);
        let _ = glob("x");
    }

    #[test]
    fn literal_targets_keep_their_hard_boundaries() {
        let world = FakeWorld::with([protected(dir("/etc"), Protected::AncestorRoot)]);
        let mut op = glob_op("*.log");
        op.targets.push(Target::literal("/etc"));
        let ctx = PolicyContext::new("/ws");
        assert_eq!(
            run(&op, &world, &ctx),
            Some(ReasonCode::BlockProtectedAncestor)
        );
    }
}
