//! `agent-guard`: the umbrella binary.

use clap::Parser as _;

fn main() -> std::process::ExitCode {
    let raw: Vec<std::ffi::OsString> = std::env::args_os().collect();
    match agent_guard_cli::args::Cli::try_parse_from(&raw) {
        Ok(cli) => agent_guard_cli::run(&cli).into(),
        // In hook mode a usage error is the harness's deny, never clap's exit 2.
        Err(error) => agent_guard_cli::hook_mode::usage_error(&raw, &error).into(),
    }
}
