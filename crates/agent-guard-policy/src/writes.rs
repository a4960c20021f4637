//! The verdict on a command that overwrites or consumes files (`OpKind::Overwrite`,
//! `OpKind::SideEffectDelete`), and on a harness's file-writing tool call
//! (`OpKind::EditTool`), which is judged the same way.
//!
//! Overwriting is deleting content, so the same boundaries hold as for deletes, in the same
//! order: undeterminable targets, protected roots, protected paths (a write into `.git` or the
//! quarantine is refused even when the file is new), the workspace boundary (an existing file
//! outside is refused; a new one outside destroys nothing), wildcards. What remains is the set
//! of existing files whose current version must be kept first.
//!
//! An append (`OpKind::Append`: `>>`, `tee -a`, `Add-Content`) destroys nothing, so only the
//! protected paths hold for it ([`append`]): a line added to `.git/config` or to the
//! quarantine's logs is tampering with the project's history or the means of recovery.

use agent_guard_types::{
    EntryKind, OpKind, OpSpec, PathSpec, Plan, Preserved, Protected, ReasonCode, Unkept, UnkeptWhy,
    Verdict, World,
};

use crate::PolicyContext;
use crate::reasons::{
    allow_noop, ask_preserve_too_large, block_protected_ancestor, block_protected_path,
    block_undeterminable_effect, block_wildcard,
};

/// Decides an append op: `BLOCK_PROTECTED_PATH` when it writes git metadata, the
/// quarantine or a protected root (through a final symlink too), else `ALLOW_NOOP`.
///
/// Targets the guard cannot resolve (`>> "$LOG"`) are not refused: appending loses nothing
/// (the classifier makes those that may name a protected path unknown ops). A wildcard is
/// `BLOCK_WILDCARD`, as for an overwrite: the shell (or `-Path`) expands `>> .g?t/config`
/// when it matches one file, and which one is only known when it runs.
pub(crate) fn append(op: &OpSpec, ctx: &PolicyContext, world: &dyn World) -> Verdict {
    if op.targets.iter().any(|t| t.glob && t.opaque.is_none()) {
        return Verdict::of(ReasonCode::BlockWildcard);
    }
    let specs: Vec<PathSpec> = op
        .targets
        .iter()
        .filter(|t| t.opaque.is_none() && !t.glob)
        .map(|t| world.path(t, &ctx.cwd))
        .collect();
    if block_protected_path::applies(&specs)
        || block_protected_ancestor::applies(&specs)
        || specs.iter().any(|s| s.inside_trash)
    {
        return Verdict::of(ReasonCode::BlockProtectedPath);
    }
    Verdict::of(ReasonCode::AllowNoop)
}

/// Decides a permission, ownership, attribute or time change (`OpKind::Metadata`):
/// `BLOCK_PROTECTED_PATH` in git metadata, the quarantine or a protected root (a hook made
/// executable in `.git/hooks`, the store made unreadable), a checkpoint for a recursive
/// change of the whole workspace, else `ALLOW_NOOP`. Guard files are refused before
/// (`BLOCK_SELF_PROTECTION`). A wildcard is not refused: nothing is lost whatever it matches.
pub(crate) fn metadata(op: &OpSpec, ctx: &PolicyContext, world: &dyn World) -> Verdict {
    let specs: Vec<PathSpec> = op
        .targets
        .iter()
        .filter(|t| t.opaque.is_none())
        .map(|t| world.path(t, &ctx.cwd))
        .collect();
    let tampers = specs.iter().any(|s| {
        s.inside_trash
            || matches!(
                s.protected,
                Some(
                    Protected::GitMetadata | Protected::QuarantineControl | Protected::AncestorRoot
                )
            )
    });
    if tampers {
        return Verdict::of(ReasonCode::BlockProtectedPath);
    }
    // Recursively from the workspace root (`chmod -R u+w .`, `find . -exec chmod +x {} +`)
    // it reaches `.git` and the guard files too: kept by a checkpoint, as when the guard
    // did not model these programs, rather than refused.
    if op.recursive
        && specs
            .iter()
            .any(|s| s.protected == Some(Protected::WorkspaceRoot))
    {
        return crate::reasons::snapshot_checkpoint::program(op, ctx);
    }
    Verdict::of(ReasonCode::AllowNoop)
}

/// Decides an overwriting or consuming op.
pub(crate) fn decide(op: &OpSpec, ctx: &PolicyContext, world: &dyn World) -> Verdict {
    let specs: Vec<PathSpec> = op.targets.iter().map(|t| world.path(t, &ctx.cwd)).collect();
    if let Some(verdict) = block_undeterminable_effect::batch(&specs) {
        return verdict;
    }
    if block_protected_ancestor::applies(&specs) {
        return Verdict::of(ReasonCode::BlockProtectedAncestor);
    }
    // A write into the quarantine is tampering with the means of recovery, whatever it
    // names; a device node is never a file whose version could be kept.
    if block_protected_path::applies(&specs)
        || specs
            .iter()
            .any(|s| s.inside_trash || (s.entry == EntryKind::Special && !s.inside_workspace))
    {
        return Verdict::of(ReasonCode::BlockProtectedPath);
    }
    if specs
        .iter()
        .any(|s| s.exists() && s.protected == Some(Protected::OutsideWorkspace))
    {
        return Verdict::of(ReasonCode::BlockOutOfWorkspace);
    }
    if block_wildcard::applies(&specs) {
        return crate::reasons::snapshot_checkpoint_delete::glob_writes(op, ctx, world)
            .unwrap_or_else(|| Verdict::of(ReasonCode::BlockWildcard));
    }
    // Only existing regular files and symlinks lose content; a directory target is written
    // into (or refused by the command), a new path is only created.
    let affected: Vec<PathSpec> = specs
        .into_iter()
        .filter(|s| s.exists() && s.inside_workspace && s.is_file_or_symlink())
        .collect();
    if allow_noop::all_absent(&affected) {
        return Verdict::of(ReasonCode::AllowNoop);
    }
    // A hard link or a reflink keeps a version of any size; only a byte copy is capped. A
    // link only when the op is its line's one command: another one could give the file a
    // second name and write through it (`ln f f2 && mv h f && echo x > f2`).
    let link = op.write.replaces_name_only() && !op.in_compound_line;
    let copied: Vec<&PathSpec> = affected
        .iter()
        .filter(|s| {
            !(link
                || s.physical
                    .as_deref()
                    .is_some_and(|path| world.shares_extents(path)))
        })
        .collect();
    let too_large: Vec<PathSpec> = ask_preserve_too_large::over(&copied, ctx.preserve_max_bytes)
        .into_iter()
        .cloned()
        .collect();
    let code = if too_large.is_empty() {
        match op.kind {
            OpKind::SideEffectDelete => ReasonCode::SnapshotConsumedInput,
            OpKind::EditTool => ReasonCode::SnapshotEditTool,
            _ => ReasonCode::SnapshotOverwrite,
        }
    } else {
        // A person decides; the files that fit are kept before the question is put (a copy
        // or a link takes nothing away), and the question names the others.
        ReasonCode::AskPreserveTooLarge
    };
    let plan = Plan::Preserve(
        affected
            .into_iter()
            .filter(|spec| !too_large.contains(spec))
            .map(|spec| Preserved {
                spec,
                mode: op.write,
                link,
                max_copy: ctx.preserve_max_bytes,
            })
            .collect(),
    );
    let mut verdict = Verdict::of(code)
        .with_plan(plan)
        .not_keeping(too_large.iter().map(|big| {
            Unkept::new(crate::ask::display(big), UnkeptWhy::OverPreserveCap).sized(big.size)
        }));
    verdict.reasons.extend(
        too_large
            .iter()
            .map(|big| ask_preserve_too_large::reason(&big.raw, big.size, ctx.preserve_max_bytes)),
    );
    if matches!(&verdict.plan, Plan::Preserve(files) if files.is_empty()) {
        verdict.plan = Plan::Nothing;
    }
    verdict
}

/// Keeps a version by hard link only where nothing else in the line touches that file: an
/// op that writes it in place would change the linked inode, one that reads it may count
/// its links (`gzip` refuses a file with two), and one that moves it away would leave the
/// linked inode in the workspace with a second name. Such files are reflinked or copied.
pub(crate) fn unlink_shared(
    verdicts: &mut [Verdict],
    ops: &[OpSpec],
    ctx: &PolicyContext,
    world: &dyn World,
) {
    let linked = |v: &Verdict| match &v.plan {
        Plan::Preserve(files) => files.iter().any(|f| f.link),
        Plan::Move(plan) => plan.kept.iter().any(|f| f.link),
        _ => false,
    };
    if !verdicts.iter().any(linked) {
        return;
    }
    // Every physical path each op names (targets and move sources), resolved once.
    let named: Vec<Vec<std::path::PathBuf>> = ops
        .iter()
        .map(|op| {
            op.targets
                .iter()
                .chain(&op.sources)
                .filter(|t| t.is_concrete())
                .filter_map(|t| world.path(t, &ctx.cwd).physical)
                .collect()
        })
        .collect();
    for verdict in verdicts.iter_mut() {
        let own = verdict.op_index;
        let files = match &mut verdict.plan {
            Plan::Preserve(files) => files,
            Plan::Move(plan) => &mut plan.kept,
            _ => continue,
        };
        for file in files.iter_mut().filter(|f| f.link) {
            let Some(path) = file.spec.physical.as_deref() else {
                continue;
            };
            file.link = !named
                .iter()
                .enumerate()
                .any(|(index, paths)| Some(index) != own && paths.iter().any(|p| p == path));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{FakeWorld, absent, dir, file, protected};
    use agent_guard_types::{Dialect, Target, WriteMode};

    fn write(targets: &[&str], mode: WriteMode) -> OpSpec {
        let mut op = OpSpec::new(">", OpKind::Overwrite, Dialect::Posix);
        op.targets = targets.iter().map(|t| Target::literal(*t)).collect();
        op.write = mode;
        op
    }

    fn code(op: &OpSpec, world: &FakeWorld) -> ReasonCode {
        decide(op, &PolicyContext::new("/ws"), world).code
    }

    #[test]
    fn appends_are_refused_only_on_protected_paths() {
        let world = FakeWorld::with([
            protected(file(".git/config"), Protected::GitMetadata),
            protected(
                file(".agent-trash/audit.jsonl"),
                Protected::QuarantineControl,
            ),
            protected(file("/home/u/.bashrc"), Protected::OutsideWorkspace),
            file("notes.txt"),
        ]);
        let append = |targets: &[&str]| {
            let mut op = write(targets, WriteMode::InPlace);
            op.kind = OpKind::Append;
            append(&op, &PolicyContext::new("/ws"), &world).code
        };
        assert_eq!(append(&["notes.txt"]), ReasonCode::AllowNoop);
        assert_eq!(append(&["/home/u/.bashrc"]), ReasonCode::AllowNoop);
        assert_eq!(
            append(&["notes.txt", ".git/config"]),
            ReasonCode::BlockProtectedPath
        );
        assert_eq!(
            append(&[".agent-trash/audit.jsonl"]),
            ReasonCode::BlockProtectedPath
        );
    }

    #[test]
    fn existing_files_are_preserved_new_ones_are_not() {
        let world = FakeWorld::with([file("notes.txt"), absent("new.txt"), dir("build")]);
        let verdict = decide(
            &write(&["notes.txt", "new.txt", "build"], WriteMode::InPlace),
            &PolicyContext::new("/ws"),
            &world,
        );
        assert_eq!(verdict.code, ReasonCode::SnapshotOverwrite);
        let Plan::Preserve(files) = verdict.plan else {
            panic!("{verdict:?}")
        };
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].spec.raw, "notes.txt");
        assert_eq!(
            code(&write(&["new.txt"], WriteMode::InPlace), &world),
            ReasonCode::AllowNoop
        );
    }

    #[test]
    fn boundaries_hold_as_for_deletes() {
        let world = FakeWorld::with([
            protected(file(".git/HEAD"), Protected::GitMetadata),
            protected(file("/etc/passwd"), Protected::OutsideWorkspace),
            protected(absent("/tmp/new"), Protected::OutsideWorkspace),
        ]);
        assert_eq!(
            code(&write(&[".git/HEAD"], WriteMode::InPlace), &world),
            ReasonCode::BlockProtectedPath
        );
        assert_eq!(
            code(&write(&["/etc/passwd"], WriteMode::InPlace), &world),
            ReasonCode::BlockOutOfWorkspace
        );
        assert_eq!(
            code(&write(&["/tmp/new"], WriteMode::InPlace), &world),
            ReasonCode::AllowNoop,
            "creating a file outside destroys nothing"
        );
    }

    #[test]
    fn edit_tools_keep_every_existing_file_in_one_plan() {
        let world = FakeWorld::with([
            file("a.txt"),
            file("b.txt"),
            absent("new.txt"),
            protected(file("/etc/hosts"), Protected::OutsideWorkspace),
        ]);
        let mut edit = write(&["a.txt", "new.txt", "b.txt"], WriteMode::ReplaceAfterRead);
        edit.kind = OpKind::EditTool;
        let verdict = decide(&edit, &PolicyContext::new("/ws"), &world);
        assert_eq!(verdict.code, ReasonCode::SnapshotEditTool);
        let Plan::Preserve(files) = verdict.plan else {
            panic!("{verdict:?}")
        };
        assert_eq!(files.len(), 2);
        assert!(
            files.iter().all(|f| !f.link),
            "an edit tool may write in place"
        );
        let mut new = write(&["new.txt"], WriteMode::ReplaceAfterRead);
        new.kind = OpKind::EditTool;
        assert_eq!(code(&new, &world), ReasonCode::AllowNoop);
        let mut outside = write(&["a.txt", "/etc/hosts"], WriteMode::ReplaceAfterRead);
        outside.kind = OpKind::EditTool;
        assert_eq!(code(&outside, &world), ReasonCode::BlockOutOfWorkspace);
    }

    #[test]
    fn edit_tools_stay_available_in_a_restricted_session() {
        let world = FakeWorld::with([file("a.txt")]);
        let mut ctx = PolicyContext::new("/ws");
        ctx.mode = agent_guard_types::SessionMode::Restricted;
        let mut edit = write(&["a.txt"], WriteMode::ReplaceAfterRead);
        edit.kind = OpKind::EditTool;
        let verdict = crate::decide_op(&edit, &ctx, &world).unwrap();
        assert_eq!(verdict.code, ReasonCode::SnapshotEditTool);
        let shell = write(&["a.txt"], WriteMode::InPlace);
        assert_eq!(
            crate::decide_op(&shell, &ctx, &world).unwrap().code,
            ReasonCode::BlockRestrictedMode
        );
    }

    #[test]
    fn consumed_inputs_and_the_size_cap() {
        let mut big = file("big.bin");
        big.size = 10;
        let world = FakeWorld::with([file("a.txt"), big]);
        let mut gzip = write(&["a.txt"], WriteMode::ReadThenRemove);
        gzip.kind = OpKind::SideEffectDelete;
        assert_eq!(code(&gzip, &world), ReasonCode::SnapshotConsumedInput);
        let mut ctx = PolicyContext::new("/ws");
        ctx.preserve_max_bytes = 9;
        assert_eq!(
            decide(&write(&["big.bin"], WriteMode::InPlace), &ctx, &world).code,
            ReasonCode::AskPreserveTooLarge
        );
    }
}
