//! `gc`: the plan, or a purge.

use agent_guard_engine::{EnvSnapshot, Exit as _, GcReport, GcRequest, GcTargets};

use crate::args::GcArgs;
use crate::check::absolute_cwd;
use crate::exit_code::ExitCode;
use crate::printer::{self, sanitize};
use crate::style::{self, paint};
use crate::{human, prompt};

/// Runs `gc`.
pub fn run(args: &GcArgs) -> anyhow::Result<ExitCode> {
    let cwd = absolute_cwd(args.cwd.as_deref())?;
    let env = EnvSnapshot::capture();
    let request = GcRequest {
        execute: args.execute,
        targets: if args.all {
            GcTargets::Everything
        } else if args.all_eligible {
            GcTargets::AllEligible
        } else if args.txids.is_empty() {
            GcTargets::Unselected
        } else {
            GcTargets::Ids(args.txids.clone())
        },
        now: args.now,
    };
    if args.execute {
        crate::person::not_an_agent()
            .map_err(|why| crate::person::refusal("gc --execute", &why))?;
    }
    if args.execute && args.now && !args.yes {
        // Purging inside the grace window destroys what may be the only copy of a recent
        // delete: a person confirms, at a terminal.
        if args.json || !prompt::interactive() {
            let message = "`--now` purges recent transactions for good: confirm at a terminal, \
                           or add `--yes`";
            if args.json {
                printer::json(&serde_json::json!({
                    "error": message,
                    "exit": ExitCode::InternalError.code(),
                }));
            }
            printer::error(message, &[]);
            return Ok(ExitCode::InternalError);
        }
        let plan = agent_guard_engine::gc(&cwd, &env, &GcRequest::default())?;
        let what = if args.all {
            "every transaction of this workspace"
        } else if args.all_eligible {
            "every eligible transaction"
        } else {
            "the selected transaction(s)"
        };
        printer::err(&format!(
            "this purges {what} for good, recent ones included (the quarantine holds {} \
             transaction(s), {})",
            plan.plan.transactions,
            human::bytes(plan.plan.total_bytes)
        ));
        if !prompt::confirm("purge it now?") {
            printer::err("nothing purged");
            return Ok(ExitCode::Success);
        }
    }
    let report = agent_guard_engine::gc(&cwd, &env, &request)?;
    if args.json {
        printer::json(&report.reported());
    } else {
        print(&report, args);
    }
    Ok(report.exit_code())
}

fn print(report: &GcReport, args: &GcArgs) {
    let plan = &report.plan;
    printer::out(&format!(
        "{} transaction(s), {}; {} eligible (retention {} days, limit {}, grace {} min)",
        plan.transactions,
        human::bytes(plan.total_bytes),
        plan.eligible.len(),
        plan.retention_days,
        human::bytes(plan.max_bytes),
        plan.grace_minutes
    ));
    if report.outcome.is_none() {
        for entry in &plan.eligible {
            printer::out(&format!(
                "  {}  {:>9}  {}",
                paint(style::HINT, &entry.txid),
                human::bytes(entry.bytes),
                entry.reason
            ));
        }
    }
    if let Some(outcome) = &report.outcome {
        for txid in &outcome.purged {
            printer::out(&format!("{} {txid}", paint(style::OK, "purged")));
        }
        if outcome.purged.is_empty() && outcome.errors.is_empty() {
            printer::out("nothing to purge");
        }
        for error in &outcome.errors {
            printer::error(error, &[]);
        }
    } else if !args.execute && !plan.eligible.is_empty() {
        printer::hint("purge them with `agent-guard gc --execute --all-eligible` (or `--txid ID`)");
    } else if !args.execute {
        printer::hint(
            "nothing is eligible; `agent-guard gc --execute --all --now` empties this \
             workspace's quarantine (after confirmation)",
        );
    }
    if let Some(refusal) = &report.refusal {
        printer::error(&sanitize(&refusal.to_string()), &[]);
    }
}
