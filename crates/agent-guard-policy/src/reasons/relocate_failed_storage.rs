//! `RELOCATE_FAILED_STORAGE`.

super::reason!(
    RelocateFailedStorage, RelocateFailedStorage, "RELOCATE_FAILED_STORAGE",
    catches: "Under `--enforce` or in `safe-delete`: moving a target into the quarantine failed for lack of space or quota (`ENOSPC`, `EDQUOT`).",
    why: "Capacity limits must never degrade into permanent deletion. The remaining targets stay where they are.",
    example: "agent-guard safe-delete big-dataset/   # on a full disk",
    verdict: "BLOCK (exit 2). Items already moved stay restorable under the reported txid.",
    recovery: "Free space (`agent-guard gc`), then retry; `agent-guard restore <txid>` undoes the partial move.",
    enforcement: None,
    hint: "Free room in the quarantine (`agent-guard gc`), then retry; anything already moved is restorable.",
    coverage: Coverage::Tests("crates/agent-guard-cli/tests/it/failures.rs: a_full_quarantine_refuses_with_relocate_failed_storage"),
);

#[cfg(test)]
mod tests {
    use agent_guard_types::{Decision, ReasonCode};

    #[test]
    fn is_a_block() {
        assert_eq!(
            ReasonCode::RelocateFailedStorage.decision(),
            Decision::Block
        );
    }
}
