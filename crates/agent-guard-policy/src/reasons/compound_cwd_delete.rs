//! `COMPOUND_CWD_DELETE`.

use agent_guard_types::{OpSpec, Shape};

super::reason!(
    CompoundCwdDelete, CompoundCwdDelete, "COMPOUND_CWD_DELETE",
    catches: "Shape F1: a directory change (`cd`, `pushd`, `popd`, `env -C`, `sudo -D`, git's `-C`) precedes a destructive op in the same line, the op's effect depends on the working directory (a relative path, or any git op), and the guard cannot follow the change: it is not literal, it may not have run when the op runs (in a subshell, a loop, the background, after `||` or `&&` that can skip it, before an `||` that runs the op only if it failed), the line redefines `cd` or sets `CDPATH`, or the directory does not exist or cannot be entered. A literal change that certainly ran into a directory that exists is followed instead: the op is judged there by the ordinary rules (`cd src && rm -rf build` relocates `src/build`). Hard boundaries are checked first against the declared cwd.",
    why: "The targets would be resolved against the wrong directory before the line runs, so pre-execution compensation could quarantine the wrong thing.",
    example: "cd sub || rm -rf build",
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
