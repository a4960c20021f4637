//! `ALLOW_APPROVED`.

super::reason!(
    AllowApproved, AllowApproved, "ALLOW_APPROVED",
    catches: "`check --enforce` on a command that would be ASK, when a person approved exactly that command, in that directory and workspace, with `agent-guard approve <id>` and the approval has not expired or been used.",
    why: "Harnesses that cannot prompt (Codex, Gemini CLI, Cline, Windsurf) turn ASK into a deny; the agent asks the user, and this is how the user says yes to that one command. The approval needs a terminal, as leaving a restricted session does.",
    example: "agent-guard approve 20261201-084000-b3dcb9f9   # then the agent retries the same command",
    verdict: "ALLOW, once. Every part of the line the guard can make undoable is still compensated first, the ASK parts included (what they keep is what the question showed: a hard link, a reflink or copy, a snapshot, a workspace checkpoint); only what the question named as not kept runs unprotected. The approval is used up; the next identical command asks again.",
    recovery: "`agent-guard undo` puts back what was kept; what the question named as not kept (`not_kept` in `check --json`) is lost. The audit log records the approval (`approve`) and its use (`approval_id`).",
    enforcement: DurableIntent,
    hint: "",
    coverage: Coverage::Tests("crates/agent-guard-cli/tests/it/approve.rs: an approved ask runs once"),
);
