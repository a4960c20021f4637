//! `restore`, `undo`, `list`, `show`, `status`, `gc`.

use std::path::PathBuf;

/// Put a quarantined transaction back
///
/// Every item of TXID returns to its original path. Restore never overwrites: an occupied
/// origin is a conflict (exit 3) unless `--force`, which first preserves the occupant in a new
/// transaction (listed in `backup_txids`, itself restorable). Restoring the same transaction
/// twice changes nothing the second time. Exit codes: 0 restored, 1 error, 3 conflicts.
#[derive(Debug, Clone, clap::Args)]
pub struct RestoreArgs {
    /// The transaction id (from `check --enforce`, `safe-delete` or `agent-guard list`)
    #[arg(value_name = "TXID")]
    pub txid: String,

    /// Preserve whatever occupies an origin in a new transaction, then restore over it
    #[arg(long)]
    pub force: bool,

    /// Restore into this directory instead of the workspace (keeps relative paths)
    #[arg(long, value_name = "DIR")]
    pub to: Option<PathBuf>,

    /// Restore only this path, or a part of a quarantined tree (can be repeated)
    #[arg(long = "path", value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// The workspace directory [default: the current directory]
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// Print the result as JSON
    #[arg(long)]
    pub json: bool,
}

/// Restore the newest restorable transaction of this workspace
///
/// The same as `agent-guard restore <newest txid>`; see `agent-guard list`.
#[derive(Debug, Clone, clap::Args)]
pub struct UndoArgs {
    /// Preserve occupants in a new transaction, then restore over them
    #[arg(long)]
    pub force: bool,

    /// The workspace directory [default: the current directory]
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// Print the result as JSON
    #[arg(long)]
    pub json: bool,
}

/// List this workspace's quarantine transactions, newest first
#[derive(Debug, Clone, clap::Args)]
pub struct ListArgs {
    /// Show at most this many transactions (0: all)
    #[arg(long, default_value_t = 20)]
    pub limit: usize,

    /// The workspace directory [default: the current directory]
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// Print the list as JSON
    #[arg(long)]
    pub json: bool,
}

/// Show one transaction: its items, sizes and original paths
#[derive(Debug, Clone, clap::Args)]
pub struct ShowArgs {
    /// The transaction id
    #[arg(value_name = "TXID")]
    pub txid: String,

    /// The workspace directory [default: the current directory]
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// Print the transaction as JSON
    #[arg(long)]
    pub json: bool,
}

/// Show the quarantine's usage, the session mode and recent decisions
///
/// Also resolves relocations a crash interrupted, and says what it resolved.
#[derive(Debug, Clone, clap::Args)]
pub struct StatusArgs {
    /// How many recent audit records to show
    #[arg(long, default_value_t = 10)]
    pub tail: usize,

    /// The workspace directory [default: the current directory]
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// Print the status as JSON
    #[arg(long)]
    pub json: bool,
}

/// Plan, or execute, garbage collection of old quarantine transactions
///
/// Without `--execute` it only prints the plan: transactions older than the retention
/// (`[retention] days`, default 30) and, while the quarantine is over its size limit
/// (`[retention] max_bytes`, default 5 GiB), the oldest ones. Purging needs `--execute`
/// with `--txid` (can be repeated) or `--all-eligible`. Transactions younger than the grace
/// window (`[retention] grace_minutes`, default 60) are never purged.
#[derive(Debug, Clone, clap::Args)]
pub struct GcArgs {
    /// Purge instead of planning
    #[arg(long)]
    pub execute: bool,

    /// A transaction to purge (can be repeated)
    #[arg(long = "txid", value_name = "TXID", requires = "execute")]
    pub txids: Vec<String>,

    /// Purge every eligible transaction
    #[arg(long, requires = "execute", conflicts_with = "txids")]
    pub all_eligible: bool,

    /// The workspace directory [default: the current directory]
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// Print the result as JSON
    #[arg(long)]
    pub json: bool,
}
