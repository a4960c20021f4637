//! `agent-guard-mcp --help` and `--version` answer without starting the server.

#![allow(clippy::unwrap_used, reason = "tests")]

use std::process::{Command, Stdio};

#[test]
fn help_and_version_answer_without_serving() {
    let mcp = env!("CARGO_BIN_EXE_agent-guard-mcp");
    // stdin stays open: a server would wait for a client; --help must not.
    let help = Command::new(mcp)
        .arg("--help")
        .env("COLUMNS", "100")
        .stdin(Stdio::piped())
        .output()
        .unwrap();
    assert!(help.status.success(), "{help:?}");
    insta::assert_snapshot!("help-mcp", String::from_utf8(help.stdout).unwrap());
    let version = Command::new(mcp)
        .arg("--version")
        .stdin(Stdio::piped())
        .output()
        .unwrap();
    assert!(version.status.success());
    assert_eq!(
        String::from_utf8(version.stdout).unwrap().trim(),
        format!("agent-guard-mcp {}", env!("CARGO_PKG_VERSION"))
    );
    // An unknown flag is a usage error (exit 2), not a server.
    let bogus = Command::new(mcp)
        .arg("--bogus")
        .stdin(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(bogus.status.code(), Some(2));
}
