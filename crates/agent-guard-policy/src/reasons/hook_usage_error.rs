//! `HOOK_USAGE_ERROR`.

super::reason!(
    HookUsageError, HookUsageError, "HOOK_USAGE_ERROR",
    catches: "Hook mode: the hook's own command line cannot be parsed (an unknown option, a missing value).",
    why: "A usage error would make clap exit 2 with its own message, which some harnesses ignore; in hook mode it is the harness's deny instead.",
    example: "agent-guard check --enforce --harness claude-code --bogus < payload.json",
    verdict: "BLOCK, rendered as the harness's own deny.",
    recovery: "Nothing ran. Reinstall the hook (`agent-guard install <harness>`) or fix its command line.",
    enforcement: None,
    hint: "Nothing ran; ask the user to fix the hook's command line (`agent-guard doctor`).",
    coverage: Coverage::Tests("crates/agent-guard-cli/tests/it/hooks.rs: <harness>::usage_error_is_a_deny"),
);
