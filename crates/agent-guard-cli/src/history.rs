//! `restore`, `undo`, `list`, `show`, `status`, `gc`.

use agent_guard_engine::EnvSnapshot;
use agent_guard_engine::{Exit as _, GcRequest, ItemKind, RestoreRequest};

use crate::args::{GcArgs, ListArgs, RestoreArgs, ShowArgs, StatusArgs, UndoArgs};
use crate::check::absolute_cwd;
use crate::exit_code::ExitCode;
use crate::printer::{self, sanitize};
use crate::progress::TerminalProgress;

/// Runs `restore`.
pub fn restore(args: &RestoreArgs) -> anyhow::Result<ExitCode> {
    let request = RestoreRequest {
        txid: Some(args.txid.clone()),
        force: args.force,
        to: args.to.clone(),
        paths: args.paths.clone(),
        cwd: absolute_cwd(args.cwd.as_deref())?,
        env: EnvSnapshot::capture(),
    };
    let report = agent_guard_engine::restore(&request, &TerminalProgress::new())?;
    print_restore(&report, args.json);
    Ok(report.exit_code())
}

/// Runs `undo`.
pub fn undo(args: &UndoArgs) -> anyhow::Result<ExitCode> {
    let request = RestoreRequest {
        txid: None,
        force: args.force,
        cwd: absolute_cwd(args.cwd.as_deref())?,
        env: EnvSnapshot::capture(),
        ..RestoreRequest::default()
    };
    let report = agent_guard_engine::restore(&request, &TerminalProgress::new())?;
    print_restore(&report, args.json);
    Ok(report.exit_code())
}

fn print_restore(report: &agent_guard_engine::RestoreReport, json: bool) {
    if json {
        printer::json(&report.reported());
        return;
    }
    if let Some(error) = &report.error {
        printer::err(&format!("error: {}", sanitize(&error.to_string())));
        return;
    }
    if report.already_restored {
        printer::out(&format!(
            "already restored: {} (nothing changed)",
            sanitize(&report.txid)
        ));
    }
    for path in &report.restored {
        printer::out(&format!("restored {}", sanitize(path)));
    }
    for path in &report.conflicts {
        printer::out(&format!(
            "conflict: {} is occupied (left untouched)",
            sanitize(path)
        ));
    }
    for error in &report.errors {
        printer::err(&format!("error: {}", sanitize(error)));
    }
    for backup in &report.backup_txids {
        printer::err(&format!(
            "hint: the previous occupants were preserved in `{backup}`"
        ));
    }
    if !report.conflicts.is_empty() {
        printer::err(&format!(
            "\nhint: rerun with `agent-guard restore {} --force` to preserve the occupants and restore over them",
            report.txid
        ));
    }
}

/// Runs `list`.
pub fn list(args: &ListArgs) -> anyhow::Result<ExitCode> {
    let mut report =
        agent_guard_engine::list(&absolute_cwd(args.cwd.as_deref())?, &EnvSnapshot::capture())?;
    if args.limit > 0 {
        report.transactions.truncate(args.limit);
    }
    if args.json {
        printer::json(&report);
        return Ok(ExitCode::Success);
    }
    printer::out(&format!(
        "quarantine {} — {} transaction(s), {} restorable, {} file(s), {}",
        sanitize(&report.trash_root),
        report.usage.transactions,
        report.usage.restorable_transactions,
        report.usage.files,
        human_bytes(report.usage.bytes)
    ));
    if report.transactions.is_empty() {
        printer::out("nothing quarantined yet");
        return Ok(ExitCode::Success);
    }
    printer::out(&format!(
        "{:<25} {:<20} {:<10} {:>5}  {:<16} {}",
        "TXID", "WHEN (UTC)", "STATE", "ITEMS", "BY", "FIRST ITEM"
    ));
    for tx in &report.transactions {
        printer::out(&format!(
            "{:<25} {:<20} {:<10} {:>5}  {:<16} {}",
            tx.txid,
            tx.ts.as_deref().unwrap_or("-"),
            tx.state,
            tx.restorable_items,
            tx.tool.as_deref().unwrap_or("-"),
            sanitize(tx.first.as_deref().unwrap_or("-"))
        ));
    }
    Ok(ExitCode::Success)
}

/// Runs `show`.
pub fn show(args: &ShowArgs) -> anyhow::Result<ExitCode> {
    let Some(report) = agent_guard_engine::show(
        &absolute_cwd(args.cwd.as_deref())?,
        &EnvSnapshot::capture(),
        &args.txid,
    )?
    else {
        if args.json {
            printer::json(&serde_json::json!({
                "txid": args.txid,
                "error": format!("unknown transaction `{}`", args.txid),
                "exit": ExitCode::InternalError.code(),
            }));
        }
        printer::err(&format!(
            "error: unknown transaction `{}`",
            sanitize(&args.txid)
        ));
        printer::err("\nhint: `agent-guard list` shows the transactions of this workspace");
        return Ok(ExitCode::InternalError);
    };
    if args.json {
        printer::json(&report);
        return Ok(ExitCode::Success);
    }
    printer::out(&format!(
        "{}  {}  {}",
        report.txid,
        report.ts.as_deref().unwrap_or("-"),
        report.state
    ));
    for item in &report.items {
        let kind = item.kind.map_or("?", |k| match k {
            ItemKind::File => "file",
            ItemKind::Dir => "dir",
            ItemKind::Symlink => "symlink",
        });
        let state = if item.restorable {
            ""
        } else {
            "  (restored or gone)"
        };
        printer::out(&format!(
            "  {:<7} {:>10}  {}{state}",
            kind,
            human_bytes(item.bytes),
            sanitize(&item.origin)
        ));
    }
    for snapshot in &report.snapshots {
        let text = serde_json::to_string(snapshot).unwrap_or_default();
        printer::out(&format!("  git     {}", sanitize(&text)));
    }
    for failure in &report.failures {
        let text = serde_json::to_string(failure).unwrap_or_default();
        printer::out(&format!("  failed  {}", sanitize(&text)));
    }
    printer::err(&format!("hint: restore with `{}`", report.restore_command));
    Ok(ExitCode::Success)
}

/// Runs `status`.
pub fn status(args: &StatusArgs) -> anyhow::Result<ExitCode> {
    let report = agent_guard_engine::status(
        &absolute_cwd(args.cwd.as_deref())?,
        &EnvSnapshot::capture(),
        args.tail,
    )?;
    if args.json {
        printer::json(&report);
        return Ok(ExitCode::Success);
    }
    printer::out(&format!("workspace   {}", sanitize(&report.workspace)));
    printer::out(&format!("quarantine  {}", sanitize(&report.trash_root)));
    printer::out(&format!("mode        {}", report.mode.as_str()));
    printer::out(&format!(
        "usage       {} transaction(s), {} restorable item(s), {} file(s), {}",
        report.usage.transactions,
        report.usage.restorable_items,
        report.usage.files,
        human_bytes(report.usage.bytes)
    ));
    printer::out(&format!(
        "retention   {} days, {} soft limit; {} transaction(s) eligible for gc",
        report.retention.soft_days,
        human_bytes(report.retention.soft_limit_bytes),
        report.retention.gc_eligible.len()
    ));
    if report.reconciled_now.total() > 0 {
        let r = report.reconciled_now;
        printer::out(&format!(
            "reconciled  {} interrupted relocation(s): {} in the quarantine, {} still at their origin, {} with both copies kept, {} vanished",
            r.total(),
            r.relocated,
            r.not_moved,
            r.both_kept,
            r.vanished
        ));
    }
    if report.reconciled_total > 0 {
        printer::out(&format!(
            "recovered   {} item(s) over the quarantine's history were reconciled after a crash",
            report.reconciled_total
        ));
    }
    printer::out(&format!(
        "audit chain {}",
        crate::audit::status_line(report.audit_chain.as_ref())
    ));
    for (code, count) in &report.decisions {
        printer::out(&format!("  {count:>6}  {code}"));
    }
    Ok(ExitCode::Success)
}

/// Runs `gc`.
pub fn gc(args: &GcArgs) -> anyhow::Result<ExitCode> {
    let request = GcRequest {
        execute: args.execute,
        txids: args.txids.clone(),
        all_eligible: args.all_eligible,
    };
    let report = agent_guard_engine::gc(
        &absolute_cwd(args.cwd.as_deref())?,
        &EnvSnapshot::capture(),
        &request,
    )?;
    if args.json {
        printer::json(&report.reported());
    } else {
        let plan = &report.plan;
        printer::out(&format!(
            "{} transaction(s), {}; {} eligible (retention {} days, limit {}, grace {} min)",
            plan.transactions,
            human_bytes(plan.total_bytes),
            plan.eligible.len(),
            plan.retention_days,
            human_bytes(plan.max_bytes),
            plan.grace_minutes
        ));
        for entry in &plan.eligible {
            printer::out(&format!(
                "  {}  {:>10}  {}",
                entry.txid,
                human_bytes(entry.bytes),
                entry.reason
            ));
        }
        if let Some(outcome) = &report.outcome {
            for txid in &outcome.purged {
                printer::out(&format!("purged {txid}"));
            }
            for error in &outcome.errors {
                printer::err(&format!("error: {}", sanitize(error)));
            }
        } else if !args.execute && !plan.eligible.is_empty() {
            printer::err(
                "hint: purge with `agent-guard gc --execute --all-eligible` (or `--txid ID`)",
            );
        }
        if let Some(refusal) = &report.refusal {
            printer::err(&format!("error: {}", sanitize(&refusal.to_string())));
        }
    }
    Ok(report.exit_code())
}

/// `1.5 MiB`-style sizes.
fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes;
    let mut unit = 0;
    let mut remainder = 0;
    while value >= 1024 && unit < UNITS.len() - 1 {
        remainder = value % 1024;
        value /= 1024;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value}.{} {}", remainder * 10 / 1024, UNITS[unit])
    }
}
