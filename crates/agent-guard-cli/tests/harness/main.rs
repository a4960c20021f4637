//! End-to-end tests through the real harness CLIs, offline: Claude Code, Codex, Gemini CLI,
//! Copilot CLI, Qwen Code and `OpenCode`, each pointed at a scripted mock model server on
//! loopback, inside a network namespace of its own.
//!
//! Every scenario builds a temporary git workspace (`ws/` with `build/`, a sibling
//! `outside/`, a fake home), sets the harness up as its user would (the mock provider, folder
//! trust), runs `agent-guard install <harness> --project` there, then runs the CLI
//! non-interactively through `tests/harness/run-in-netns.sh`. The mock answers the first
//! request with one shell tool call (the command under test) and the one that carries the
//! tool result with a final text; it logs every request. The tests then assert on the
//! filesystem, the quarantine, the hook's own trail and what the model was told.
//!
//! The tests are `#[ignore]`d: they need the pinned CLIs (`scripts/install-harnesses.sh`),
//! `unshare` and `ip`. Run them with
//! `cargo test -p agent-guard-cli --test harness -- --ignored`. Without the CLIs they skip
//! with a message, unless `AGENT_GUARD_REQUIRE_HARNESSES=1` (as in `.ci/run`), where a missing
//! CLI fails. See `docs/harness-e2e.md`.
//!
//! `fail_closed` makes the guard the installed hook names unable to answer (missing, exit 1,
//! `SIGSEGV`, `SIGKILL`, a hang past the harness's timeout) and shows that no harness runs the
//! command then (issue 35). `contract` is not ignored: it checks the hook launcher's deny
//! against the block format of every command-hook harness, Cursor, Cline and Windsurf
//! included, which have no CLI to run here.

#![allow(
    clippy::unwrap_used,
    clippy::disallowed_methods,
    clippy::print_stderr,
    reason = "test support code sets up fixtures, runs processes and reports what it saw"
)]

mod cli;
mod contract;
mod edits;
mod fail_closed;
mod scenario;

use std::fs;

use serde_json::Value;

use cli::{Context, Harness};
use scenario::{Run, Scenario, plant, timing, tree};

/// Asserts `cond`, printing the run's full report when it fails.
macro_rules! ensure {
    ($run:expr, $cond:expr, $($msg:tt)+) => {
        if !$cond {
            panic!("{}\n\n{}", format!($($msg)+), $run.report());
        }
    };
}

/// Ensures that the mock issued one tool call; returns the content of its one result.
fn one_tool_result(run: &Run<'_>) -> String {
    ensure!(
        run,
        run.tool_call_requests() == 1,
        "the mock issued no tool call"
    );
    run.tool_result().0
}

// ---------------------------------------------------------------------------------------
// The scenarios, shared by every harness.

/// The hook runs on a harmless tool call: the installed hook command is invoked with the
/// harness's payload, answers, and the command itself runs. Where a harness runs the hook
/// only with a trust the user or install recorded, a control run without it shows that the
/// trust is load-bearing.
fn hook_is_invoked(harness: Harness) {
    let Some(scenario) = Scenario::new(harness) else {
        return;
    };
    scenario.wrap_guard();
    let run = scenario.run("ls", &[]);
    timing(&run, "hook invoked");
    ensure!(run, run.exit == Some(0), "the CLI did not exit 0");
    let calls = scenario.hook_calls();
    ensure!(
        run,
        calls.len() == 1,
        "expected one hook call, got {}",
        calls.len()
    );
    let call = &calls[0];
    ensure!(
        run,
        call.get("argv").map(String::as_str)
            == Some(format!("check\n--enforce\n--harness\n{}\n", harness.name()).as_str()),
        "the hook was not run as `check --enforce --harness {}`",
        harness.name()
    );
    let payload: Value = serde_json::from_str(&call["stdin"]).unwrap_or(Value::Null);
    ensure!(
        run,
        harness.is_ls_payload(&payload),
        "the hook's payload is not {}'s pre-tool payload for `ls`",
        harness.name()
    );
    ensure!(
        run,
        call.get("rc").map(|rc| rc.trim()) == Some("0"),
        "the hook did not exit 0 on `ls`"
    );
    let content = one_tool_result(&run);
    ensure!(
        run,
        content.contains("build") && content.contains("notes.txt"),
        "the tool result is not the output of `ls`"
    );
    trust_control(&scenario);
}

/// Without the trust it needs, the harness does not run the project's hook (or, Gemini CLI,
/// does not start at all).
fn trust_control(scenario: &Scenario) {
    let dirs = scenario.dirs();
    let calls = scenario.hook_calls().len();
    match scenario.harness {
        // Codex runs a hook only with the trust install recorded in `$CODEX_HOME/config.toml`;
        // without it, `codex exec` skips the hook silently.
        Harness::Codex => {
            let config = dirs.codex_home().join("config.toml");
            let text = fs::read_to_string(&config).unwrap();
            let at = text
                .find("[hooks.state.")
                .expect("install recorded hook trust");
            fs::write(&config, &text[..at]).unwrap();
            let run = scenario.run("ls", &[]);
            timing(&run, "hook invoked, trust removed (control)");
            ensure!(run, run.exit == Some(0), "the CLI did not exit 0");
            ensure!(
                run,
                scenario.hook_calls().len() == calls,
                "control: Codex ran a hook whose trust was removed"
            );
        }
        // Copilot CLI skips a repository's hooks silently in a folder it does not trust:
        // the tool runs unguarded. (doctor FAILs this; see `tests/it/install.rs`.)
        Harness::Copilot => {
            fs::write(dirs.copilot_home().join("config.json"), "{}").unwrap();
            let run = scenario.run("ls", &[]);
            timing(&run, "hook invoked, folder untrusted (control)");
            ensure!(run, run.exit == Some(0), "the CLI did not exit 0");
            ensure!(
                run,
                scenario.hook_calls().len() == calls,
                "control: Copilot ran a repository hook in an untrusted folder"
            );
            let (content, _) = run.tool_result();
            ensure!(
                run,
                content.contains("notes.txt"),
                "control: the tool did not run"
            );
        }
        // Gemini CLI runs no hooks in an untrusted folder, and `-p` refuses to start there.
        Harness::Gemini => {
            let ws = dirs.ws.display().to_string();
            fs::write(
                dirs.home.join(".gemini/trustedFolders.json"),
                serde_json::json!({ws: "DO_NOT_TRUST"}).to_string(),
            )
            .unwrap();
            let run = scenario.run("ls", &[]);
            timing(&run, "folder untrusted (control)");
            ensure!(
                run,
                run.exit == Some(55) && run.tool_call_requests() == 0,
                "control: gemini -p ran in a folder it does not trust"
            );
            ensure!(
                run,
                scenario.hook_calls().len() == calls,
                "control: the hook ran"
            );
        }
        Harness::ClaudeCode | Harness::QwenCode | Harness::OpenCode => {}
    }
}

/// `rm -r build`: the hook moves `build/` into the quarantine; the transaction is listed as
/// restorable, the model is told the txid, and `restore` brings `build/` back
/// byte-identical.
fn rm_build_is_relocated_and_restorable(harness: Harness) {
    let Some(scenario) = Scenario::new(harness) else {
        return;
    };
    let build = scenario.ws().join("build");
    let before = tree(&build);
    let run = scenario.run("rm -r build", &[]);
    timing(&run, "rm -r build");
    ensure!(run, run.exit == Some(0), "the CLI did not exit 0");
    ensure!(run, !build.exists(), "build/ is still in the workspace");
    let content = one_tool_result(&run);

    let transactions = scenario.transactions();
    let restorable: Vec<&Value> = transactions
        .iter()
        .filter(|tx| tx["state"] == "RESTORABLE" && tx["first"] == "build")
        .collect();
    ensure!(
        run,
        restorable.len() == 1,
        "expected one RESTORABLE transaction for build, got {transactions:?}"
    );
    let txid = restorable[0]["txid"].as_str().unwrap().to_owned();
    ensure!(
        run,
        scenario.store().join(&txid).is_dir(),
        "the quarantine has no directory for {txid}"
    );
    let audit = fs::read_to_string(scenario.store().join("audit.jsonl")).unwrap_or_default();
    ensure!(
        run,
        audit.contains(&txid),
        "the audit log does not record {txid}"
    );
    // Hook mode rewrites the fully compensated delete into an `echo` of its note, so the
    // tool result itself names the txid; Qwen Code, which has no rewrite, gets a deny whose
    // reason is the note, and reads that as the tool result.
    ensure!(
        run,
        content.contains(&txid),
        "the tool result does not name the txid {txid}"
    );
    if !harness.rewrites() {
        ensure!(
            run,
            content.contains("[agent-guard] DONE ["),
            "the tool result is not the note of a completed delete"
        );
    }
    match harness.context() {
        Context::Message => ensure!(
            run,
            run.context_mentions(&txid),
            "the request after the tool call does not carry the hook's context naming {txid}"
        ),
        Context::ToolResult => ensure!(
            run,
            content.contains("[agent-guard] RELOCATE_TREE:"),
            "the plugin did not append the hook's note to the tool result"
        ),
        Context::Nowhere => {}
    }

    let output = scenario.guard(&["restore", &txid]);
    ensure!(
        run,
        output.status.success(),
        "agent-guard restore {txid} failed: {output:?}"
    );
    ensure!(
        run,
        tree(&build) == before,
        "the restored build/ differs from the original"
    );
}

/// `rm -r ../outside`: the hook refuses it, the target survives, and the model is told
/// that agent-guard blocked it.
fn delete_outside_is_refused(harness: Harness) {
    let Some(scenario) = Scenario::new(harness) else {
        return;
    };
    let outside = scenario.fixture.outside.clone();
    let before = tree(&outside);
    let run = scenario.run("rm -r ../outside", &[]);
    timing(&run, "rm -r ../outside");
    ensure!(run, run.exit == Some(0), "the CLI did not exit 0");
    ensure!(
        run,
        outside.is_dir() && tree(&outside) == before,
        "the directory outside the workspace was touched"
    );
    let content = one_tool_result(&run);
    ensure!(
        run,
        content.contains("agent-guard") && content.contains("BLOCK"),
        "the model was not told that agent-guard blocked the call"
    );
}

/// The model's shell tool tries to switch the guard off by emptying the hook file install
/// wrote (issue 35): the hook refuses it (`BLOCK_SELF_PROTECTION`), the file is byte for
/// byte what it was, and the next tool call is still judged by the hook.
fn hook_file_write_is_refused(harness: Harness) {
    let Some(scenario) = Scenario::new(harness) else {
        return;
    };
    scenario.wrap_guard();
    let config = scenario.config_file();
    let before = fs::read(&config).unwrap();
    let relative = config
        .strip_prefix(scenario.ws())
        .unwrap()
        .display()
        .to_string();
    let run = scenario.run(&format!("printf '{{}}' > {relative}"), &[]);
    timing(&run, "overwrite the hook file");
    ensure!(run, run.exit == Some(0), "the CLI did not exit 0");
    // The harness may rewrite its own settings file as it starts (Qwen Code adds a
    // `$version`): what must hold is that the hook is still there and `{}` was not written.
    let after = fs::read_to_string(&config).unwrap_or_default();
    ensure!(
        run,
        after.as_bytes() == before.as_slice()
            || (after.trim() != "{}" && after.contains("check --enforce")),
        "the hook file {relative} was changed"
    );
    let content = one_tool_result(&run);
    ensure!(
        run,
        content.contains("BLOCK_SELF_PROTECTION") || content.contains("agent-guard"),
        "the model was not told that agent-guard refused the call"
    );
    let calls = scenario.hook_calls().len();
    let again = scenario.run("ls", &[]);
    ensure!(
        again,
        scenario.hook_calls().len() > calls,
        "the hook no longer runs after the attempt"
    );
}

/// A fault inside hook mode (a panic, or a stall past its own deadline) becomes a deny:
/// `rm -r build` does not run.
fn guard_fault_denies(harness: Harness, fault: &str) {
    let Some(scenario) = Scenario::new(harness) else {
        return;
    };
    let build = scenario.ws().join("build");
    let before = tree(&build);
    let run = scenario.run("rm -r build", &[("AGENT_GUARD_FAULT", fault)]);
    timing(&run, &format!("AGENT_GUARD_FAULT={fault}"));
    ensure!(run, run.exit == Some(0), "the CLI did not exit 0");
    ensure!(
        run,
        build.is_dir() && tree(&build) == before,
        "build/ was deleted although the hook failed ({fault})"
    );
    let content = one_tool_result(&run);
    let code = if fault == "hook-panic" {
        "HOOK_INTERNAL_ERROR"
    } else {
        "HOOK_DEADLINE_EXCEEDED"
    };
    ensure!(
        run,
        content.contains("agent-guard") && content.contains(code),
        "the model was not told that agent-guard refused the call ({code})"
    );
}

/// What the harness itself does when the hook cannot do its job — measured with the launcher
/// made transparent (the guard run directly, as before issue 35), whatever agent-guard's own
/// code does: the hook exits 1, is killed by a signal, its binary is missing, or it does not
/// answer within the harness's timeout. Each is `rm -r build`; `true` means `build/` survived
/// (fail-closed). These are measurements of the pinned CLIs, asserted so that a new release
/// that changes them fails here and `docs/hooks.md` gets updated; every `false` is a failure
/// the launcher turns into a deny (`fail_closed`).
struct FailureModes {
    exits_1: bool,
    killed: bool,
    missing: bool,
    /// `None`: not run (the timeout cannot be shortened without invalidating the hook).
    times_out: Option<bool>,
}

impl FailureModes {
    fn measured(harness: Harness) -> FailureModes {
        let (exits_1, killed, missing, times_out) = match harness {
            // Claude Code with the `onFailure: "block"` install writes (2.1.295+); OpenCode
            // through agent-guard's plugin, which runs a call only on an explicit allow.
            Harness::ClaudeCode | Harness::OpenCode => (true, true, true, Some(true)),
            // No fail-closed option; the hook's trust hash covers its timeout.
            Harness::Codex => (false, false, false, None),
            // Text on stderr with an exit other than 0 and 1 is read as a deny: a missing
            // binary (the shell's "No such file", exit 127) blocks, exit 1 and a signal do not.
            Harness::Gemini => (false, false, true, Some(false)),
            Harness::Copilot => (true, true, true, Some(false)),
            Harness::QwenCode => (false, false, false, Some(false)),
        };
        FailureModes {
            exits_1,
            killed,
            missing,
            times_out,
        }
    }
}

/// Runs the failure modes of [`FailureModes`] with the launcher bypassed and asserts the
/// measured outcome.
fn failure_modes(harness: Harness) {
    let Some(scenario) = Scenario::new(harness) else {
        return;
    };
    if harness != Harness::OpenCode {
        scenario.bypass_launcher();
    }
    let expected = FailureModes::measured(harness);
    let build = scenario.ws().join("build");
    let before = tree(&build);
    let check = |label: &str, closed: bool| {
        let run = scenario.run("rm -r build", &[]);
        timing(&run, label);
        let survived = build.is_dir() && tree(&build) == before;
        ensure!(
            run,
            survived == closed,
            "{label}: expected the call to be {} by {}, but build/ {}",
            if closed { "blocked" } else { "let through" },
            harness.name(),
            if survived { "survived" } else { "was deleted" }
        );
        ensure!(
            run,
            run.tool_results().len() == 1,
            "no tool result came back"
        );
        if !survived {
            plant(&build, &before);
        }
    };

    scenario.replace_guard("#!/bin/sh\ncat >/dev/null\necho 'simulated crash' >&2\nexit 1\n");
    check("hook exits 1 (no launcher)", expected.exits_1);
    scenario.replace_guard("#!/bin/sh\ncat >/dev/null\nkill -KILL $$\n");
    check("hook killed by SIGKILL (no launcher)", expected.killed);
    fs::remove_file(&scenario.guard).unwrap();
    check("hook binary missing (no launcher)", expected.missing);
    if let Some(closed) = expected.times_out {
        assert!(harness.set_hook_timeout(&scenario.config_file(), 2));
        scenario.replace_guard("#!/bin/sh\ncat >/dev/null\nexec sleep 60\n");
        check("hook times out (2 s, no launcher)", closed);
    }
}

// ---------------------------------------------------------------------------------------
// Claude Code 2.1.328, Codex 0.169.0, Gemini CLI 0.61.0, Copilot CLI 1.0.102, Qwen Code
// 0.24.4 and OpenCode 1.18.33

/// The same scenarios for each real harness, as `<harness>::<scenario>`.
macro_rules! per_harness {
    ($($module:ident => $harness:expr),* $(,)?) => {$(
        mod $module {
            use super::Harness;

            #[test]
            #[ignore = "needs the real harness CLIs; run via scripts/install-harnesses.sh and `cargo test -p agent-guard-cli --test harness -- --ignored`"]
            fn hook_is_invoked() {
                super::hook_is_invoked($harness);
            }

            #[test]
            #[ignore = "needs the real harness CLIs; run via scripts/install-harnesses.sh and `cargo test -p agent-guard-cli --test harness -- --ignored`"]
            fn rm_build_is_relocated_and_restorable() {
                super::rm_build_is_relocated_and_restorable($harness);
            }

            #[test]
            #[ignore = "needs the real harness CLIs; run via scripts/install-harnesses.sh and `cargo test -p agent-guard-cli --test harness -- --ignored`"]
            fn delete_outside_is_refused() {
                super::delete_outside_is_refused($harness);
            }

            #[test]
            #[ignore = "needs the real harness CLIs; run via scripts/install-harnesses.sh and `cargo test -p agent-guard-cli --test harness -- --ignored`"]
            fn hook_file_write_is_refused() {
                super::hook_file_write_is_refused($harness);
            }

            #[test]
            #[ignore = "needs the real harness CLIs; run via scripts/install-harnesses.sh and `cargo test -p agent-guard-cli --test harness -- --ignored`"]
            fn hook_panic_denies() {
                super::guard_fault_denies($harness, "hook-panic");
            }

            #[test]
            #[ignore = "needs the real harness CLIs; run via scripts/install-harnesses.sh and `cargo test -p agent-guard-cli --test harness -- --ignored`"]
            fn hook_stall_denies() {
                super::guard_fault_denies($harness, "hook-stall");
            }

            #[test]
            #[ignore = "needs the real harness CLIs; run via scripts/install-harnesses.sh and `cargo test -p agent-guard-cli --test harness -- --ignored`"]
            fn failure_modes() {
                super::failure_modes($harness);
            }

            #[test]
            #[ignore = "needs the real harness CLIs; run via scripts/install-harnesses.sh and `cargo test -p agent-guard-cli --test harness -- --ignored`"]
            fn fail_closed_control_healthy_guard_runs_the_command() {
                super::fail_closed::healthy_guard_runs_the_command($harness);
            }

            #[test]
            #[ignore = "needs the real harness CLIs; run via scripts/install-harnesses.sh and `cargo test -p agent-guard-cli --test harness -- --ignored`"]
            fn fail_closed_guard_missing() {
                super::fail_closed::guard_fault_blocks($harness, super::fail_closed::Fault::Missing);
            }

            #[test]
            #[ignore = "needs the real harness CLIs; run via scripts/install-harnesses.sh and `cargo test -p agent-guard-cli --test harness -- --ignored`"]
            fn fail_closed_guard_exits_1() {
                super::fail_closed::guard_fault_blocks($harness, super::fail_closed::Fault::Exit1);
            }

            #[test]
            #[ignore = "needs the real harness CLIs; run via scripts/install-harnesses.sh and `cargo test -p agent-guard-cli --test harness -- --ignored`"]
            fn fail_closed_guard_segfaults() {
                super::fail_closed::guard_fault_blocks($harness, super::fail_closed::Fault::Segv);
            }

            #[test]
            #[ignore = "needs the real harness CLIs; run via scripts/install-harnesses.sh and `cargo test -p agent-guard-cli --test harness -- --ignored`"]
            fn fail_closed_guard_killed() {
                super::fail_closed::guard_fault_blocks($harness, super::fail_closed::Fault::Killed);
            }

            #[test]
            #[ignore = "needs the real harness CLIs; run via scripts/install-harnesses.sh and `cargo test -p agent-guard-cli --test harness -- --ignored`"]
            fn fail_closed_guard_hangs() {
                super::fail_closed::guard_fault_blocks($harness, super::fail_closed::Fault::Hang);
            }
        }
    )*};
}

per_harness! {
    claude_code => Harness::ClaudeCode,
    codex => Harness::Codex,
    gemini => Harness::Gemini,
    copilot => Harness::Copilot,
    qwen_code => Harness::QwenCode,
    opencode => Harness::OpenCode,
}

/// `install` writes `onFailure: "block"` for Claude Code (2.1.295+), and that option is what
/// makes its `failure_modes` (the launcher bypassed) fail-closed: without it, and without the
/// launcher, a hook that exits 1 lets the call run.
#[test]
#[ignore = "needs the real harness CLIs; run via scripts/install-harnesses.sh and `cargo test -p agent-guard-cli --test harness -- --ignored`"]
fn claude_code_on_failure_block_is_what_holds() {
    let Some(scenario) = Scenario::new(Harness::ClaudeCode) else {
        return;
    };
    let settings: Value =
        serde_json::from_str(&fs::read_to_string(scenario.config_file()).unwrap()).unwrap();
    let handler = &settings["hooks"]["PreToolUse"][0]["hooks"][0];
    assert_eq!(
        handler["onFailure"], "block",
        "install did not write onFailure: block: {settings}"
    );
    let build = scenario.ws().join("build");
    let mut without = settings.clone();
    without["hooks"]["PreToolUse"][0]["hooks"][0]
        .as_object_mut()
        .unwrap()
        .remove("onFailure");
    fs::write(scenario.config_file(), without.to_string()).unwrap();
    // Without the launcher too: its deny would block whatever Claude Code does.
    scenario.bypass_launcher();
    scenario.replace_guard("#!/bin/sh\ncat >/dev/null\nexit 1\n");
    let run = scenario.run("rm -r build", &[]);
    timing(&run, "hook exits 1, no onFailure (control)");
    ensure!(
        run,
        !build.exists(),
        "control: without onFailure a hook that exits 1 should not block (fail-open)"
    );
}
