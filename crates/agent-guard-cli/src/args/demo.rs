//! `agent-guard demo`.

/// Run a self-contained demo on a temporary workspace
///
/// Creates a throw-away git workspace with a build directory, ignored `node_modules`, notes
/// and source files, then prints the guard's verdict on a dozen commands an agent might run.
/// Nothing outside the temporary directory is touched; it is removed afterwards unless
/// `--keep` is given.
#[derive(Debug, Clone, clap::Args)]
#[command(after_long_help = concat!(
    "Examples:\n",
    "  agent-guard demo\n",
    "  agent-guard demo --keep    # keep the workspace to try commands in it\n\n",
    "Exit codes: 0 the demo ran, 1 it could not set up its workspace."
))]
pub struct DemoArgs {
    /// Keep the temporary workspace and print its path
    #[arg(long)]
    pub keep: bool,

    /// Print the verdicts as JSON
    #[arg(long)]
    pub json: bool,
}
