//! `safe_delete`: the same as `agent-guard safe-delete`.

use clap::Parser;

/// Move paths into the quarantine instead of deleting them (same as `agent-guard safe-delete`)
#[derive(Debug, Parser)]
#[command(name = "safe_delete", version)]
struct Args {
    #[command(flatten)]
    args: agent_guard_cli::args::SafeDeleteArgs,
}

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    agent_guard_cli::safe_delete::run(&args.args)
        .unwrap_or_else(|error| agent_guard_cli::report_error_as(&error, args.args.json))
        .into()
}
