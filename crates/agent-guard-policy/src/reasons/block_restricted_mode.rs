//! `BLOCK_RESTRICTED_MODE`.

use agent_guard_types::{OpKind, OpSpec};

use crate::PolicyContext;

super::reason!(
    BlockRestrictedMode, BlockRestrictedMode, "BLOCK_RESTRICTED_MODE",
    catches: "In a RESTRICTED session: any git destructive op, any shell overwrite, any compound-line shape, and any path delete that is not files and symlinks only (`rm -rf dir`). A harness's edit tools stay available: they change named files only, each copied first (`SNAPSHOT_EDIT_TOOL`).",
    why: "A human vetoed this session's broader capabilities. Only explicit single-file deletes stay available (recoverably); ASK is never offered, because the human already said no.",
    example: "rm -rf src   # in a RESTRICTED session",
    verdict: "BLOCK. Leaving RESTRICTED needs a human at an interactive terminal (`agent-guard mode normal`).",
    recovery: "Ask the human to restore NORMAL mode, or delete single files.",
    enforcement: None,
    hint: "Only single files may be deleted in this session; a human can run `agent-guard mode normal` at a terminal.",
    coverage: Coverage::Corpus,
);

/// Why a restricted path batch was refused.
pub(crate) const NOT_FILES_ONLY: &str = "restricted sessions may delete files and symlinks only";

/// Returns `true` if the op is outside what a restricted session may do at all.
///
/// An edit-tool call ([`OpKind::EditTool`]) stays available: it changes named single files
/// only, each copied first (see `docs/decisions.md`, issue 13).
pub(crate) fn op_applies(op: &OpSpec, ctx: &PolicyContext) -> bool {
    ctx.restricted()
        && (!matches!(op.kind, OpKind::FsDelete | OpKind::EditTool) || op.shape.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::rm;
    use agent_guard_types::{Dialect, SessionMode, Shape};

    #[test]
    fn restricted_refuses_git_and_shapes() {
        let mut ctx = PolicyContext::new("/ws");
        let git = OpSpec::new("git", OpKind::GitResetHard, Dialect::Posix);
        assert!(!op_applies(&git, &ctx));
        ctx.mode = SessionMode::Restricted;
        assert!(op_applies(&git, &ctx));
        assert!(!op_applies(&rm(&["a"], false), &ctx));
        let mut shaped = rm(&["a"], false);
        shaped.shape = Some(Shape::F1);
        assert!(op_applies(&shaped, &ctx));
    }
}
