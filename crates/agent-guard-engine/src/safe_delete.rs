//! `safe-delete`: delete explicit paths recoverably (reference §1.4).
//!
//! The tool expands globs itself (sorted, unmatched patterns reported in `no_match`), judges
//! the batch with the same path rules as `check`, then relocates it (or deletes provably
//! regenerable artifacts directly) after a durable intent record.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Value, json};

use agent_guard_config::EnvSnapshot;
use agent_guard_policy::{DeleteMode, PolicyContext, decide_paths};
use agent_guard_recovery::{DirectOutcome, Progress, SkipKind};
use agent_guard_session::read_mode;
use agent_guard_types::{
    Decision, PathSpec, Plan, ReasonCode, SessionMode, Target, Verdict, World as _,
};

use crate::check::{audit_log, error_chain};
use crate::enforce::new_txid;
use crate::runtime::Runtime;
use crate::store::quarantine;
use crate::workspace::Workspace;

/// What to delete.
#[derive(Debug, Clone, Default)]
pub struct SafeDeleteRequest {
    /// Paths or glob patterns, relative to `cwd` or absolute; `~` is the home directory.
    pub paths: Vec<String>,
    /// The working directory.
    pub cwd: PathBuf,
    /// Only report what would happen.
    pub dry_run: bool,
    /// The environment.
    pub env: EnvSnapshot,
}

/// The verdict part of a report.
#[derive(Debug, Clone, Serialize)]
pub struct VerdictReport {
    /// The decision class.
    pub decision: Decision,
    /// The reason code.
    pub code: ReasonCode,
    /// Its explanation.
    pub explanation: &'static str,
    /// Static reasons.
    pub reasons: Vec<String>,
}

/// A relocated path.
#[derive(Debug, Clone, Serialize)]
pub struct MovedPath {
    /// Where it was.
    pub origin: String,
    /// Where it is now.
    pub trash: String,
}

/// A path that was not relocated.
#[derive(Debug, Clone, Serialize)]
pub struct SkippedPath {
    /// The caller's spelling.
    pub raw: String,
    /// Why.
    pub reason: String,
}

/// The result of `safe-delete`.
#[derive(Debug, Clone, Serialize)]
pub struct SafeDeleteReport {
    /// Always `safe_delete`.
    pub tool: &'static str,
    /// The session mode.
    pub mode: SessionMode,
    /// The workspace root.
    pub workspace: Option<String>,
    /// The verdict on the batch.
    pub verdict: VerdictReport,
    /// The concrete targets after glob expansion.
    pub targets: Vec<String>,
    /// Glob patterns that matched nothing.
    pub no_match: Vec<String>,
    /// `--dry-run`.
    pub dry_run: bool,
    /// What happened, in words.
    pub outcome: String,
    /// The transaction id, when something was relocated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub txid: Option<String>,
    /// Relocated paths.
    pub moved: Vec<MovedPath>,
    /// Paths not relocated.
    pub skipped: Vec<SkippedPath>,
    /// Direct deletions (`deleted`, `deleted-tree`, `absent`, `failed`).
    pub deleted: Vec<DirectOutcome>,
    /// How to undo it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restore_command: Option<String>,
    /// Non-fatal problems.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The exit code.
    pub exit: i32,
}

/// Runs `safe-delete`. Never fails: problems are refusals with a reason code (exit 2).
pub fn safe_delete(request: &SafeDeleteRequest, progress: &dyn Progress) -> SafeDeleteReport {
    let runtime = Runtime::from_env(&request.env).unwrap_or_else(|_| Runtime::system());
    let mut report = empty_report(request);
    let workspace = match Workspace::open(&request.cwd, &request.env) {
        Ok(workspace) => workspace,
        Err(error) => {
            let code = if matches!(error, crate::EngineError::Config(_)) {
                ReasonCode::BlockConfigInvalid
            } else {
                ReasonCode::BlockUndeterminableEffect
            };
            refuse(&mut report, code, &format!("BLOCKED [{code}]"));
            report.warnings.push(error_chain(&error));
            return report;
        }
    };
    report.workspace = Some(workspace.root.display().to_string());
    let (targets, no_match) = expand(&request.paths, &request.cwd, workspace.home.as_deref());
    report.targets = targets.iter().map(|t| t.text.clone()).collect();
    report.no_match = no_match;
    if targets.is_empty() && !report.no_match.is_empty() {
        "nothing to do (no matches)".clone_into(&mut report.outcome);
        return report;
    }
    let mode = read_mode(workspace.trash(), workspace.settings.session.as_deref()).mode;
    report.mode = mode;
    let world = workspace.world();
    let specs: Vec<PathSpec> = targets
        .iter()
        .map(|t| world.path(t, &request.cwd))
        .collect();
    let ctx = PolicyContext {
        cwd: request.cwd.clone(),
        mode,
        allow_regenerable: workspace.settings.allow_regenerable,
        artifacts: workspace.settings.artifacts.clone(),
    };
    let verdict = decide_paths(
        specs,
        DeleteMode {
            recursive: true,
            files_only: false,
            name_match: false,
        },
        &ctx,
        &world,
    );
    set_verdict(&mut report, &verdict);
    let audit = |report: &SafeDeleteReport, phase: &str, durable: bool, extra: Value| -> bool {
        let Ok(log) = audit_log(&workspace, &runtime) else {
            return false;
        };
        let mut record = json!({
            "event": if phase == "complete" { "outcome" } else { "decision" },
            "tool": "safe_delete",
            "decision": report.verdict.decision,
            "code": report.verdict.code,
            "target_count": report.targets.len(),
            "phase": phase,
            "mode": report.mode,
        });
        if let (Value::Object(record), Value::Object(extra)) = (&mut record, extra) {
            record.extend(extra);
        }
        let Value::Object(record) = record else {
            return false;
        };
        if durable {
            log.append(&record).is_ok()
        } else {
            log.append_relaxed(&record).is_ok()
        }
    };
    if verdict.decision == Decision::Block {
        report.outcome = format!("BLOCKED [{}]", verdict.code);
        report.exit = 2;
        let _ = audit(&report, "advisory", false, json!({}));
        return report;
    }
    if request.dry_run {
        report.outcome = format!(
            "would {} ({})",
            verdict.decision.as_str().to_ascii_lowercase(),
            verdict.code
        );
        if !audit(&report, "advisory", false, json!({})) {
            report
                .warnings
                .push("audit unavailable: record could not be stored".to_owned());
        }
        return report;
    }
    if verdict.code == ReasonCode::AllowNoop {
        "nothing to do (already absent)".clone_into(&mut report.outcome);
        return report;
    }
    if !audit(&report, "intent", true, json!({})) {
        refuse(
            &mut report,
            ReasonCode::CompensationFailed,
            "BLOCKED: durable audit intent failed",
        );
        return report;
    }
    let store = quarantine(&workspace, &runtime, &request.env);
    match verdict.plan {
        Plan::Direct(specs) => {
            report.deleted = specs
                .iter()
                .filter_map(|s| s.physical.as_deref())
                .map(|p| store.delete_direct(p))
                .collect();
            report.outcome = if verdict.code == ReasonCode::AllowTrashGc {
                "deleted directly (quarantine housekeeping)".to_owned()
            } else {
                "deleted directly (provably regenerable)".to_owned()
            };
            if report.deleted.contains(&DirectOutcome::Failed) {
                refuse(
                    &mut report,
                    ReasonCode::CompensationFailed,
                    "BLOCKED: direct deletion failed",
                );
            }
        }
        Plan::Relocate(specs) => relocate(&mut report, &store, &specs, &runtime, progress),
        _ => refuse(
            &mut report,
            ReasonCode::CompensationFailed,
            "BLOCKED: nothing to compensate with",
        ),
    }
    let counts = json!({"txid": report.txid, "moved_count": report.moved.len(), "skipped_count": report.skipped.len(), "outcome": report.outcome});
    if !audit(&report, "complete", false, counts) {
        report
            .warnings
            .push("audit unavailable: outcome record could not be stored".to_owned());
    }
    report
}

fn relocate(
    report: &mut SafeDeleteReport,
    store: &agent_guard_recovery::Quarantine,
    specs: &[PathSpec],
    runtime: &Runtime,
    progress: &dyn Progress,
) {
    let txid = new_txid(runtime);
    let items = agent_guard_recovery::relocate_items(specs);
    let meta = json!({"tool": "safe_delete", "code": report.verdict.code})
        .as_object()
        .cloned()
        .unwrap_or_default();
    let result = match store.relocate(&items, &txid, meta, progress) {
        Ok(result) => result,
        Err(error) => {
            report.warnings.push(error_chain(&error));
            refuse(
                report,
                ReasonCode::CompensationFailed,
                "BLOCKED: quarantine preflight failed",
            );
            return;
        }
    };
    if !result.moved.is_empty() {
        report.txid = Some(result.txid.clone());
    }
    report.moved = result
        .moved
        .iter()
        .map(|m| MovedPath {
            origin: m.origin.path().display().to_string(),
            trash: m.trash.path().display().to_string(),
        })
        .collect();
    report.skipped = result
        .skipped
        .iter()
        .filter(|s| s.kind != SkipKind::Absent)
        .map(|s| SkippedPath {
            raw: s.raw.clone(),
            reason: s.reason.clone(),
        })
        .collect();
    if !result.moved.is_empty() {
        report.restore_command = Some(format!("agent-guard restore {}", result.txid));
    }
    if result.storage_failure {
        refuse(
            report,
            ReasonCode::RelocateFailedStorage,
            "BLOCKED: quarantine cannot accept relocation",
        );
    } else if !result.complete() {
        refuse(
            report,
            ReasonCode::CompensationFailed,
            "BLOCKED: partial relocation remains recoverable",
        );
    } else {
        "relocated to quarantine".clone_into(&mut report.outcome);
    }
}

/// Expands glob patterns (sorted matches per pattern) and passes literals through.
fn expand(paths: &[String], cwd: &Path, home: Option<&Path>) -> (Vec<Target>, Vec<String>) {
    let mut targets = Vec::new();
    let mut no_match = Vec::new();
    for raw in paths {
        let (text, tilde) = match raw.strip_prefix('~') {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => (raw.clone(), true),
            _ => (raw.clone(), false),
        };
        if text.contains(['$', '`']) {
            targets.push(Target {
                opaque: Some("a variable or substitution in a path".to_owned()),
                ..Target::literal(text)
            });
            continue;
        }
        if !text.contains(['*', '?', '[']) {
            targets.push(Target {
                tilde,
                ..Target::literal(text)
            });
            continue;
        }
        let base = if tilde {
            home.map(Path::to_path_buf).unwrap_or_default()
        } else {
            cwd.to_owned()
        };
        let pattern_text = if tilde {
            text[1..].trim_start_matches('/').to_owned()
        } else {
            text.clone()
        };
        let absolute = Path::new(&pattern_text).is_absolute();
        let pattern = if absolute {
            pattern_text.clone()
        } else {
            format!(
                "{}/{}",
                glob::Pattern::escape(&base.to_string_lossy()),
                pattern_text
            )
        };
        let options = glob::MatchOptions {
            case_sensitive: true,
            require_literal_separator: true,
            require_literal_leading_dot: true,
        };
        let mut matches: Vec<PathBuf> = glob::glob_with(&pattern, options)
            .map(|paths| paths.filter_map(Result::ok).collect())
            .unwrap_or_default();
        matches.sort();
        if matches.is_empty() {
            no_match.push(raw.clone());
        }
        for path in matches {
            let shown = if absolute {
                path
            } else {
                path.strip_prefix(&base)
                    .map(Path::to_path_buf)
                    .unwrap_or(path)
            };
            targets.push(Target::literal(shown.to_string_lossy().into_owned()));
        }
    }
    (targets, no_match)
}

fn empty_report(request: &SafeDeleteRequest) -> SafeDeleteReport {
    let code = ReasonCode::AllowNoop;
    SafeDeleteReport {
        tool: "safe_delete",
        mode: SessionMode::Normal,
        workspace: None,
        verdict: VerdictReport {
            decision: code.decision(),
            code,
            explanation: code.explanation(),
            reasons: Vec::new(),
        },
        targets: Vec::new(),
        no_match: Vec::new(),
        dry_run: request.dry_run,
        outcome: "nothing to do".to_owned(),
        txid: None,
        moved: Vec::new(),
        skipped: Vec::new(),
        deleted: Vec::new(),
        restore_command: None,
        warnings: Vec::new(),
        exit: 0,
    }
}

fn set_verdict(report: &mut SafeDeleteReport, verdict: &Verdict) {
    report.verdict = VerdictReport {
        decision: verdict.decision,
        code: verdict.code,
        explanation: verdict.code.explanation(),
        reasons: Vec::new(),
    };
}

fn refuse(report: &mut SafeDeleteReport, code: ReasonCode, outcome: &str) {
    report.verdict = VerdictReport {
        decision: Decision::Block,
        code,
        explanation: code.explanation(),
        reasons: Vec::new(),
    };
    outcome.clone_into(&mut report.outcome);
    report.exit = 2;
}
