//! The hook launcher: a small POSIX `sh` script (`launcher.sh`) that install writes once per
//! user, at `$XDG_STATE_HOME/agent-guard/bin/agent-guard-hook`, and that every command hook
//! runs the guard through.
//!
//! Most harnesses run the tool when a hook fails: Codex when it exits 1 or cannot start,
//! Gemini CLI when it exits 1, is killed or times out, Copilot CLI when it times out, Qwen
//! Code in all of these, Cline and Windsurf on any failure (`docs/hooks.md`). The guard cannot
//! answer for itself when its binary is missing, crashes or hangs, so the launcher does: it
//! passes the guard's reply through when there is one (exit 0, 2 or 3) and otherwise prints
//! the harness's own deny (`HOOK_GUARD_UNAVAILABLE`), with a timeout of its own below the
//! harness's. The script cannot be the guard binary itself: it must work when that is gone.
//!
//! It lives in the guard's state directory, which is a guard file as a whole
//! (`agent_guard_types::guard_files`): an agent's command cannot change or remove it. Its
//! content is the same for every harness and binary (both are on the hook's command line),
//! so all installs share it: each is an owner of its install record, and the last uninstall
//! removes it. `OpenCode`'s plugin has the same logic in JavaScript and does not use it.

use std::path::{Path, PathBuf};

use crate::doctor::Check;
use crate::edit::{self, Action};
use crate::entry::TIMEOUT_SECS;
use crate::error::Result;
use crate::fsio;
use crate::harness::{Environment, Harness};
use crate::install::FileChange;
use crate::json::Json;
use crate::record::Store;

/// The script, exactly as install writes it.
pub(crate) const SCRIPT: &str = include_str!("launcher.sh");

/// Seconds the launcher waits for the guard: above the guard's own deadline (5 s by
/// default) and below the harness's timeout ([`TIMEOUT_SECS`]), so that the launcher's deny,
/// not the harness's timeout, decides a guard that hangs.
pub(crate) const LAUNCHER_TIMEOUT_SECS: u64 = TIMEOUT_SECS - 5;

/// The permission bits of the script.
const MODE: u32 = 0o755;

/// Whether install runs `harness`'s hook through the launcher: every command hook.
/// `OpenCode`'s plugin is its own launcher.
pub(crate) fn used_by(harness: Harness) -> bool {
    harness.installable() && harness != Harness::OpenCode
}

/// Writes the launcher for `owner` (an install): created, or brought up to date, and made
/// executable again if someone took that away.
pub(crate) fn install(env: &Environment, store: &Store, owner: &str) -> Result<FileChange> {
    let path = env.launcher_path()?;
    let current = fsio::read(&path)?;
    let mut action = edit::apply(
        store,
        &path,
        owner,
        current.as_deref(),
        SCRIPT.as_bytes(),
        MODE,
        None,
    )?;
    if fsio::mode(&path).is_none_or(|mode| mode & 0o111 != 0o111) {
        fsio::write_atomic(&path, SCRIPT.as_bytes(), MODE)?;
        action = Action::Modified;
    }
    Ok(FileChange { path, action })
}

/// Gives up `owner`'s share of the launcher: the last install's uninstall removes it (and
/// the `bin/` directory install created), unless it was edited since, which is kept (with a
/// note). `None` when `owner` never installed it (an install from before the launcher).
pub(crate) fn uninstall(
    env: &Environment,
    store: &Store,
    owner: &str,
    notes: &mut Vec<String>,
) -> Result<Option<FileChange>> {
    let path = env.launcher_path()?;
    let Some(record) = store.load(&path)? else {
        return Ok(None);
    };
    if !record.owners.iter().any(|o| o == owner) {
        return Ok(None);
    }
    if record.owners.iter().any(|o| o != owner) {
        // Other installs still run it: only this owner goes, the original stays restorable.
        let mut record = record;
        record.remove_owner(owner);
        store.save(&record, None)?;
        return Ok(Some(FileChange {
            path,
            action: Action::Unchanged,
        }));
    }
    let current = fsio::read(&path)?;
    let edited = current
        .as_deref()
        .is_some_and(|bytes| bytes != SCRIPT.as_bytes());
    if edited {
        notes.push(format!(
            "`{}` was edited since install and was left in place; delete it yourself if it should go",
            path.display()
        ));
    }
    let without = if edited { current.clone() } else { None };
    let action = edit::revert(store, &path, owner, current.as_deref(), without.as_deref())?;
    Ok(Some(FileChange { path, action }))
}

/// The hook's timeout as `harness` reads it from its handler, in seconds, when set.
pub(crate) fn harness_timeout_secs(harness: Harness, handler: &Json) -> Option<u64> {
    let number = |key: &str| match handler.get(key) {
        Some(Json::Number(number)) => number.as_u64(),
        _ => None,
    };
    match harness {
        Harness::Gemini => number("timeout").map(|ms| ms / 1000),
        // Seconds since 0.24; values of 1000 and more are still read as milliseconds.
        Harness::QwenCode => {
            number("timeout").map(|value| if value >= 1000 { value / 1000 } else { value })
        }
        Harness::Copilot => number("timeoutSec"),
        Harness::ClaudeCode | Harness::Codex | Harness::Cursor => number("timeout"),
        Harness::Cline | Harness::Windsurf | Harness::OpenCode | Harness::Generic => None,
    }
}

/// What doctor needs to judge the launcher of one hook.
pub(crate) struct Installed<'a> {
    /// The launcher the command names, and its timeout, if it names one.
    pub(crate) launcher: Option<(&'a str, u64)>,
    /// The harness's own timeout for the hook, in seconds, if set.
    pub(crate) harness_timeout: Option<u64>,
    /// Whether the harness blocks by itself on a failed hook (Claude Code's
    /// `onFailure: "block"`, Cursor's `failClosed: true`).
    pub(crate) natively_closed: bool,
}

/// Doctor's `launcher` check: the hook runs the guard through the launcher, which is there,
/// executable, exactly what install writes, protected from the agent, and gives up before
/// the harness does. A failing check names the install command that repairs it.
pub(crate) fn check(
    env: &Environment,
    harness: Harness,
    installed: &Installed<'_>,
    reinstall: &str,
) -> Check {
    let Some((launcher, timeout)) = installed.launcher else {
        let detail = format!(
            "the hook runs the guard directly: if its binary is missing, crashes or hangs, {harness} {}",
            if installed.natively_closed {
                "still blocks (its own fail-closed option), but nothing else does"
            } else {
                "runs the tool unguarded"
            }
        );
        return if installed.natively_closed {
            Check::warn("launcher", detail, reinstall.to_owned())
        } else {
            Check::fail("launcher", detail, reinstall.to_owned())
        };
    };
    let path = Path::new(launcher);
    let problem = match fsio::read(path) {
        Ok(None) => Some(format!(
            "the launcher `{launcher}` is missing: the hook cannot start"
        )),
        Err(_) => Some(format!("the launcher `{launcher}` cannot be read")),
        Ok(Some(bytes)) if bytes != SCRIPT.as_bytes() => Some(format!(
            "the launcher `{launcher}` differs from what install writes"
        )),
        Ok(Some(_)) if fsio::mode(path).is_none_or(|mode| mode & 0o111 == 0) => {
            Some(format!("the launcher `{launcher}` is not executable"))
        }
        Ok(Some(_)) => match installed.harness_timeout {
            Some(limit) if timeout >= limit => Some(format!(
                "the launcher's timeout ({timeout} s) is not below {harness}'s ({limit} s): a guard that hangs is timed out by {harness}, which may run the tool"
            )),
            _ if timeout == 0 => Some("the launcher's timeout is 0 s".to_owned()),
            _ => None,
        },
    };
    if let Some(problem) = problem {
        return Check::fail("launcher", problem, reinstall.to_owned());
    }
    let guarded = is_guard_file(env, path);
    let detail = format!(
        "`{launcher}` is what install writes; it denies when the guard is missing, fails, crashes or has not answered after {timeout} s"
    );
    if guarded {
        Check::pass("launcher", detail)
    } else {
        Check::warn(
            "launcher",
            format!(
                "{detail}, but it is outside the guard's state directory (`$XDG_STATE_HOME/agent-guard`), so the agent's commands could change it"
            ),
            reinstall.to_owned(),
        )
    }
}

/// Whether the guard, run with this environment's variables, protects `path`.
fn is_guard_file(env: &Environment, path: &Path) -> bool {
    let mut entries = agent_guard_types::guard_files::project_entries(&env.workspace());
    entries.extend(env.user_dirs().entries());
    entries.iter().any(|entry| path.starts_with(entry))
}

/// The command doctor runs to see the launcher deny on this system: the installed launcher
/// with a guard that does not exist.
pub(crate) fn probe_command(launcher: &str, harness: Harness) -> String {
    crate::shell::launched_command(
        Path::new(launcher),
        LAUNCHER_TIMEOUT_SECS,
        &missing_guard(),
        harness,
    )
}

/// A guard path that does not exist.
fn missing_guard() -> PathBuf {
    PathBuf::from("/nonexistent/agent-guard-doctor-probe/agent-guard")
}

#[cfg(test)]
mod tests;
