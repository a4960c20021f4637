//! `install` and `uninstall`: per harness, what goes into which file.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::activation;
use crate::codex;
use crate::doctor::Check;
use crate::edit::{self, Action};
use crate::entry::{self, Layout, Placement, Removed};
use crate::error::{Error, Result};
use crate::fsio;
use crate::harness::{Environment, Harness, Scope};
use crate::json::{self, Json};
use crate::launcher;
use crate::record::Store;
use crate::script;
use crate::shell;

/// What to install.
#[derive(Debug, Clone)]
pub struct InstallOptions {
    /// The harness.
    pub harness: Harness,
    /// Project or user configuration.
    pub scope: Scope,
    /// The absolute path of the `agent-guard` binary the hook runs.
    pub exe: PathBuf,
    /// Whether to set Claude Code's `onFailure: "block"` (needs Claude Code 2.1.295+).
    pub claude_fail_closed: bool,
}

/// One file install or uninstall touched (or would have).
#[derive(Debug, Clone, Serialize)]
pub struct FileChange {
    /// The file.
    pub path: PathBuf,
    /// What happened to it.
    pub action: Action,
}

/// The outcome of `install` or `uninstall`.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The harness.
    pub harness: Harness,
    /// The scope.
    pub scope: Scope,
    /// The hook command line (install only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The files, hook config first.
    pub files: Vec<FileChange>,
    /// Things the user should know (limits of the harness, a step left to them).
    pub notes: Vec<String>,
    /// Why the harness would not run the hook just installed (a folder it does not trust,
    /// hooks switched off), each with the step that fixes it: install fails while any is
    /// left. Empty after uninstall.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub inactive: Vec<Check>,
}

/// Installs agent-guard's hook for `options.harness` in `options.scope`.
///
/// Idempotent: installing twice leaves one entry and changes nothing the second time. Every
/// other key, hook and comment of the file is kept. The file's previous bytes are kept in
/// the state directory so that [`uninstall`] can restore them exactly. Every command hook
/// runs the guard through the launcher ([`Environment::launcher_path`]), which is written
/// first, so the hook never names a launcher that is not there.
///
/// A hook the harness would not run is still installed, and listed in
/// [`Report::inactive`] with the step that activates it.
pub fn install(env: &Environment, options: &InstallOptions) -> Result<Report> {
    let harness = options.harness;
    let path = env.config_path(harness, options.scope)?;
    let store = Store::new(env.state_dir()?);
    let owner = owner(harness, &path);
    let command = if launcher::used_by(harness) {
        shell::launched_command(
            &env.launcher_path()?,
            launcher::LAUNCHER_TIMEOUT_SECS,
            &options.exe,
            harness,
        )
    } else {
        shell::hook_command(&options.exe, harness)
    };
    let current = fsio::read(&path)?;
    let mut files = Vec::new();
    let mut notes = Vec::new();

    let Some(layout) = Layout::of(harness) else {
        let new = script::render(harness, &command);
        if let Some(bytes) = &current
            && !script::is_pristine(harness, bytes)
        {
            return Err(Error::ForeignScript { harness, path });
        }
        let launcher = launcher::used_by(harness)
            .then(|| launcher::install(env, &store, &owner))
            .transpose()?;
        let mode = script::mode(harness);
        let action = edit::apply(&store, &path, &owner, current.as_deref(), &new, mode, None)?;
        files.push(FileChange { path, action });
        files.extend(launcher);
        notes.extend(limits(harness, options));
        return Ok(report(options, Some(command), files, notes));
    };

    let desired = entry::handler(harness, &command, options.claude_fail_closed);
    let (mut doc, indent) = parse_json(current.as_deref(), &path, layout)?;
    let before = doc.clone();
    let at = entry::insert(&mut doc, &path, layout, harness, &desired)?;
    if let Some(edits) = Layout::edits(harness) {
        entry::insert(&mut doc, &path, edits, harness, &desired)?;
    }
    let new = match &current {
        Some(bytes) if doc == before => bytes.clone(),
        _ => doc.render(&indent),
    };
    // Codex: the trust entry is prepared before anything is written, so that an unreadable
    // `config.toml` leaves both files untouched.
    let trust = if harness == Harness::Codex {
        let (key, hash) = codex_trust(&doc, &path, at)?;
        let config = env.codex_home()?.join("config.toml");
        let current = fsio::read(&config)?;
        let mut toml = codex::parse(&text_of(current.as_deref(), &config)?, &config)?;
        let earlier = store
            .load(&config)?
            .map(|record| record.keys_of(&owner))
            .unwrap_or_default();
        codex::set_trust(&mut toml, &config, &key, &hash, &earlier)?;
        if options.scope == Scope::Project && !codex::project_trusted(&toml, &env.workspace()) {
            notes.push(format!(
                "Codex loads project hooks only in trusted projects: `{}` is not trusted yet; start `codex` there and trust it (or install with --user)",
                env.workspace().display()
            ));
        }
        Some((config, current, toml.to_string(), key))
    } else {
        None
    };
    let launcher = launcher::install(env, &store, &owner)?;
    let action = edit::apply(&store, &path, &owner, current.as_deref(), &new, 0o644, None)?;
    files.push(FileChange { path, action });

    if let Some((config, current, new, key)) = trust {
        let action = edit::apply(
            &store,
            &config,
            &owner,
            current.as_deref(),
            new.as_bytes(),
            0o600,
            Some(&key),
        )?;
        files.push(FileChange {
            path: config,
            action,
        });
    }
    files.push(launcher);
    notes.extend(limits(harness, options));
    notes.extend(activation::notes(env, harness, options.scope));
    let mut report = report(options, Some(command), files, notes);
    report.inactive = activation::failures(env, harness, options.scope);
    Ok(report)
}

/// Removes agent-guard's hook for `harness` in `scope`.
///
/// When a file is still exactly what install wrote, its previous bytes are restored (or it
/// is removed, with the directories install created, if it did not exist). Otherwise only
/// agent-guard's entry is removed and the rest, including later edits, is kept.
pub fn uninstall(env: &Environment, harness: Harness, scope: Scope) -> Result<Report> {
    let path = env.config_path(harness, scope)?;
    let store = Store::new(env.state_dir()?);
    let owner = owner(harness, &path);
    let current = fsio::read(&path)?;
    let mut files = Vec::new();

    let Some(layout) = Layout::of(harness) else {
        let mut notes = Vec::new();
        let without = match &current {
            Some(bytes) if script::is_pristine(harness, bytes) => None,
            Some(bytes) if script::is_ours(harness, bytes) => {
                notes.push(format!(
                    "`{}` was edited since install and was left in place; delete it yourself if it should go",
                    path.display()
                ));
                Some(bytes.clone())
            }
            other => other.clone(),
        };
        let action = edit::revert(
            &store,
            &path,
            &owner,
            current.as_deref(),
            without.as_deref(),
        )?;
        files.push(FileChange { path, action });
        files.extend(launcher::uninstall(env, &store, &owner, &mut notes)?);
        return Ok(Report {
            harness,
            scope,
            command: None,
            files,
            notes,
            inactive: Vec::new(),
        });
    };

    let (mut doc, indent) = parse_json(current.as_deref(), &path, layout)?;
    let placements: Vec<Placement> = entry::find(&doc, layout, harness)
        .into_iter()
        .map(|(at, _)| at)
        .collect();
    let mut removed = entry::remove(&mut doc, layout, harness);
    if let Some(edits) = Layout::edits(harness) {
        removed.extend(entry::remove(&mut doc, edits, harness));
    }
    let without = if removed.is_empty() {
        current.clone()
    } else {
        Some(doc.render(&indent))
    };

    // Codex trust goes first: its config may share the directory install created for the
    // hooks file, which can only be removed once both files are gone.
    if harness == Harness::Codex {
        let keys: Vec<String> = placements
            .iter()
            .map(|at| codex::trust_key(&path, *at))
            .collect();
        files.push(remove_codex_trust(
            env, &store, &owner, &path, &keys, &removed,
        )?);
    }
    let action = edit::revert(
        &store,
        &path,
        &owner,
        current.as_deref(),
        without.as_deref(),
    )?;
    files.insert(0, FileChange { path, action });
    let mut notes = Vec::new();
    if files.iter().any(|f| f.action == Action::EntryRemoved) {
        notes.push(
            "a file changed since install: only agent-guard's entry was removed, the rest was kept (backups are in the state directory)".to_owned(),
        );
    }
    // The launcher goes last: until the hook is gone, it may still run it.
    files.extend(launcher::uninstall(env, &store, &owner, &mut notes)?);
    Ok(Report {
        harness,
        scope,
        command: None,
        files,
        notes,
        inactive: Vec::new(),
    })
}

/// Removes the trust entries of our Codex hook from `$CODEX_HOME/config.toml`.
fn remove_codex_trust(
    env: &Environment,
    store: &Store,
    owner: &str,
    hooks_file: &Path,
    keys: &[String],
    removed: &[Removed],
) -> Result<FileChange> {
    let config = env.codex_home()?.join("config.toml");
    let current = fsio::read(&config)?;
    let mut toml = codex::parse(&text_of(current.as_deref(), &config)?, &config)?;
    let mut all_keys = keys.to_vec();
    if let Some(record) = store.load(&config)? {
        all_keys.extend(record.keys_of(owner));
    }
    for key in &all_keys {
        codex::remove_key(&mut toml, key);
    }
    codex::shift_after_removal(&mut toml, hooks_file, removed);
    let new = toml.to_string();
    let without = match &current {
        Some(bytes) if new.as_bytes() == bytes.as_slice() => Some(bytes.clone()),
        Some(_) => Some(new.into_bytes()),
        None => None,
    };
    let action = edit::revert(
        store,
        &config,
        owner,
        current.as_deref(),
        without.as_deref(),
    )?;
    Ok(FileChange {
        path: config,
        action,
    })
}

/// The trust key and hash of our Codex handler at `at`.
fn codex_trust(doc: &Json, path: &Path, at: Placement) -> Result<(String, String)> {
    let group = match doc.get("hooks").and_then(|h| h.get("PreToolUse")) {
        Some(Json::Array(groups)) => groups.get(at.group),
        _ => None,
    };
    let matcher = group.and_then(|g| g.get("matcher")).and_then(Json::as_str);
    let handler = match group.and_then(|g| g.get("hooks")) {
        Some(Json::Array(handlers)) => handlers.get(at.handler),
        _ => None,
    };
    let handler = handler.ok_or_else(|| Error::Shape {
        path: path.to_path_buf(),
        key: "hooks.PreToolUse".to_owned(),
        expected: "holding the handler just installed",
    })?;
    Ok((
        codex::trust_key(path, at),
        codex::trust_hash(matcher, handler),
    ))
}

/// Parses a JSON config (absent or blank: a new document) and guesses its indentation.
pub(crate) fn parse_json(
    current: Option<&[u8]>,
    path: &Path,
    layout: Layout,
) -> Result<(Json, Vec<u8>)> {
    let parse_error = |message: String| Error::Parse {
        path: path.to_path_buf(),
        format: "JSON",
        message,
    };
    let text = match current {
        Some(bytes) => std::str::from_utf8(bytes).map_err(|e| parse_error(e.to_string()))?,
        None => "",
    };
    if text.trim().is_empty() {
        let doc = if layout.versioned {
            Json::object([("version", Json::uint(1))])
        } else {
            Json::Object(Vec::new())
        };
        return Ok((doc, b"  ".to_vec()));
    }
    let doc = Json::parse(text).map_err(|e| parse_error(e.to_string()))?;
    Ok((doc, json::detect_indent(text)))
}

/// The text of a TOML file (empty when absent); not UTF-8 is a parse error.
fn text_of(bytes: Option<&[u8]>, path: &Path) -> Result<String> {
    String::from_utf8(bytes.unwrap_or_default().to_vec()).map_err(|error| Error::Parse {
        path: path.to_path_buf(),
        format: "TOML",
        message: error.to_string(),
    })
}

/// The owner id of an install: the harness and its hook file.
fn owner(harness: Harness, path: &Path) -> String {
    format!("{harness}@{}", path.display())
}

fn report(
    options: &InstallOptions,
    command: Option<String>,
    files: Vec<FileChange>,
    notes: Vec<String>,
) -> Report {
    Report {
        harness: options.harness,
        scope: options.scope,
        command,
        files,
        notes,
        inactive: Vec::new(),
    }
}

/// What the user should know about this harness once the hook is in place.
fn limits(harness: Harness, options: &InstallOptions) -> Vec<String> {
    let note = match harness {
        Harness::ClaudeCode if !options.claude_fail_closed => {
            "this Claude Code predates `onFailure` (2.1.295): the launcher turns a guard that fails into a deny, but a launcher that cannot start does not block"
        }
        Harness::Cline => {
            "enable hooks in Cline's settings; Cline cannot ask a human, so ASK becomes a cancel that tells the agent to ask"
        }
        _ => return Vec::new(),
    };
    vec![note.to_owned()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn environment(root: &Path) -> Environment {
        fs_err::create_dir_all(root.join("ws/.git")).unwrap();
        Environment {
            cwd: root.join("ws"),
            home: Some(root.join("home")),
            state_home: Some(root.join("state")),
            ..Environment::default()
        }
    }

    fn options(harness: Harness, scope: Scope) -> InstallOptions {
        InstallOptions {
            harness,
            scope,
            exe: PathBuf::from("/opt/agent-guard"),
            claude_fail_closed: true,
        }
    }

    #[test]
    fn codex_install_records_the_trust_codex_computes() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs_err::canonicalize(dir.path()).unwrap();
        let env = environment(&root);
        let report = install(&env, &options(Harness::Codex, Scope::Project)).unwrap();
        let launcher = root.join("state/agent-guard/bin/agent-guard-hook");
        let written: Vec<&Path> = report.files.iter().map(|f| f.path.as_path()).collect();
        assert_eq!(written.len(), 3);
        assert_eq!(written[2], launcher);
        let hooks_file = root.join("ws/.codex/hooks.json");
        let doc = Json::parse(&fs_err::read_to_string(&hooks_file).unwrap()).unwrap();
        let (key, hash) = codex_trust(
            &doc,
            &hooks_file,
            Placement {
                group: 0,
                handler: 0,
            },
        )
        .unwrap();
        let config = fs_err::read_to_string(root.join("home/.codex/config.toml")).unwrap();
        assert_eq!(
            config,
            format!("[hooks.state.\"{key}\"]\ntrusted_hash = \"{hash}\"\n")
        );
        assert!(report.notes.iter().any(|n| n.contains("trusted projects")));

        let report = uninstall(&env, Harness::Codex, Scope::Project).unwrap();
        let actions: Vec<Action> = report.files.iter().map(|f| f.action).collect();
        assert_eq!(actions, [Action::Removed, Action::Removed, Action::Removed]);
        assert!(!root.join("ws/.codex").exists());
        assert!(!root.join("home/.codex").exists());
        assert!(!launcher.exists() && !root.join("state/agent-guard/bin").exists());
    }

    /// Every command hook runs the guard through the one launcher; each install owns a
    /// share of it, and the last uninstall removes it.
    #[test]
    fn installs_share_the_launcher_until_the_last_uninstall() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs_err::canonicalize(dir.path()).unwrap();
        let env = environment(&root);
        let launcher = root.join("state/agent-guard/bin/agent-guard-hook");
        let report = install(&env, &options(Harness::QwenCode, Scope::Project)).unwrap();
        assert_eq!(
            report.command.as_deref(),
            Some(
                format!(
                    "'{}' --timeout 25 '/opt/agent-guard' check --enforce --harness qwen-code",
                    launcher.display()
                )
                .as_str()
            )
        );
        assert_eq!(fs_err::read_to_string(&launcher).unwrap(), launcher::SCRIPT);
        assert_eq!(fsio::mode(&launcher), Some(0o755));
        install(&env, &options(Harness::Cline, Scope::User)).unwrap();
        let cline =
            fs_err::read_to_string(root.join("home/Documents/Cline/Hooks/PreToolUse")).unwrap();
        assert!(cline.contains("exec '"), "{cline}");
        assert!(cline.contains("agent-guard-hook' --timeout 25 '/opt/agent-guard' check"));
        // The opencode plugin is its own launcher.
        let report = install(&env, &options(Harness::OpenCode, Scope::Project)).unwrap();
        assert_eq!(report.files.len(), 1);

        // A launcher someone made non-executable is repaired by the next install.
        fsio::write_atomic(&launcher, launcher::SCRIPT.as_bytes(), 0o644).unwrap();
        let report = install(&env, &options(Harness::QwenCode, Scope::Project)).unwrap();
        assert_eq!(report.files[1].action, Action::Modified);
        assert_eq!(fsio::mode(&launcher), Some(0o755));

        let report = uninstall(&env, Harness::QwenCode, Scope::Project).unwrap();
        assert_eq!(
            report.files[1].action,
            Action::Unchanged,
            "Cline still uses it"
        );
        assert!(launcher.is_file());
        let report = uninstall(&env, Harness::Cline, Scope::User).unwrap();
        assert_eq!(report.files[1].action, Action::Removed);
        assert!(!launcher.exists());
    }

    /// A hook the harness would not run is installed, and reported as inactive with the
    /// step that activates it: the CLI exits non-zero then.
    #[test]
    fn an_untrusted_copilot_folder_is_reported_inactive() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs_err::canonicalize(dir.path()).unwrap();
        let env = environment(&root);
        let report = install(&env, &options(Harness::Copilot, Scope::Project)).unwrap();
        assert_eq!(report.inactive.len(), 1, "{report:?}");
        let check = &report.inactive[0];
        assert_eq!(check.name, "folder-trust");
        let hint = check.hint.as_deref().unwrap();
        assert!(
            hint.contains(&format!("cd '{}' && copilot", root.join("ws").display()))
                && hint.contains("trustedFolders"),
            "{hint}"
        );
        assert!(root.join("ws/.github/hooks/agent-guard.json").is_file());
        let config = root.join("home/.copilot/config.json");
        fs_err::create_dir_all(config.parent().unwrap()).unwrap();
        let ws = root.join("ws").display().to_string();
        fs_err::write(
            &config,
            serde_json::json!({"trustedFolders": [ws]}).to_string(),
        )
        .unwrap();
        let report = install(&env, &options(Harness::Copilot, Scope::Project)).unwrap();
        assert!(report.inactive.is_empty(), "{report:?}");
        let report = install(&env, &options(Harness::Copilot, Scope::User)).unwrap();
        assert!(report.inactive.is_empty(), "{report:?}");
    }

    #[test]
    fn claude_without_on_failure_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let env = environment(dir.path());
        let mut options = options(Harness::ClaudeCode, Scope::User);
        options.claude_fail_closed = false;
        let report = install(&env, &options).unwrap();
        let text = fs_err::read_to_string(dir.path().join("home/.claude/settings.json")).unwrap();
        assert!(!text.contains("onFailure"), "{text}");
        assert!(report.notes.iter().any(|n| n.contains("onFailure")));
    }

    #[test]
    fn an_unchanged_install_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let env = environment(dir.path());
        let options = options(Harness::Windsurf, Scope::Project);
        install(&env, &options).unwrap();
        let again = install(&env, &options).unwrap();
        assert_eq!(again.files[0].action, Action::Unchanged);
    }
}
