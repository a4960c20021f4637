//! agent-guard's MCP server: `safe_delete`, `restore`, `undo`, `list` and `status` as tools.
//!
//! Agents that speak the Model Context Protocol call these tools instead of running `rm`:
//! deletions go into the workspace's quarantine and can be restored. The server speaks
//! JSON-RPC 2.0 over stdio (one message per line); nothing but MCP messages goes to stdout,
//! and its few log lines go to stderr.
//!
//! This crate is the only place where tokio and rmcp live: the engine, the CLI and the hook
//! binaries stay synchronous and do not link them. The tools are thin: each resolves its
//! working directory, runs the engine's blocking library function on tokio's blocking pool and
//! renders the engine's report as structured content.

#![warn(missing_docs)]

pub mod output;
pub mod params;
mod render;
mod tools;

use std::io::Write as _;

use rmcp::ServiceExt as _;

use agent_guard_engine::EnvSnapshot;

pub use tools::GuardServer;

/// Why the server stopped with an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The start directory could not be read.
    #[error("cannot read the current directory")]
    CurrentDir(#[source] std::io::Error),
    /// The MCP handshake failed.
    #[error("the MCP session could not start")]
    Initialize(#[source] Box<rmcp::service::ServerInitializeError>),
    /// The session task failed.
    #[error("the MCP session ended abnormally")]
    Session(#[source] tokio::task::JoinError),
}

/// Serves the tools on stdin/stdout until the client closes stdin.
///
/// The server works in the current directory (the agent's workspace) unless a tool call
/// passes `cwd`, with the `AGENT_GUARD_*` environment as it is now.
pub async fn serve_stdio() -> Result<(), ServeError> {
    let base = std::env::current_dir().map_err(ServeError::CurrentDir)?;
    log(&format!(
        "agent-guard-mcp {}: serving on stdio in {}",
        env!("CARGO_PKG_VERSION"),
        base.display()
    ));
    let server = GuardServer::new(base, EnvSnapshot::capture());
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|error| ServeError::Initialize(Box::new(error)))?;
    running.waiting().await.map_err(ServeError::Session)?;
    Ok(())
}

/// Writes one log line to stderr (stdout is reserved for MCP messages).
pub fn log(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// Writes `error` and its sources to stderr, one `error:`/`caused by:` line each.
pub fn log_error(error: &dyn std::error::Error) {
    log(&format!("agent-guard-mcp: error: {error}"));
    for cause in agent_guard_types::error_causes(error) {
        log(&format!("  caused by: {cause}"));
    }
}
