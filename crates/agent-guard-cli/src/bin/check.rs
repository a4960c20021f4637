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
    let raw: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let args = match Args::try_parse_from(&raw) {
        Ok(args) => args,
        // In hook mode a usage error is the harness's deny, never clap's exit 2.
        Err(error) => return agent_guard_cli::hook_mode::usage_error(&raw, &error).into(),
    };
    agent_guard_cli::check::run(&args.check)
        .unwrap_or_else(|error| agent_guard_cli::report_error_as(&error, args.check.json))
        .into()
}
