//! Property tests of the cmd.exe lexer: no panics, sane spans, bounded work on pathological
//! input, and a quote-then-lex round trip on generated argument vectors.

use agent_guard_lex::cmd::lex;
use proptest::prelude::*;

mod common;
use common::check_flat_spans as check_spans;

/// Characters that drive the lexer's state machine, plus some ordinary text.
const META: &[&str] = &[
    "\"", "^", "%", "!", "(", ")", "&", "&&", "|", "||", "<", ">", ">>", "2>&1", "\n", "\r\n", " ",
    "\t", "a", "x", "del", "rd", "/s", "/q", "if ", "exist ", "not ", "else ", "for ", "%%i",
    " in ", "(", "do ", "/f ", "'", "`", "%X%", "==", "@", ",", ";", "=", "é", "😀", "\\", "C:",
    "*",
];

/// Quotes one argument for cmd with carets: every character cmd treats specially is escaped.
fn caret_quote(arg: &str) -> String {
    common::escape_each(arg, " \t\r&|<>^\"%!()@,;=", '^', "\"\"")
}

/// Quotes one argument for cmd with double quotes (for text without `"`, `%`, `!`).
fn double_quote(arg: &str) -> String {
    format!("\"{arg}\"")
}

/// Argument characters: everything cmd gives meaning to, except newlines (a caret before a
/// newline continues the line instead of escaping it).
fn argv_word() -> impl Strategy<Value = String> {
    common::pieces_of(
        &[
            "a", "B", "z", "0", "9", " ", ".", "_", "/", "\\", "'", "\"", "-", "|", "&", "<", ">",
            "(", ")", "^", "%", "!", "@", ",", ";", "=", "*", "?", ":", "\t", "é", "😀",
        ][..],
        0..12,
    )
}

/// Words that start a command of their own kind.
fn is_keyword(word: &str) -> bool {
    ["if", "for", "else"].contains(&word.to_ascii_lowercase().as_str())
}

/// Constructs that nest: random stacks of them reach the depth limit through every path.
const OPENERS: &[&str] = &[
    "(",
    "if 1==1 ",
    "if exist x (",
    "for %i in (a) do (",
    "for %i in (a) do ",
    "else ",
];

common::robustness_properties!(never_panics_on_cmd_metacharacters, META, OPENERS, PATTERNS);

proptest! {
    #[test]
    fn caret_quoting_round_trips(argv in prop::collection::vec(argv_word(), 1..6)) {
        prop_assume!(!is_keyword(&argv[0]));
        common::quoting_round_trips(&argv, caret_quote, lex)?;
    }

    #[test]
    fn double_quoting_round_trips(argv in prop::collection::vec(argv_word(), 1..6)) {
        let argv: Vec<String> = argv
            .into_iter()
            .map(|a| a.replace(['"', '%', '!'], ""))
            .collect();
        common::quoting_round_trips(&argv, double_quote, lex)?;
    }
}

/// Patterns that must finish when repeated (deep nesting, unbalanced quotes, long runs).
const PATTERNS: &[&str] = &[
    "(",
    ")",
    "\"",
    "^",
    "%",
    "%a",
    "%%",
    "!",
    "!a",
    "if ",
    "if 1==1 ",
    "for ",
    "else ",
    "for /f %i in ('",
    "&",
    "|",
    "&&",
    ">",
    "2>",
    "@",
    "a ",
    "^\n",
];
