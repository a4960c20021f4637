//! Copilot CLI 1.0.102: folder trust and `disableAllHooks`.
//!
//! - Repository hooks (`.github/hooks/*.json`, and Claude Code's `.claude/settings.json`) run
//!   only in a trusted folder: one listed, or inside one listed, in `trustedFolders` of
//!   `$COPILOT_HOME/config.json` (`COPILOT_ALLOW_ALL=true` trusts everything). In any other
//!   folder Copilot skips them **silently**, in `copilot -p` too, and the tool runs. A
//!   `trustedFolders` list in `settings.json` was not honoured by `-p`. User hooks
//!   (`$COPILOT_HOME/hooks/*.json`) need no trust.
//! - `disableAllHooks: true` in the repository's `.github/copilot/settings.json` (or
//!   `settings.local.json`) turns hooks off. The same key in the user's `settings.json` is
//!   documented to, but did not stop a repository hook under `-p`.

use crate::activation::settings::{self, Layer};
use crate::doctor::Check;
use crate::harness::{Environment, Scope};

pub(super) fn checks(env: &Environment, scope: Scope) -> Vec<Check> {
    let Ok(home) = env.copilot_home() else {
        return Vec::new();
    };
    let workspace = env.workspace();
    let mut checks = Vec::new();
    if scope == Scope::Project {
        let config = home.join("config.json");
        let folders = settings::read(&config);
        let ws = workspace.display();
        checks.push(
            if settings::listed(folders.as_ref().and_then(|c| c.get("trustedFolders")), &workspace) {
                Check::pass(
                    "folder-trust",
                    format!("Copilot CLI trusts `{ws}` (`{}`)", config.display()),
                )
            } else {
                Check::fail(
                    "folder-trust",
                    format!(
                        "Copilot CLI does not trust `{ws}`: it skips repository hooks there silently (`copilot -p` included), so this hook never runs"
                    ),
                    format!(
                        "trust the folder yourself: run `cd {quoted} && copilot` and answer \"Yes, and remember this folder for future sessions\", or add \"{ws}\" to `trustedFolders` in `{}`; or install with --user (user hooks need no trust)",
                        config.display(),
                        quoted = crate::shell::quote(&ws.to_string()),
                    ),
                )
            },
        );
    }
    let repo = workspace.join(".github/copilot");
    let repo_layers = [
        Layer::read(repo.join("settings.json")),
        Layer::read(repo.join("settings.local.json")),
    ];
    let user = [Layer::read(home.join("settings.json"))];
    checks.push(match settings::last_bool(&repo_layers, "disableAllHooks") {
        Some((true, file)) => Check::fail(
            "hooks-enabled",
            format!(
                "`disableAllHooks` is true in `{}`: Copilot CLI runs no hooks in this repository",
                file.display()
            ),
            "remove `disableAllHooks: true` (or set it to false)".to_owned(),
        ),
        _ => match settings::last_bool(&user, "disableAllHooks") {
            Some((true, file)) => Check::warn(
                "hooks-enabled",
                format!(
                    "`disableAllHooks` is true in `{}`: documented to turn every hook off (Copilot CLI 1.0.102 still ran hooks under `-p`)",
                    file.display()
                ),
                "remove `disableAllHooks: true` from the user settings".to_owned(),
            ),
            _ => Check::pass("hooks-enabled", "Copilot CLI's hooks are on".to_owned()),
        },
    });
    checks
}
