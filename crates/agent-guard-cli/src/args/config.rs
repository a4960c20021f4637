//! `agent-guard config`.

use std::path::PathBuf;

/// Trust the project's `.agent-guard.toml` (a person's verb)
///
/// Settings in the workspace's `.agent-guard.toml` that would loosen the guard (a
/// quarantine elsewhere, extra regenerable artifacts, shorter retention, edit tools or
/// checkpoints off, a larger preservation cap) are set aside until a person trusts the file
/// as it is: its SHA-256 is recorded in the user's state directory, outside the workspace.
/// A changed file needs trust again. Settings that tighten the guard apply without trust.
#[derive(Debug, Clone, clap::Args)]
#[command(after_long_help = concat!(
    "Examples:\n",
    "  agent-guard config trust            # trust ./.agent-guard.toml as it is now\n",
    "  agent-guard config trust --cwd ws   # the file of another workspace\n\n",
    "Only a person at a terminal may trust: the command refuses under an agent's harness.\n",
    "Exit codes: 0 trusted, 1 refused or failed."
))]
pub struct ConfigArgs {
    /// What to do
    #[command(subcommand)]
    pub command: ConfigCommand,
}

/// The `config` subcommands.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum ConfigCommand {
    /// Trust the project file as it is now, so its loosening settings apply
    Trust(ConfigTrustArgs),
}

/// `config trust`.
#[derive(Debug, Clone, clap::Args)]
pub struct ConfigTrustArgs {
    /// The workspace directory [default: the current directory]
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// Print the result as JSON
    #[arg(long)]
    pub json: bool,
}
