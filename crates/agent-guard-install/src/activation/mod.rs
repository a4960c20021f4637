//! Whether a harness will run an installed hook at all: folder trust, the switches that turn
//! hooks off, and which settings file wins.
//!
//! A hook can sit in the right file with the right command and still never fire: Copilot CLI
//! skips repository hooks in a folder it does not trust, silently; Gemini CLI runs no hooks
//! at all in an untrusted folder; a `disableAllHooks` in a settings file that outranks ours
//! switches everything off. Doctor reports each such finding (a FAIL when the hook would
//! never fire); install repeats the warnings as notes and fails on a FAIL (issue 35: it used
//! to exit 0 in a folder where Copilot CLI skips the hook silently).
//!
//! What each harness does was measured with the pinned CLIs (see `docs/hooks.md`).

mod copilot;
mod gemini;
mod qwen;
pub(crate) mod settings;

use std::path::Path;

use crate::doctor::{Check, Status};
use crate::harness::{Environment, Harness, Scope};
use settings::FolderTrust;

/// The activation checks of `harness`'s hook in `scope`, for the workspace of `env`.
pub(crate) fn checks(env: &Environment, harness: Harness, scope: Scope) -> Vec<Check> {
    match harness {
        Harness::Copilot => copilot::checks(env, scope),
        Harness::Gemini => gemini::checks(env),
        Harness::QwenCode => qwen::checks(env, scope),
        _ => Vec::new(),
    }
}

/// What install tells the user about activation: every warning.
pub(crate) fn notes(env: &Environment, harness: Harness, scope: Scope) -> Vec<String> {
    checks(env, harness, scope)
        .into_iter()
        .filter(|check| check.status == Status::Warn)
        .map(|check| match check.hint {
            Some(hint) => format!("{}; {hint}", check.detail),
            None => check.detail,
        })
        .collect()
}

/// The checks that fail: the harness would not run the hook at all (an untrusted folder,
/// hooks switched off). Install reports them as errors, with their hints.
pub(crate) fn failures(env: &Environment, harness: Harness, scope: Scope) -> Vec<Check> {
    checks(env, harness, scope)
        .into_iter()
        .filter(|check| check.status == Status::Fail)
        .collect()
}

/// The folder-trust check of a harness with a trusted-folders file (Gemini CLI, Qwen Code).
fn trusted_folder_check(
    harness: &str,
    trust: Option<FolderTrust>,
    workspace: &Path,
    file: &Path,
    untrusted_effect: &str,
) -> Check {
    let ws = workspace.display();
    let file = file.display();
    match trust {
        None => Check::pass(
            "folder-trust",
            format!("folder trust is off in {harness}: its hooks load in every folder"),
        ),
        Some(FolderTrust::Trusted) => Check::pass(
            "folder-trust",
            format!("{harness} trusts `{ws}` (`{file}`)"),
        ),
        Some(FolderTrust::Untrusted) => Check::fail(
            "folder-trust",
            format!(
                "{harness} does not trust `{ws}` (`DO_NOT_TRUST` in `{file}`): {untrusted_effect}"
            ),
            format!("trust the folder in {harness}, or set it to `TRUST_FOLDER` in `{file}`"),
        ),
        Some(FolderTrust::Unknown) => Check::warn(
            "folder-trust",
            format!(
                "`{ws}` is not in {harness}'s trusted folders yet: {harness} asks on its first interactive start and runs the hook only once the folder is trusted"
            ),
            format!(
                "trust the folder when {harness} asks, or add it as `TRUST_FOLDER` to `{file}`"
            ),
        ),
    }
}
