//! `BLOCK_FORCE_PUSH`.

use agent_guard_types::{OpKind, OpSpec};

super::reason!(
    BlockForcePush, BlockForcePush, "BLOCK_FORCE_PUSH",
    catches: "`git push` with `--force`/`-f` (also in clusters like `-uf`), `--force-with-lease`, `--mirror`, `--delete`/`-d`, `--prune`, or a refspec starting with `+` or `:`.",
    why: "Remote history destruction cannot be compensated locally and affects everyone who shares the remote.",
    example: "git push --force origin main",
    verdict: "BLOCK, in every mode and whatever else the line does (it wins over compound-line shapes).",
    recovery: "Push without force, or have a human run the force push deliberately.",
    enforcement: None,
    hint: "Ask the user to push; destroying remote history is never automated.",
    coverage: Coverage::CorpusExcept(WINDOWS, "git push is floored in Windows dialects"),
);

/// Returns `true` for a force push or remote ref deletion.
pub(crate) fn applies(op: &OpSpec) -> bool {
    op.kind == OpKind::GitPushForce
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_guard_types::Dialect;

    #[test]
    fn only_force_pushes() {
        assert!(applies(&OpSpec::new(
            "git",
            OpKind::GitPushForce,
            Dialect::Posix
        )));
        assert!(!applies(&OpSpec::new(
            "git",
            OpKind::GitClean,
            Dialect::Posix
        )));
    }
}
