//! `list`: the workspace's transactions, newest first.

use agent_guard_engine::{EnvSnapshot, ListOptions, TxState, TxSummary};

use crate::args::ListArgs;
use crate::check::absolute_cwd;
use crate::exit_code::ExitCode;
use crate::human;
use crate::printer::{self, sanitize};
use crate::style::{self, paint};

/// Runs `list`.
pub fn run(args: &ListArgs) -> anyhow::Result<ExitCode> {
    let env = EnvSnapshot::capture();
    let options = ListOptions {
        all: args.all,
        limit: args.limit,
    };
    let report = agent_guard_engine::list(&absolute_cwd(args.cwd.as_deref())?, &env, options)?;
    if args.json {
        printer::json(&report);
        return Ok(ExitCode::Success);
    }
    printer::out(&format!(
        "{} {} — {} restorable transaction(s), {}",
        paint(style::BOLD, "quarantine"),
        sanitize(&report.trash_root),
        report.usage.restorable_transactions,
        human::bytes(report.usage.bytes)
    ));
    if report.transactions.is_empty() {
        printer::out(if report.hidden > 0 {
            "nothing restorable"
        } else {
            "nothing quarantined yet"
        });
        if report.hidden > 0 {
            printer::hint(&format!(
                "{} restored, purged or empty transaction(s) are hidden: `agent-guard list --all`",
                report.hidden
            ));
        }
        return Ok(ExitCode::Success);
    }
    print_rows(&report.transactions, &env);
    let shown = report.transactions.len();
    if shown < report.total {
        printer::out(&paint(
            style::DIM,
            &format!("{shown} of {} shown (`--limit 0` shows all)", report.total),
        ));
    }
    if report.hidden > 0 && !args.all {
        printer::out(&paint(
            style::DIM,
            &format!(
                "{} restored, purged or empty transaction(s) hidden (`--all` shows them)",
                report.hidden
            ),
        ));
    }
    printer::hint(
        "`agent-guard show ID` for what one holds, `agent-guard undo` to put the newest back",
    );
    Ok(ExitCode::Success)
}

/// The table of transactions (also `undo --list`).
pub fn print_rows(transactions: &[TxSummary], env: &EnvSnapshot) {
    let now = human::now(env);
    // `claude-code MultiEdit` is wider than `check --enforce`: the column fits the widest.
    let by_width = transactions
        .iter()
        .filter_map(|tx| tx.tool.as_deref())
        .map(|tool| tool.chars().count())
        .max()
        .unwrap_or(0)
        .max(15);
    printer::out(&paint(
        style::BOLD,
        &format!(
            "{:<25}  {:<16}  {:<11}  {:>9}  {:<10}  {:<by_width$}  {}",
            "ID", "WHEN", "AGE", "SIZE", "STATE", "BY", "WHAT"
        ),
    ));
    for tx in transactions {
        let ts = tx.ts.as_deref().unwrap_or("");
        let state = if tx.parked {
            "conflicted".to_owned()
        } else if tx.backup && tx.state == TxState::Restorable {
            "backup".to_owned()
        } else {
            tx.state.to_string().to_lowercase()
        };
        let state_style = match tx.state {
            TxState::Restorable if tx.parked => style::WARNING,
            TxState::Restorable => style::OK,
            TxState::Failed => style::ERROR,
            _ => style::DIM,
        };
        printer::out(&format!(
            "{}  {:<16}  {:<11}  {:>9}  {}  {:<by_width$}  {}",
            paint(style::HINT, &format!("{:<25}", tx.txid)),
            human::local(ts),
            human::ago(ts, now),
            human::bytes(tx.bytes),
            paint(state_style, &format!("{state:<10}")),
            tx.tool.as_deref().unwrap_or("-"),
            sanitize(&tx.what)
        ));
    }
}
