//! `RELOCATE_NARROW`.

use agent_guard_types::PathSpec;

super::reason!(
    RelocateNarrow, RelocateNarrow, "RELOCATE_NARROW",
    catches: "In a RESTRICTED session: a delete whose existing targets are all files or symlinks.",
    why: "A restricted session keeps the narrowest useful capability: single-file deletes, each quarantined.",
    example: "rm notes.txt   # in a RESTRICTED session",
    verdict: "RELOCATE (then ALLOW under `--enforce`).",
    recovery: "`agent-guard restore <txid>`.",
    enforcement: DurableIntent,
    hint: "Undo with `agent-guard restore <txid>`; only single files may be deleted in this session.",
    coverage: Coverage::Corpus,
);

/// Returns `true` if every affected target is a file or a symlink.
pub(crate) fn applies(affected: &[PathSpec]) -> bool {
    affected.iter().all(PathSpec::is_file_or_symlink)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{dir, file};

    #[test]
    fn files_only() {
        assert!(applies(&[file("a"), file("b")]));
        assert!(!applies(&[file("a"), dir("d")]));
    }
}
