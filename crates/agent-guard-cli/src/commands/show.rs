//! `show`: one transaction, in detail.

use agent_guard_engine::{
    EnvSnapshot, ItemKind, ItemReport, SHOWN_FILES, ShowReport, SnapshotReport, TxState,
};

use crate::args::ShowArgs;
use crate::check::absolute_cwd;
use crate::exit_code::ExitCode;
use crate::human;
use crate::printer::{self, sanitize};
use crate::style::{self, paint};

/// Runs `show`.
pub fn run(args: &ShowArgs) -> anyhow::Result<ExitCode> {
    let env = EnvSnapshot::capture();
    let cwd = absolute_cwd(args.cwd.as_deref())?;
    let Some(report) = agent_guard_engine::show(&cwd, &env, &args.txid)? else {
        let message = if args.txid.starts_with('@') {
            format!(
                "no transaction at `{}`: nothing undoable is that far back",
                args.txid
            )
        } else {
            format!("unknown transaction `{}`", args.txid)
        };
        if args.json {
            printer::json(&serde_json::json!({
                "txid": args.txid,
                "error": message,
                "exit": ExitCode::InternalError.code(),
            }));
        }
        printer::error(&message, &[]);
        printer::hint("`agent-guard list --all` shows the transactions of this workspace");
        return Ok(ExitCode::InternalError);
    };
    if args.json {
        printer::json(&report);
        return Ok(ExitCode::Success);
    }
    print(&report, &env);
    Ok(ExitCode::Success)
}

fn print(report: &ShowReport, env: &EnvSnapshot) {
    let ts = report.ts.as_deref().unwrap_or("");
    let state_style = if report.state == TxState::Restorable {
        style::OK
    } else {
        style::DIM
    };
    printer::out(&format!(
        "{} {}  {}",
        paint(style::BOLD, "transaction"),
        paint(style::HINT, &report.txid),
        paint(state_style, &report.state.to_string().to_lowercase())
    ));
    printer::out(&format!(
        "  when  {} ({})",
        human::local(ts),
        human::ago(ts, human::now(env))
    ));
    let by = report.meta.origin.tool.as_deref().unwrap_or("-");
    printer::out(&format!("  by    {by}"));
    if let Some(call) = edit_call(&report.meta.origin) {
        printer::out(&format!("  call  {}", sanitize(&call)));
    }
    if !report.items.is_empty() {
        printer::out(&paint(style::BOLD, "items"));
    }
    for item in &report.items {
        print_item(item);
    }
    if let Some(facts) = &report.meta.database {
        printer::out(&paint(style::BOLD, "database"));
        printer::out(&format!(
            "  {} database `{}`  {}  {}",
            facts.database.engine.display(),
            sanitize(facts.database.connection.database.as_deref().unwrap_or("?")),
            human::bytes(facts.bytes),
            paint(
                style::DIM,
                "dumped before the command ran; undo restores it"
            )
        ));
    }
    let git: Vec<&SnapshotReport> = report
        .snapshots
        .iter()
        .filter(|s| s.subject.as_deref() != Some(agent_guard_engine::DATABASE_SUBJECT))
        .collect();
    if !git.is_empty() {
        printer::out(&paint(style::BOLD, "git"));
    }
    for snapshot in git {
        print_snapshot(snapshot);
    }
    if !report.failures.is_empty() {
        printer::out(&paint(style::BOLD, "not quarantined"));
    }
    for failure in &report.failures {
        printer::out(&format!(
            "  {}  {}",
            sanitize(&failure.origin),
            paint(style::DIM, &sanitize(&failure.reason))
        ));
    }
    printer::hint(&report.hint);
}

/// The files of an edit-tool call with what it does to each (`edit notes.txt; delete
/// old.rs; write new.rs`), from the journal (issue 13); `None` for anything else.
fn edit_call(origin: &agent_guard_engine::Origin) -> Option<String> {
    let words: Vec<String> = origin
        .files
        .iter()
        .map(|file| format!("{} {}", file.effect, file.path))
        .collect();
    (!words.is_empty()).then(|| words.join("; "))
}

fn print_item(item: &ItemReport) {
    let kind = match item.kind {
        Some(ItemKind::File) => "file",
        Some(ItemKind::Dir) => "dir",
        Some(ItemKind::Symlink) => "symlink",
        None => "?",
    };
    let files = if item.kind == Some(ItemKind::Dir) {
        format!("{} file(s)", item.files)
    } else {
        String::new()
    };
    let gone = if item.restorable {
        String::new()
    } else {
        paint(style::DIM, "  (restored or gone)")
    };
    printer::out(&format!(
        "  {kind:<7}  {:>9}  {files:<11}  {}{gone}",
        human::bytes(item.bytes),
        sanitize(&item.origin)
    ));
    for file in &item.listing {
        printer::out(&format!("{:38}{}", "", paint(style::DIM, &sanitize(file))));
    }
    let listed = item.listing.len() as u64;
    if item.kind == Some(ItemKind::Dir) && item.restorable && item.files > listed {
        let more = item.files - listed;
        printer::out(&format!(
            "{:38}{}",
            "",
            paint(
                style::DIM,
                &format!("… and {more} more (the first {SHOWN_FILES} are listed)")
            )
        ));
    }
}

fn print_snapshot(snapshot: &SnapshotReport) {
    let what = match (snapshot.subject.as_deref(), snapshot.name.as_deref()) {
        (Some("branch"), Some(name)) => format!("branch {name}"),
        (Some("ref"), Some(name)) => name
            .strip_prefix("refs/tags/")
            .map_or_else(|| format!("ref {name}"), |tag| format!("tag {tag}")),
        (Some("stash"), Some(name)) => name.to_owned(),
        (Some("reflog"), Some(name)) => format!("reflog {name}"),
        (Some("checkpoint"), _) => "workspace checkpoint".to_owned(),
        _ => "work-tree changes".to_owned(),
    };
    let Some(sha) = &snapshot.sha else {
        printer::out(&format!(
            "  {what}: {}",
            paint(style::DIM, "nothing to keep (the tree was clean)")
        ));
        return;
    };
    let short: String = sha.chars().take(12).collect();
    printer::out(&format!(
        "  {what}  {}  {}",
        paint(style::HINT, &short),
        paint(style::DIM, snapshot.refname.as_deref().unwrap_or(""))
    ));
    let width = snapshot
        .diffstat
        .iter()
        .map(|s| s.path.chars().count())
        .max()
        .unwrap_or(0)
        .min(60);
    if snapshot.subject.as_deref() == Some("checkpoint") {
        let changed = snapshot.changed_files.unwrap_or(0);
        printer::out(&format!(
            "    {}",
            paint(
                style::DIM,
                &format!(
                    "{changed} path(s) changed since the checkpoint (a restore puts them back)"
                )
            )
        ));
    }
    for (at, stat) in snapshot.diffstat.iter().enumerate() {
        let kind = snapshot.changes.get(at).map_or("", |k| match k {
            agent_guard_engine::ChangeKind::Deleted => "deleted  ",
            agent_guard_engine::ChangeKind::Modified => "modified ",
            agent_guard_engine::ChangeKind::Created => "created  ",
        });
        let change = if stat.binary {
            "binary".to_owned()
        } else {
            format!(
                "{} {}",
                paint(style::OK, &format!("+{}", stat.added)),
                paint(style::ERROR, &format!("-{}", stat.removed))
            )
        };
        printer::out(&format!(
            "    {kind}{:<width$} | {change}",
            sanitize(&stat.path)
        ));
    }
    for not_kept in &snapshot.not_kept {
        printer::out(&format!(
            "    {}  {}",
            sanitize(&not_kept.path),
            paint(
                style::DIM,
                &format!(
                    "not kept ({}, {})",
                    not_kept.reason.as_str(),
                    human::bytes(not_kept.size)
                )
            )
        ));
    }
    for dir in &snapshot.directories {
        let what = match (dir.change, &dir.mode, &dir.now) {
            ("mode", Some(mode), Some(now)) => format!("mode {now} (was {mode})"),
            ("mode", Some(mode), None) => format!("missing (mode {mode})"),
            (change, _, _) => format!("{change} (empty directory)"),
        };
        printer::out(&format!(
            "    {}/  {}",
            sanitize(&dir.path),
            paint(style::DIM, &what)
        ));
    }
    if let Some(total) = snapshot.changed_files
        && total > snapshot.diffstat.len()
    {
        printer::out(&format!(
            "    {}",
            paint(
                style::DIM,
                &format!("… and {} more file(s)", total - snapshot.diffstat.len())
            )
        ));
    }
}
