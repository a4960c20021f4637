// agent-guard plugin for OpenCode (written by `agent-guard install opencode`; remove with `agent-guard uninstall opencode`)
//
// Before every tool call OpenCode makes, this hands the call to
// `agent-guard check --enforce --harness opencode` and lets it run only when the guard answers
// with an explicit allow (exit 0, `{"decision": "allow"}`). Everything else blocks the call by
// throwing, and the model reads the reason as the tool's error: a deny, a guard that cannot be
// started, one that exits otherwise or prints no valid reply, and one that does not answer
// within TIMEOUT_MS. After a compensated delete the guard's note (txid, restore command) is
// appended to the tool's output. No dependencies beyond node:child_process.

import { spawn } from "node:child_process";

const GUARD = {{GUARD}};
const TIMEOUT_MS = {{TIMEOUT_MS}};

/** Notes for the model, by call id, from `tool.execute.before` to `tool.execute.after`. */
const notes = new Map();

/** Runs the guard with `payload` on stdin: `{code, signal, stdout, stderr}` or `{error}`. */
function judge(payload) {
  return new Promise((resolve) => {
    let settled = false;
    let timer;
    const finish = (result) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    let child;
    try {
      child = spawn(GUARD[0], GUARD.slice(1), { stdio: ["pipe", "pipe", "pipe"] });
    } catch (error) {
      finish({ error: String(error && error.message ? error.message : error) });
      return;
    }
    let stdout = "";
    let stderr = "";
    timer = setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch {}
      finish({ error: `no answer within ${TIMEOUT_MS} ms` });
    }, TIMEOUT_MS);
    child.on("error", (error) => finish({ error: String(error && error.message ? error.message : error) }));
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("close", (code, signal) => finish({ code, signal, stdout, stderr }));
    child.stdin.on("error", () => {});
    child.stdin.end(payload);
  });
}

export const AgentGuard = async ({ directory, worktree }) => ({
  "tool.execute.before": async (input, output) => {
    const payload = JSON.stringify({
      hook_event_name: "tool.execute.before",
      tool: input.tool,
      sessionID: input.sessionID,
      callID: input.callID,
      args: output.args,
      directory,
      worktree,
    });
    const result = await judge(payload);
    if (result.error !== undefined) {
      throw new Error(
        `[agent-guard] BLOCKED the guard could not judge this call (${result.error}). ` +
          "The call was not run (fail-closed). Ask the user to check the agent-guard plugin " +
          "(`agent-guard doctor`). Do NOT circumvent the guard.",
      );
    }
    let reply;
    try {
      reply = JSON.parse(result.stdout);
    } catch {
      reply = undefined;
    }
    if (result.code === 0 && reply && reply.decision === "allow") {
      if (reply.args && typeof reply.args === "object") Object.assign(output.args, reply.args);
      if (typeof reply.context === "string") notes.set(input.callID, reply.context);
      return;
    }
    if (reply && reply.decision === "deny" && typeof reply.reason === "string") {
      throw new Error(reply.reason);
    }
    const said = result.stderr.trim().split("\n")[0];
    throw new Error(
      `[agent-guard] BLOCKED the guard gave no verdict (exit ${result.code ?? result.signal}` +
        (said ? `: ${said.slice(0, 200)}` : "") +
        "). The call was not run (fail-closed). Ask the user to check the agent-guard plugin " +
        "(`agent-guard doctor`). Do NOT circumvent the guard.",
    );
  },
  "tool.execute.after": async (input, output) => {
    const note = notes.get(input.callID);
    if (note === undefined) return;
    notes.delete(input.callID);
    if (output && typeof output.output === "string") output.output += `\n\n${note}`;
  },
});
