//! `agent-guard check`: build the request, call the engine, print the report.

use std::path::PathBuf;

use agent_guard_engine::EnvSnapshot;
use agent_guard_engine::{CheckReport, CheckRequest, Exit as _, check_with};
use agent_guard_types::Decision;

use crate::args::CheckArgs;
use crate::exit_code::ExitCode;
use crate::printer;

/// Runs `check` with the process environment; with `--harness`, runs hook mode
/// ([`crate::hook_mode`]).
pub fn run(args: &CheckArgs) -> anyhow::Result<ExitCode> {
    if args.harness.is_some() {
        return Ok(crate::hook_mode::run(args));
    }
    let cwd = absolute_cwd(args.cwd.as_deref())?;
    let (command, words) = match args.command.as_slice() {
        [line] => (line.clone(), Vec::new()),
        words => (String::new(), words.to_vec()),
    };
    let request = CheckRequest {
        command,
        argv: words,
        cwd,
        dialect_flag: args.dialect.clone(),
        dialect_payload: None,
        enforce: args.enforce,
        env: EnvSnapshot::capture(),
    };
    let progress = crate::progress::TerminalProgress::new();
    let report = check_with(&request, &progress);
    print_report(&report, args.json);
    Ok(report.exit_code())
}

/// Returns `cwd` made absolute against the process directory (default: the process dir).
pub fn absolute_cwd(cwd: Option<&std::path::Path>) -> anyhow::Result<PathBuf> {
    let here = std::env::current_dir()?;
    Ok(match cwd {
        Some(dir) => here.join(dir),
        None => here,
    })
}

/// Prints a report as JSON or as `DECISION [CODE]` plus the explanation.
pub fn print_report(report: &CheckReport, json: bool) {
    if json {
        printer::json(&report.reported());
        return;
    }
    printer::out(&report.headline());
    printer::out(&format!("  {}", report.explanation));
    for reason in report.reasons.iter().take(4) {
        printer::out(&format!("  - {}", printer::sanitize(reason)));
    }
    if let Some(message) = &report.message {
        printer::out(&printer::sanitize(message));
    }
    let hint = agent_guard_engine::hint(report.code);
    if matches!(report.decision, Decision::Block | Decision::Ask) && !hint.is_empty() {
        printer::err(&format!("\nhint: {hint}"));
    }
    for warning in &report.warnings {
        printer::err(&format!("warning: {}", printer::sanitize(warning)));
    }
}
