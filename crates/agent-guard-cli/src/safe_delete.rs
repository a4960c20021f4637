//! `agent-guard safe-delete`.

use agent_guard_engine::EnvSnapshot;
use agent_guard_engine::{Exit as _, SafeDeleteRequest, safe_delete};

use crate::args::SafeDeleteArgs;
use crate::check::absolute_cwd;
use crate::exit_code::ExitCode;
use crate::printer::{self, sanitize};
use crate::progress::TerminalProgress;

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
        let txid = report
            .txid
            .as_deref()
            .map(|t| format!(" txid={t}"))
            .unwrap_or_default();
        printer::out(&format!("{}{txid}", sanitize(&report.outcome.to_string())));
        if report.outcome.is_refusal() {
            printer::out(&format!("  {}", report.verdict.explanation));
        }
        for skipped in &report.skipped {
            printer::out(&format!(
                "  not moved: {} ({})",
                sanitize(&skipped.raw),
                sanitize(&skipped.reason)
            ));
        }
        for pattern in &report.no_match {
            printer::err(&format!("warning: no match for `{}`", sanitize(pattern)));
        }
        if let Some(command) = &report.restore_command {
            printer::err(&format!("hint: undo with `{command}`"));
        }
        for warning in &report.warnings {
            printer::err(&format!("warning: {}", sanitize(warning)));
        }
    }
    Ok(report.exit_code())
}
