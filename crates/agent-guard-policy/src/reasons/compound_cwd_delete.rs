//! `COMPOUND_CWD_DELETE`.

use agent_guard_types::{OpSpec, Shape};

super::reason!(
    CompoundCwdDelete, CompoundCwdDelete, "COMPOUND_CWD_DELETE",
    catches: "Shape F1: a directory change (`cd`, `pushd`, `popd`, `env -C`, `sudo -D`) precedes a destructive op in the same line, and the op's effect depends on the working directory (a relative path, or any git op). Hard boundaries are checked first against the declared cwd.",
    why: "The targets would be resolved against the wrong directory before the line runs, so pre-execution compensation could quarantine the wrong thing.",
    example: "cd sub && rm -rf build",
    verdict: "ASK (a single-execution approval). Before the question is put, the guard checkpoints the workspace (or snapshots the refs a ref-dropping git command would drop, from the directory the line goes to), taking nothing away, so an approved line is still undoable; what it cannot keep (targets outside the workspace) is named in the question. In RESTRICTED mode, BLOCK.",
    recovery: "If approved and run, `agent-guard undo` puts back what the line destroyed in the workspace. Or split the line: the delete run as its own command from the right directory needs no question.",
    enforcement: None,
    hint: "Run the delete as its own command, from the directory it targets.",
    coverage: Coverage::Corpus,
);

/// Returns `true` for an op with shape F1.
pub(crate) fn applies(op: &OpSpec) -> bool {
    op.shape == Some(Shape::F1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::rm;

    #[test]
    fn f1_only() {
        let mut op = rm(&["build"], true);
        assert!(!applies(&op));
        op.shape = Some(Shape::F1);
        assert!(applies(&op));
        op.shape = Some(Shape::F2);
        assert!(!applies(&op));
    }
}
