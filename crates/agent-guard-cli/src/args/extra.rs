//! `explain`, `approve`, `completions`, `man`.

use std::path::PathBuf;

/// Explain a reason code: what it catches, why, an example, the verdict and how to recover
///
/// The text is the code's section of `docs/reasons.md`, from the same registry.
#[derive(Debug, Clone, clap::Args)]
#[command(after_long_help = concat!(
    "Examples:\n",
    "  agent-guard explain BLOCK_WILDCARD\n",
    "  agent-guard explain relocate_tree   # case and dashes do not matter\n",
    "  agent-guard explain                 # every code, one line each\n\n",
    "Exit codes: 0 explained, 2 unknown code."
))]
pub struct ExplainArgs {
    /// The reason code (omit it to list every code)
    #[arg(value_name = "CODE")]
    pub code: Option<String>,

    /// Print it as JSON
    #[arg(long)]
    pub json: bool,
}

/// Approve, once, a command the guard asked a human about (ASK)
///
/// For harnesses that cannot prompt (Codex, Gemini CLI, Cline, Windsurf, …), the agent is told
/// to ask you to approve. Without ID, lists what is waiting; with ID, shows the exact command,
/// directory and workspace and asks for confirmation. The approval needs a terminal, is bound
/// to that exact command, directory and workspace, is used up by the agent's next identical
/// command, and expires after `--minutes` (default 15). It is audited.
#[derive(Debug, Clone, clap::Args)]
#[command(after_long_help = concat!(
    "Examples:\n",
    "  agent-guard approve                        # what is waiting for approval\n",
    "  agent-guard approve 20261201-084000-b3dc   # approve that one, after confirmation\n\n",
    "Exit codes: 0 approved (or listed), 1 refused or no terminal, 2 usage error."
))]
pub struct ApproveArgs {
    /// The request's id, as the guard printed it (a unique part is enough)
    #[arg(value_name = "ID")]
    pub id: Option<String>,

    /// How long the approval stays valid
    #[arg(long, default_value_t = 15, value_name = "N")]
    pub minutes: u32,

    /// The workspace directory [default: the current directory]
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// Print the result as JSON (listing only; approving needs a terminal)
    #[arg(long)]
    pub json: bool,
}

/// Print a shell completion script for agent-guard
#[derive(Debug, Clone, clap::Args)]
#[command(after_long_help = concat!(
    "Examples:\n",
    "  agent-guard completions bash > ~/.local/share/bash-completion/completions/agent-guard\n",
    "  agent-guard completions zsh > ~/.zfunc/_agent-guard\n",
    "  agent-guard completions fish > ~/.config/fish/completions/agent-guard.fish"
))]
pub struct CompletionsArgs {
    /// The shell
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Print agent-guard's man page (roff), or write every page into a directory
#[derive(Debug, Clone, clap::Args)]
#[command(after_long_help = concat!(
    "Examples:\n",
    "  agent-guard man | man -l -\n",
    "  agent-guard man --dir ~/.local/share/man/man1   # agent-guard.1 and one page per command"
))]
pub struct ManArgs {
    /// Write `agent-guard.1` and `agent-guard-<command>.1` into this directory
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}
