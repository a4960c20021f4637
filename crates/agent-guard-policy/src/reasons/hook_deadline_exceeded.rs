//! `HOOK_DEADLINE_EXCEEDED`.

super::reason!(
    HookDeadlineExceeded, HookDeadlineExceeded, "HOOK_DEADLINE_EXCEEDED",
    catches: "Hook mode: no verdict within the hook's deadline (`AGENT_GUARD_DEADLINE_MS`, else `[hook] deadline_ms`, else 5000 ms).",
    why: "Harnesses kill slow hooks and then run the tool anyway; the guard answers with a deny before that happens.",
    example: "AGENT_GUARD_FAULT=hook-stall agent-guard check --enforce --harness claude-code < payload.json",
    verdict: "BLOCK, rendered as the harness's own deny.",
    recovery: "Nothing ran. Anything already moved is restorable (`agent-guard status`, `agent-guard undo`).",
    enforcement: None,
    hint: "Nothing ran; retry. If it keeps happening, raise `[hook] deadline_ms` in `.agent-guard.toml`.",
    coverage: Coverage::Tests("crates/agent-guard-cli/tests/it/hooks.rs: <harness>::deadline_is_a_deny"),
);
