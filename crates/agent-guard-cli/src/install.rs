//! `agent-guard install`, `uninstall` and `doctor`: the environment in, the report out.

use std::ffi::OsString;
use std::path::PathBuf;

use agent_guard_engine::EnvSnapshot;
use agent_guard_install::{
    Action, DoctorReport, Environment, Error, Harness, InstallOptions, Report, Scope, Status,
};

use crate::args::{DoctorArgs, InstallArgs, ScopeArgs, UninstallArgs};
use crate::check::absolute_cwd;
use crate::exit_code::ExitCode;
use crate::printer;

/// Runs `install`.
pub fn install(args: &InstallArgs) -> anyhow::Result<ExitCode> {
    let env = environment(args.cwd.as_deref())?;
    let harness = parse_harness(&args.harness)?;
    let (claude_fail_closed, claude_version) = if harness == Harness::ClaudeCode {
        agent_guard_install::claude_supports_on_failure()
    } else {
        (true, None)
    };
    let options = InstallOptions {
        harness,
        scope: scope(args.scope),
        exe: current_exe()?,
        claude_fail_closed,
    };
    match agent_guard_install::install(&env, &options) {
        Ok(mut report) => {
            // A person's install is no tampering with the guard files; an agent's does not
            // speak for a person.
            if crate::person::not_an_agent().is_ok() {
                agent_guard_engine::person_changed_guard_files(&EnvSnapshot::capture());
            }
            if let (false, Some(version)) = (claude_fail_closed, claude_version) {
                report.notes.push(format!(
                    "`claude --version` reports {}.{}.{}",
                    version.0, version.1, version.2
                ));
            }
            print_report(&report, "installed", args.json);
            if report.inactive.is_empty() {
                Ok(ExitCode::Success)
            } else {
                if !args.json {
                    print_inactive(&report);
                }
                Ok(ExitCode::InternalError)
            }
        }
        Err(error) => Ok(report_install_error(&error)),
    }
}

/// The hook is in place, but the harness would not run it: an error with the step that
/// activates it (issue 35: Copilot CLI skips a repository's hooks in an untrusted folder,
/// silently).
fn print_inactive(report: &Report) {
    for check in &report.inactive {
        printer::error(
            &format!(
                "{} will not run this hook: {}",
                report.harness,
                printer::sanitize(&check.detail)
            ),
            &[],
        );
        if let Some(hint) = &check.hint {
            printer::err("");
            printer::err(&format!("hint: {}", printer::sanitize(hint)));
        }
    }
}

/// Runs `uninstall`.
pub fn uninstall(args: &UninstallArgs) -> anyhow::Result<ExitCode> {
    crate::person::not_an_agent().map_err(|why| crate::person::refusal("uninstall", &why))?;
    let env = environment(args.cwd.as_deref())?;
    let harness = parse_harness(&args.harness)?;
    match agent_guard_install::uninstall(&env, harness, scope(args.scope)) {
        Ok(report) => {
            agent_guard_engine::person_changed_guard_files(&EnvSnapshot::capture());
            print_report(&report, "uninstalled", args.json);
            Ok(ExitCode::Success)
        }
        Err(error) => Ok(report_install_error(&error)),
    }
}

/// Runs `doctor`: exit 0 when every installed hook passes, 1 otherwise.
pub fn doctor(args: &DoctorArgs) -> anyhow::Result<ExitCode> {
    let env = environment(args.cwd.as_deref())?;
    let report = match agent_guard_install::doctor(&env) {
        Ok(report) => report,
        Err(error) => return Ok(report_install_error(&error)),
    };
    // The workspace's checkpoint store, when there is one: damage is said, not fatal.
    let damage = agent_guard_engine::checkpoint_damage_at(&env.cwd, &EnvSnapshot::capture())
        .unwrap_or_default();
    // Project settings that wait for a person's trust: said, not fatal.
    let untrusted = agent_guard_engine::untrusted_settings(&env.cwd, &EnvSnapshot::capture());
    if args.json {
        let mut value = serde_json::to_value(&report)?;
        if let Some(object) = value.as_object_mut() {
            object.insert(
                "checkpoint_damage".to_owned(),
                serde_json::to_value(&damage)?,
            );
            object.insert(
                "untrusted_settings".to_owned(),
                serde_json::to_value(&untrusted)?,
            );
        }
        printer::json(&value);
    } else {
        print_doctor(&report);
        if !untrusted.is_empty() {
            printer::out(&format!(
                "warning: .agent-guard.toml sets {} (looser than your own settings or the \
                 defaults), not in effect until you run `agent-guard config trust` in this \
                 workspace",
                untrusted.join(", ")
            ));
        }
        for found in &damage {
            printer::out(&format!(
                "warning: checkpoint store: {} is {}; checkpoints that used it cannot be \
                 restored completely. The next checkpoint sets it aside and keeps everything \
                 again (`agent-guard status` shows the store).",
                found.pack, found.problem
            ));
        }
    }
    Ok(if report.ok {
        ExitCode::Success
    } else {
        ExitCode::InternalError
    })
}

/// The install environment from the process environment (captured by the config crate).
fn environment(cwd: Option<&std::path::Path>) -> anyhow::Result<Environment> {
    let env = EnvSnapshot::capture();
    let path = |value: Option<OsString>| value.filter(|v| !v.is_empty()).map(PathBuf::from);
    Ok(Environment {
        cwd: absolute_cwd(cwd)?,
        home: path(env.home),
        state_home: path(env.xdg_state_home),
        codex_home: path(env.codex_home),
        copilot_home: path(env.copilot_home),
        claude_config_dir: path(env.claude_config_dir),
        gemini_cli_home: path(env.gemini_cli_home),
        qwen_home: path(env.qwen_home),
        xdg_config_home: path(env.xdg_config_home),
    })
}

fn current_exe() -> anyhow::Result<PathBuf> {
    let exe = std::env::current_exe()?;
    Ok(std::fs::canonicalize(&exe).unwrap_or(exe))
}

fn parse_harness(name: &str) -> anyhow::Result<Harness> {
    Harness::parse_name(name).ok_or_else(|| anyhow::anyhow!("unknown harness `{name}`"))
}

fn scope(args: ScopeArgs) -> Scope {
    if args.user {
        Scope::User
    } else {
        Scope::Project
    }
}

fn print_report(report: &Report, verb: &str, json: bool) {
    if json {
        printer::json(report);
        return;
    }
    let nothing = report.files.iter().all(|f| f.action == Action::Unchanged);
    if nothing && report.command.is_none() {
        printer::err(&format!(
            "agent-guard is not installed for {} ({}); nothing changed",
            report.harness, report.scope
        ));
    } else {
        printer::err(&format!(
            "{verb} agent-guard for {} ({})",
            report.harness, report.scope
        ));
    }
    if let Some(command) = &report.command {
        printer::err(&format!("  hook: {}", printer::sanitize(command)));
    }
    for file in &report.files {
        let action = match file.action {
            Action::Created => "created",
            Action::Modified => "modified",
            Action::Unchanged => "unchanged",
            Action::Restored => "restored",
            Action::Removed => "removed",
            Action::EntryRemoved => "entry removed",
            _ => "changed",
        };
        printer::err(&format!(
            "  {action:<13} {}",
            printer::sanitize(&file.path.display().to_string())
        ));
    }
    for note in &report.notes {
        printer::err(&format!("note: {note}"));
    }
}

fn print_doctor(report: &DoctorReport) {
    if report.hooks.is_empty() {
        printer::out("no agent-guard hook is installed (project or user) for any harness");
        printer::out("hint: `agent-guard install <harness> [--project|--user]`");
        return;
    }
    let mut hints = Vec::new();
    for hook in &report.hooks {
        printer::out(&format!(
            "{} ({}) {}",
            hook.harness,
            hook.scope,
            printer::sanitize(&hook.path.display().to_string())
        ));
        for check in &hook.checks {
            let label = match check.status {
                Status::Pass => "ok",
                Status::Warn => "warn",
                Status::Fail => "FAIL",
            };
            printer::out(&format!(
                "  {label:<4}  {:<13} {}",
                check.name,
                printer::sanitize(&check.detail)
            ));
            if let Some(hint) = &check.hint
                && !hints.contains(hint)
            {
                hints.push(hint.clone());
            }
        }
    }
    let failing = report.hooks.iter().filter(|h| !h.ok()).count();
    printer::out("");
    if failing == 0 {
        printer::out(&format!(
            "{} installed hook(s), all passing",
            report.hooks.len()
        ));
    } else {
        printer::out(&format!(
            "{failing} of {} installed hook(s) failing",
            report.hooks.len()
        ));
    }
    for hint in hints {
        printer::out(&format!("hint: {hint}"));
    }
}

/// Prints an install error with its hints; a harness without a config file is a usage
/// error (2), anything else an internal error (1).
fn report_install_error(error: &Error) -> ExitCode {
    printer::error(&error.to_string(), &agent_guard_types::error_causes(error));
    let hints = error.hints();
    if !hints.is_empty() {
        printer::err("");
        for hint in hints {
            printer::err(&format!("hint: {}", printer::sanitize(&hint)));
        }
    }
    match error {
        Error::NotInstallable { .. } => ExitCode::Blocked,
        _ => ExitCode::InternalError,
    }
}
