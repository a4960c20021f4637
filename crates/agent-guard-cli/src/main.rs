//! `agent-guard`: the umbrella binary.

#![no_main]

use clap::Parser as _;

// Entered without the standard runtime's stack probe: see `agent_guard_start`.
agent_guard_start::main!(run);

fn run() -> u8 {
    agent_guard_engine::serve_watchers(agent_guard_engine::WatcherServer::Own);
    let raw: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // The checkpoint watcher a checkpoint starts in the background (not a user command).
    if let [_, entry, workspace, trash, regenerable, artifacts @ ..] = raw.as_slice()
        && entry == agent_guard_engine::WATCH_ENTRY
    {
        agent_guard_start::close_inherited_descriptors();
        let artifacts = artifacts
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let started = agent_guard_engine::watch(
            workspace.as_ref(),
            trash.as_ref(),
            regenerable == "1",
            artifacts,
        );
        return u8::from(!started);
    }
    // The hook line every harness runs, read without building clap's command tree.
    if let [_, check, words @ ..] = raw.as_slice()
        && check == "check"
        && let Some(args) = agent_guard_cli::args::hook_only(words)
    {
        return agent_guard_cli::run(&agent_guard_cli::args::Cli {
            color: agent_guard_cli::args::ColorWhen::Auto,
            command: agent_guard_cli::args::Command::Check(args),
        })
        .code();
    }
    // Any other check line, read by a command tree holding `check` alone.
    if let Some(cli) = agent_guard_cli::args::check_only(&raw) {
        return agent_guard_cli::run(&cli).code();
    }
    match agent_guard_cli::args::Cli::try_parse_from(&raw) {
        Ok(cli) => agent_guard_cli::run(&cli).code(),
        // In hook mode a usage error is the harness's deny, never clap's exit 2.
        Err(error) => agent_guard_cli::hook_mode::usage_error(&raw, &error).code(),
    }
}
