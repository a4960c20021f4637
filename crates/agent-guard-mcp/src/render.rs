//! Engine reports → MCP tool results.
//!
//! Each result carries the report as `structuredContent` and two text blocks: a short summary
//! that says what happened and what to do next (what a model reads first), then the report
//! as JSON (the spec's compatibility copy for clients without structured content). Refusals,
//! conflicts and engine errors set `isError: true` so the model sees them as failures.

use std::fmt::Write as _;

use rmcp::ErrorData;
use rmcp::model::{CallToolResult, ContentBlock};
use serde::Serialize;

use agent_guard_engine::{
    EngineError, Exit as _, ListReport, RestoreOutcome, RestoreRefusal, SafeDeleteReport,
    StatusReport,
};
use agent_guard_types::ExitCode;

/// What a model should do instead of working around a refusal.
const NO_WORKAROUND: &str = "Do not work around this with `rm`, `git clean`, a script or \
    another tool. If the deletion is really needed, tell the user what you wanted to delete \
    and why, and let them decide.";

/// A result with `report` as structured content, `summary` first among the texts.
fn structured<T: Serialize>(
    report: &T,
    summary: String,
    is_error: bool,
) -> Result<CallToolResult, ErrorData> {
    let value = serde_json::to_value(report).map_err(|error| {
        ErrorData::internal_error(format!("cannot serialize the report: {error}"), None)
    })?;
    let mut result = if is_error {
        CallToolResult::structured_error(value)
    } else {
        CallToolResult::structured(value)
    };
    result.content.insert(0, ContentBlock::text(summary));
    Ok(result)
}

/// Arguments that parse but are out of range: a tool-level error, so that the model can
/// correct the call (MCP 2025-11-25 treats input validation errors as tool execution errors,
/// as rmcp does for arguments that do not deserialize).
pub(crate) fn invalid_arguments(message: &str) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(format!(
        "invalid arguments: {message}"
    ))])
}

/// An engine error (no report): a tool-level error with the error chain as text.
pub(crate) fn engine_error(tool: &str, error: &EngineError) -> CallToolResult {
    let mut text = format!("{tool} failed: {}", agent_guard_types::error_chain(error));
    text.push_str(
        ". Check `cwd` (it must be inside the workspace) and the workspace's \
         `.agent-guard.toml`; `status` shows the guard's state.",
    );
    CallToolResult::error(vec![ContentBlock::text(text)])
}

/// The result of `safe_delete`; a refusal (exit 2) is an error result.
pub(crate) fn safe_delete(report: &SafeDeleteReport) -> Result<CallToolResult, ErrorData> {
    let refused = report.exit_code() != ExitCode::Success;
    let mut text = String::new();
    if refused {
        let _ = write!(
            text,
            "refused: {} — {}.",
            report.outcome,
            report.verdict.explanation.trim_end_matches('.')
        );
        if let Some(txid) = &report.txid {
            let _ = write!(
                text,
                " {} path(s) were moved before the failure and stay restorable: \
                 call `restore` with txid `{txid}`.",
                report.moved.len()
            );
        } else {
            text.push_str(" Nothing was moved or deleted.");
        }
        let _ = write!(text, " {NO_WORKAROUND}");
    } else if report.dry_run {
        let _ = write!(
            text,
            "dry run: {} — targets: {}. Nothing was changed.",
            report.outcome,
            list_or_none(&report.targets)
        );
    } else if let Some(txid) = &report.txid {
        let _ = write!(
            text,
            "{}: {} path(s) moved, txid `{txid}`. They can be put back with `restore` \
             (txid `{txid}`) or `undo`.",
            report.outcome,
            report.moved.len()
        );
    } else {
        let _ = write!(text, "{}.", report.outcome);
        if !report.deleted.is_empty() {
            text.push_str(
                " Provably regenerable artifacts are deleted directly, not quarantined; \
                 rebuild them to get them back.",
            );
        }
    }
    for skipped in &report.skipped {
        let _ = write!(text, "\nnot moved: {} ({})", skipped.raw, skipped.reason);
    }
    for pattern in &report.no_match {
        let _ = write!(text, "\nno match: {pattern}");
    }
    for warning in &report.warnings {
        let _ = write!(text, "\nwarning: {warning}");
    }
    structured(&report.reported(), text, refused)
}

/// The result of `restore` or `undo`; errors (exit 1) and conflicts (exit 3) are error results.
pub(crate) fn restore(outcome: &RestoreOutcome) -> Result<CallToolResult, ErrorData> {
    let failed = outcome.exit_code() != ExitCode::Success;
    let report = &outcome.report;
    let mut text = String::new();
    if let Some(error) = &report.error {
        let _ = write!(text, "restore refused: {error}. Nothing was changed.");
        if matches!(
            error,
            RestoreRefusal::Unknown(_) | RestoreRefusal::NotHeld(_) | RestoreRefusal::NothingToUndo
        ) {
            text.push_str(" `list` shows this workspace's transactions and their txids.");
        }
    } else if report.already_restored {
        let _ = write!(text, "already restored: {} (nothing changed).", report.txid);
    } else if report.restored.is_empty() && report.conflicts.is_empty() {
        let _ = write!(text, "restore of {}: nothing was restored.", report.txid);
    } else {
        let _ = write!(
            text,
            "restore of {}: {} path(s) put back.",
            report.txid,
            report.restored.len()
        );
    }
    for path in &report.restored {
        let _ = write!(text, "\nrestored {path}");
    }
    for path in &report.conflicts {
        let _ = write!(text, "\nconflict: {path} is occupied (left untouched)");
    }
    if report.error.is_none() {
        for error in &report.errors {
            let _ = write!(text, "\nerror: {error}");
        }
    }
    if !report.conflicts.is_empty() {
        let _ = write!(
            text,
            "\nNothing was overwritten. Either restore elsewhere with `to`, or move the \
             occupant aside with `safe_delete` (recoverable) and call `restore` again. \
             Overwriting in place (`agent-guard restore {} --force`, which preserves the \
             occupant) is for the user to decide.",
            report.txid
        );
    }
    structured(&outcome.reported(), text, failed)
}

/// The result of `list`.
pub(crate) fn list(report: &ListReport) -> Result<CallToolResult, ErrorData> {
    let mut text = format!(
        "quarantine {}: {} transaction(s), {} restorable, {} file(s), {} bytes.",
        report.trash_root,
        report.usage.transactions,
        report.usage.restorable_transactions,
        report.usage.files,
        report.usage.bytes
    );
    if report.transactions.is_empty() {
        text.push_str("\nNothing from this workspace is quarantined.");
    }
    for tx in &report.transactions {
        let _ = write!(
            text,
            "\n{} {} {} restorable item(s), by {}: {}",
            tx.txid,
            tx.state,
            tx.restorable_items,
            tx.tool.as_deref().unwrap_or("-"),
            tx.what
        );
    }
    structured(report, text, false)
}

/// The result of `status`.
pub(crate) fn status(report: &StatusReport) -> Result<CallToolResult, ErrorData> {
    let mut text = format!(
        "workspace {}: mode {}, quarantine {} with {} transaction(s) ({} restorable), \
         {} bytes; {} transaction(s) eligible for gc.",
        report.workspace,
        report.mode.as_str(),
        report.trash_root,
        report.usage.transactions,
        report.usage.restorable_transactions,
        report.usage.bytes,
        report.retention.gc_eligible.len()
    );
    let reconciled = report.reconciled_now.total();
    if reconciled > 0 {
        let _ = write!(
            text,
            "\nresolved {reconciled} interrupted relocation(s) now: {} relocated, {} not \
             moved, {} kept in both places, {} vanished.",
            report.reconciled_now.relocated,
            report.reconciled_now.not_moved,
            report.reconciled_now.both_kept,
            report.reconciled_now.vanished
        );
    }
    structured(report, text, false)
}

fn list_or_none(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_owned()
    } else {
        items.join(", ")
    }
}
