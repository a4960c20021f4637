//! `restore`: the same as `agent-guard restore`.

use clap::Parser;

/// Put a quarantined transaction back (same as `agent-guard restore`)
#[derive(Debug, Parser)]
#[command(name = "restore", version)]
struct Args {
    #[command(flatten)]
    args: agent_guard_cli::args::RestoreArgs,
}

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    agent_guard_cli::commands::restore::restore(&args.args)
        .unwrap_or_else(|error| agent_guard_cli::report_error_as(&error, args.args.json))
        .into()
}
