//! The classifier: lexed shell commands → [`OpSpec`] facts.
//!
//! Second stage of the pipeline (`lex → classify → world → policy`). The classifier records
//! what each command would destroy — its kind, raw targets, flags, compound-line shapes — and
//! never decides: the policy does. It is pure (no I/O, no environment) and panic-free on any
//! input.
//!
//! ```
//! use agent_guard_classify::classify;
//! use agent_guard_types::{Dialect, OpKind};
//!
//! let result = classify("rm ./build -rf", Dialect::Posix);
//! assert_eq!(result.ops.len(), 1);
//! assert_eq!(result.ops[0].kind, OpKind::FsDelete);
//! assert!(result.ops[0].recursive);
//! assert_eq!(result.ops[0].targets[0].text, "./build");
//! ```

#![warn(missing_docs)]

mod args;
mod cmd;
mod find;
mod fs_delete;
mod getopt;
mod git;
mod hosts;
mod inline_code;
mod posix;
mod powershell;
mod runners;
mod shapes;
mod smell;
mod windows;
mod windows_verbs;
mod wrappers;

use agent_guard_types::{Dialect, OpSpec};

pub use smell::smells;

/// The facts extracted from one command line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Classification {
    /// The destructive operations, in line order (non-destructive commands are dropped).
    pub ops: Vec<OpSpec>,
    /// The lexer's error, if the line is not well-formed.
    pub parse_error: Option<String>,
    /// How many simple commands the line has.
    pub commands: usize,
}

impl Classification {
    /// A line that cannot be parsed but has destructive vocabulary: one unknown op.
    fn unparseable(dialect: Dialect, note: String) -> Classification {
        Classification {
            ops: vec![OpSpec::unknown("<unparseable>", dialect, note.clone())],
            parse_error: Some(note),
            commands: 0,
        }
    }
}

/// Classifies `text` in `dialect`.
pub fn classify(text: &str, dialect: Dialect) -> Classification {
    classify_nested(text, dialect, 0)
}

/// Classifies `text` in `dialect`, `nesting` interpreter hops deep.
pub(crate) fn classify_nested(text: &str, dialect: Dialect, nesting: u32) -> Classification {
    match dialect {
        Dialect::Posix => posix::classify(text, nesting),
        Dialect::Cmd => cmd::classify(text, nesting),
        Dialect::PowerShell => powershell::classify(text, nesting),
    }
}
