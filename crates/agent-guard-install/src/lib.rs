//! Installs agent-guard into agent harnesses, removes it again, and checks what is installed.
//!
//! This crate sits beside the pipeline, not in it: it edits the harnesses' own hook
//! configuration files (Claude Code, Codex, Gemini CLI, Copilot CLI, Cursor, Cline, Windsurf,
//! Qwen Code) and writes `OpenCode`'s plugin, so that their pre-tool hook runs
//! `agent-guard check --enforce --harness <name>`. It never judges a command itself.
//!
//! - [`install()`] adds one hook entry (idempotently), sets the harness's fail-closed option
//!   where it has one, and for Codex records hook trust in `$CODEX_HOME/config.toml`. Every
//!   command hook runs the guard through the hook launcher, a small `sh` script install writes
//!   into the guard's state directory, which turns a guard that is missing, fails, crashes or
//!   hangs into the harness's own deny ([`Environment::launcher_path`]).
//! - [`uninstall()`] restores each file byte for byte when nothing else changed it since
//!   (the previous bytes live in `$XDG_STATE_HOME/agent-guard/installs/`), and otherwise
//!   removes only agent-guard's entry.
//! - [`doctor()`] finds every installed hook, checks that the harness would run it at all
//!   (folder trust, switches that turn hooks off), and runs it with a synthetic payload.
//!
//! JSON files keep their key order and indentation; TOML files keep comments and layout
//! (`toml_edit`). Every write is atomic and preceded by a backup of the file's bytes.
//!
//! ```
//! use agent_guard_install::Harness;
//!
//! assert_eq!(Harness::parse_name("claude-code"), Some(Harness::ClaudeCode));
//! assert!(!Harness::Generic.installable());
//! ```

#![warn(missing_docs)]

mod activation;
mod codex;
mod doctor;
mod edit;
mod entry;
mod error;
mod fsio;
mod harness;
mod install;
mod json;
mod launcher;
mod probe;
mod record;
mod script;
mod shell;
mod smoke;

pub use doctor::{Check, DoctorReport, HookStatus, Status, doctor};
pub use edit::Action;
pub use error::{Error, Result};
pub use harness::{Environment, Harness, Scope};
pub use install::{FileChange, InstallOptions, Report, install, uninstall};
pub use probe::{ClaudeVersion, claude_supports_on_failure};
