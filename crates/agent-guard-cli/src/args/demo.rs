//! `agent-guard demo`.

/// Run a self-contained demo on a temporary workspace
///
/// Creates a throw-away git workspace with a build directory, ignored `node_modules`, notes
/// and source files, then prints the guard's verdict on a dozen commands an agent might run.
/// Nothing outside the temporary directory is touched; it is removed afterwards unless
/// `--keep` is given.
#[derive(Debug, Clone, clap::Args)]
pub struct DemoArgs {
    /// Keep the temporary workspace and print its path
    #[arg(long)]
    pub keep: bool,

    /// Print the verdicts as JSON
    #[arg(long)]
    pub json: bool,
}
