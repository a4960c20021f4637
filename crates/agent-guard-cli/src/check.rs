//! `agent-guard check`: build the request, call the engine, print the report.

use std::path::PathBuf;

use agent_guard_engine::EnvSnapshot;
use agent_guard_engine::{CheckReport, CheckRequest, Exit as _, check_with};
use agent_guard_types::Decision;

use crate::args::CheckArgs;
use crate::exit_code::ExitCode;
use crate::printer;
use crate::style;

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
    if let Some(watcher) = &report.watcher {
        watcher.start();
    }
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

/// Prints a report as JSON, or for a person: `DECISION [CODE]`, the explanation, the
/// targets and the workspace, and the next thing to type.
pub fn print_report(report: &CheckReport, json: bool) {
    if json {
        printer::json(&report.reported());
        return;
    }
    printer::out(&format!(
        "{} {}",
        style::paint(
            style::decision(report.decision),
            &report.decision.to_string()
        ),
        style::paint(style::BOLD, &format!("[{}]", report.code))
    ));
    printer::out(&format!("  {}", report.explanation));
    let targets: Vec<&str> = report
        .ops
        .iter()
        .flat_map(|op| op.targets.iter().map(String::as_str))
        .collect();
    if !targets.is_empty() {
        let shown: Vec<String> = targets
            .iter()
            .take(8)
            .map(|t| printer::sanitize(t))
            .collect();
        let more = targets.len().saturating_sub(shown.len());
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        printer::out(&format!("  targets    {}{more}", shown.join(" ")));
    }
    if let Some(workspace) = &report.workspace {
        printer::out(&format!("  workspace  {}", printer::sanitize(workspace)));
    }
    for reason in report.reasons.iter().take(4) {
        printer::out(&format!("  - {}", printer::sanitize(reason)));
    }
    if let Some(text) = &report.if_approved {
        printer::out(&format!("  {}", printer::sanitize(text)));
    }
    if let Some(message) = &report.message {
        printer::out(&printer::multiline(message));
    }
    let hint = agent_guard_engine::hint(report.code);
    if matches!(report.decision, Decision::Block | Decision::Ask) {
        if let Some(suggestion) = &report.suggestion {
            printer::hint(&format!("run `{}` instead", printer::sanitize(suggestion)));
        } else if !hint.is_empty() {
            printer::hint(hint);
        }
        printer::err(&format!(
            "  (`agent-guard explain {}` says more)",
            report.code
        ));
    }
    for warning in &report.warnings {
        printer::warning(warning);
    }
}
