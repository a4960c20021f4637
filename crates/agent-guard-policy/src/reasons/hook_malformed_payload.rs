//! `HOOK_MALFORMED_PAYLOAD`.

super::reason!(
    HookMalformedPayload, HookMalformedPayload, "HOOK_MALFORMED_PAYLOAD",
    catches: "Hook mode (`check --harness NAME`): the payload on stdin is empty, larger than the limit, not JSON, not an object, for another hook event, or lacks a usable command or absolute working directory.",
    why: "Most harnesses run the tool call anyway when a hook fails; a payload the guard cannot read must therefore be a deny, never a silent allow.",
    example: "echo 'not json' | agent-guard check --enforce --harness claude-code",
    verdict: "BLOCK, rendered as the harness's own deny (exit 2 where exit codes decide).",
    recovery: "Nothing ran. Check the hook configuration (`agent-guard doctor`), then retry.",
    enforcement: None,
    hint: "Nothing ran; retry, or ask the user to check the hook with `agent-guard doctor`.",
    coverage: Coverage::Tests("crates/agent-guard-cli/tests/it/hooks.rs: <harness>::malformed"),
);
