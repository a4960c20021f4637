//! `ALLOW_NOOP`.

use agent_guard_types::{OpKind, OpSpec, PathSpec};

super::reason!(
    AllowNoop, AllowNoop, "ALLOW_NOOP",
    catches: "A line with no destructive operation (`git status`); a delete whose targets are all absent; a delete with no targets (`rm -f`); dry runs (`git clean -n`, `git clean` without `-f`, PowerShell `-WhatIf`); `--help`/`--version` forms.",
    why: "Nothing would be deleted, so there is nothing to protect or record.",
    example: "rm -f does-not-exist.txt",
    verdict: "ALLOW. Not configurable.",
    recovery: "Nothing to recover.",
    enforcement: None,
    hint: "",
    coverage: Coverage::Corpus,
);

/// Returns `true` if the op deletes nothing by its own flags: a dry run, or a path delete
/// with no targets.
pub(crate) fn op_applies(op: &OpSpec) -> bool {
    op.dry_run || (op.kind == OpKind::FsDelete && op.targets.is_empty())
}

/// Returns `true` if no affected target exists.
pub(crate) fn all_absent(affected: &[PathSpec]) -> bool {
    affected.iter().all(|s| !s.exists())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{absent, file, rm};

    #[test]
    fn dry_runs_and_empty_deletes() {
        assert!(op_applies(&rm(&[], true)));
        let mut op = rm(&["x"], true);
        assert!(!op_applies(&op));
        op.dry_run = true;
        assert!(op_applies(&op));
        assert!(all_absent(&[absent("a"), absent("b")]));
        assert!(!all_absent(&[absent("a"), file("b")]));
    }
}
