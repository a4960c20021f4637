//! `status`: usage, mode, retention, recent decisions; reconciles interrupted relocations.

use serde_json::Value;

use agent_guard_engine::{EnvSnapshot, StatusReport, StoreKind};

use crate::args::StatusArgs;
use crate::check::absolute_cwd;
use crate::exit_code::ExitCode;
use crate::human;
use crate::printer::{self, sanitize};
use crate::style::{self, paint};

/// Runs `status`.
pub fn run(args: &StatusArgs) -> anyhow::Result<ExitCode> {
    let env = EnvSnapshot::capture();
    let report = agent_guard_engine::status(&absolute_cwd(args.cwd.as_deref())?, &env, args.tail)?;
    if args.json {
        printer::json(&report);
        return Ok(ExitCode::Success);
    }
    if let Some(error) = &report.config_error {
        printer::warning(&format!(
            ".agent-guard.toml cannot be read; destructive commands are refused \
             (BLOCK_CONFIG_INVALID) until it is fixed. The defaults are shown.\n{error}"
        ));
    }
    print_location(&report);
    print_usage(&report);
    print_health(&report);
    print_recent(&report, args.tail);
    if !report.retention.gc_eligible.is_empty() {
        printer::hint("`agent-guard gc` shows what garbage collection would purge");
    }
    Ok(ExitCode::Success)
}

/// Pads `text` to the width of the labels and makes it bold.
fn label(text: &str) -> String {
    paint(style::BOLD, &format!("{text:<11}"))
}

/// Prints where the workspace and its quarantine are, and what kind of store that is.
fn print_location(report: &StatusReport) {
    printer::out(&format!(
        "{} {}",
        label("workspace"),
        sanitize(&report.workspace)
    ));
    printer::out(&format!(
        "{} {}",
        label("quarantine"),
        sanitize(&report.trash_root)
    ));
    let store = &report.store;
    let place = match store.kind {
        StoreKind::Named => "named by AGENT_GUARD_TRASH or .agent-guard.toml",
        StoreKind::PerUser => "per user, outside the workspace",
        StoreKind::SameFilesystem => "outside the workspace, at the top of its filesystem",
        StoreKind::InWorkspace => "inside the workspace (no home directory to keep it in)",
        _ => "",
    };
    let reach = if store.inside_workspace {
        "; a command in the workspace can reach it"
    } else {
        "; no command in the workspace reaches it"
    };
    let speed = if store.same_filesystem {
        ", on the workspace's filesystem"
    } else {
        ", on another filesystem (deletes are copied, not renamed)"
    };
    printer::out(&format!("{} {place}{speed}{reach}", label("")));
    if let Some(note) = &report.store_migration {
        printer::out(&format!("{} {}", label(""), sanitize(note)));
    }
}

/// Prints the mode, the quarantine's usage and retention, and what was reconciled after a
/// crash.
fn print_usage(report: &StatusReport) {
    let since = report
        .mode_since
        .as_deref()
        .map(|ts| format!(" (since {})", human::local(ts)))
        .unwrap_or_default();
    printer::out(&format!(
        "{} {}{since}",
        label("mode"),
        report.mode.as_str()
    ));
    printer::out(&format!(
        "{} {} transaction(s), {} restorable item(s), {}",
        label("usage"),
        report.usage.transactions,
        report.usage.restorable_items,
        human::bytes(report.usage.bytes)
    ));
    printer::out(&format!(
        "{} {} days, {} limit; {} transaction(s) eligible for gc",
        label("retention"),
        report.retention.soft_days,
        human::bytes(report.retention.soft_limit_bytes),
        report.retention.gc_eligible.len()
    ));
    let r = report.reconciled_now;
    if r.total() > 0 {
        printer::out(&format!(
            "{} {} interrupted relocation(s): {} in the quarantine, {} still at their origin, \
             {} with both copies kept, {} vanished",
            label("reconciled"),
            r.total(),
            r.relocated,
            r.not_moved,
            r.both_kept,
            r.vanished
        ));
    }
    if report.reconciled_total > 0 {
        printer::out(&format!(
            "{} {} item(s) over the quarantine's history were reconciled after a crash",
            label("recovered"),
            report.reconciled_total
        ));
    }
}

/// Prints the state of the audit chain, of the checkpoint watcher and of damaged checkpoint
/// packs.
fn print_health(report: &StatusReport) {
    printer::out(&format!(
        "{} {}",
        label("audit chain"),
        super::audit::status_line(report.audit_chain.as_ref())
    ));
    if let Some(watcher) = &report.checkpoint_watcher {
        let what = match (watcher.state, &watcher.reason) {
            ("running", _) => "running: checkpoints stat only what changed".to_owned(),
            ("disabled", _) => {
                "disabled (AGENT_GUARD_CHECKPOINT_WATCH): checkpoints walk the workspace".to_owned()
            }
            ("off", Some(why)) => format!("off for now: {}", sanitize(why)),
            ("impostor", Some(why)) => format!("impostor: {}", sanitize(why)),
            _ => "not running: the next checkpoint starts one".to_owned(),
        };
        printer::out(&format!("{} {what}", label("watcher")));
    }
    for sentence in &report.guard_files {
        printer::out(&format!("{} {}", label("guard files"), sanitize(sentence)));
    }
    for damage in &report.checkpoint_damage {
        printer::out(&format!(
            "{} {} is {}: checkpoints that used it cannot be restored completely; \
             the next checkpoint sets it aside and keeps everything again",
            label("damaged"),
            sanitize(&damage.pack),
            sanitize(&damage.problem)
        ));
    }
}

/// Prints the recent decisions and the last `tail` audit records.
fn print_recent(report: &StatusReport, tail: usize) {
    if !report.decisions.is_empty() {
        printer::out(&paint(style::BOLD, "decisions (recent)"));
        for (code, count) in &report.decisions {
            printer::out(&format!("  {count:>6}  {code}"));
        }
    }
    if tail > 0 && !report.recent_audit.is_empty() {
        printer::out(&paint(
            style::BOLD,
            &format!("last {} audit record(s)", report.recent_audit.len()),
        ));
        for record in &report.recent_audit {
            let field = |key: &str| record.get(key).and_then(Value::as_str).unwrap_or("");
            let ts = field("ts");
            let what = [field("decision"), field("code"), field("action")]
                .into_iter()
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join(" ");
            let id = [field("txid"), field("check_id")]
                .into_iter()
                .find(|s| !s.is_empty())
                .unwrap_or("");
            printer::out(&format!(
                "  {:<16}  {:<15}  {:<40}  {}",
                human::local(ts),
                field("event"),
                what,
                paint(style::DIM, id)
            ));
        }
    }
}
