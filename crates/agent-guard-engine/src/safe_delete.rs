//! `safe-delete`: delete explicit paths recoverably (reference §1.4).
//!
//! The tool expands globs itself (sorted, unmatched patterns reported in `no_match`), judges
//! the batch with the same path rules as `check`, then relocates it (or deletes provably
//! regenerable artifacts directly) after a durable intent record.

use std::path::PathBuf;

use serde::Serialize;

use agent_guard_audit::{AuditRecord, Event, Phase, Tool};

use agent_guard_config::EnvSnapshot;
use agent_guard_policy::{DeleteMode, decide_paths};
use agent_guard_recovery::{DirectOutcome, Origin, Progress, SkipKind};
use agent_guard_types::{
    Decision, PathSpec, Plan, ReasonCode, SafeDeleteOutcome, SessionMode, Verdict, World as _,
};

use crate::check::error_chain;
use crate::pipeline::{Applier, Audit, Carried};
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
    let ctx = crate::pipeline::policy_context(&workspace, &request.cwd);
    report.mode = ctx.mode;
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
    let audit = Audit::open(&workspace, &runtime);
    if verdict.decision == Decision::Block {
        report.outcome = SafeDeleteOutcome::Blocked(verdict.code);
        let _ = audit.relaxed(&report.audit_record(Phase::Advisory));
        return report;
    }
    if request.dry_run {
        report.outcome = SafeDeleteOutcome::Would(verdict.decision, verdict.code);
        if !audit.relaxed(&report.audit_record(Phase::Advisory)) {
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
    // Its flush overlaps the manifest intent's; every move waits for it.
    let Ok(intent) = audit.in_flight(&report.audit_record(Phase::Intent), ToString::to_string)
    else {
        refuse(
            &mut report,
            ReasonCode::CompensationFailed,
            SafeDeleteOutcome::BlockedAuditIntent,
        );
        return report;
    };
    // Every move and direct delete waits for the intent first.
    let store = quarantine(&workspace, &runtime, &request.env).with_before_effect(intent.clone());
    carry_out(&mut report, verdict, &store, &runtime, progress);
    if let Err(cause) = intent.wait() {
        // A move or delete waits for the intent and would have stopped: nothing was done.
        refuse(
            &mut report,
            ReasonCode::CompensationFailed,
            SafeDeleteOutcome::BlockedAuditIntent,
        );
        report.warnings.push(cause);
    }
    if !audit.relaxed(&report.audit_record(Phase::Complete)) {
        report
            .warnings
            .push("audit unavailable: outcome record could not be stored".to_owned());
    }
    report
}

/// Deletes or relocates what `verdict` plans, into `report`.
fn carry_out(
    report: &mut SafeDeleteReport,
    verdict: Verdict,
    store: &agent_guard_recovery::Quarantine,
    runtime: &Runtime,
    progress: &dyn Progress,
) {
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
                    report,
                    ReasonCode::CompensationFailed,
                    SafeDeleteOutcome::BlockedDirectFailed,
                );
            }
        }
        plan @ Plan::Relocate(_) => {
            let keeper = Applier {
                store,
                runtime,
                origin: Origin {
                    code: Some(report.verdict.code.to_string()),
                    ..Origin::tool("safe_delete")
                },
                progress,
            };
            relocated(report, keeper.apply(&plan));
        }
        _ => refuse(
            report,
            ReasonCode::CompensationFailed,
            SafeDeleteOutcome::BlockedNothingToCompensate,
        ),
    }
}

/// What the relocation did, in the report: what moved, what did not, and how it ended.
fn relocated(report: &mut SafeDeleteReport, carried: Carried) {
    let applied = match carried {
        Carried::Ran(applied) => *applied,
        Carried::NothingToDo | Carried::Unregistered(_) => {
            return refuse(
                report,
                ReasonCode::CompensationFailed,
                SafeDeleteOutcome::BlockedNothingToCompensate,
            );
        }
    };
    let Some(result) = applied.relocation else {
        // Nothing was moved: the lock, the reconciliation or the first record failed.
        report
            .warnings
            .extend(applied.failure.and_then(|f| f.detail));
        return refuse(
            report,
            ReasonCode::CompensationFailed,
            SafeDeleteOutcome::BlockedPreflight,
        );
    };
    if !result.moved.is_empty() {
        report.txid = Some(result.txid.clone());
        report.restore_command = Some(format!("agent-guard restore {}", result.txid));
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

impl SafeDeleteReport {
    /// Its audit record for `phase`; the `complete` one also says what moved and what came
    /// of it.
    fn audit_record(&self, phase: Phase) -> AuditRecord {
        let complete = phase == Phase::Complete;
        let event = if complete {
            Event::Outcome
        } else {
            Event::Decision
        };
        AuditRecord {
            decision: Some(self.verdict.decision),
            code: Some(self.verdict.code),
            target_count: Some(self.targets.len()),
            phase: Some(phase),
            mode: Some(self.mode),
            txid: self.txid.clone().filter(|_| complete),
            moved_count: complete.then_some(self.moved.len()),
            skipped_count: complete.then_some(self.skipped.len()),
            outcome: complete.then_some(self.outcome),
            ..AuditRecord::new(event, Tool::SafeDelete)
        }
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
