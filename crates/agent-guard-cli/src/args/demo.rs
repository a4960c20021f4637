//! `agent-guard demo`.

/// Run a self-contained demo on a temporary workspace
///
/// Creates a throw-away git workspace with a build directory, ignored `node_modules`, notes,
/// source files and a clean-up script. Runs four destructive commands for real, each after
/// `check --enforce` (a delete, an overwrite, a git reset and the script, which the guard
/// cannot see into), shows what each destroyed and what `list` kept, then undoes all four
/// and compares every file byte for byte. Last, prints the guard's verdict on a couple of
/// dozen more commands an agent might run. Nothing outside the temporary directory is
/// touched; it is removed afterwards unless `--keep` is given.
#[derive(Debug, Clone, clap::Args)]
#[command(after_long_help = concat!(
    "Examples:\n",
    "  agent-guard demo\n",
    "  agent-guard demo --keep    # keep the workspace to try commands in it\n\n",
    "Exit codes: 0 the demo ran and every file came back, 1 it could not set up its\n",
    "workspace, or a command could not run, or a file did not come back."
))]
pub struct DemoArgs {
    /// Keep the temporary workspace and print its path
    #[arg(long)]
    pub keep: bool,

    /// Print the verdicts as JSON
    #[arg(long)]
    pub json: bool,
}
