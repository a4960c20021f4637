//! `COMPOUND_CWD_DELETE`.

use agent_guard_types::{OpSpec, Shape};

super::reason!(
    CompoundCwdDelete, CompoundCwdDelete, "COMPOUND_CWD_DELETE",
    catches: "Shape F1: a directory change (`cd`, `pushd`, `popd`, `env -C`, `sudo -D`) precedes a destructive op in the same line, and the op's effect depends on the working directory (a relative path, or any git op). Hard boundaries are checked first against the declared cwd.",
    why: "The targets would be resolved against the wrong directory before the line runs, so pre-execution compensation could quarantine the wrong thing.",
    example: "cd sub && rm -rf build",
    verdict: "ASK (a single-execution approval). In RESTRICTED mode, BLOCK.",
    recovery: "Split the line: run the delete as its own command with the right cwd, and it becomes recoverable.",
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
