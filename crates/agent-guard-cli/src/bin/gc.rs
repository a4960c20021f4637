//! `gc`: the same as `agent-guard gc`.

#![no_main]

use clap::Parser;

/// Plan, or execute, garbage collection of the quarantine (same as `agent-guard gc`)
#[derive(Debug, Parser)]
#[command(name = "gc", version)]
struct Args {
    #[command(flatten)]
    args: agent_guard_cli::args::GcArgs,
}

// Entered without the standard runtime's stack probe: see `agent_guard_start`.
agent_guard_start::main!(run);

fn run() -> u8 {
    let args = Args::parse();
    agent_guard_cli::commands::gc::run(&args.args)
        .unwrap_or_else(|error| agent_guard_cli::report_error_as(&error, args.args.json))
        .code()
}
