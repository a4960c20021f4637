//! `ALLOW_TRASH_GC`.

use agent_guard_types::PathSpec;

super::reason!(
    AllowTrashGc, AllowTrashGc, "ALLOW_TRASH_GC",
    catches: "A delete whose every target lies inside the quarantine and is ordinary payload: not the quarantine root, not a control file (`manifest.jsonl`, `audit.jsonl`, `state.json`, `sessions/`, `lock`, `.git`), not a glob.",
    why: "Removing quarantined payload is housekeeping of data that was already deleted once; quarantining it again would recurse forever.",
    example: "rm -rf .agent-trash/20261130-101500-deadbeef",
    verdict: "ALLOW (deleted directly). Prefer `agent-guard gc --execute`, which also records a tombstone.",
    recovery: "Not recoverable by the guard: this is the final deletion of quarantined payload.",
    enforcement: DurableIntent,
    hint: "",
    coverage: Coverage::Corpus,
);

/// Returns `true` if the batch is non-empty and wholly inside the quarantine (protected
/// control paths were refused earlier).
pub(crate) fn applies(specs: &[PathSpec]) -> bool {
    !specs.is_empty() && specs.iter().all(|s| s.inside_trash)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{dir, in_trash};

    #[test]
    fn all_targets_must_be_in_the_trash() {
        assert!(applies(&[in_trash(dir(".agent-trash/tx"))]));
        assert!(!applies(&[in_trash(dir(".agent-trash/tx")), dir("src")]));
        assert!(!applies(&[]));
    }
}
