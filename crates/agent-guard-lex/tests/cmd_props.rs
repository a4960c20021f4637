//! Property tests of the cmd.exe lexer: no panics, sane spans, bounded work on pathological
//! input, and a quote-then-lex round trip on generated argument vectors.

use agent_guard_lex::Script;
use agent_guard_lex::cmd::lex;
use proptest::prelude::*;

mod common;

/// Characters that drive the lexer's state machine, plus some ordinary text.
const META: &[&str] = &[
    "\"", "^", "%", "!", "(", ")", "&", "&&", "|", "||", "<", ">", ">>", "2>&1", "\n", "\r\n", " ",
    "\t", "a", "x", "del", "rd", "/s", "/q", "if ", "exist ", "not ", "else ", "for ", "%%i",
    " in ", "(", "do ", "/f ", "'", "`", "%X%", "==", "@", ",", ";", "=", "é", "😀", "\\", "C:",
    "*",
];

fn meta_text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(META), 0..120).prop_map(|v| v.concat())
}

/// Every span is in bounds and on char boundaries; top-level commands are ordered and do not
/// overlap.
fn check_spans(text: &str, script: &Script) {
    common::check_spans_with(text, script, common::check_flat_word);
}

/// Quotes one argument for cmd with carets: every character cmd treats specially is escaped.
fn caret_quote(arg: &str) -> String {
    if arg.is_empty() {
        return "\"\"".into();
    }
    let mut out = String::new();
    for c in arg.chars() {
        if " \t\r&|<>^\"%!()@,;=".contains(c) {
            out.push('^');
        }
        out.push(c);
    }
    out
}

/// Quotes one argument for cmd with double quotes (for text without `"`, `%`, `!`).
fn double_quote(arg: &str) -> String {
    format!("\"{arg}\"")
}

/// Argument characters: everything cmd gives meaning to, except newlines (a caret before a
/// newline continues the line instead of escaping it).
fn argv_word() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(
            &[
                "a", "B", "z", "0", "9", " ", ".", "_", "/", "\\", "'", "\"", "-", "|", "&", "<",
                ">", "(", ")", "^", "%", "!", "@", ",", ";", "=", "*", "?", ":", "\t", "é", "😀",
            ][..],
        ),
        0..12,
    )
    .prop_map(|v| v.concat())
}

/// Words that start a command of their own kind.
fn is_keyword(word: &str) -> bool {
    ["if", "for", "else"].contains(&word.to_ascii_lowercase().as_str())
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
    fn never_panics_on_cmd_metacharacters(text in meta_text()) {
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
            prop::sample::select(&["(", "if 1==1 ", "if exist x (", "for %i in (a) do (", "for %i in (a) do ", "else "][..]),
            40..300,
        ),
    ) {
        // Test threads have a 2 MiB stack: reaching the depth limit must not overflow it.
        let text = openers.concat();
        let script = lex(&text);
        check_spans(&text, &script);
    }

    #[test]
    fn caret_quoting_round_trips(argv in prop::collection::vec(argv_word(), 1..6)) {
        prop_assume!(!is_keyword(&argv[0]));
        let line = argv.iter().map(|a| caret_quote(a)).collect::<Vec<_>>().join(" ");
        let expected: Vec<Option<String>> = argv.iter().cloned().map(Some).collect();
        prop_assert_eq!(lexed_argv(&line), expected, "{}", line);
    }

    #[test]
    fn double_quoting_round_trips(argv in prop::collection::vec(argv_word(), 1..6)) {
        let argv: Vec<String> = argv
            .into_iter()
            .map(|a| a.replace(['"', '%', '!'], ""))
            .collect();
        let line = argv.iter().map(|a| double_quote(a)).collect::<Vec<_>>().join(" ");
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
    common::pathological_input_finishes(patterns, lex, check_spans);
}
