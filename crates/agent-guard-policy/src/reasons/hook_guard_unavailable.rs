//! `HOOK_GUARD_UNAVAILABLE`.

super::reason!(
    HookGuardUnavailable, HookGuardUnavailable, "HOOK_GUARD_UNAVAILABLE",
    catches: "Hook mode, answered by the hook launcher `agent-guard install` writes (`$XDG_STATE_HOME/agent-guard/bin/agent-guard-hook`), not by the guard: the guard's program is missing or cannot be executed, exits with anything but a reply (0, 2 or 3), is killed by a signal (a crash), or does not answer within the launcher's timeout (25 s, below the harness's 30 s).",
    why: "Most harnesses run the tool anyway when a hook cannot answer: Codex and Qwen Code when it exits 1, is killed or cannot start, Gemini CLI when it exits 1 or is killed, all three and Copilot CLI when it times out, Cline and Windsurf on any failure (`docs/hooks.md`: measured with the CLIs; for Cline and Windsurf, from their docs and source). The launcher turns each of those into the harness's own deny, so a broken or missing guard blocks instead of letting every command through.",
    example: "agent-guard-hook --timeout 25 /missing/agent-guard check --enforce --harness qwen-code < payload.json",
    verdict: "BLOCK, rendered as the harness's own deny by the launcher.",
    recovery: "Nothing ran. Run `agent-guard doctor`: it names what is broken (the binary, the launcher) and the command that repairs it (usually `agent-guard install <harness>`).",
    enforcement: None,
    hint: "Nothing ran; ask the user to run `agent-guard doctor`. Do not circumvent the guard.",
    coverage: Coverage::Tests("crates/agent-guard-cli/tests/harness/contract.rs: launcher_deny_is_the_harness_block"),
);
