//! `agent-guard-mcp`: agent-guard's MCP server over stdio.
//!
//! Register it as a stdio MCP server in the agent's workspace; see `docs/mcp.md`.

use std::process::ExitCode;

use clap::Parser as _;

/// agent-guard's MCP server: `safe_delete`, `restore`, `undo`, `list` and `status` as tools
///
/// Speaks MCP over stdin/stdout; a harness starts it, not a person. The workspace is the
/// directory it is started in (or each call's `cwd`).
#[derive(Debug, clap::Parser)]
#[command(
    name = "agent-guard-mcp",
    version,
    after_long_help = concat!(
        "Register it with a harness as a stdio MCP server, for example:\n",
        "  claude mcp add agent-guard -- agent-guard-mcp\n",
        "  codex mcp add agent-guard -- agent-guard-mcp\n\n",
        "Tools: safe_delete, restore, undo, list, status (docs/mcp.md).\n",
        "Exit codes: 0 the client closed the session, 1 the transport failed."
    )
)]
struct Args {}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let _args = Args::parse();
    match agent_guard_mcp::serve_stdio().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            agent_guard_mcp::log_error(&error);
            ExitCode::FAILURE
        }
    }
}
