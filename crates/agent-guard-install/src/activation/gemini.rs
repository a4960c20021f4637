//! Gemini CLI 0.61: folder trust and the hook switches.
//!
//! - Folder trust is on by default (`security.folderTrust.enabled`). In a folder that is not
//!   trusted Gemini CLI loads **no** hooks, the user's included; headless `-p` refuses to start
//!   there (exit 55), interactive sessions run shell commands on the user's approval alone.
//!   The rules live in `~/.gemini/trustedFolders.json` (`GEMINI_CLI_TRUST_WORKSPACE=true` or
//!   `--skip-trust` trust for one run).
//! - Settings precedence: system defaults < user < workspace (only when trusted) < system
//!   (`/etc/gemini-cli/settings.json`). `hooksConfig.enabled: false` turns every hook off;
//!   `hooksConfig.disabled` (merged as a union) switches hooks off by name, and ours is named
//!   `agent-guard`.

use crate::activation::settings::{self, FolderTrust, Layer};
use crate::activation::trusted_folder_check;
use crate::doctor::Check;
use crate::harness::Environment;

/// Our hook's `name` in Gemini's settings (`hooksConfig.disabled` lists names).
const HOOK_NAME: &str = "agent-guard";

pub(super) fn checks(env: &Environment) -> Vec<Check> {
    let Ok(dir) = env.gemini_dir() else {
        return Vec::new();
    };
    let workspace = env.workspace();
    let system = settings::system_dir("gemini-cli", "GeminiCli");
    let defaults = Layer::read(system.join("system-defaults.json"));
    let user = Layer::read(dir.join("settings.json"));
    let system = Layer::read(system.join("settings.json"));

    let trust_layers = [defaults, user, system];
    let enabled = settings::last_bool(&trust_layers, "security.folderTrust.enabled")
        .is_none_or(|(enabled, _)| enabled);
    let file = dir.join("trustedFolders.json");
    let trust = enabled.then(|| settings::folder_trust(settings::read(&file).as_ref(), &workspace));
    let mut checks = vec![trusted_folder_check(
        "Gemini CLI",
        trust,
        &workspace,
        &file,
        "it runs no hooks there (`gemini -p` refuses to start; an interactive session runs shell commands on the user's approval alone)",
    )];

    let [defaults, user, system] = trust_layers;
    let workspace_layer = match trust {
        None | Some(FolderTrust::Trusted) => Layer::read(workspace.join(".gemini/settings.json")),
        Some(_) => Layer {
            path: workspace.join(".gemini/settings.json"),
            settings: None,
        },
    };
    let layers = [defaults, user, workspace_layer, system];
    checks.push(match settings::last_bool(&layers, "hooksConfig.enabled") {
        Some((false, file)) => Check::fail(
            "hooks-enabled",
            format!(
                "`hooksConfig.enabled` is false in `{}`: Gemini CLI runs no hooks",
                file.display()
            ),
            "remove `hooksConfig.enabled: false` (or set it to true)".to_owned(),
        ),
        _ => match layers.iter().find(|layer| lists_ours(layer)) {
            Some(layer) => Check::fail(
                "hooks-enabled",
                format!(
                    "`hooksConfig.disabled` in `{}` lists `{HOOK_NAME}`: Gemini CLI skips the hook",
                    layer.path.display()
                ),
                format!("remove `{HOOK_NAME}` from `hooksConfig.disabled`"),
            ),
            None => Check::pass("hooks-enabled", "Gemini CLI's hooks are on".to_owned()),
        },
    });
    checks
}

/// Whether a layer's `hooksConfig.disabled` names our hook.
fn lists_ours(layer: &Layer) -> bool {
    layer
        .settings
        .as_ref()
        .and_then(|s| settings::lookup(s, "hooksConfig.disabled"))
        .and_then(serde_json::Value::as_array)
        .is_some_and(|names| names.iter().any(|n| n.as_str() == Some(HOOK_NAME)))
}
