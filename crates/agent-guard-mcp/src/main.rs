//! `agent-guard-mcp`: agent-guard's MCP server over stdio.
//!
//! Register it as a stdio MCP server in the agent's workspace; see `docs/mcp.md`.

use std::process::ExitCode;

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    match agent_guard_mcp::serve_stdio().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            agent_guard_mcp::log_error(&error);
            ExitCode::FAILURE
        }
    }
}
