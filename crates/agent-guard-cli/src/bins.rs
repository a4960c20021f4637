//! The short-named binaries `gc`, `restore`, `safe_delete` and `status`: each is one
//! `agent-guard` command under a name of its own, with the same arguments. (`check`, which
//! also reads hook mode's line, keeps its own `main`.)

use clap::{Args, Command, FromArgMatches};

use crate::args::{GcArgs, RestoreArgs, SafeDeleteArgs, StatusArgs};
use crate::exit_code::ExitCode;
use crate::{commands, report_error_as};

/// Runs the `gc` binary: the same as `agent-guard gc`.
pub fn gc() -> u8 {
    let about = "Plan, or execute, garbage collection of the quarantine (same as `agent-guard gc`)";
    run::<GcArgs>("gc", about, commands::gc::run, |args| args.json)
}

/// Runs the `restore` binary: the same as `agent-guard restore`.
pub fn restore() -> u8 {
    let about = "Put a quarantined transaction back (same as `agent-guard restore`)";
    run::<RestoreArgs>("restore", about, commands::restore::restore, |args| {
        args.json
    })
}

/// Runs the `safe_delete` binary: the same as `agent-guard safe-delete`.
pub fn safe_delete() -> u8 {
    let about = "Move paths into the quarantine instead of deleting them (same as `agent-guard safe-delete`)";
    run::<SafeDeleteArgs>("safe_delete", about, crate::safe_delete::run, |args| {
        args.json
    })
}

/// Runs the `status` binary: the same as `agent-guard status`.
pub fn status() -> u8 {
    let about =
        "Show the quarantine's usage, mode and recent decisions (same as `agent-guard status`)";
    run::<StatusArgs>("status", about, commands::status::run, |args| args.json)
}

/// Parses the process's arguments as `A` under the binary's `name` and `about` line (clap
/// exits on `--help`, `--version` and usage errors), runs `command` and reports its error, as
/// JSON too when `json` says the arguments ask for JSON.
fn run<A: Args + FromArgMatches>(
    name: &'static str,
    about: &'static str,
    command: fn(&A) -> anyhow::Result<ExitCode>,
    json: fn(&A) -> bool,
) -> u8 {
    agent_guard_engine::serve_watchers(agent_guard_engine::WatcherServer::Beside);
    // After the arguments, whose own doc comment would otherwise be the about text.
    let mut cli = A::augment_args(Command::new(name).version(env!("CARGO_PKG_VERSION")))
        .about(about)
        .long_about(None);
    let matches = cli.clone().get_matches();
    let args = A::from_arg_matches(&matches).unwrap_or_else(|error| error.format(&mut cli).exit());
    command(&args)
        .unwrap_or_else(|error| report_error_as(&error, json(&args)))
        .code()
}
