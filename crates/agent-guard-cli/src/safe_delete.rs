//! `agent-guard safe-delete`.

use agent_guard_engine::EnvSnapshot;
use agent_guard_engine::{Exit as _, SafeDeleteReport, SafeDeleteRequest, safe_delete};
use agent_guard_types::{Decision, SafeDeleteOutcome};

use crate::args::SafeDeleteArgs;
use crate::check::absolute_cwd;
use crate::exit_code::ExitCode;
use crate::human;
use crate::printer::{self, sanitize};
use crate::progress::TerminalProgress;
use crate::style::{self, paint};

/// Runs `safe-delete`.
pub fn run(args: &SafeDeleteArgs) -> anyhow::Result<ExitCode> {
    let request = SafeDeleteRequest {
        paths: args.paths.clone(),
        cwd: absolute_cwd(args.cwd.as_deref())?,
        dry_run: args.dry_run,
        env: EnvSnapshot::capture(),
    };
    let report = safe_delete(&request, &TerminalProgress::new());
    if args.json {
        printer::json(&report.reported());
    } else {
        print(&report);
    }
    Ok(report.exit_code())
}

fn print(report: &SafeDeleteReport) {
    let verdict = &report.verdict;
    let headline = if report.outcome.is_refusal() {
        format!(
            "{} {}",
            paint(style::decision(Decision::Block), "BLOCK"),
            paint(style::BOLD, &format!("[{}]", verdict.code))
        )
    } else if let SafeDeleteOutcome::Would(decision, code) = report.outcome {
        format!(
            "{} {} {}",
            paint(style::DIM, "dry run:"),
            paint(style::decision(decision), &decision.to_string()),
            paint(style::BOLD, &format!("[{code}]"))
        )
    } else {
        let total: u64 = report.moved.iter().map(|m| m.bytes).sum();
        match report.outcome {
            SafeDeleteOutcome::Relocated => format!(
                "{} {} item(s), {}, to the quarantine",
                paint(style::OK, "moved"),
                report.moved.len(),
                human::bytes(total)
            ),
            other => sanitize(&other.to_string()),
        }
    };
    let txid = report
        .txid
        .as_deref()
        .map(|t| format!("  txid {}", paint(style::HINT, t)))
        .unwrap_or_default();
    printer::out(&format!("{headline}{txid}"));
    if report.outcome.is_refusal() {
        printer::out(&format!("  {}", verdict.explanation));
    }
    if let Some(workspace) = &report.workspace {
        printer::out(&format!("  workspace  {}", sanitize(workspace)));
    }
    if report.dry_run {
        for target in &report.targets {
            printer::out(&format!("  would move {}", sanitize(target)));
        }
    }
    for moved in &report.moved {
        printer::out(&format!(
            "  {:>9}  {}",
            human::bytes(moved.bytes),
            sanitize(&moved.origin)
        ));
    }
    for skipped in &report.skipped {
        printer::out(&format!(
            "  {} {} ({})",
            paint(style::WARNING, "not moved"),
            sanitize(&skipped.raw),
            sanitize(&skipped.reason)
        ));
    }
    for pattern in &report.no_match {
        printer::warning(&format!("no match for `{}`", sanitize(pattern)));
    }
    for path in &report.absent {
        printer::warning(&format!(
            "`{}` does not exist (nothing to delete)",
            sanitize(path)
        ));
    }
    if let Some(command) = &report.restore_command {
        printer::hint(&format!("undo with `{command}` (or `agent-guard undo`)"));
    } else if report.outcome.is_refusal() {
        let hint = agent_guard_engine::hint(verdict.code);
        if !hint.is_empty() {
            printer::hint(hint);
        }
        printer::err(&format!(
            "  (`agent-guard explain {}` says more)",
            verdict.code
        ));
    }
    for warning in &report.warnings {
        printer::warning(warning);
    }
}
