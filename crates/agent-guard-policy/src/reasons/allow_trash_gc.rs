//! `ALLOW_TRASH_GC`.

use agent_guard_types::PathSpec;

super::reason!(
    AllowTrashGc, AllowTrashGc, "ALLOW_TRASH_GC",
    catches: "No longer produced (issue 34). Until then: a delete whose every target lay inside the quarantine and was ordinary payload (`rm -rf .agent-trash/<txid>`).",
    why: "What the guard keeps for undo must be out of reach of the commands it guards: a delete that reaches the store, by any spelling, is now `BLOCK_PROTECTED_PATH`, and `agent-guard gc` is how payload goes. The code stays registered so that old audit records keep their meaning.",
    example: "rm -rf .agent-trash/20261130-101500-deadbeef",
    verdict: "Not produced any more: such a delete is `BLOCK_PROTECTED_PATH`.",
    recovery: "`agent-guard gc --execute` purges what is past retention (a person runs it).",
    enforcement: DurableIntent,
    hint: "",
    coverage: Coverage::Tests("crates/agent-guard-policy/src/batch.rs: the_store_is_never_reached (not produced since issue 34)"),
);

/// Returns `true` if a target of the batch lies inside the store (protected control paths
/// were refused earlier; this is its payload).
pub(crate) fn reaches_the_store(specs: &[PathSpec]) -> bool {
    specs.iter().any(|s| s.inside_trash)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{dir, in_trash};

    #[test]
    fn any_target_in_the_store() {
        assert!(reaches_the_store(&[in_trash(dir(".agent-trash/tx"))]));
        assert!(reaches_the_store(&[
            in_trash(dir(".agent-trash/tx")),
            dir("src")
        ]));
        assert!(!reaches_the_store(&[dir("src")]));
    }
}
