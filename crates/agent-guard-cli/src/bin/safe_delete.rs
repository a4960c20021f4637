//! `safe_delete`: the same as `agent-guard safe-delete`.

#![no_main]

use clap::Parser;

/// Move paths into the quarantine instead of deleting them (same as `agent-guard safe-delete`)
#[derive(Debug, Parser)]
#[command(name = "safe_delete", version)]
struct Args {
    #[command(flatten)]
    args: agent_guard_cli::args::SafeDeleteArgs,
}

// Entered without the standard runtime's stack probe: see `agent_guard_start`.
agent_guard_start::main!(run);

fn run() -> u8 {
    let args = Args::parse();
    agent_guard_cli::safe_delete::run(&args.args)
        .unwrap_or_else(|error| agent_guard_cli::report_error_as(&error, args.args.json))
        .code()
}
