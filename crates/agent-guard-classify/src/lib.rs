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
mod cd_follow;
mod cmd;
mod find;
mod fs_delete;
mod getopt;
mod git;
mod guard_verbs;
mod hosts;
mod inline_code;
mod listed;
mod looked_up;
mod metadata;
mod noop;
mod outside;
mod posix;
mod powershell;
mod read_only;
mod runners;
mod shapes;
mod smell;
#[cfg(test)]
mod test_support;
mod windows;
mod windows_verbs;
mod wrappers;
mod writes;

use agent_guard_lex::{LexError, Script, SimpleCommand};
use agent_guard_types::{Dialect, OpKind, OpSpec, Span};

use crate::shapes::Positions;

pub use guard_verbs::mentioned_files;
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
    /// The names the line's commands are found by through `PATH` (literal command words
    /// that are neither paths nor built-ins of the dialect, at any depth), in line order,
    /// each once. Where `PATH` finds them is the environment's fact: a workspace directory
    /// first makes the line run the workspace's own program (issue 35, point 6). Each name
    /// comes with the dialect that looks it up (cmd searches the working directory first).
    pub looked_up: Vec<(String, Dialect)>,
    /// The definitions the line makes and never calls (POSIX functions and aliases, issue
    /// 38 point 2), left out of [`Classification::ops`]: a shell that keeps them runs their
    /// bodies when a later line names them, so a caller remembers them for the session and
    /// passes them back with [`classify_after`].
    pub definitions: Vec<Definition>,
    /// The subcommands the line's git commands run (lower-cased, at any depth, each once;
    /// `*` for one that is not literal). Whether the repository's stored configuration or
    /// hooks make git run a program for them (`core.fsmonitor` on `git status`, a
    /// `pre-commit` hook) is the world's fact (issue 35, point 6).
    pub git_runs: Vec<String>,
}

/// A function or alias definition a line made without calling it; or (named `trap`) a
/// `trap` command a line ran, whose action the shell runs later.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definition {
    /// The name a later command calls it by.
    pub name: String,
    /// The definition's own text (`f() { … }`, `alias x='…'`), which defines it again when
    /// run before a later line.
    pub text: String,
}

impl Classification {
    /// A line that cannot be parsed but has destructive vocabulary: one unknown op.
    fn unparseable(dialect: Dialect, note: String) -> Classification {
        Classification {
            ops: vec![OpSpec::unknown("<unparseable>", dialect, note.clone())],
            parse_error: Some(note),
            commands: 0,
            looked_up: Vec::new(),
            definitions: Vec::new(),
            git_runs: Vec::new(),
        }
    }

    /// A line the lexer rejected: unparseable when it has destructive words (fail closed),
    /// otherwise no ops, with the error kept.
    /// A nesting deeper than the lexer follows is unparseable whatever its words: what lies
    /// past the limit was never read.
    fn lex_failed(script: &Script, error: &LexError, text: &str, dialect: Dialect) -> Self {
        let parse_error = Some(error.to_string());
        if error.kind == agent_guard_lex::LexErrorKind::TooDeep || smells(text) {
            let mut result = Classification::unparseable(dialect, error.kind.as_str().to_owned());
            result.parse_error = parse_error;
            return result;
        }
        Classification {
            ops: Vec::new(),
            parse_error,
            commands: script.commands.len(),
            looked_up: Vec::new(),
            definitions: Vec::new(),
            git_runs: Vec::new(),
        }
    }

    /// The classification of a lexed line from its ops: the line's shape rules applied,
    /// commands counted without the empty ones.
    fn of_ops(mut ops: Vec<OpSpec>, positions: &Positions, script: &Script) -> Self {
        let commands = script
            .commands
            .iter()
            .filter(|c| !c.words.is_empty())
            .count();
        shapes::apply(&mut ops, positions, script, commands);
        Classification {
            ops,
            parse_error: None,
            commands,
            looked_up: Vec::new(),
            definitions: Vec::new(),
            git_runs: Vec::new(),
        }
    }
}

/// Places an op of command `index` in its line: its segment, its span (the command's when
/// the op has none), and undeterminable inside a cmd or PowerShell substitution (a
/// PowerShell `$( )` runs in the caller's scope, so a `Set-Location` in it moves the rest of
/// the line). A POSIX substitution runs in a subshell: its op is judged like any other,
/// unless the line changes directory ([`shapes::apply`]).
fn place(op: &mut OpSpec, index: usize, command: &SimpleCommand) {
    op.segment_index = index;
    if op.span == Span::default() {
        op.span = command.span;
    }
    if command.context.in_substitution && op.kind != OpKind::Unknown && op.dialect != Dialect::Posix
    {
        op.mark_undeterminable("destructive command inside a command substitution");
    }
}

/// Classifies `text` in `dialect`.
pub fn classify(text: &str, dialect: Dialect) -> Classification {
    if let Some(note) = unfollowable(text) {
        return Classification::unparseable(dialect, note.to_owned());
    }
    let ((mut classification, looked_up), git_runs) =
        looked_up::collect_git(|| looked_up::collect(|| classify_nested(text, dialect, 0)));
    classification.looked_up = looked_up;
    classification.git_runs = git_runs;
    classification
}

/// [`classify`] of `text` run after `earlier` (definitions a previous line of the same
/// shell made and never called, [`Classification::definitions`]): the line is judged with
/// them defined first, so a call of one is judged by its body. POSIX only; the returned
/// definitions are the line's own.
pub fn classify_after(text: &str, dialect: Dialect, earlier: &[Definition]) -> Classification {
    if earlier.is_empty() || dialect != Dialect::Posix {
        return classify(text, dialect);
    }
    let mut joined = String::new();
    for definition in earlier {
        joined.push_str(&definition.text);
        joined.push('\n');
    }
    joined.push_str(text);
    let mut classification = classify(&joined, dialect);
    // What the line itself defines, not what it was given.
    classification
        .definitions
        .retain(|d| !earlier.iter().any(|e| e.text == d.text));
    classification
}

/// [`classify`], judging every definition where it stands, called or not (the old reading,
/// for a caller that cannot remember them for later lines).
pub fn classify_judging_definitions(text: &str, dialect: Dialect) -> Classification {
    posix::definitions::judging_all(|| classify(text, dialect))
}

/// [`classify_after`], judging every definition where it stands.
pub fn classify_after_judging_definitions(
    text: &str,
    dialect: Dialect,
    earlier: &[Definition],
) -> Classification {
    posix::definitions::judging_all(|| classify_after(text, dialect, earlier))
}

/// Whether the git configuration key `key` set to `value` makes git run a program (`!`
/// aliases, `core.fsmonitor`, `filter.<driver>.clean`, …), read from a repository's stored
/// configuration by the engine (issue 35, point 6).
pub fn git_key_runs_a_program(key: &str, value: Option<&str>) -> bool {
    git::config::program(key, value, true).is_some()
}

/// The longest command line followed, in bytes; a longer one is not read at all.
pub const MAX_COMMAND_BYTES: usize = 1 << 20;

/// Why `text` cannot be followed as the shell will read it, if it cannot: a NUL byte (a
/// shell reading the line drops it, or stops there, so what runs is not what was judged),
/// or more text than [`MAX_COMMAND_BYTES`].
fn unfollowable(text: &str) -> Option<&'static str> {
    if text.contains('\0') {
        Some("the command holds a NUL byte, which the shell drops or stops at")
    } else if text.len() > MAX_COMMAND_BYTES {
        Some("the command is longer than the guard reads (1 MiB)")
    } else {
        None
    }
}

/// Classifies `text` in `dialect`, `nesting` interpreter hops deep.
pub(crate) fn classify_nested(text: &str, dialect: Dialect, nesting: u32) -> Classification {
    let mut classification = match dialect {
        Dialect::Posix => posix::classify(text, nesting),
        Dialect::Cmd => cmd::classify(text, nesting),
        Dialect::PowerShell => powershell::classify(text, nesting),
    };
    writes::unresolved_appends_in_line(&mut classification.ops, text);
    writes::opaque_programs_at_the_quarantine(&mut classification.ops, text);
    if nesting == 0 {
        let (verb, retargeted) = guard_verbs::in_line(text, dialect);
        // A person-only verb first: it decides the line, whatever else the line does.
        if let Some(op) = verb {
            classification.ops.insert(0, op);
        }
        classification.ops.extend(retargeted);
    }
    if classification.commands > 1 {
        for op in &mut classification.ops {
            op.in_compound_line = true;
        }
    }
    classification
}
