//! Property tests of the PowerShell lexer: no panics, sane spans, bounded work on
//! pathological input, and a quote-then-lex round trip on generated argument vectors.

use agent_guard_lex::powershell::lex;
use proptest::prelude::*;

mod common;
use common::check_flat_spans as check_spans;

/// Characters that drive the lexer's state machine, plus some ordinary text.
const META: &[&str] = &[
    "'",
    "\"",
    "`",
    "$",
    "$(",
    "${",
    "@(",
    "@{",
    "@'\n",
    "\n'@",
    "@\"\n",
    "\n\"@",
    "(",
    ")",
    "{",
    "}",
    ";",
    "|",
    "||",
    "&&",
    "&",
    "<#",
    "#>",
    "#",
    "\n",
    " ",
    "\t",
    "a",
    "x",
    "ri",
    "-Recurse",
    "-r:$false",
    "if ",
    "($x) ",
    "else ",
    "foreach ",
    "switch ",
    "function f ",
    "--%",
    ">",
    "2>&1",
    "*>>",
    "=",
    "$x = ",
    ",",
    "\u{2018}",
    "\u{201C}",
    "\u{2013}",
    "\u{a0}",
    "é",
    "😀",
    "\\",
    "[",
    "]",
];

/// Quotes one argument in single quotes (a quote inside is doubled).
fn single_quote(arg: &str) -> String {
    format!("'{}'", arg.replace('\'', "''"))
}

/// Quotes one argument with backticks: every character PowerShell treats specially is
/// escaped (for text without newlines).
fn backtick_quote(arg: &str) -> String {
    common::escape_each(arg, " \t'\"`$@(){};|&<>#,%", '`', "''")
}

/// Argument characters: everything PowerShell gives meaning to (typographic quotes and
/// Unicode blanks are covered by the unit tests).
fn argv_word() -> impl Strategy<Value = String> {
    common::pieces_of(
        &[
            "a", "B", "z", "0", "9", " ", ".", "_", "/", "\\", "'", "\"", "-", "|", "&", "<", ">",
            "(", ")", "{", "}", "$", "@", "#", "`", ",", ";", "=", "*", "?", "[", ":", "%", "\t",
            "\n", "é", "😀",
        ][..],
        0..12,
    )
}

/// Constructs that nest: random stacks of them reach the depth limit through every path.
const OPENERS: &[&str] = &[
    "(",
    "$(",
    "@(",
    "@{",
    "{",
    "ri {",
    "if (",
    "if ($x) {",
    "& {",
    "\"$(",
    "switch ($x) {",
    "function f {",
    "foreach ($a in $(",
    "x | % {",
];

common::robustness_properties!(
    never_panics_on_powershell_metacharacters,
    META,
    OPENERS,
    PATTERNS
);

proptest! {
    #[test]
    fn single_quoting_round_trips(argv in prop::collection::vec(argv_word(), 1..6)) {
        common::quoting_round_trips(&argv, single_quote, lex)?;
    }

    #[test]
    fn backtick_quoting_round_trips(argv in prop::collection::vec(argv_word(), 1..6)) {
        let argv: Vec<String> = argv.into_iter().map(|a| a.replace('\n', "")).collect();
        common::quoting_round_trips(&argv, backtick_quote, lex)?;
    }
}

/// Patterns that must finish when repeated (deep nesting, unbalanced quotes, long runs).
const PATTERNS: &[&str] = &[
    "(",
    ")",
    "{",
    "}",
    "'",
    "\"",
    "`",
    "$",
    "$(",
    "${",
    "@(",
    "@'\n",
    "@\"\n",
    "<#",
    "#>",
    "if ",
    "if (",
    "else ",
    "function ",
    "switch ",
    "--% ",
    "&",
    "|",
    "$x = ",
    "a ",
    "\n'@",
];
