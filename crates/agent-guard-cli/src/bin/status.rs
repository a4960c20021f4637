//! `status`: the same as `agent-guard status`.

#![no_main]

use clap::Parser;

/// Show the quarantine's usage, mode and recent decisions (same as `agent-guard status`)
#[derive(Debug, Parser)]
#[command(name = "status", version)]
struct Args {
    #[command(flatten)]
    args: agent_guard_cli::args::StatusArgs,
}

// Entered without the standard runtime's stack probe: see `agent_guard_start`.
agent_guard_start::main!(run);

fn run() -> u8 {
    let args = Args::parse();
    agent_guard_cli::commands::status::run(&args.args)
        .unwrap_or_else(|error| agent_guard_cli::report_error_as(&error, args.args.json))
        .code()
}
