//! `agent-guard mode`.

use std::path::PathBuf;

/// Show or change the session's authorisation mode
///
/// A RESTRICTED session may only delete single files (recoverably); recursive deletes, git
/// destructive commands and compound lines are refused, and nothing is referred to a human.
/// Anyone may restrict a session. Returning to NORMAL requires a human at an interactive
/// terminal. The session is selected by `AGENT_GUARD_SESSION`.
#[derive(Debug, Clone, clap::Args)]
#[command(after_long_help = concat!(
    "Examples:\n",
    "  agent-guard mode               # show it\n",
    "  agent-guard mode restricted    # anyone, any time\n",
    "  agent-guard mode normal        # a person, at a terminal\n\n",
    "Exit codes: 0 shown or changed, 1 refused (no terminal) or failed."
))]
pub struct ModeArgs {
    /// The new mode; omit it to show the current one
    #[arg(value_parser = ["normal", "restricted"])]
    pub mode: Option<String>,

    /// The workspace directory [default: the current directory]
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// Print the result as JSON
    #[arg(long)]
    pub json: bool,
}
