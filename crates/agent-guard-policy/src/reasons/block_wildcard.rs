//! `BLOCK_WILDCARD`.

use agent_guard_types::{OpKind, OpSpec, PathSpec};

super::reason!(
    BlockWildcard, BlockWildcard, "BLOCK_WILDCARD",
    catches: "A delete target with an active wildcard that no checkpoint can cover (`rm -rf .*`, `rm -rf .agent-trash/*`, `rm */*.log`, every wildcard in the Windows dialects, and `rm *.log` itself with `[checkpoint] mode = \"never\"`; a POSIX wildcard the workspace confines is `SNAPSHOT_CHECKPOINT_DELETE`), and `git clean` pathspecs with `*`, `?` or `[` even when quoted (`git clean -f -- '*.tmp'`), because git expands pathspecs itself (a discard's wildcard pathspec keeps every tracked change instead).",
    why: "What a glob matches is decided when the command runs; the guard cannot quarantine an unknown set ahead of time.",
    example: "rm -rf .*",
    verdict: "BLOCK. A quoted `*` in a plain `rm` argument is a literal file name, not a glob.",
    recovery: "List the paths explicitly, or use `agent-guard safe-delete '*.log'`, which expands the glob itself and quarantines every match.",
    enforcement: None,
    hint: "List the paths, or use `agent-guard safe-delete '<glob>'`, which expands the glob itself and is reversible.",
    coverage: Coverage::Corpus,
);

/// Returns `true` if any path target is a glob.
pub(crate) fn applies(specs: &[PathSpec]) -> bool {
    specs.iter().any(|s| s.glob)
}

/// Returns `true` for a git clean/discard op with a wildcard pathspec.
pub(crate) fn op_applies(op: &OpSpec) -> bool {
    matches!(op.kind, OpKind::GitClean | OpKind::GitDiscard) && op.targets.iter().any(|t| t.glob)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{file, glob};
    use agent_guard_types::{Dialect, Target};

    #[test]
    fn globs_in_paths_and_pathspecs() {
        assert!(applies(&[file("a"), glob("*.log")]));
        assert!(!applies(&[file("a")]));
        let mut op = OpSpec::new("git", OpKind::GitClean, Dialect::Posix);
        op.targets.push(Target {
            glob: true,
            ..Target::literal("*.tmp")
        });
        assert!(op_applies(&op));
        op.kind = OpKind::FsDelete;
        assert!(!op_applies(&op));
    }
}
