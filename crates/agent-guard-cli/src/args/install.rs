//! `agent-guard install`, `uninstall` and `doctor`.

use std::path::PathBuf;

/// The harness names `install` and `uninstall` accept.
const HARNESSES: [&str; 10] = [
    "claude-code",
    "codex",
    "gemini",
    "copilot",
    "cursor",
    "cline",
    "windsurf",
    "qwen-code",
    "opencode",
    "generic",
];

/// The harness names, with the other names they are known by (`qwen` for `qwen-code`).
fn harness_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(HARNESSES.map(|name| {
        let value = clap::builder::PossibleValue::new(name);
        agent_guard_types::Harness::ALIASES
            .iter()
            .filter(|(_, harness)| harness.name() == name)
            .fold(value, |value, (alias, _)| value.alias(alias))
    }))
}

/// Install agent-guard's hook into a harness's configuration
///
/// Adds one pre-tool hook entry running `'<this binary>' check --enforce --harness HARNESS`
/// to the harness's own config file, keeping every other setting, hook and comment. Running
/// it again changes nothing. The hook runs the binary through the launcher
/// `$XDG_STATE_HOME/agent-guard/bin/agent-guard-hook` (a small `sh` script install writes),
/// which answers with the harness's deny when the binary is missing, fails, crashes or does
/// not answer within 25 s. Where the harness offers a fail-closed option it is set too
/// (Claude Code `onFailure: "block"`, Cursor `failClosed: true`); for Codex the hook's trust
/// is recorded in `$CODEX_HOME/config.toml`, so Codex runs it without a review prompt.
///
/// Files: Claude Code `.claude/settings.json`, Codex `.codex/hooks.json`, Gemini
/// `.gemini/settings.json`, Copilot `.github/hooks/agent-guard.json` (user:
/// `~/.copilot/hooks/`), Cursor `.cursor/hooks.json`, Cline `.clinerules/hooks/PreToolUse`
/// (user: `~/Documents/Cline/Hooks/`), Windsurf `.windsurf/hooks.json` (user:
/// `~/.codeium/windsurf/`), Qwen Code `.qwen/settings.json`, `OpenCode` the plugin
/// `.opencode/plugins/agent-guard.js` (user: `~/.config/opencode/plugins/`). The previous bytes
/// of every file are kept under `$XDG_STATE_HOME/agent-guard/installs/` for `uninstall`. Where
/// the harness would not run the hook at all (a folder it does not trust, such as Copilot
/// CLI's, which skips the hook silently; hooks switched off), install writes the hook, names
/// the step that activates it and exits 1; `agent-guard doctor` checks it.
#[derive(Debug, Clone, clap::Args)]
#[command(after_long_help = concat!(
    "Examples:\n",
    "  agent-guard install claude-code          # this workspace's .claude/settings.json\n",
    "  agent-guard install codex --user         # ~/.codex\n",
    "  agent-guard doctor                       # then check it works\n\n",
    "Harnesses: claude-code, codex, gemini, copilot, cursor, cline, windsurf, qwen-code, \
     opencode.\n",
    "Exit codes: 0 installed (or already), 1 failed or the harness would not run the hook, \
     2 usage error."
))]
pub struct InstallArgs {
    /// The harness
    #[arg(value_name = "HARNESS", value_parser = harness_names())]
    pub harness: String,

    /// Which configuration to edit
    #[command(flatten)]
    pub scope: ScopeArgs,

    /// The directory the workspace is found from [default: the current directory]
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// Print the result as JSON
    #[arg(long)]
    pub json: bool,
}

/// Remove agent-guard's hook from a harness's configuration
///
/// A file that is still exactly what `install` wrote gets its previous bytes back (or is
/// removed, with the directories install created, if it did not exist). A file changed since
/// keeps the change: only agent-guard's entry is removed.
#[derive(Debug, Clone, clap::Args)]
#[command(after_long_help = concat!(
    "Examples:\n",
    "  agent-guard uninstall claude-code\n",
    "  agent-guard uninstall codex --user\n\n",
    "Exit codes: 0 removed (or nothing to remove), 1 failed, 2 usage error."
))]
pub struct UninstallArgs {
    /// The harness
    #[arg(value_name = "HARNESS", value_parser = harness_names())]
    pub harness: String,

    /// Which configuration to edit
    #[command(flatten)]
    pub scope: ScopeArgs,

    /// The directory the workspace is found from [default: the current directory]
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// Print the result as JSON
    #[arg(long)]
    pub json: bool,
}

/// The scope flags shared by `install` and `uninstall`.
#[derive(Debug, Clone, Copy, clap::Args)]
#[group(multiple = false)]
pub struct ScopeArgs {
    /// The workspace's config (nearest ancestor with `.git`) (the default)
    #[arg(long)]
    pub project: bool,

    /// The user's config under the home directory
    #[arg(long)]
    pub user: bool,
}

/// Check every installed agent-guard hook
///
/// For each harness, in the project and the user config: is agent-guard's hook installed,
/// does its command point at an executable, is the harness's fail-closed option set, does the
/// hook run through the launcher and is the launcher exactly what install writes (present,
/// executable, protected, its timeout below the harness's), is Codex trust recorded, would
/// the harness run it at all (Copilot's and Gemini's folder trust, switches such as
/// `disableAllHooks`); then the exact hook command is run with a synthetic payload in the
/// harness's format, in a temporary workspace: `rm -rf /` must come back denied and `ls`
/// allowed, and the launcher must deny in front of a guard that does not exist. Exit code 0
/// when every installed hook passes, 1 otherwise.
#[derive(Debug, Clone, clap::Args)]
#[command(after_long_help = concat!(
    "Examples:\n",
    "  agent-guard doctor\n",
    "  agent-guard doctor --json | jq '.hooks[].checks'\n\n",
    "Exit codes: 0 every installed hook passes, 1 otherwise."
))]
pub struct DoctorArgs {
    /// The directory the workspace is found from [default: the current directory]
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// Print the result as JSON
    #[arg(long)]
    pub json: bool,
}
