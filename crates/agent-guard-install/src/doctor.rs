//! `doctor`: find every installed agent-guard hook and check that it would work.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::activation;
use crate::codex;
use crate::entry::{self, Layout, Placement};
use crate::error::Result;
use crate::fsio;
use crate::harness::{Environment, Harness, Scope};
use crate::install::parse_json;
use crate::json::Json;
use crate::launcher;
use crate::script;
use crate::shell;
use crate::smoke::{self, Reply};

/// The result of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Fine.
    Pass,
    /// Works, with a weakness the user should know about.
    Warn,
    /// The hook would not protect this harness.
    Fail,
}

/// One check of one installed hook.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    /// What was checked (`binary`, `fail-closed`, `launcher`, `trust`, `project-trust`,
    /// `folder-trust`, `hooks-enabled`, `plugin`, `deny`, `no-op`, `launcher-deny`).
    pub name: &'static str,
    /// The result.
    pub status: Status,
    /// What was found.
    pub detail: String,
    /// How to fix a warning or failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl Check {
    /// A check that passed.
    pub(crate) fn pass(name: &'static str, detail: String) -> Check {
        Check {
            name,
            status: Status::Pass,
            detail,
            hint: None,
        }
    }

    /// A weakness, with how to fix it.
    pub(crate) fn warn(name: &'static str, detail: String, hint: String) -> Check {
        Check {
            name,
            status: Status::Warn,
            detail,
            hint: Some(hint),
        }
    }

    /// A failure, with how to fix it.
    pub(crate) fn fail(name: &'static str, detail: String, hint: String) -> Check {
        Check {
            name,
            status: Status::Fail,
            detail,
            hint: Some(hint),
        }
    }
}

/// One installed hook and its checks.
#[derive(Debug, Clone, Serialize)]
pub struct HookStatus {
    /// The harness.
    pub harness: Harness,
    /// The scope.
    pub scope: Scope,
    /// The config file holding the hook.
    pub path: PathBuf,
    /// The hook's command line.
    pub command: String,
    /// The checks, in order.
    pub checks: Vec<Check>,
}

impl HookStatus {
    /// Whether no check failed.
    pub fn ok(&self) -> bool {
        self.checks.iter().all(|c| c.status != Status::Fail)
    }
}

/// Every installed hook, checked.
#[derive(Debug, Clone, Serialize)]
pub struct DoctorReport {
    /// The hooks found, harness by harness, project before user.
    pub hooks: Vec<HookStatus>,
    /// Whether every installed hook passed.
    pub ok: bool,
}

/// Finds agent-guard's hooks in every harness's project and user config and checks each:
/// the binary exists and is executable, the harness's fail-closed option is set, the hook
/// runs through the launcher and the launcher is what install writes (and denies when the
/// guard cannot answer), Codex trust is recorded, the harness would run the hook at all (folder trust, switches that turn
/// hooks off), and the exact command denies `rm -rf /` and lets `ls` through when given a
/// synthetic payload in the harness's format (run in a temporary workspace).
pub fn doctor(env: &Environment) -> Result<DoctorReport> {
    let mut hooks = Vec::new();
    let mut seen = Vec::new();
    for harness in Harness::ALL.into_iter().filter(|h| h.installable()) {
        for scope in [Scope::Project, Scope::User] {
            // Without a home directory the user scope cannot be located: check the rest.
            let Ok(path) = env.config_path(harness, scope) else {
                continue;
            };
            if seen.contains(&path) {
                continue;
            }
            seen.push(path.clone());
            for found in installed(harness, &path)? {
                hooks.push(check(env, harness, scope, &path, &found));
            }
        }
    }
    let ok = hooks.iter().all(HookStatus::ok);
    Ok(DoctorReport { hooks, ok })
}

/// One hook of ours found in a config file.
struct Found {
    command: String,
    placement: Placement,
    handler: Json,
    matcher: Option<String>,
    /// For a hook file of its own (Cline, `OpenCode`): whether it is exactly what install
    /// writes.
    pristine: Option<bool>,
    /// The command is exactly what install writes (else it only runs an agent-guard program).
    exact: bool,
    /// For a harness whose edit-tool calls come as a second event
    /// ([`Layout::edits`]): whether agent-guard's handler is registered there too.
    edits: Option<bool>,
}

fn installed(harness: Harness, path: &Path) -> Result<Vec<Found>> {
    let Some(bytes) = fsio::read(path)? else {
        return Ok(Vec::new());
    };
    let Some(layout) = Layout::of(harness) else {
        return Ok(script::command(harness, &bytes)
            .map(|command| Found {
                command,
                placement: Placement {
                    group: 0,
                    handler: 0,
                },
                handler: Json::Null,
                matcher: None,
                pristine: Some(script::is_pristine(harness, &bytes)),
                exact: true,
                edits: None,
            })
            .into_iter()
            .collect());
    };
    // A file we cannot parse holds no hook we could check; install reports the error.
    let Ok((doc, _)) = parse_json(Some(&bytes), path, layout) else {
        return Ok(Vec::new());
    };
    let groups = match doc.get("hooks").and_then(|h| h.get(layout.event())) {
        Some(Json::Array(groups)) => groups.clone(),
        _ => Vec::new(),
    };
    let exact = entry::find(&doc, layout, harness)
        .into_iter()
        .map(|found| (found, true));
    let lookalikes = entry::find_lookalikes(&doc, layout, harness)
        .into_iter()
        .map(|found| (found, false));
    let edits = Layout::edits(harness).map(|edits| !entry::find(&doc, edits, harness).is_empty());
    Ok(exact
        .chain(lookalikes)
        .map(|((placement, handler), exact)| Found {
            command: handler
                .get(layout.command_key)
                .and_then(Json::as_str)
                .unwrap_or_default()
                .to_owned(),
            matcher: groups
                .get(placement.group)
                .and_then(|g| g.get("matcher"))
                .and_then(Json::as_str)
                .map(str::to_owned),
            placement,
            handler,
            pristine: None,
            exact,
            edits,
        })
        .collect())
}

fn check(
    env: &Environment,
    harness: Harness,
    scope: Scope,
    path: &Path,
    found: &Found,
) -> HookStatus {
    let reinstall = format!(
        "run `agent-guard install {harness} --{scope}` with the agent-guard binary you want the hook to run"
    );
    if !found.exact {
        // A mistyped option makes the hook judge nothing, or refuse every call; a wrapper
        // may swallow the verdict. Only what install writes is known to work.
        let expected = expected_command(env, harness, &found.command);
        return HookStatus {
            harness,
            scope,
            path: path.to_path_buf(),
            command: found.command.clone(),
            checks: vec![Check::fail(
                "command",
                format!(
                    "the hook runs `{}`, not what install writes (`{expected}`)",
                    found.command
                ),
                format!(
                    "in `{}`, change the hook's command to `{expected}` (or remove that entry and \
                     run `agent-guard install {harness} --{scope}`)",
                    path.display()
                ),
            )],
        };
    }
    let mut checks = vec![binary(&found.command, &reinstall)];
    let native = fail_closed(harness, &found.handler);
    let natively_closed = native.as_ref().is_some_and(|c| c.status == Status::Pass);
    checks.extend(native);
    let line = shell::parse(&found.command, harness);
    let launched = line
        .as_ref()
        .and_then(|line| line.launcher.as_ref())
        .map(|(path, secs)| (path.as_str(), *secs));
    if launcher::used_by(harness) {
        let installed = launcher::Installed {
            launcher: launched,
            harness_timeout: launcher::harness_timeout_secs(harness, &found.handler),
            natively_closed,
        };
        checks.push(launcher::check(env, harness, &installed, &reinstall));
    }
    if harness == Harness::Codex {
        checks.extend(codex_checks(env, scope, path, found, &reinstall));
    }
    if let (Some(registered), Some(edits)) = (found.edits, Layout::edits(harness)) {
        checks.push(edits_check(registered, edits.event(), &reinstall));
    }
    if let (Harness::OpenCode, Some(pristine)) = (harness, found.pristine) {
        checks.push(if pristine {
            Check::pass("plugin", "the plugin is exactly what install wrote".to_owned())
        } else {
            Check::warn(
                "plugin",
                "the plugin was edited since install: the checks below cover only the command it runs".to_owned(),
                format!(
                    "move `{}` away and run `agent-guard install {harness} --{scope}` again",
                    path.display()
                ),
            )
        });
    }
    checks.extend(activation::checks(env, harness, scope));
    if checks[0].status == Status::Pass {
        let script = (harness == Harness::Cline).then_some(path);
        checks.extend(smoke_checks(harness, &found.command, script));
    }
    let launcher_ok = checks
        .iter()
        .any(|c| c.name == "launcher" && c.status != Status::Fail);
    if let (Some((launcher, _)), true) = (launched, launcher_ok) {
        checks.push(launcher_deny(harness, launcher, &reinstall));
    }
    HookStatus {
        harness,
        scope,
        path: path.to_path_buf(),
        command: found.command.clone(),
        checks,
    }
}

/// Whether the harness's edit-tool event runs the hook too (else edits are not kept).
fn edits_check(registered: bool, event: &str, reinstall: &str) -> Check {
    if registered {
        Check::pass(
            "edits",
            format!("`hooks.{event}` runs the hook: edit-tool calls keep the files they replace"),
        )
    } else {
        Check::warn(
            "edits",
            format!(
                "`hooks.{event}` does not run the hook: edit-tool calls are not judged and what they replace is not kept"
            ),
            reinstall.to_owned(),
        )
    }
}

/// What install writes for the guard program `command` runs (a lookalike's fix).
fn expected_command(env: &Environment, harness: Harness, command: &str) -> String {
    let program = shell::guard_program(command).unwrap_or_else(|| "agent-guard".to_owned());
    match env.launcher_path() {
        Ok(path) if launcher::used_by(harness) => shell::launched_command(
            &path,
            launcher::LAUNCHER_TIMEOUT_SECS,
            Path::new(&program),
            harness,
        ),
        _ => shell::hook_command(Path::new(&program), harness),
    }
}

/// Runs the installed launcher in front of a guard that does not exist: the harness must
/// read its reply as a deny.
fn launcher_deny(harness: Harness, launcher: &str, reinstall: &str) -> Check {
    let Ok(cwd) = tempfile::tempdir() else {
        return fail(
            "launcher-deny",
            "cannot create a temporary directory".to_owned(),
            "check TMPDIR",
        );
    };
    let payload = smoke::payload(harness, "rm -rf /", cwd.path());
    let command = launcher::probe_command(launcher, harness);
    match smoke::run(&command, None, &payload, cwd.path(), None) {
        Ok(outcome) if smoke::read(harness, &outcome) == Reply::Deny => Check::pass(
            "launcher-deny",
            "with the guard missing, the launcher answers with the harness's deny".to_owned(),
        ),
        Ok(outcome) => fail(
            "launcher-deny",
            format!(
                "with the guard missing, the launcher's reply is {} (exit {}{})",
                describe(&smoke::read(harness, &outcome)),
                outcome
                    .code
                    .map_or_else(|| "none".to_owned(), |c| c.to_string()),
                excerpt(&outcome),
            ),
            reinstall,
        ),
        Err(error) => fail(
            "launcher-deny",
            format!("the launcher did not start: {error}"),
            reinstall,
        ),
    }
}

fn binary(command: &str, reinstall: &str) -> Check {
    let program = shell::guard_program(command).unwrap_or_default();
    let path = Path::new(&program);
    let executable = path.is_absolute() && path.is_file() && is_executable(path);
    Check {
        name: "binary",
        status: if executable {
            Status::Pass
        } else {
            Status::Fail
        },
        detail: if executable {
            format!("`{program}` is executable")
        } else {
            format!("`{program}` is not an executable file at an absolute path")
        },
        hint: (!executable).then(|| reinstall.to_owned()),
    }
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        fsio::mode(path).is_some_and(|mode| mode & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        true
    }
}

fn fail_closed(harness: Harness, handler: &Json) -> Option<Check> {
    let (set, detail, hint) = match harness {
        Harness::ClaudeCode => (
            handler.get("onFailure").and_then(Json::as_str) == Some("block"),
            "`onFailure: \"block\"`",
            "with Claude Code 2.1.295 or later, run install again (it sets `onFailure: \"block\"`)",
        ),
        Harness::Cursor => (
            handler.get("failClosed") == Some(&Json::Bool(true)),
            "`failClosed: true`",
            "run install again (it sets `failClosed: true`)",
        ),
        _ => return None,
    };
    Some(Check {
        name: "fail-closed",
        status: if set { Status::Pass } else { Status::Warn },
        detail: if set {
            format!("{detail} is set: a crashed or timed-out hook blocks")
        } else {
            format!("{detail} is not set: a crashed or timed-out hook does not block")
        },
        hint: (!set).then(|| hint.to_owned()),
    })
}

fn codex_checks(
    env: &Environment,
    scope: Scope,
    path: &Path,
    found: &Found,
    reinstall: &str,
) -> Vec<Check> {
    let config = match env.codex_home() {
        Ok(home) => home.join("config.toml"),
        Err(error) => {
            return vec![fail("trust", error.to_string(), reinstall)];
        }
    };
    let text = fsio::read(&config)
        .ok()
        .flatten()
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .unwrap_or_default();
    let Ok(doc) = codex::parse(&text, &config) else {
        return vec![fail(
            "trust",
            format!("`{}` is not valid TOML", config.display()),
            reinstall,
        )];
    };
    let key = codex::trust_key(path, found.placement);
    let hash = codex::trust_hash(found.matcher.as_deref(), &found.handler);
    let mut checks = vec![match codex::trusted_hash(&doc, &key) {
        Some(recorded) if recorded == hash => Check {
            name: "trust",
            status: Status::Pass,
            detail: format!("trusted in `{}`", config.display()),
            hint: None,
        },
        Some(_) => fail(
            "trust",
            "the hook changed since it was trusted: Codex skips it".to_owned(),
            reinstall,
        ),
        None => fail(
            "trust",
            format!("no trust recorded for `{key}`: Codex skips the hook"),
            reinstall,
        ),
    }];
    if scope == Scope::Project {
        let workspace = env.workspace();
        let trusted = codex::project_trusted(&doc, &workspace);
        checks.push(Check {
            name: "project-trust",
            status: if trusted { Status::Pass } else { Status::Fail },
            detail: if trusted {
                format!("Codex trusts `{}`", workspace.display())
            } else {
                format!(
                    "Codex does not trust `{}`, so it does not load its `.codex/` hooks",
                    workspace.display()
                )
            },
            hint: (!trusted).then(|| {
                "start `codex` in the project and trust it, or install with --user".to_owned()
            }),
        });
    }
    checks
}

fn smoke_checks(harness: Harness, command: &str, script: Option<&Path>) -> Vec<Check> {
    let workspace = match tempfile::tempdir() {
        Ok(dir) => dir,
        Err(error) => {
            return vec![fail(
                "deny",
                format!("cannot create a temporary workspace: {error}"),
                "check TMPDIR",
            )];
        }
    };
    let cwd = fsio::write_target(workspace.path());
    // The probe's audit chain key goes to a throwaway state directory beside the workspace,
    // so that doctor never mints the user's key.
    let state = tempfile::tempdir().ok();
    let state = state.as_ref().map(tempfile::TempDir::path);
    let cases = [
        ("deny", "rm -rf /", Reply::Deny),
        ("no-op", "ls", Reply::Allow),
    ];
    cases
        .into_iter()
        .map(|(name, shell_command, expected)| {
            let payload = smoke::payload(harness, shell_command, &cwd);
            let reply = match smoke::run(command, script, &payload, &cwd, state) {
                Ok(outcome) => (smoke::read(harness, &outcome), outcome),
                Err(error) => {
                    return fail(name, format!("the hook did not start: {error}"), "check the command");
                }
            };
            let (got, outcome) = reply;
            if got == expected {
                Check {
                    name,
                    status: Status::Pass,
                    detail: format!("`{shell_command}`: {}", describe(&got)),
                    hint: None,
                }
            } else {
                fail(
                    name,
                    format!(
                        "`{shell_command}`: expected {}, got {} (exit {}{})",
                        describe(&expected),
                        describe(&got),
                        outcome.code.map_or_else(|| "none".to_owned(), |c| c.to_string()),
                        excerpt(&outcome),
                    ),
                    &format!(
                        "run the hook command by hand with the payload in `adapters/{harness}/README.md`; does this agent-guard build have `check --harness`?"
                    ),
                )
            }
        })
        .collect()
}

/// The first line the hook printed (stderr first), shortened.
fn excerpt(outcome: &smoke::Outcome) -> String {
    let line = [&outcome.stderr, &outcome.stdout]
        .into_iter()
        .find_map(|text| text.lines().find(|line| !line.trim().is_empty()));
    match line {
        Some(line) => {
            let short: String = line.chars().take(160).collect();
            format!("; printed: {short}")
        }
        None => "; printed nothing".to_owned(),
    }
}

fn describe(reply: &Reply) -> String {
    match reply {
        Reply::Deny => "denied".to_owned(),
        Reply::Ask => "ask".to_owned(),
        Reply::Allow => "allowed".to_owned(),
        Reply::Invalid(why) => format!("an invalid reply ({why})"),
    }
}

fn fail(name: &'static str, detail: String, hint: &str) -> Check {
    Check::fail(name, detail, hint.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_must_be_an_absolute_executable() {
        assert_eq!(binary("'/bin/sh' check", "fix").status, Status::Pass);
        let missing = binary("'/nonexistent/agent-guard' check", "fix");
        assert_eq!(missing.status, Status::Fail);
        assert_eq!(missing.hint.as_deref(), Some("fix"));
        assert_eq!(binary("agent-guard check", "fix").status, Status::Fail);
    }

    #[test]
    fn fail_closed_options_are_warnings() {
        let on = Json::parse(r#"{"onFailure": "block"}"#).unwrap();
        let off = Json::parse("{}").unwrap();
        let check = |h, j| fail_closed(h, j).map(|c| c.status);
        assert_eq!(check(Harness::ClaudeCode, &on), Some(Status::Pass));
        assert_eq!(check(Harness::ClaudeCode, &off), Some(Status::Warn));
        assert_eq!(check(Harness::Cursor, &off), Some(Status::Warn));
        assert_eq!(check(Harness::Gemini, &off), None);
    }
}
