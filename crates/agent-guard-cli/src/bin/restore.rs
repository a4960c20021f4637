//! `restore`: the same as `agent-guard restore`.

#![no_main]

use clap::Parser;

/// Put a quarantined transaction back (same as `agent-guard restore`)
#[derive(Debug, Parser)]
#[command(name = "restore", version)]
struct Args {
    #[command(flatten)]
    args: agent_guard_cli::args::RestoreArgs,
}

// Entered without the standard runtime's stack probe: see `agent_guard_start`.
agent_guard_start::main!(run);

fn run() -> u8 {
    let args = Args::parse();
    agent_guard_cli::commands::restore::restore(&args.args)
        .unwrap_or_else(|error| agent_guard_cli::report_error_as(&error, args.args.json))
        .code()
}
