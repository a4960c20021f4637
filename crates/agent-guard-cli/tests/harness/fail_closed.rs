//! Every harness fails closed (issue 35, point 7), end to end through the real CLIs.
//!
//! The hook is installed as a user installs it (`agent-guard install <harness> --project`:
//! through the hook launcher, with the harness's own timeout; `OpenCode` through its plugin).
//! The mock model asks for one shell call, `touch fail-closed.marker`; the guard the installed
//! hook names is then made unable to answer — removed, exiting 1, killed by `SIGSEGV` or by
//! `SIGKILL`, hanging past the harness's timeout — and the marker must not appear, while the
//! model is told why (the launcher's `HOOK_GUARD_UNAVAILABLE`, or the plugin's fail-closed
//! error). The control runs the same call with the healthy guard: the marker appears, so the
//! absence of the marker in the other runs is the hook's doing.
//!
//! The hang waits out the real timeouts (the launcher's 25 s, below the harness's 30 s), as
//! installed: nothing is shortened.

use std::fs;

use crate::cli::Harness;
use crate::scenario::{Run, Scenario, timing};

/// The file the tool call creates when it runs.
const MARKER: &str = "fail-closed.marker";

/// Ways the guard binary can fail to answer.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Fault {
    /// The binary is gone (uninstalled, moved, a dangling path).
    Missing,
    /// It exits 1 with a message on stderr (a crash the program caught, a bad build).
    Exit1,
    /// It is killed by `SIGSEGV` (a crash).
    Segv,
    /// It is killed by `SIGKILL` (the OOM killer, a user's `kill -9`).
    Killed,
    /// It never answers (a deadlock, a stalled file system): longer than the harness waits.
    Hang,
}

impl Fault {
    fn label(self) -> &'static str {
        match self {
            Fault::Missing => "guard binary missing",
            Fault::Exit1 => "guard exits 1",
            Fault::Segv => "guard killed by SIGSEGV",
            Fault::Killed => "guard killed by SIGKILL",
            Fault::Hang => "guard hangs past the harness's timeout",
        }
    }

    /// Puts this fault where the installed hook's guard is.
    fn apply(self, scenario: &Scenario) {
        match self {
            Fault::Missing => fs::remove_file(&scenario.guard).unwrap(),
            Fault::Exit1 => scenario
                .replace_guard("#!/bin/sh\ncat >/dev/null\necho 'simulated crash' >&2\nexit 1\n"),
            Fault::Segv => scenario.replace_guard("#!/bin/sh\ncat >/dev/null\nkill -SEGV $$\n"),
            Fault::Killed => scenario.replace_guard("#!/bin/sh\ncat >/dev/null\nkill -KILL $$\n"),
            Fault::Hang => scenario.replace_guard("#!/bin/sh\ncat >/dev/null\nexec sleep 90\n"),
        }
    }
}

/// Ensures that the mock issued its one tool call and that its result came back: the harness
/// handled the call (a harness that died would not run the command either, proving nothing).
fn tool_result(run: &Run<'_>) -> String {
    assert!(
        run.tool_call_requests() == 1 && run.tool_results().len() == 1,
        "the mock's tool call was not handled (requests with a tool call: {}, results: {})\n\n{}",
        run.tool_call_requests(),
        run.tool_results().len(),
        run.report()
    );
    run.tool_results().remove(0).0
}

/// Control: with the healthy guard, the harmless call runs and creates the marker.
pub(crate) fn healthy_guard_runs_the_command(harness: Harness) {
    let Some(scenario) = Scenario::new(harness) else {
        return;
    };
    let marker = scenario.ws().join(MARKER);
    let run = scenario.run(&format!("touch {MARKER}"), &[]);
    timing(&run, "healthy guard, touch");
    tool_result(&run);
    assert!(
        marker.is_file(),
        "control: the healthy guard should let `touch {MARKER}` run\n\n{}",
        run.report()
    );
}

/// With the guard unable to answer, the call does not run: no marker, and the model is told
/// that agent-guard refused it.
pub(crate) fn guard_fault_blocks(harness: Harness, fault: Fault) {
    let Some(scenario) = Scenario::new(harness) else {
        return;
    };
    let marker = scenario.ws().join(MARKER);
    fault.apply(&scenario);
    let run = scenario.run(&format!("touch {MARKER}"), &[]);
    timing(&run, fault.label());
    let content = tool_result(&run);
    assert!(
        !marker.exists(),
        "{}: {} ran the command (fail-open)\n\n{}",
        fault.label(),
        harness.name(),
        run.report()
    );
    let told = if harness == Harness::OpenCode {
        content.contains("[agent-guard] BLOCKED") && content.contains("fail-closed")
    } else {
        content.contains("HOOK_GUARD_UNAVAILABLE")
    };
    assert!(
        told,
        "{}: the model was not told that agent-guard refused the call\n\n{}",
        fault.label(),
        run.report()
    );
}
