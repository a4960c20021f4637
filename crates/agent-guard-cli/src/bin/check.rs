//! `check`: the same as `agent-guard check`.

use clap::Parser;

/// Judge a shell command before it runs (same as `agent-guard check`)
#[derive(Debug, Parser)]
#[command(name = "check", version)]
struct Args {
    #[command(flatten)]
    check: agent_guard_cli::args::CheckArgs,
}

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    agent_guard_cli::check::run(&args.check)
        .unwrap_or_else(|error| agent_guard_cli::report_error(&error))
        .into()
}
