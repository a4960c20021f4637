//! `RELOCATE_TREE`.

use agent_guard_types::PathSpec;

super::reason!(
    RelocateTree, RelocateTree, "RELOCATE_TREE",
    catches: "A recursive delete where at least one existing target is a directory (`rm -rf build`, `rd /s /q build`, `Remove-Item -Recurse build`).",
    why: "The whole tree is moved into the quarantine with one rename per target, so even huge trees cost O(1).",
    example: "rm -rf build",
    verdict: "RELOCATE (advisory); ALLOW with the txid after compensation under `--enforce`.",
    recovery: "`agent-guard restore <txid>` puts the tree back, with modes, times and symlinks.",
    enforcement: DurableIntent,
    hint: "Undo with `agent-guard restore <txid>`, or `agent-guard undo` for the newest transaction.",
    coverage: Coverage::Corpus,
);

/// Returns `true` if any affected target is a directory.
pub(crate) fn applies(affected: &[PathSpec]) -> bool {
    affected.iter().any(PathSpec::is_dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{dir, file};

    #[test]
    fn any_directory() {
        assert!(applies(&[file("a"), dir("d")]));
        assert!(!applies(&[file("a")]));
    }
}
