//! `gc`: the same as `agent-guard gc`.

use clap::Parser;

/// Plan, or execute, garbage collection of the quarantine (same as `agent-guard gc`)
#[derive(Debug, Parser)]
#[command(name = "gc", version)]
struct Args {
    #[command(flatten)]
    args: agent_guard_cli::args::GcArgs,
}

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    agent_guard_cli::commands::gc::run(&args.args)
        .unwrap_or_else(|error| agent_guard_cli::report_error_as(&error, args.args.json))
        .into()
}
