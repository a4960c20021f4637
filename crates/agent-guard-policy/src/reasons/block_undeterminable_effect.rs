//! `BLOCK_UNDETERMINABLE_EFFECT`.

use agent_guard_types::{OpKind, OpSpec, PathSpec, ReasonCode, Verdict};

super::reason!(
    BlockUndeterminableEffect, BlockUndeterminableEffect, "BLOCK_UNDETERMINABLE_EFFECT",
    catches: "Targets that cannot be known before the line runs: variables and substitutions (`rm -rf $DIR`), destructive commands inside substitutions, `xargs`-fed deletes, `find -delete`/`-exec rm`, unknown flags, wrappers of unknown arity (`env -S`), scripts that are not literal (`bash -c \"$X\"`, `eval \"$X\"`, a program piped into `sh`), inline interpreter code that deletes (`python -c \"import shutil; shutil.rmtree(...)\"`, `node -e`, `perl -e`), git global context options (`git -C`), unsupported `git clean`/`reset --hard` forms, a failed hard-reset preflight or clean enumeration, unparseable lines with destructive words, and destructive vocabulary the selected dialect cannot classify.",
    why: "Uncertainty increases restriction: the guard cannot quarantine what it cannot name, and guessing would forfeit the promise that nothing is lost.",
    example: "rm -rf \"$BUILD_DIR\"/",
    verdict: "BLOCK. Not configurable.",
    recovery: "Restate the command with literal, workspace-relative paths, or use `agent-guard safe-delete`, which expands globs itself.",
    enforcement: None,
    hint: "Restate the command with literal, workspace-relative paths, or use `agent-guard safe-delete <paths>` (reversible).",
    coverage: Coverage::Corpus,
);

/// Why a `del /s` of something other than a directory is refused.
pub(crate) const NAME_MATCH: &str =
    "del /s also deletes same-named files in every subdirectory; use rd /s for a directory tree";

/// Returns `true` for an unknown op or one whose effect cannot be determined.
pub(crate) fn op_applies(op: &OpSpec) -> bool {
    op.kind == OpKind::Unknown || op.undeterminable
}

/// Returns the refusal if any target could not be resolved.
pub(crate) fn batch(specs: &[PathSpec]) -> Option<Verdict> {
    specs.iter().find_map(|s| {
        s.error
            .as_ref()
            .map(|e| Verdict::of(ReasonCode::BlockUndeterminableEffect).because(e.clone()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{file, rm};
    use agent_guard_types::Dialect;

    #[test]
    fn unknown_and_unresolvable() {
        assert!(op_applies(&OpSpec::unknown(
            "<opaque>",
            Dialect::Posix,
            "x"
        )));
        let mut op = rm(&["a"], false);
        assert!(!op_applies(&op));
        op.undeterminable = true;
        assert!(op_applies(&op));
        let mut bad = file("$X");
        bad.error = Some("variable".into());
        assert!(batch(&[file("a"), bad]).is_some());
        assert!(batch(&[file("a")]).is_none());
    }
}
