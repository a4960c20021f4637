//! `COMPOUND_CREATE_DELETE`.

use agent_guard_types::{OpSpec, Shape};

super::reason!(
    CompoundCreateDelete, CompoundCreateDelete, "COMPOUND_CREATE_DELETE",
    catches: "Shape F2: a creating command (`touch`, `mkdir`, `cp`, `mv`, `ln`, `tee`, a `>`/`>>` redirect to a file) precedes a target-dependent destructive op (path delete, `git clean`, a discard) in the same line.",
    why: "Files created earlier in the line do not exist when the guard looks, so they cannot be quarantined first; a `git clean` enumeration would miss them.",
    example: "touch a.tmp && rm a.tmp",
    verdict: "ASK (a single-execution approval). Before the question is put, the guard checkpoints the workspace, taking nothing away, so an approved line is still undoable; what it cannot keep is named in the question. In RESTRICTED mode, BLOCK. F2 wins over F1 when both apply.",
    recovery: "If approved and run, `agent-guard undo` puts back what the line destroyed in the workspace. Or split the line so that the delete runs as its own command and needs no question.",
    enforcement: None,
    hint: "Run the creating command first, then the delete as its own command.",
    coverage: Coverage::Corpus,
);

/// Returns `true` for an op with shape F2.
pub(crate) fn applies(op: &OpSpec) -> bool {
    op.shape == Some(Shape::F2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::rm;

    #[test]
    fn f2_only() {
        let mut op = rm(&["a.tmp"], false);
        op.shape = Some(Shape::F2);
        assert!(applies(&op));
        op.shape = None;
        assert!(!applies(&op));
    }
}
