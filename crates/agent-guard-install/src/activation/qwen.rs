//! Qwen Code 0.24: folder trust and `disableAllHooks`.
//!
//! - Folder trust is **off** by default (`security.folderTrust.enabled`). When it is on, a
//!   project's hooks load only in a trusted folder (`~/.qwen/trustedFolders.json`); the user's
//!   hooks load everywhere.
//! - Settings precedence: system defaults < user < workspace (when trusted) < system
//!   (`/etc/qwen-code/settings.json`). `disableAllHooks: true` turns every hook off (so do
//!   `--bare` and safe mode, for one run).

use crate::activation::settings::{self, FolderTrust, Layer};
use crate::activation::trusted_folder_check;
use crate::doctor::Check;
use crate::harness::{Environment, Scope};

pub(super) fn checks(env: &Environment, scope: Scope) -> Vec<Check> {
    let Ok(dir) = env.qwen_dir() else {
        return Vec::new();
    };
    let workspace = env.workspace();
    let system = settings::system_dir("qwen-code", "QwenCode");
    let defaults = Layer::read(system.join("system-defaults.json"));
    let user = Layer::read(dir.join("settings.json"));
    let system = Layer::read(system.join("settings.json"));

    let trust_layers = [defaults, user, system];
    let enabled = settings::last_bool(&trust_layers, "security.folderTrust.enabled")
        .is_some_and(|(enabled, _)| enabled);
    let file = dir.join("trustedFolders.json");
    let trust = enabled.then(|| settings::folder_trust(settings::read(&file).as_ref(), &workspace));
    let mut checks = Vec::new();
    if scope == Scope::Project {
        checks.push(trusted_folder_check(
            "Qwen Code",
            trust,
            &workspace,
            &file,
            "it does not load the project's hooks (`.qwen/settings.json`)",
        ));
    }

    let [defaults, user, system] = trust_layers;
    let workspace_layer = match trust {
        None | Some(FolderTrust::Trusted) => Layer::read(workspace.join(".qwen/settings.json")),
        Some(_) => Layer {
            path: workspace.join(".qwen/settings.json"),
            settings: None,
        },
    };
    let layers = [defaults, user, workspace_layer, system];
    checks.push(match settings::last_bool(&layers, "disableAllHooks") {
        Some((true, file)) => Check::fail(
            "hooks-enabled",
            format!(
                "`disableAllHooks` is true in `{}`: Qwen Code runs no hooks",
                file.display()
            ),
            "remove `disableAllHooks: true` (or set it to false)".to_owned(),
        ),
        _ => Check::pass("hooks-enabled", "Qwen Code's hooks are on".to_owned()),
    });
    checks
}
