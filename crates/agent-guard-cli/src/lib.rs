//! The agent-guard command line: argument parsing, printing and exit codes over the engine.
//!
//! Every binary (`agent-guard`, `check`, …) is a thin `main` that parses its clap struct and
//! calls one function here. Data goes to stdout, messages to stderr.

#![warn(missing_docs)]

pub mod args;
pub mod bins;
pub mod check;
pub mod commands;
pub mod demo;
pub mod exit_code;
pub mod hook_mode;
pub mod human;
pub mod install;
pub mod mode;
pub mod person;
pub mod printer;
pub mod progress;
pub mod prompt;
pub mod safe_delete;
pub mod style;

use args::{Cli, Command};
use exit_code::ExitCode;

/// Runs a parsed `agent-guard` command line.
pub fn run(cli: &Cli) -> ExitCode {
    style::apply(cli.color);
    let result = match &cli.command {
        Command::Check(args) => check::run(args),
        Command::SafeDelete(args) => safe_delete::run(args),
        Command::Restore(args) => commands::restore::restore(args),
        Command::Undo(args) => commands::restore::undo(args),
        Command::Redo(args) => commands::restore::redo(args),
        Command::List(args) => commands::list::run(args),
        Command::Show(args) => commands::show::run(args),
        Command::Status(args) => commands::status::run(args),
        Command::Gc(args) => commands::gc::run(args),
        Command::Explain(args) => commands::explain::run(args),
        Command::Approve(args) => commands::approve::run(args),
        Command::Completions(args) => commands::docs::completions(args),
        Command::Man(args) => commands::docs::man(args),
        Command::Demo(args) => demo::run(args),
        Command::Mode(args) => mode::run(args),
        Command::Install(args) => install::install(args),
        Command::Uninstall(args) => install::uninstall(args),
        Command::Doctor(args) => install::doctor(args),
        Command::Audit(args) => commands::audit::run(args),
        Command::Config(args) => commands::config::run(args),
    };
    result.unwrap_or_else(|error| report_error_as(&error, cli.command.json()))
}

/// Prints an error with its causes (uv style) and returns the internal-error exit code.
pub fn report_error(error: &anyhow::Error) -> ExitCode {
    report_error_as(error, false)
}

/// [`report_error`]; with `json`, the error is also printed on stdout as
/// `{"error", "causes", "exit"}`, so a `--json` caller always gets JSON.
pub fn report_error_as(error: &anyhow::Error, json: bool) -> ExitCode {
    if json {
        printer::json(&serde_json::json!({
            "error": error.to_string(),
            "causes": error.chain().skip(1).map(ToString::to_string).collect::<Vec<_>>(),
            "exit": ExitCode::InternalError.code(),
        }));
    }
    let causes: Vec<String> = error.chain().skip(1).map(ToString::to_string).collect();
    printer::error(&error.to_string(), &causes);
    ExitCode::InternalError
}
