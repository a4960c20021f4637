//! Hook mode for file-writing tool calls (`Write`, `Edit`, `apply_patch`, …): judge with
//! [`check_edit`], keeping the current version of every existing file the call changes, and
//! turn the report into the hook's [`Outcome`].

use agent_guard_engine::{EditRequest, EnvSnapshot, check_edit};
use agent_guard_hook::{EditCall, Harness, Malformed, Outcome, Refusal};
use agent_guard_types::ReasonCode;

use super::verdict;

/// Judges `call`, enforced. `on_deadline` hears the project's hook deadline.
pub(super) fn judge(
    harness: Harness,
    call: &EditCall,
    mut env: EnvSnapshot,
    on_deadline: &dyn Fn(u64),
) -> Outcome {
    super::adopt_session(&mut env, call.session.as_ref());
    assert!(
        env.fault.as_deref().map(str::trim) != Some("hook-panic"),
        "AGENT_GUARD_FAULT=hook-panic"
    );
    // A payload without a directory (all its paths absolute): the workspace is where the
    // harness runs its hooks, never a file's own directory (see `EditCall::cwd`).
    let Ok(cwd) = call.cwd.clone().map_or_else(std::env::current_dir, Ok) else {
        return Outcome::refused(Refusal::Malformed(Malformed::NoCwd));
    };
    let request = EditRequest {
        harness: harness.name().to_owned(),
        tool: call.tool.clone(),
        cwd,
        files: call.files.clone(),
        enforce: true,
        env,
    };
    let report = check_edit(&request, on_deadline);
    if let Some(watcher) = &report.watcher {
        watcher.start();
    }
    let mut outcome = verdict::report_outcome(harness, &report).for_edit();
    // A refused edit names what to do about an edit, not about a delete.
    if let Some((explanation, hint)) = refusal_texts(report.code) {
        explanation.clone_into(&mut outcome.explanation);
        outcome = outcome.with_hint(hint);
    }
    outcome
}

/// The explanation and next step of a refusal, worded for an edit (the registry's are worded
/// for the shell's deletes).
fn refusal_texts(code: ReasonCode) -> Option<(&'static str, &'static str)> {
    Some(match code {
        ReasonCode::BlockOutOfWorkspace | ReasonCode::BlockProtectedAncestor => (
            "The edit changes an existing file outside the workspace (or through a symlink that \
             leads outside it), where the guard keeps nothing.",
            "Edit files inside the workspace; if a file outside must change, ask the user to do \
             it.",
        ),
        ReasonCode::BlockProtectedPath => (
            "The edit writes into git metadata or the quarantine, which edit tools never change.",
            "Leave `.git` and the quarantine alone (`agent-guard` commands manage the quarantine); \
             ask the user if it must change.",
        ),
        ReasonCode::BlockUndeterminableEffect => (
            "The file the edit changes could not be determined (an unsupported `~` form, or a \
             path that cannot be resolved).",
            "Name the file with an absolute or workspace-relative path.",
        ),
        ReasonCode::CompensationFailed => (
            "The current version of a file the edit changes could not be kept (a symlink the \
             edit removes, a file that cannot be read, …), so the edit must not run.",
            "Fix the cause the message names, or ask the user; nothing was changed.",
        ),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundary_refusals_are_worded_for_edits() {
        for code in [
            ReasonCode::BlockOutOfWorkspace,
            ReasonCode::BlockProtectedPath,
            ReasonCode::CompensationFailed,
        ] {
            let (explanation, hint) = refusal_texts(code).unwrap();
            assert!(explanation.contains("edit") && !hint.is_empty(), "{code}");
        }
        assert_eq!(refusal_texts(ReasonCode::SnapshotEditTool), None);
    }
}
