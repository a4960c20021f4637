//! `agent-guard mode`.

use agent_guard_engine::EnvSnapshot;
use agent_guard_engine::{ModeReport, change_mode, show_mode};
use agent_guard_types::SessionMode;

use crate::args::ModeArgs;
use crate::check::absolute_cwd;
use crate::exit_code::ExitCode;
use crate::printer;

/// Runs `mode`.
pub fn run(args: &ModeArgs) -> anyhow::Result<ExitCode> {
    let cwd = absolute_cwd(args.cwd.as_deref())?;
    let env = EnvSnapshot::capture();
    let report: ModeReport = match args.mode.as_deref().and_then(SessionMode::parse) {
        None => show_mode(&cwd, &env)?,
        // Anyone may restrict; leaving RESTRICTED is a person's (the engine refuses it
        // without one).
        Some(SessionMode::Normal) => {
            crate::person::check().map_err(|why| crate::person::refusal("mode normal", &why))?;
            change_mode(&cwd, &env, SessionMode::Normal, true)?
        }
        Some(mode) => change_mode(&cwd, &env, mode, false)?,
    };
    if args.json {
        printer::json(&report);
    } else {
        let verb = if report.changed { "is now" } else { "is" };
        printer::out(&format!("session mode {verb} {}", report.mode.as_str()));
    }
    Ok(ExitCode::Success)
}
