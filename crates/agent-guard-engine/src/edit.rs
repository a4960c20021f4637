//! `check_edit`: judge a harness's file-writing tool call (`Write`, `Edit`, `apply_patch`, …)
//! before it runs, and under `--enforce` keep what it replaces.
//!
//! The call's files become one [`OpKind::EditTool`] op, decided by the same rules as a shell
//! write: the workspace boundary (physical, so a symlink leading outside is outside), protected
//! paths, the preservation cap. Every existing file it writes, edits, deletes or renames is
//! copied into **one** transaction (the tool needs the file where it is), whose journal `meta`
//! names the harness, the tool and the files, so `list`, `show` and `undo` show it beside the
//! shell's transactions. A new file has nothing to keep.

use std::path::PathBuf;
use std::time::Instant;

use agent_guard_config::EnvSnapshot;
use agent_guard_policy::decide;
use agent_guard_recovery::{EditedFile, NoProgress, Origin};
use agent_guard_types::{
    Dialect, DialectResolution, EditFile, OpKind, OpSpec, ReasonCode, Target, WriteMode,
};

use crate::check::{CheckRequest, Judged, audit_check, base_report, latency_ms, refuse_unopened};
use crate::report::{CheckReport, OpReport};
use crate::runtime::Runtime;
use crate::workspace::Workspace;

/// A file-writing tool call to judge.
#[derive(Debug, Clone, Default)]
pub struct EditRequest {
    /// The harness, by its `--harness` name (`claude-code`, `codex`, …).
    pub harness: String,
    /// The tool, as the harness names it (`Write`, `apply_patch`, …).
    pub tool: String,
    /// The absolute directory relative paths are resolved against.
    pub cwd: PathBuf,
    /// The files the call changes.
    pub files: Vec<EditFile>,
    /// Keep what the call replaces (hook mode always does).
    pub enforce: bool,
    /// The environment.
    pub env: EnvSnapshot,
}

impl EditRequest {
    /// The call as one line, for reports and approvals: `<harness> <tool> <path>…`, quoted
    /// as POSIX words. A person who approves an ASK sees it, and the same call (same tool,
    /// same files) matches the approval.
    pub fn line(&self) -> String {
        let mut words = vec![self.harness.clone(), self.tool.clone()];
        words.extend(self.files.iter().map(|f| f.path.clone()));
        agent_guard_lex::quote_words(Dialect::Posix, &words).unwrap_or_else(|_| words.join(" "))
    }

    /// The label of the transactions it makes (`meta.tool`): `<harness> <tool>`.
    pub fn label(&self) -> String {
        format!("{} {}", self.harness, self.tool)
    }
}

/// Judges an edit-tool call; under `request.enforce`, keeps the current version of every
/// existing file it changes first. `on_deadline` hears the project's hook deadline as soon
/// as the workspace is open (see [`check_observing`](crate::check_observing)).
///
/// Never fails: every problem becomes a refusal verdict with its own reason code. A call
/// that only creates files is `ALLOW_NOOP` and writes nothing (no audit record, no
/// quarantine); with `[preserve] edit_tools = false` every call is, judged no further.
pub fn check_edit(request: &EditRequest, on_deadline: &dyn Fn(u64)) -> CheckReport {
    let started = Instant::now();
    let mut warnings = Vec::new();
    let runtime = Runtime::from_env(&request.env).unwrap_or_else(|error| {
        warnings.push(error.to_string());
        Runtime::system()
    });
    let resolution = DialectResolution::resolve(None);
    let mut report = base_report(runtime.new_id(), &resolution, request.enforce, warnings);
    let check = CheckRequest {
        command: request.line(),
        cwd: request.cwd.clone(),
        enforce: request.enforce,
        env: request.env.clone(),
        ..CheckRequest::default()
    };
    report.command.clone_from(&check.command);
    let op = edit_op(request);
    report.ops = vec![OpReport::of(&op)];
    let workspace = match Workspace::open(&request.cwd, &request.env) {
        Ok(workspace) => workspace,
        Err(error) => {
            refuse_unopened(&mut report, crate::check::Unopened::of(&error));
            report.guard_latency_ms = latency_ms(started);
            return report;
        }
    };
    on_deadline(workspace.settings.deadline_ms);
    report.workspace = Some(workspace.root.display().to_string());
    // A program that changed the guard files since the last checkpoint: refused and
    // recorded like any other refusal.
    let tampered =
        request.enforce && crate::seal::refuse_if_tampered(&mut report, &workspace, &runtime);
    if !tampered {
        if !workspace.settings.preserve_edit_tools {
            report.guard_latency_ms = latency_ms(started);
            return report;
        }
        let ctx = crate::pipeline::policy_context(&workspace, &request.cwd);
        report.mode = ctx.mode;
        let decided = decide(std::slice::from_ref(&op), &ctx, &workspace.world());
        report.set_verdict(decided.aggregate.decision, decided.aggregate.code);
        report.verdicts = decided.verdicts;
        report.ask = decided.ask;
    }
    report.guard_latency_ms = latency_ms(started);
    if report.code == ReasonCode::AllowNoop {
        // Only new files: nothing is lost, so nothing is written (as for a shell no-op).
        return report;
    }
    let judged = Judged {
        report,
        ops: vec![op],
        workspace: Some(workspace),
        runtime,
        origin: origin(request),
    };
    if request.enforce {
        return crate::enforce::enforce(judged, &check, &NoProgress);
    }
    let Judged {
        mut report,
        workspace,
        runtime,
        ..
    } = judged;
    if let Some(workspace) = &workspace {
        audit_check(&mut report, workspace, &runtime);
    }
    report
}

/// The call's files as one op: every target literal (a tool's path is never expanded by a
/// shell), written through a final symlink unless the call removes the path itself.
fn edit_op(request: &EditRequest) -> OpSpec {
    let mut op = OpSpec::new(request.tool.clone(), OpKind::EditTool, Dialect::Posix);
    // Every effect leaves the file where the tool needs it: copied, never moved.
    op.write = WriteMode::ReplaceAfterRead;
    op.targets = request
        .files
        .iter()
        .map(|file| Target {
            text: file.path.clone(),
            tilde: file.path.starts_with('~'),
            through_symlink: file.effect.through_symlink(),
            ..Target::default()
        })
        .collect();
    op
}

/// Who makes the transaction beyond `check --enforce`: the edit tool and its files.
fn origin(request: &EditRequest) -> Origin {
    Origin {
        tool: Some(request.label()),
        harness: Some(request.harness.clone()),
        edit_tool: Some(request.tool.clone()),
        files: request
            .files
            .iter()
            .map(|f| EditedFile {
                path: f.path.clone(),
                effect: f.effect.as_str().to_owned(),
            })
            .collect(),
        ..Origin::default()
    }
}

#[cfg(test)]
mod tests {
    use agent_guard_types::EditEffect;

    use super::*;

    fn request(files: &[(&str, EditEffect)]) -> EditRequest {
        EditRequest {
            harness: "claude-code".into(),
            tool: "Write".into(),
            cwd: PathBuf::from("/w"),
            files: files.iter().map(|(p, e)| EditFile::new(*p, *e)).collect(),
            ..EditRequest::default()
        }
    }

    #[test]
    fn the_line_quotes_paths_and_the_op_follows_links_only_for_writes() {
        let request = request(&[
            ("/w/a b.txt", EditEffect::Write),
            ("gone.txt", EditEffect::Delete),
        ]);
        assert_eq!(request.line(), "claude-code Write '/w/a b.txt' gone.txt");
        let op = edit_op(&request);
        assert_eq!(op.kind, OpKind::EditTool);
        assert!(op.targets[0].through_symlink && !op.targets[1].through_symlink);
        assert!(op.targets.iter().all(Target::is_concrete));
        assert_eq!(origin(&request).tool.as_deref(), Some("claude-code Write"));
        assert_eq!(origin(&request).files[1].effect, "delete");
    }
}
