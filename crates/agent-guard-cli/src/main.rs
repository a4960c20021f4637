//! `agent-guard`: the umbrella binary.

use clap::Parser;

fn main() -> std::process::ExitCode {
    let cli = agent_guard_cli::args::Cli::parse();
    agent_guard_cli::run(&cli).into()
}
