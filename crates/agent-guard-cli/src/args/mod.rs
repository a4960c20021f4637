//! Command-line arguments (clap derive), one module per command.

mod check;
mod demo;
mod mode;

use clap::{Parser, Subcommand};

pub use check::CheckArgs;
pub use demo::DemoArgs;
pub use mode::ModeArgs;

/// Decide, before an AI agent's shell command runs, whether its deletes can be undone.
///
/// agent-guard sits between a coding agent and the shell. Deletes it can make recoverable are
/// moved into a quarantine (`.agent-trash/`) or snapshotted in git first; the rest are
/// refused or referred to a human. Every decision is audited.
#[derive(Debug, Parser)]
#[command(name = "agent-guard", version, propagate_version = true)]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Judge a shell command before it runs
    Check(CheckArgs),
    /// Run a self-contained demo on a temporary workspace
    Demo(DemoArgs),
    /// Show or change the session's authorisation mode
    Mode(ModeArgs),
}
