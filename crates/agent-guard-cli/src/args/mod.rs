//! Command-line arguments (clap derive), one module per command.

mod audit;
mod check;
mod check_line;
mod config;
mod demo;
mod extra;
mod history;
mod hook_line;
mod install;
mod mode;
mod safe_delete;

use clap::{Parser, Subcommand};

pub use audit::{AuditArgs, AuditCommand, AuditVerifyArgs};
pub use check::CheckArgs;
pub use check_line::check_only;
pub use config::{ConfigArgs, ConfigCommand, ConfigTrustArgs};
pub use demo::DemoArgs;
pub use extra::{ApproveArgs, CompletionsArgs, ExplainArgs, ManArgs};
pub use history::{GcArgs, ListArgs, RedoArgs, RestoreArgs, ShowArgs, StatusArgs, UndoArgs};
pub use hook_line::hook_only;
pub use install::{DoctorArgs, InstallArgs, ScopeArgs, UninstallArgs};
pub use mode::ModeArgs;
pub use safe_delete::SafeDeleteArgs;

/// Decide, before an AI agent's shell command runs, whether its deletes can be undone.
///
/// agent-guard sits between a coding agent and the shell. Deletes it can make recoverable are
/// moved into a quarantine (`.agent-trash/`) or snapshotted in git first; the rest are
/// refused or referred to a human. Every decision is audited.
#[derive(Debug, Parser)]
#[command(
    name = "agent-guard",
    version,
    propagate_version = true,
    styles = crate::style::clap_styles(),
    after_long_help = concat!(
        "Getting something back:\n",
        "  agent-guard list                 # what is quarantined, newest first\n",
        "  agent-guard show @               # what the newest transaction holds\n",
        "  agent-guard undo                 # put it back (again: the one before)\n",
        "  agent-guard restore src/app.py   # the newest kept version of a file\n\n",
        "Exit codes: 0 success or proceed, 1 internal error (restore: errors), 2 refused or usage \
         error, 3 a human must approve (restore: conflicts). `agent-guard explain CODE` explains \
         a reason code."
    )
)]
pub struct Cli {
    /// When to colour the output: `auto` (a terminal, unless `NO_COLOR` is set), `always`,
    /// `never`
    #[arg(long, global = true, value_name = "WHEN", default_value = "auto")]
    pub color: ColorWhen,

    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// When to colour the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorWhen {
    /// On a terminal, unless `NO_COLOR` is set (`CLICOLOR_FORCE` forces it).
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Judge a shell command before it runs
    Check(CheckArgs),
    /// Move paths into the quarantine instead of deleting them
    SafeDelete(SafeDeleteArgs),
    /// Put a quarantined transaction back
    Restore(RestoreArgs),
    /// Undo the newest delete or overwrite of this workspace (again: the one before)
    Undo(UndoArgs),
    /// Put back what the last undo replaced
    Redo(RedoArgs),
    /// List this workspace's quarantine transactions
    List(ListArgs),
    /// Show one transaction's items, sizes and original paths
    Show(ShowArgs),
    /// Show usage, mode, recent decisions; reconcile interrupted relocations
    Status(StatusArgs),
    /// Plan, or execute, garbage collection of old transactions
    Gc(GcArgs),
    /// Run a self-contained demo on a temporary workspace
    Demo(DemoArgs),
    /// Show or change the session's authorisation mode
    Mode(ModeArgs),
    /// Install agent-guard's hook into a harness's configuration
    Install(InstallArgs),
    /// Remove agent-guard's hook from a harness's configuration
    Uninstall(UninstallArgs),
    /// Check every installed agent-guard hook
    Doctor(DoctorArgs),
    /// Explain a reason code (the section of docs/reasons.md)
    Explain(ExplainArgs),
    /// Approve, once, a command the guard asked a human about
    Approve(ApproveArgs),
    /// Print a shell completion script
    Completions(CompletionsArgs),
    /// Print the man page (roff)
    Man(ManArgs),
    /// Inspect the audit log (`audit verify`: check its hash chain)
    Audit(AuditArgs),
    /// Trust the project's `.agent-guard.toml` so its loosening settings apply (a person)
    Config(ConfigArgs),
}

impl Command {
    /// Whether the command was asked for JSON output (`--json`).
    pub fn json(&self) -> bool {
        match self {
            Command::Check(a) => a.json,
            Command::SafeDelete(a) => a.json,
            Command::Restore(a) => a.json,
            Command::Undo(a) => a.json,
            Command::Redo(a) => a.json,
            Command::List(a) => a.json,
            Command::Show(a) => a.json,
            Command::Status(a) => a.json,
            Command::Gc(a) => a.json,
            Command::Demo(a) => a.json,
            Command::Mode(a) => a.json,
            Command::Install(a) => a.json,
            Command::Uninstall(a) => a.json,
            Command::Doctor(a) => a.json,
            Command::Explain(a) => a.json,
            Command::Approve(a) => a.json,
            Command::Completions(_) | Command::Man(_) => false,
            Command::Audit(a) => match &a.command {
                AuditCommand::Verify(a) => a.json,
            },
            Command::Config(a) => match &a.command {
                ConfigCommand::Trust(a) => a.json,
            },
        }
    }
}
