//! `approve`: a person approves, once, a command the guard asked about.

use agent_guard_engine::{Approval, EnvSnapshot};

use crate::args::ApproveArgs;
use crate::check::absolute_cwd;
use crate::exit_code::ExitCode;
use crate::printer::{self, sanitize};
use crate::style::{self, paint};
use crate::{human, prompt};

/// Runs `approve`.
pub fn run(args: &ApproveArgs) -> anyhow::Result<ExitCode> {
    let cwd = absolute_cwd(args.cwd.as_deref())?;
    let env = EnvSnapshot::capture();
    let Some(reference) = &args.id else {
        let waiting = agent_guard_engine::waiting_approvals(&cwd, &env)?;
        if args.json {
            printer::json(&serde_json::json!({ "waiting": waiting, "exit": 0 }));
            return Ok(ExitCode::Success);
        }
        if waiting.is_empty() {
            printer::out("nothing is waiting for approval in this workspace");
            return Ok(ExitCode::Success);
        }
        printer::out(&paint(style::BOLD, "waiting for approval, newest first:"));
        let now = human::now(&env);
        for approval in &waiting {
            printer::out(&format!(
                "  {}  {:<11}  {}",
                paint(style::HINT, &approval.id),
                human::ago(&approval.asked_at, now),
                sanitize(&approval.command)
            ));
        }
        printer::hint("`agent-guard approve ID` shows one and asks you to confirm");
        return Ok(ExitCode::Success);
    };
    if args.json {
        let message = "approving needs a person at a terminal; `--json` only lists";
        printer::json(&serde_json::json!({ "error": message, "exit": 2 }));
        printer::error(message, &[]);
        return Ok(ExitCode::Blocked);
    }
    let found = agent_guard_engine::find_approval(&cwd, &env, reference)?;
    describe(&found);
    crate::person::check().map_err(|why| crate::person::refusal("approve", &why))?;
    let interactive = prompt::interactive();
    if interactive && !prompt::confirm("approve this command once?") {
        printer::err("not approved");
        return Ok(ExitCode::Success);
    }
    let report = agent_guard_engine::approve(&cwd, &env, &found.id, args.minutes, interactive)?;
    let expires = report
        .approvals
        .first()
        .and_then(|a| a.expires_at.as_deref())
        .map(human::local)
        .unwrap_or_default();
    printer::out(&format!(
        "{} {}: the agent's next run of exactly this command proceeds (until {expires}, once)",
        paint(style::OK, "approved"),
        found.id
    ));
    Ok(ExitCode::Success)
}

fn describe(approval: &Approval) {
    printer::err(&format!(
        "{} {}",
        paint(style::BOLD, "request"),
        approval.id
    ));
    printer::err(&format!("  command    {}", sanitize(&approval.command)));
    printer::err(&format!(
        "  directory  {}",
        sanitize(&approval.cwd.display().to_string())
    ));
    printer::err(&format!(
        "  workspace  {}",
        sanitize(&approval.workspace.display().to_string())
    ));
    printer::err(&format!(
        "  why        {} — {}",
        approval.code,
        approval.code.explanation()
    ));
    printer::err(&paint(
        style::WARNING,
        "  what this command deletes or overwrites is NOT kept in the quarantine",
    ));
}
