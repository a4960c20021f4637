//! Command-line arguments (clap derive), one module per command.

mod audit;
mod check;
mod demo;
mod history;
mod install;
mod mode;
mod safe_delete;

use clap::{Parser, Subcommand};

pub use audit::{AuditArgs, AuditCommand, AuditVerifyArgs};
pub use check::CheckArgs;
pub use demo::DemoArgs;
pub use history::{GcArgs, ListArgs, RestoreArgs, ShowArgs, StatusArgs, UndoArgs};
pub use install::{DoctorArgs, InstallArgs, ScopeArgs, UninstallArgs};
pub use mode::ModeArgs;
pub use safe_delete::SafeDeleteArgs;

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
    /// Move paths into the quarantine instead of deleting them
    SafeDelete(SafeDeleteArgs),
    /// Put a quarantined transaction back
    Restore(RestoreArgs),
    /// Restore the newest restorable transaction of this workspace
    Undo(UndoArgs),
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
    /// Inspect the audit log (`audit verify`: check its hash chain)
    Audit(AuditArgs),
}

impl Command {
    /// Whether the command was asked for JSON output (`--json`).
    pub fn json(&self) -> bool {
        match self {
            Command::Check(a) => a.json,
            Command::SafeDelete(a) => a.json,
            Command::Restore(a) => a.json,
            Command::Undo(a) => a.json,
            Command::List(a) => a.json,
            Command::Show(a) => a.json,
            Command::Status(a) => a.json,
            Command::Gc(a) => a.json,
            Command::Demo(a) => a.json,
            Command::Mode(a) => a.json,
            Command::Install(a) => a.json,
            Command::Uninstall(a) => a.json,
            Command::Doctor(a) => a.json,
            Command::Audit(a) => match &a.command {
                AuditCommand::Verify(a) => a.json,
            },
        }
    }
}
