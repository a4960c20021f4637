//! Property tests of the PowerShell lexer: no panics, sane spans, bounded work on
//! pathological input, and a quote-then-lex round trip on generated argument vectors.

use agent_guard_lex::Script;
use agent_guard_lex::powershell::lex;
use proptest::prelude::*;

mod common;

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

fn meta_text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(META), 0..120).prop_map(|v| v.concat())
}

/// Every span is in bounds and on char boundaries; top-level commands are ordered and do not
/// overlap.
fn check_spans(text: &str, script: &Script) {
    common::check_spans_with(text, script, common::check_flat_word);
}

/// Quotes one argument in single quotes (a quote inside is doubled).
fn single_quote(arg: &str) -> String {
    format!("'{}'", arg.replace('\'', "''"))
}

/// Quotes one argument with backticks: every character PowerShell treats specially is
/// escaped (for text without newlines).
fn backtick_quote(arg: &str) -> String {
    if arg.is_empty() {
        return "''".into();
    }
    let mut out = String::new();
    for c in arg.chars() {
        if " \t'\"`$@(){};|&<>#,%".contains(c) {
            out.push('`');
        }
        out.push(c);
    }
    out
}

/// Argument characters: everything PowerShell gives meaning to (typographic quotes and
/// Unicode blanks are covered by the unit tests).
fn argv_word() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(
            &[
                "a", "B", "z", "0", "9", " ", ".", "_", "/", "\\", "'", "\"", "-", "|", "&", "<",
                ">", "(", ")", "{", "}", "$", "@", "#", "`", ",", ";", "=", "*", "?", "[", ":",
                "%", "\t", "\n", "é", "😀",
            ][..],
        ),
        0..12,
    )
    .prop_map(|v| v.concat())
}

fn lexed_argv(line: &str) -> Vec<Option<String>> {
    common::single_command_argv(line, lex)
}

proptest! {
    #[test]
    fn never_panics_on_arbitrary_text(text in any::<String>()) {
        let script = lex(&text);
        check_spans(&text, &script);
    }

    #[test]
    fn never_panics_on_powershell_metacharacters(text in meta_text()) {
        let script = lex(&text);
        check_spans(&text, &script);
    }

    #[test]
    fn repeated_fragments_finish(fragment in meta_text(), n in 0usize..2_000) {
        let text = fragment.repeat(n.min(20_000 / fragment.len().max(1)));
        let script = lex(&text);
        check_spans(&text, &script);
    }

    #[test]
    fn random_deep_nesting_stays_on_the_stack(
        openers in prop::collection::vec(
            prop::sample::select(&["(", "$(", "@(", "@{", "{", "ri {", "if (", "if ($x) {", "& {", "\"$(", "switch ($x) {", "function f {", "foreach ($a in $(", "x | % {"][..]),
            40..300,
        ),
    ) {
        // Test threads have a 2 MiB stack: reaching the depth limit must not overflow it.
        let text = openers.concat();
        let script = lex(&text);
        check_spans(&text, &script);
    }

    #[test]
    fn single_quoting_round_trips(argv in prop::collection::vec(argv_word(), 1..6)) {
        let line = argv.iter().map(|a| single_quote(a)).collect::<Vec<_>>().join(" ");
        let expected: Vec<Option<String>> = argv.iter().cloned().map(Some).collect();
        prop_assert_eq!(lexed_argv(&line), expected, "{}", line);
    }

    #[test]
    fn backtick_quoting_round_trips(argv in prop::collection::vec(argv_word(), 1..6)) {
        let argv: Vec<String> = argv.into_iter().map(|a| a.replace('\n', "")).collect();
        let line = argv.iter().map(|a| backtick_quote(a)).collect::<Vec<_>>().join(" ");
        let expected: Vec<Option<String>> = argv.iter().cloned().map(Some).collect();
        prop_assert_eq!(lexed_argv(&line), expected, "{}", line);
    }
}

/// Pathological input must finish (no hang, no stack overflow), up to 100 000 repetitions.
#[test]
fn pathological_input_finishes() {
    let patterns: &'static [&'static str] = &[
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
    common::pathological_input_finishes(patterns, lex, check_spans);
}
