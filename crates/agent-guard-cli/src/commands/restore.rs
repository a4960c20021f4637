//! `restore`, `undo` (and `undo --list`), `redo`.

use std::path::{Path, PathBuf};

use agent_guard_engine::{
    EnvSnapshot, Exit as _, RestoreOutcome, RestoreRequest, RestoreTarget, TxSummary,
};

use crate::args::{RedoArgs, RestoreArgs, UndoArgs};
use crate::check::absolute_cwd;
use crate::exit_code::ExitCode;
use crate::printer::{self, sanitize};
use crate::progress::{Activity, TerminalProgress};
use crate::style::{self, paint};
use crate::{human, prompt};

/// Runs `restore`.
pub fn restore(args: &RestoreArgs) -> anyhow::Result<ExitCode> {
    let cwd = absolute_cwd(args.cwd.as_deref())?;
    let env = EnvSnapshot::capture();
    let mut request = RestoreRequest {
        target: RestoreTarget::Reference(args.target.clone()),
        force: args.force,
        to: args.to.clone(),
        paths: args.paths.clone(),
        cwd,
        env,
    };
    let mut others = Vec::new();
    if let Some(holders) = path_holders(&request, &args.target)? {
        if holders.len() > 1 && !args.json && prompt::interactive() {
            let Some(chosen) = choose_holder(&args.target, &holders, &request.env) else {
                printer::err("nothing restored");
                return Ok(ExitCode::Success);
            };
            request.target = RestoreTarget::Reference(holders[chosen].txid.clone());
            request.paths.push(PathBuf::from(&args.target));
        } else {
            others = holders.into_iter().skip(1).collect();
        }
    }
    let outcome = run(&request)?;
    print(&outcome, args.json, Verb::Restored, &request.env);
    if !args.json && outcome.report.ok && !others.is_empty() {
        printer::hint(&format!(
            "{} older transaction(s) also hold `{}`: `agent-guard restore {} --path {}` takes \
             the one before (`agent-guard list` shows them all)",
            others.len(),
            sanitize(&args.target),
            others[0].txid,
            sanitize(&args.target)
        ));
    }
    Ok(outcome.exit_code())
}

/// When `target` is not a transaction reference: the restorable transactions holding it as a
/// path, newest first (`None` when it names a transaction).
fn path_holders(request: &RestoreRequest, target: &str) -> anyhow::Result<Option<Vec<TxSummary>>> {
    if agent_guard_engine::show(&request.cwd, &request.env, target).is_ok_and(|r| r.is_none()) {
        let holders = agent_guard_engine::holding(&request.cwd, &request.env, Path::new(target))?;
        return Ok(Some(holders));
    }
    Ok(None)
}

/// Prints the transactions holding `path` and asks which to restore.
fn choose_holder(path: &str, holders: &[TxSummary], env: &EnvSnapshot) -> Option<usize> {
    let now = human::now(env);
    printer::err(&format!(
        "{} transactions hold `{}`, newest first:",
        holders.len(),
        sanitize(path)
    ));
    for (n, tx) in holders.iter().enumerate() {
        printer::err(&format!(
            "  {}  {}  {:<12} {:>9}  {}",
            paint(style::BOLD, &format!("{}.", n + 1)),
            paint(style::HINT, &tx.txid),
            human::ago(tx.ts.as_deref().unwrap_or(""), now),
            human::bytes(tx.bytes),
            sanitize(&tx.what)
        ));
    }
    prompt::choose(holders.len())
}

/// Runs `undo`, or lists what it would take.
pub fn undo(args: &UndoArgs) -> anyhow::Result<ExitCode> {
    let cwd = absolute_cwd(args.cwd.as_deref())?;
    let env = EnvSnapshot::capture();
    if args.list {
        let queue = agent_guard_engine::undo_queue(&cwd, &env)?;
        if args.json {
            printer::json(&serde_json::json!({ "queue": queue, "exit": 0 }));
        } else if queue.is_empty() {
            printer::out("nothing to undo in this workspace");
        } else {
            printer::out(&paint(
                style::BOLD,
                "undo takes these, one per call, newest first:",
            ));
            crate::commands::list::print_rows(&queue, &env);
        }
        return Ok(ExitCode::Success);
    }
    let request = RestoreRequest {
        target: RestoreTarget::Undo,
        force: args.force,
        cwd,
        env,
        ..RestoreRequest::default()
    };
    let outcome = run(&request)?;
    print(&outcome, args.json, Verb::Undid, &request.env);
    Ok(outcome.exit_code())
}

/// Runs `redo`.
pub fn redo(args: &RedoArgs) -> anyhow::Result<ExitCode> {
    let request = RestoreRequest {
        target: RestoreTarget::Redo,
        cwd: absolute_cwd(args.cwd.as_deref())?,
        env: EnvSnapshot::capture(),
        ..RestoreRequest::default()
    };
    let outcome = run(&request)?;
    print(&outcome, args.json, Verb::Redid, &request.env);
    Ok(outcome.exit_code())
}

fn run(request: &RestoreRequest) -> anyhow::Result<RestoreOutcome> {
    let progress = TerminalProgress::for_activity(Activity::Restoring);
    Ok(agent_guard_engine::restore(request, &progress)?)
}

/// How the result is announced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verb {
    Restored,
    Undid,
    Redid,
}

impl Verb {
    const fn word(self) -> &'static str {
        match self {
            Verb::Restored => "restored",
            Verb::Undid => "undid",
            Verb::Redid => "redid",
        }
    }
}

fn print(outcome: &RestoreOutcome, json: bool, verb: Verb, env: &EnvSnapshot) {
    let report = &outcome.report;
    if json {
        printer::json(&outcome.reported());
        return;
    }
    if let Some(error) = &report.error {
        printer::error(&error.to_string(), &[]);
        printer::hint(match verb {
            Verb::Undid => "`agent-guard list --all` shows every transaction of this workspace",
            Verb::Redid => {
                "redo puts back what an undo replaced; `agent-guard list` shows what is kept"
            }
            Verb::Restored => {
                "name a transaction (`agent-guard list` shows them) or a path one of them holds"
            }
        });
        return;
    }
    if let Some(tx) = &outcome.transaction {
        let now = human::now(env);
        let word = if report.already_restored {
            "already restored"
        } else {
            verb.word()
        };
        printer::out(&format!(
            "{} {}: {} ({}, {})",
            paint(style::OK, word),
            paint(style::HINT, &tx.txid),
            sanitize(&tx.what),
            tx.tool.as_deref().unwrap_or("-"),
            human::ago(tx.ts.as_deref().unwrap_or(""), now)
        ));
        if !outcome.with.is_empty() {
            printer::out(&format!(
                "  with {} (the same command's other transaction(s))",
                outcome.with.join(", ")
            ));
        }
    }
    if report.already_restored {
        printer::out("  nothing changed");
    } else if !report.restored.is_empty()
        && report.restored.iter().all(|p| p.starts_with("checkpoint:"))
        && report.backup_txids.is_empty()
        && report.conflicts.is_empty()
        && report.errors.is_empty()
    {
        // A checkpoint taken before a question the person declined, say: the workspace is
        // as it was kept.
        printer::out("  nothing had changed since it was kept: no file was put back");
    }
    for path in &report.restored {
        printer::out(&format!(
            "  {} {}",
            paint(style::OK, "back"),
            sanitize(path)
        ));
    }
    for path in &report.conflicts {
        printer::out(&format!(
            "  {} {} is occupied (left untouched)",
            paint(style::WARNING, "conflict"),
            sanitize(path)
        ));
    }
    for error in &report.errors {
        printer::error(error, &[]);
    }
    for backup in &report.backup_txids {
        printer::out(&format!(
            "  {} what was there is kept in {} (`agent-guard redo` puts it back)",
            paint(style::DIM, "kept"),
            paint(style::HINT, backup)
        ));
    }
    if !report.conflicts.is_empty() {
        printer::hint(&format!(
            "`agent-guard restore {} --force` keeps what is there now in a new transaction and \
             restores over it; `agent-guard undo` now steps past this one",
            report.txid
        ));
    } else if verb == Verb::Undid && report.ok {
        printer::hint(
            "run `agent-guard undo` again to step further back, `agent-guard undo --list` to see what it takes",
        );
    }
}
