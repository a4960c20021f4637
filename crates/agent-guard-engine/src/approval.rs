//! `approve`: a person's one-time approval of a command the guard asked about, and its use by
//! `check --enforce`.

use std::path::{Path, PathBuf};

use serde::Serialize;

use agent_guard_audit::{AuditRecord, Event, Tool};
use agent_guard_config::EnvSnapshot;
use agent_guard_session::approval::{self, Approval};
use agent_guard_types::{Decision, ReasonCode};

use crate::check::{CheckRequest, audit_log};
use crate::error::Result;
use crate::report::CheckReport;
use crate::runtime::Runtime;
use crate::workspace::Workspace;

pub use agent_guard_session::approval::ApprovalError;

/// What `approve` lists or granted.
#[derive(Debug, Clone, Serialize)]
pub struct ApprovalReport {
    /// The requests waiting for a person, newest first (listing), or the one granted.
    pub approvals: Vec<Approval>,
    /// Whether this call granted one.
    pub granted: bool,
}

/// The requests of this workspace waiting for approval, newest first.
pub fn waiting_approvals(cwd: &Path, env: &EnvSnapshot) -> Result<Vec<Approval>> {
    let workspace = Workspace::open(cwd, env)?;
    let runtime = Runtime::from_env(env)?;
    Ok(approval::waiting(
        workspace.trash(),
        &workspace.root,
        runtime.now(),
    ))
}

/// The waiting request `reference` names (its id, a unique prefix or suffix).
pub fn find_approval(cwd: &Path, env: &EnvSnapshot, reference: &str) -> Result<Approval> {
    let workspace = Workspace::open(cwd, env)?;
    let runtime = Runtime::from_env(env)?;
    Ok(approval::find(
        workspace.trash(),
        &workspace.root,
        reference,
        runtime.now(),
    )?)
}

/// Grants the waiting request `reference` names, for `minutes`. `interactive` is whether a
/// person confirmed at a terminal; without it nothing is granted. The grant is audited.
pub fn approve(
    cwd: &Path,
    env: &EnvSnapshot,
    reference: &str,
    minutes: u32,
    interactive: bool,
) -> Result<ApprovalReport> {
    let workspace = Workspace::open(cwd, env)?;
    let runtime = Runtime::from_env(env)?;
    let found = approval::find(workspace.trash(), &workspace.root, reference, runtime.now())?;
    if !interactive {
        return Err(ApprovalError::NotInteractive(found.id).into());
    }
    let log = audit_log(&workspace, &runtime).map_err(crate::EngineError::AuditUnavailable)?;
    // Durable before it takes effect: the record says a person approved, and what.
    log.append(&AuditRecord {
        check_id: Some(found.id.clone()),
        approval_id: Some(found.id.clone()),
        code: Some(found.code),
        decision: Some(Decision::Ask),
        command: Some(agent_guard_audit::REDACTED.to_owned()),
        ..AuditRecord::new(Event::Approve, Tool::Approve)
    })?;
    let granted = approval::grant(
        workspace.trash(),
        &found,
        minutes,
        interactive,
        runtime.now(),
    )?;
    Ok(ApprovalReport {
        approvals: vec![granted],
        granted: true,
    })
}

/// The working directory as approvals record it (resolved, so `./x` and `x` agree).
fn bound_cwd(request: &CheckRequest) -> PathBuf {
    request
        .cwd
        .canonicalize()
        .unwrap_or_else(|_| request.cwd.clone())
}

/// Under `check --enforce`, an ASK: uses up a person's approval of exactly this command (the
/// ASK parts become `ALLOW_APPROVED`, the rest is still compensated; returns `true`), or
/// stores the request and tells the agent how its user approves it (returns `false`).
pub(crate) fn settle_ask(
    report: &mut CheckReport,
    request: &CheckRequest,
    workspace: &Workspace,
    runtime: &Runtime,
) -> bool {
    let cwd = bound_cwd(request);
    let trash = workspace.trash();
    if let Some(used) =
        approval::consume(trash, &report.command, &cwd, &workspace.root, runtime.now())
    {
        for verdict in report
            .verdicts
            .iter_mut()
            .filter(|v| v.decision == Decision::Ask)
        {
            verdict.decision = Decision::Allow;
            verdict.code = ReasonCode::AllowApproved;
        }
        report.set_verdict(Decision::Allow, ReasonCode::AllowApproved);
        report.approval_id = Some(used.id);
        return true;
    }
    let asked = Approval {
        id: report.check_id.clone(),
        command: report.command.clone(),
        cwd,
        workspace: workspace.root.clone(),
        code: report.code,
        asked_at: agent_guard_audit::format_timestamp(runtime.now()),
        expires_at: None,
    };
    match approval::request(trash, &asked, runtime.now()) {
        Ok(id) => {
            report.message = Some(format!(
                "agent-guard: a person can approve this exact command once: ask the user to run \
                 `agent-guard approve {id}` in a terminal, then run the same command again."
            ));
            report.approval_id = Some(id);
        }
        Err(_) => report
            .warnings
            .push("the approval request could not be stored".to_owned()),
    }
    false
}
