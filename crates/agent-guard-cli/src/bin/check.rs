//! `check`: the same as `agent-guard check`.

#![no_main]

use clap::Parser;

/// Judge a shell command before it runs (same as `agent-guard check`)
#[derive(Debug, Parser)]
#[command(name = "check", version)]
struct Args {
    #[command(flatten)]
    check: agent_guard_cli::args::CheckArgs,
}

// Entered without the standard runtime's stack probe: see `agent_guard_start`.
agent_guard_start::main!(run);

fn run() -> u8 {
    agent_guard_engine::serve_watchers(agent_guard_engine::WatcherServer::Beside);
    let raw: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // The hook line every harness runs, read without building clap's command tree.
    if let Some(args) = raw.get(1..).and_then(agent_guard_cli::args::hook_only) {
        return agent_guard_cli::hook_mode::run(&args).code();
    }
    let args = match Args::try_parse_from(&raw) {
        Ok(args) => args,
        // In hook mode a usage error is the harness's deny, never clap's exit 2.
        Err(error) => return agent_guard_cli::hook_mode::usage_error(&raw, &error).code(),
    };
    agent_guard_cli::check::run(&args.check)
        .unwrap_or_else(|error| agent_guard_cli::report_error_as(&error, args.check.json))
        .code()
}
