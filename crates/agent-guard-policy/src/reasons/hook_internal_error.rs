//! `HOOK_INTERNAL_ERROR`.

super::reason!(
    HookInternalError, HookInternalError, "HOOK_INTERNAL_ERROR",
    catches: "Hook mode: the guard hit an error or a panic while judging the tool call.",
    why: "A hook that fails must not let the tool run: the guard could not establish that the call is safe or compensated.",
    example: "AGENT_GUARD_FAULT=hook-panic agent-guard check --enforce --harness codex < payload.json",
    verdict: "BLOCK, rendered as the harness's own deny.",
    recovery: "Nothing ran. Anything already moved is restorable (`agent-guard status`, `agent-guard undo`).",
    enforcement: None,
    hint: "Nothing ran; retry, or ask the user to check the agent-guard hook. Do not circumvent the guard.",
    coverage: Coverage::Tests("crates/agent-guard-cli/tests/it/hooks.rs: <harness>::panic_is_a_deny"),
);
