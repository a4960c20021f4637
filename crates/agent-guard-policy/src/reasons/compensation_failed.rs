//! `COMPENSATION_FAILED`.

super::reason!(
    CompensationFailed, CompensationFailed, "COMPENSATION_FAILED",
    catches: "Under `--enforce` (and in `safe-delete`): a compensation was attempted and did not fully succeed — a relocation skipped or failed for some target, a verification failed, a snapshot could not be stored, the quarantine could not be prepared, or a required durable audit record could not be written.",
    why: "Letting the command run after a partial compensation would make part of the delete unrecoverable. Distinct from enumeration failure, where nothing was attempted (that is `BLOCK_UNDETERMINABLE_EFFECT`).",
    example: "agent-guard check --enforce -- rm -rf build   # with a read-only quarantine",
    verdict: "BLOCK (exit 2). Anything already moved stays restorable under the reported txid.",
    recovery: "`agent-guard restore <txid>` puts back what was moved; fix the cause (permissions, space) and retry.",
    enforcement: None,
    hint: "Fix the cause the message names (permissions, space), then retry; anything already moved is restorable.",
    coverage: Coverage::Tests("crates/agent-guard-cli/tests/it/failures.rs: an_unusable_quarantine_refuses_with_compensation_failed"),
);

#[cfg(test)]
mod tests {
    use agent_guard_types::{Decision, ReasonCode};

    #[test]
    fn is_a_block() {
        assert_eq!(ReasonCode::CompensationFailed.decision(), Decision::Block);
    }
}
