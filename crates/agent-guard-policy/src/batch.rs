//! The path batch: the verdict on a set of delete targets (reference §3.2 step 3).
//!
//! Hard boundaries come first (undeterminable, protected ancestors, protected paths), then
//! quarantine housekeeping, the workspace boundary and wildcards, then compensation.

use agent_guard_types::{PathSpec, Plan, ReasonCode, Verdict, World};

use crate::PolicyContext;
use crate::reasons::{
    allow_noop, allow_regenerable, allow_trash_gc, block_out_of_workspace,
    block_protected_ancestor, block_protected_path, block_restricted_mode,
    block_undeterminable_effect, block_wildcard, relocate_narrow, relocate_tree,
};

/// How the deleting program treats its targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DeleteMode {
    /// Deletes directories with their contents.
    pub recursive: bool,
    /// Does not delete directories at all (`rm` and `unlink` without `-r`): a directory
    /// target is left alone, so it needs no compensation.
    pub files_only: bool,
    /// Targets that are not existing directories also match same-named files in every
    /// subdirectory (`del /s name`): their effect is unknown.
    pub name_match: bool,
}

/// Decides a batch of resolved targets.
pub fn decide_paths(
    specs: Vec<PathSpec>,
    mode: DeleteMode,
    ctx: &PolicyContext,
    world: &dyn World,
) -> Verdict {
    if let Some(verdict) = block_undeterminable_effect::batch(&specs) {
        return verdict;
    }
    if block_protected_ancestor::applies(&specs) {
        return Verdict::of(ReasonCode::BlockProtectedAncestor);
    }
    if block_protected_path::applies(&specs) {
        return Verdict::of(ReasonCode::BlockProtectedPath);
    }
    // The store's payload is what the guard kept for undo: a command never reaches it (issue
    // 34), however it spells it; `agent-guard gc` purges it.
    if allow_trash_gc::reaches_the_store(&specs) {
        return Verdict::of(ReasonCode::BlockProtectedPath);
    }
    if block_out_of_workspace::applies(&specs) {
        return Verdict::of(ReasonCode::BlockOutOfWorkspace);
    }
    if block_wildcard::applies(&specs) {
        return Verdict::of(ReasonCode::BlockWildcard);
    }
    if mode.name_match && specs.iter().any(|s| !s.is_dir()) {
        return Verdict::of(ReasonCode::BlockUndeterminableEffect)
            .because(block_undeterminable_effect::NAME_MATCH);
    }
    let affected: Vec<PathSpec> = specs
        .into_iter()
        .filter(|s| s.exists() && !(mode.files_only && s.is_dir()))
        .collect();
    if allow_noop::all_absent(&affected) {
        return Verdict::of(ReasonCode::AllowNoop);
    }
    if ctx.restricted() {
        return if relocate_narrow::applies(&affected) {
            Verdict::of(ReasonCode::RelocateNarrow).with_plan(Plan::Relocate(affected))
        } else {
            Verdict::of(ReasonCode::BlockRestrictedMode)
                .because(block_restricted_mode::NOT_FILES_ONLY)
        };
    }
    if mode.recursive && allow_regenerable::applies(&affected, ctx, world) {
        return Verdict::of(ReasonCode::AllowRegenerable).with_plan(Plan::Direct(affected));
    }
    if mode.recursive && relocate_tree::applies(&affected) {
        return Verdict::of(ReasonCode::RelocateTree).with_plan(Plan::Relocate(affected));
    }
    Verdict::of(ReasonCode::RelocatePaths).with_plan(Plan::Relocate(affected))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{FakeWorld, absent, dir, file, glob, in_trash, protected};
    use agent_guard_types::{Protected, SessionMode};

    fn decide(specs: Vec<PathSpec>, recursive: bool) -> ReasonCode {
        let world = FakeWorld::default();
        let mode = DeleteMode {
            recursive,
            files_only: false,
            name_match: false,
        };
        decide_paths(specs, mode, &PolicyContext::new("/ws"), &world).code
    }

    #[test]
    fn hard_boundaries_come_before_everything() {
        let outside = protected(file("/etc/passwd"), Protected::OutsideWorkspace);
        let root = protected(dir("/"), Protected::AncestorRoot);
        let ws = protected(dir("."), Protected::WorkspaceRoot);
        assert_eq!(
            decide(vec![dir("build"), root.clone()], true),
            ReasonCode::BlockProtectedAncestor
        );
        assert_eq!(
            decide(vec![outside.clone(), ws.clone()], true),
            ReasonCode::BlockProtectedPath
        );
        assert_eq!(
            decide(vec![dir("build"), outside], true),
            ReasonCode::BlockOutOfWorkspace
        );
        assert_eq!(
            decide(vec![glob("*.log"), dir("b")], true),
            ReasonCode::BlockWildcard
        );
    }

    #[test]
    fn the_store_is_never_reached() {
        assert_eq!(
            decide(vec![in_trash(dir(".agent-trash/x"))], true),
            ReasonCode::BlockProtectedPath
        );
        assert_eq!(
            decide(vec![in_trash(glob(".agent-trash/*"))], true),
            ReasonCode::BlockProtectedPath
        );
        assert_eq!(
            decide(vec![in_trash(dir(".agent-trash/x")), file("a")], true),
            ReasonCode::BlockProtectedPath
        );
    }

    #[test]
    fn compensation_forms() {
        assert_eq!(decide(vec![absent("gone")], true), ReasonCode::AllowNoop);
        assert_eq!(decide(vec![dir("build")], true), ReasonCode::RelocateTree);
        assert_eq!(decide(vec![dir("build")], false), ReasonCode::RelocatePaths);
        assert_eq!(
            decide(vec![file("a"), absent("b")], false),
            ReasonCode::RelocatePaths
        );
    }

    #[test]
    fn absent_targets_are_left_out_of_the_plan() {
        let world = FakeWorld::default();
        let v = decide_paths(
            vec![file("a"), absent("b")],
            DeleteMode::default(),
            &PolicyContext::new("/ws"),
            &world,
        );
        let Plan::Relocate(specs) = v.plan else {
            panic!("{v:?}")
        };
        assert_eq!(specs.len(), 1);
    }

    #[test]
    fn files_only_programs_leave_directories_alone() {
        let world = FakeWorld::default();
        let mode = DeleteMode {
            recursive: false,
            files_only: true,
            name_match: false,
        };
        let v = decide_paths(vec![dir("build")], mode, &PolicyContext::new("/ws"), &world);
        assert_eq!(v.code, ReasonCode::AllowNoop);
    }

    #[test]
    fn restricted_mode_narrows() {
        let world = FakeWorld::default();
        let mut ctx = PolicyContext::new("/ws");
        ctx.mode = SessionMode::Restricted;
        let mode = DeleteMode {
            recursive: true,
            files_only: false,
            name_match: false,
        };
        assert_eq!(
            decide_paths(vec![file("a")], mode, &ctx, &world).code,
            ReasonCode::RelocateNarrow
        );
        assert_eq!(
            decide_paths(vec![dir("d")], mode, &ctx, &world).code,
            ReasonCode::BlockRestrictedMode
        );
    }
}
