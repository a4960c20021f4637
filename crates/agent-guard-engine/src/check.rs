//! `check`: judge a command line before it runs.

use std::path::PathBuf;
use std::time::Instant;

use agent_guard_audit::{AuditLog, AuditRecord, Clock, Event, REDACTED, Tool};
use agent_guard_classify::smells;
use agent_guard_config::EnvSnapshot;
use agent_guard_policy::{decide, dialect_verdict};
use agent_guard_recovery::{NoProgress, Progress, ensure_layout};
use agent_guard_types::{
    Dialect, DialectOutcome, DialectResolution, OpSpec, ReasonCode, SessionMode, Verdict,
};

use crate::definitions::classify_line;
use crate::error::EngineError;
use crate::report::{CheckReport, OpReport};
use crate::runtime::Runtime;
use crate::workspace::Workspace;

/// What to check.
#[derive(Debug, Clone, Default)]
pub struct CheckRequest {
    /// The command line.
    pub command: String,
    /// The command as separate words (`check -- rm -- -rf`), when it was given so: spelled
    /// in the resolved dialect so that exactly these words are judged (it replaces
    /// `command`). A word the dialect cannot spell is a refusal.
    pub argv: Vec<String>,
    /// The declared working directory.
    pub cwd: PathBuf,
    /// `--dialect`, if given.
    pub dialect_flag: Option<String>,
    /// A dialect field of the harness payload, if any.
    pub dialect_payload: Option<String>,
    /// Perform compensations (`--enforce`).
    pub enforce: bool,
    /// The environment.
    pub env: EnvSnapshot,
}

/// The state of one check, before it is turned into a report.
pub(crate) struct Judged {
    pub report: CheckReport,
    pub ops: Vec<OpSpec>,
    pub workspace: Option<Workspace>,
    pub runtime: Runtime,
    /// Who made the transactions beyond `check --enforce` itself (an edit tool's label,
    /// harness, tool and files); empty for a command line.
    pub origin: agent_guard_recovery::Origin,
}

/// Judges `request.command` without changing anything but the audit log.
///
/// Never fails: every problem becomes a refusal verdict with its own reason code.
pub fn check(request: &CheckRequest) -> CheckReport {
    check_with(request, &NoProgress)
}

/// [`check`] with a progress sink for long cross-device moves under `--enforce`.
pub fn check_with(request: &CheckRequest, progress: &dyn Progress) -> CheckReport {
    check_observing(request, progress, &|_| {})
}

/// [`check_with`], telling `on_deadline` the project's hook deadline (`[hook] deadline_ms`,
/// or `AGENT_GUARD_DEADLINE_MS`) as soon as the workspace is open, so that hook mode can adopt
/// it without opening the workspace a second time. A line that never opens the workspace
/// (nothing destructive) never calls it.
pub fn check_observing(
    request: &CheckRequest,
    progress: &dyn Progress,
    on_deadline: &dyn Fn(u64),
) -> CheckReport {
    let judged = judge(request, on_deadline);
    if request.enforce {
        return crate::enforce::enforce(judged, request, progress);
    }
    let mut report = judged.report;
    if let Some(workspace) = judged
        .workspace
        .as_ref()
        .filter(|_| should_audit(&report, &judged.ops))
    {
        audit_check(&mut report, workspace, &judged.runtime);
    }
    report
}

/// Resolves the dialect, classifies and decides. Opens the workspace only when the line
/// needs it: a line with no destructive vocabulary touches nothing but, at most, one small
/// config file.
pub(crate) fn judge(request: &CheckRequest, on_deadline: &dyn Fn(u64)) -> Judged {
    let started = Instant::now();
    let mut warnings = Vec::new();
    let runtime = Runtime::from_env(&request.env).unwrap_or_else(|error| {
        warnings.push(error.to_string());
        Runtime::system()
    });
    let check_id = runtime.new_id();
    let mut workspace: Option<Result<Workspace, Unopened>> = None;
    let mut open = |request: &CheckRequest| -> Result<Workspace, Unopened> {
        workspace
            .get_or_insert_with(|| {
                let opened = Workspace::open(&request.cwd, &request.env);
                if let Ok(workspace) = &opened {
                    on_deadline(workspace.settings.deadline_ms);
                }
                opened.map_err(|e| Unopened::of(&e))
            })
            .clone()
    };

    let selector = [&request.dialect_flag, &request.dialect_payload]
        .into_iter()
        .find_map(Option::clone)
        .or_else(|| request.env.dialect.clone().filter(|d| !d.trim().is_empty()));
    let selector = match selector {
        Some(selector) => Some(selector),
        None => match open(request) {
            Ok(ws) => ws.settings.dialect_from_config.clone(),
            Err(_) => None,
        },
    };
    let resolution = DialectResolution::resolve(selector.as_deref());
    let mut report = base_report(check_id, &resolution, request.enforce, warnings);
    report.command = if request.argv.is_empty() {
        request.command.clone()
    } else {
        request.argv.join(" ")
    };

    let ops = if let Some(verdict) = dialect_verdict(&resolution) {
        report.verdicts = vec![verdict.clone()];
        report.set_verdict(verdict.decision, verdict.code);
        Vec::new()
    } else {
        let dialect = resolution.dialect().unwrap_or_default();
        match line_of(request, dialect) {
            Ok(command) => {
                let classification =
                    classify_line(&command, dialect, request.enforce, &request.env, |ops| {
                        open(request).ok().map(|ws| dry_decision(ops, &ws, request))
                    });
                let ops = crate::path_programs::with_programs(
                    classification,
                    &command,
                    dialect,
                    request,
                    || open(request).ok().map(|ws| ws.root),
                );
                report.command = command;
                report.ops = ops.iter().map(OpReport::of).collect();
                ops
            }
            Err(unquotable) => vec![OpSpec::unknown(
                "<unparseable>",
                dialect,
                unquotable.to_string(),
            )],
        }
    };

    let mut opened = None;
    if !ops.is_empty() {
        match open(request) {
            Ok(ws) => {
                decide_in(&mut report, &ops, &ws, request, &runtime);
                opened = Some(ws);
            }
            Err(why) => {
                // A config a program wrote that the guard cannot read: the seal it took
                // before still puts it back (and says so), the line refused either way.
                let settled = request.enforce
                    && why.code == ReasonCode::BlockConfigInvalid
                    && Workspace::open_lenient(&request.cwd, &request.env).is_ok_and(|(ws, _)| {
                        crate::seal::refuse_if_tampered(&mut report, &ws, &runtime)
                    });
                if !settled {
                    refuse_unopened(&mut report, why);
                }
            }
        }
    } else if let Some(Err(why)) = workspace.clone() {
        // The config could not be read to pick a dialect: refuse only destructive-looking lines.
        if selector_missing(request) && smells(&request.command) {
            refuse_unopened(&mut report, why);
        }
    }
    report.guard_latency_ms = latency_ms(started);
    Judged {
        report,
        ops,
        workspace: opened.or_else(|| workspace.and_then(Result::ok)),
        runtime,
        origin: agent_guard_recovery::Origin::default(),
    }
}

/// Decides `ops` in the open workspace `ws` into `report`; an enforced line first finds
/// whether a program changed the guard files since the last checkpoint ([`crate::seal`]).
fn decide_in(
    report: &mut CheckReport,
    ops: &[OpSpec],
    ws: &Workspace,
    request: &CheckRequest,
    runtime: &Runtime,
) {
    report.workspace = Some(ws.root.display().to_string());
    if request.enforce && crate::seal::refuse_if_tampered(report, ws, runtime) {
        return;
    }
    let mut ctx = crate::pipeline::policy_context(ws, &request.cwd);
    // The command runs in the harness's environment, which the guard's is: a `CDPATH` there
    // may send a line's `cd src` elsewhere.
    ctx.follow_cd = request.env.cdpath.as_ref().is_none_or(|p| p.is_empty());
    report.mode = ctx.mode;
    let decided = decide(ops, &ctx, &ws.world());
    report.set_verdict(decided.aggregate.decision, decided.aggregate.code);
    report.verdicts = decided.verdicts;
    report.ask = decided.ask;
    report.warnings.extend(ws.untrusted_warning());
    if report.code == ReasonCode::BlockWildcard {
        report.suggestion = safe_delete_suggestion(ops);
    }
}

/// The policy's decision on `ops` in `ws`, with nothing written (a definition's body judged
/// as if called, [`crate::definitions`]).
fn dry_decision(
    ops: &[OpSpec],
    ws: &Workspace,
    request: &CheckRequest,
) -> agent_guard_types::Decision {
    let mut ctx = crate::pipeline::policy_context(ws, &request.cwd);
    ctx.follow_cd = request.env.cdpath.as_ref().is_none_or(|p| p.is_empty());
    decide(ops, &ctx, &ws.world()).aggregate.decision
}

/// The line to judge: the command text, or the argv quoted for `dialect`.
fn line_of(
    request: &CheckRequest,
    dialect: Dialect,
) -> Result<String, agent_guard_lex::Unquotable> {
    if request.argv.is_empty() {
        Ok(request.command.clone())
    } else {
        agent_guard_lex::quote_words(dialect, &request.argv)
    }
}

/// `agent-guard safe-delete '<glob>' …` for the wildcard targets of the line's deletes, which
/// the tool expands itself.
fn safe_delete_suggestion(ops: &[OpSpec]) -> Option<String> {
    let patterns: Vec<String> = ops
        .iter()
        .filter(|op| op.kind == agent_guard_types::OpKind::FsDelete)
        .flat_map(|op| op.targets.iter())
        .filter(|t| t.opaque.is_none())
        .map(|t| t.text.clone())
        .collect();
    if patterns.is_empty() {
        return None;
    }
    let mut words = vec!["agent-guard".to_owned(), "safe-delete".to_owned()];
    words.extend(patterns);
    agent_guard_lex::quote_words(Dialect::Posix, &words).ok()
}

fn selector_missing(request: &CheckRequest) -> bool {
    request.dialect_flag.is_none()
        && request.dialect_payload.is_none()
        && request
            .env
            .dialect
            .as_deref()
            .is_none_or(|d| d.trim().is_empty())
}

/// Why the workspace could not be opened, as a refusal.
#[derive(Debug, Clone)]
pub(crate) struct Unopened {
    pub(crate) code: ReasonCode,
    reason: &'static str,
    detail: String,
}

impl Unopened {
    pub(crate) fn of(error: &EngineError) -> Unopened {
        let (code, reason) = match error {
            EngineError::Config(_) => (
                ReasonCode::BlockConfigInvalid,
                "configuration could not be read",
            ),
            _ => (
                ReasonCode::BlockUndeterminableEffect,
                "workspace could not be resolved",
            ),
        };
        Unopened {
            code,
            reason,
            detail: error_chain(error),
        }
    }
}

pub(crate) fn refuse_unopened(report: &mut CheckReport, why: Unopened) {
    report.set_verdict(why.code.decision(), why.code);
    report.reasons = vec![why.reason.to_owned()];
    report.warnings.push(why.detail);
    report.verdicts = vec![Verdict::of(why.code)];
}

pub(crate) fn base_report(
    check_id: String,
    resolution: &DialectResolution,
    enforce: bool,
    warnings: Vec<String>,
) -> CheckReport {
    let (dialect, requested, outcome, error) = match resolution {
        DialectResolution::Ok { dialect, requested } => {
            (*dialect, requested.clone(), DialectOutcome::Ok, None)
        }
        DialectResolution::Unknown => (
            Dialect::Posix,
            Some(REDACTED.to_owned()),
            DialectOutcome::Unusable,
            Some("unknown dialect selector"),
        ),
        DialectResolution::Invalid => (
            Dialect::Posix,
            Some(REDACTED.to_owned()),
            DialectOutcome::Unusable,
            Some("invalid dialect selector"),
        ),
    };
    let code = ReasonCode::AllowNoop;
    CheckReport {
        command: String::new(),
        workspace: None,
        suggestion: None,
        check_id,
        approval_id: None,
        mode: SessionMode::Normal,
        dialect,
        dialect_requested: requested,
        dialect_outcome: outcome,
        dialect_error: error,
        decision: code.decision(),
        code,
        explanation: code.explanation(),
        reasons: Vec::new(),
        guard_latency_ms: 0.0,
        ops: Vec::new(),
        enforced: enforce,
        compensations: None,
        warnings,
        message: None,
        if_approved: None,
        not_kept: Vec::new(),
        verdicts: Vec::new(),
        ask: None,
        watcher: None,
    }
}

pub(crate) fn latency_ms(started: Instant) -> f64 {
    (started.elapsed().as_secs_f64() * 10_000.0).round() / 10.0
}

/// A check is audited when it found something destructive or refused.
fn should_audit(report: &CheckReport, ops: &[OpSpec]) -> bool {
    records(ops) || report.code != ReasonCode::AllowNoop
}

/// Whether a line judged `ALLOW_NOOP` is still recorded (the audit log, the store's layout):
/// when it has an op other than a git command that only writes another commit into the
/// work tree (`git checkout main`), which the guard lets through as it did before it looked
/// at that commit's hook files.
pub(crate) fn records(ops: &[OpSpec]) -> bool {
    ops.iter()
        .any(|op| op.kind != agent_guard_types::OpKind::GitMoveWorkTree)
}

/// The common fields of this check's audit records.
pub(crate) fn audit_record(report: &CheckReport, event: Event) -> AuditRecord {
    AuditRecord {
        check_id: Some(report.check_id.clone()),
        decision: Some(report.decision),
        code: Some(report.code),
        command: Some(REDACTED.to_owned()),
        dialect: Some(report.dialect),
        dialect_requested: Some(report.dialect_requested.clone()),
        dialect_outcome: Some(report.dialect_outcome),
        guard_latency_ms: Some(report.guard_latency_ms),
        mode: Some(report.mode),
        approval_id: report.approval_id.clone(),
        ..AuditRecord::new(event, Tool::Check)
    }
}

/// Opens the audit log of `workspace`, creating the layout first (ignore rule, then dir),
/// chained with the user's key (created on first use). Only the destructive paths call this:
/// the no-op path neither writes a record nor touches the key.
pub(crate) fn audit_log(workspace: &Workspace, runtime: &Runtime) -> Result<AuditLog, String> {
    ensure_layout(&workspace.root, workspace.trash()).map_err(|e| error_chain(&e))?;
    let key = crate::audit::chain_key(workspace).map_err(|e| error_chain(&e))?;
    let clock = runtime.fixed_clock().map_or(Clock::System, Clock::Fixed);
    Ok(
        AuditLog::new(workspace.trash(), workspace.settings.session.as_deref())
            .with_clock(clock)
            .with_key(key)
            .with_fault(runtime.audit_fault()),
    )
}

/// Writes the `check` record of an advisory check.
pub(crate) fn audit_check(report: &mut CheckReport, workspace: &Workspace, runtime: &Runtime) {
    let audit = crate::pipeline::Audit::open(workspace, runtime);
    if !audit.relaxed(&audit_record(report, Event::Check)) {
        report
            .warnings
            .push("audit unavailable: record could not be stored".to_owned());
    }
}

pub(crate) use agent_guard_types::error_chain;
