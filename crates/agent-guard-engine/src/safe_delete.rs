//! `safe-delete`: delete explicit paths recoverably (reference §1.4).
//!
//! The tool expands globs itself (sorted, unmatched patterns reported in `no_match`), judges
//! the batch with the same path rules as `check`, then relocates it (or deletes provably
//! regenerable artifacts directly) after a durable intent record.

use std::path::PathBuf;

use serde::Serialize;

use agent_guard_audit::{AuditRecord, Event, Phase, SyncInFlight, Tool};

use agent_guard_config::EnvSnapshot;
use agent_guard_policy::{DeleteMode, PolicyContext, decide_paths};
use agent_guard_recovery::{DirectOutcome, Progress, SkipKind};
use agent_guard_session::read_mode;
use agent_guard_types::{
    Decision, PathSpec, Plan, ReasonCode, SafeDeleteOutcome, SessionMode, Verdict, World as _,
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MovedPath {
    /// Where it was.
    pub origin: String,
    /// Where it is now.
    pub trash: String,
    /// Its size in bytes (a directory's files summed).
    pub bytes: u64,
}

/// A path that was not relocated.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SkippedPath {
    /// The caller's spelling.
    pub raw: String,
    /// Why.
    pub reason: String,
}

/// The result of `safe-delete`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
    /// Literal paths that did not exist (nothing to delete there).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub absent: Vec<String>,
    /// `--dry-run`.
    pub dry_run: bool,
    /// What happened (the reference tool's texts).
    pub outcome: SafeDeleteOutcome,
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
            refuse(&mut report, code, SafeDeleteOutcome::Blocked(code));
            report.warnings.push(error_chain(&error));
            return report;
        }
    };
    report.workspace = Some(workspace.root.display().to_string());
    let (targets, no_match) =
        agent_guard_world::expand_patterns(&request.paths, &request.cwd, workspace.home.as_deref());
    report.targets = targets.iter().map(|t| t.text.clone()).collect();
    report.no_match = no_match;
    if targets.is_empty() && !report.no_match.is_empty() {
        report.outcome = SafeDeleteOutcome::NoMatches;
        return report;
    }
    let mode = read_mode(workspace.trash(), workspace.settings.session.as_deref()).mode;
    report.mode = mode;
    let world = workspace.world();
    let specs: Vec<PathSpec> = targets
        .iter()
        .map(|t| world.path(t, &request.cwd))
        .collect();
    report.absent = specs
        .iter()
        .filter(|s| s.error.is_none() && !s.glob && !s.exists())
        .map(|s| s.raw.clone())
        .collect();
    let ctx = PolicyContext {
        cwd: request.cwd.clone(),
        mode,
        allow_regenerable: workspace.settings.allow_regenerable,
        artifacts: workspace.settings.artifacts.clone(),
        preserve_max_bytes: workspace.settings.preserve_max_bytes,
        checkpoint: workspace.settings.checkpoint,
        checkpoint_max_file_bytes: workspace.settings.checkpoint_max_file_bytes,
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
    // One record per phase; the `complete` one also says what moved and what came of it.
    // `Synced` waits for the disk; `InFlight` hands back the sync to wait for before the
    // first move (it overlaps the manifest intent's); `Relaxed` does not wait.
    let audit =
        |report: &SafeDeleteReport, phase: Phase, durability: Durability| -> Option<SyncInFlight> {
            let Ok(log) = audit_log(&workspace, &runtime) else {
                return None;
            };
            let complete = phase == Phase::Complete;
            let event = if complete {
                Event::Outcome
            } else {
                Event::Decision
            };
            let record = AuditRecord {
                decision: Some(report.verdict.decision),
                code: Some(report.verdict.code),
                target_count: Some(report.targets.len()),
                phase: Some(phase),
                mode: Some(report.mode),
                txid: report.txid.clone().filter(|_| complete),
                moved_count: complete.then_some(report.moved.len()),
                skipped_count: complete.then_some(report.skipped.len()),
                outcome: complete.then_some(report.outcome),
                ..AuditRecord::new(event, Tool::SafeDelete)
            };
            match durability {
                Durability::InFlight => log.append_in_flight(&record).ok().map(|(_, sync)| sync),
                Durability::Relaxed => log
                    .append_relaxed(&record)
                    .ok()
                    .map(|_| SyncInFlight::done(Ok(()))),
            }
        };
    if verdict.decision == Decision::Block {
        report.outcome = SafeDeleteOutcome::Blocked(verdict.code);
        let _ = audit(&report, Phase::Advisory, Durability::Relaxed);
        return report;
    }
    if request.dry_run {
        report.outcome = SafeDeleteOutcome::Would(verdict.decision, verdict.code);
        if audit(&report, Phase::Advisory, Durability::Relaxed).is_none() {
            report
                .warnings
                .push("audit unavailable: record could not be stored".to_owned());
        }
        return report;
    }
    if verdict.code == ReasonCode::AllowNoop {
        report.outcome = SafeDeleteOutcome::AlreadyAbsent;
        return report;
    }
    let Some(intent) = audit(&report, Phase::Intent, Durability::InFlight) else {
        refuse(
            &mut report,
            ReasonCode::CompensationFailed,
            SafeDeleteOutcome::BlockedAuditIntent,
        );
        return report;
    };
    // Every move and direct delete waits for the intent first.
    let store = quarantine(&workspace, &runtime, &request.env).with_before_effect(intent.clone());
    match verdict.plan {
        Plan::Direct(specs) => {
            report.deleted = specs
                .iter()
                .filter_map(|s| s.physical.as_deref())
                .map(|p| store.delete_direct(p))
                .collect();
            report.outcome = if verdict.code == ReasonCode::AllowTrashGc {
                SafeDeleteOutcome::DeletedHousekeeping
            } else {
                SafeDeleteOutcome::DeletedRegenerable
            };
            if report.deleted.contains(&DirectOutcome::Failed) {
                refuse(
                    &mut report,
                    ReasonCode::CompensationFailed,
                    SafeDeleteOutcome::BlockedDirectFailed,
                );
            }
        }
        Plan::Relocate(specs) => relocate(&mut report, &store, &specs, &runtime, progress),
        _ => refuse(
            &mut report,
            ReasonCode::CompensationFailed,
            SafeDeleteOutcome::BlockedNothingToCompensate,
        ),
    }
    if let Err(cause) = intent.wait() {
        // A move or delete waits for the intent and would have stopped: nothing was done.
        refuse(
            &mut report,
            ReasonCode::CompensationFailed,
            SafeDeleteOutcome::BlockedAuditIntent,
        );
        report.warnings.push(cause);
    }
    if audit(&report, Phase::Complete, Durability::Relaxed).is_none() {
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
    let meta = agent_guard_recovery::TxMeta::of(agent_guard_recovery::Origin {
        code: Some(report.verdict.code.to_string()),
        ..agent_guard_recovery::Origin::tool("safe_delete")
    });
    let result = match store.relocate(&items, &txid, meta, progress) {
        Ok(result) => result,
        Err(error) => {
            report.warnings.push(error_chain(&error));
            refuse(
                report,
                ReasonCode::CompensationFailed,
                SafeDeleteOutcome::BlockedPreflight,
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
            bytes: agent_guard_recovery::path_size(m.trash.path()).1,
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
            SafeDeleteOutcome::BlockedStorage,
        );
    } else if !result.complete() {
        refuse(
            report,
            ReasonCode::CompensationFailed,
            SafeDeleteOutcome::BlockedPartial,
        );
    } else {
        report.outcome = SafeDeleteOutcome::Relocated;
    }
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
        absent: Vec::new(),
        dry_run: request.dry_run,
        outcome: SafeDeleteOutcome::NothingToDo,
        txid: None,
        moved: Vec::new(),
        skipped: Vec::new(),
        deleted: Vec::new(),
        restore_command: None,
        warnings: Vec::new(),
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

fn refuse(report: &mut SafeDeleteReport, code: ReasonCode, outcome: SafeDeleteOutcome) {
    report.verdict = VerdictReport {
        decision: Decision::Block,
        code,
        explanation: code.explanation(),
        reasons: Vec::new(),
    };
    report.outcome = outcome;
}
/// How a safe-delete audit record reaches the disk.
#[derive(Debug, Clone, Copy)]
enum Durability {
    /// Synced on a helper thread; moves and deletes wait for it.
    InFlight,
    /// Written, not waited for.
    Relaxed,
}
