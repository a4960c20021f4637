//! Property tests of the POSIX lexer: no panics, sane spans, bounded work on pathological
//! input, and agreement with the `shell-words` crate on plain words.

use agent_guard_lex::posix::lex;
use agent_guard_lex::{Brace, Script, Word, WordPart};
use proptest::prelude::*;

mod common;
use common::check_span;

/// Characters that drive the lexer's state machine, plus some ordinary text.
const META: &[&str] = &[
    "'", "\"", "$", "(", ")", "{", "}", "`", "\\", ";", "&", "|", "<", ">", "#", "\n", "~", "*",
    "a", "b", "x", " ", " ", "\t", ",", "..", "=", "!", "[[", "]]", "<<", "EOF", "$(", "${", "$((",
    "))", "<(", "if ", "then ", "fi", "do ", "done", "case ", " in ", "esac", "for ", ";;", "@(",
    "1", "2>", "é", "😀", "\r", "\\\n", "-",
];

fn check_word_at_top(text: &str, w: &Word) {
    check_word(text, w, 0);
}

fn check_word(text: &str, w: &Word, depth: usize) {
    check_span(text, w.span.start, w.span.end, "word");
    assert!(depth < 200, "brace nesting unbounded");
    for part in &w.parts {
        if let WordPart::Brace(Brace::List(alternatives)) = part {
            for alt in alternatives {
                check_word(text, alt, depth + 1);
            }
        }
    }
}

/// Every span is in bounds and on char boundaries; top-level commands are ordered and do not
/// overlap.
fn check_spans(text: &str, script: &Script) {
    common::check_spans_with(text, script, check_word_at_top);
}

/// Reserved words that would change the meaning of a plain first word.
const RESERVED: &[&str] = &[
    "if", "then", "elif", "else", "fi", "do", "done", "case", "esac", "while", "until", "for",
    "select", "function",
];

/// Word characters for the round trip: `shell_words::join` quotes everything special here.
/// (`{`, `,`, `}`, `!` and `\r` are left out: `join` does not quote them, but bash would
/// brace-expand, negate or treat `\r` as a blank.)
fn argv_word() -> impl Strategy<Value = String> {
    common::pieces_of(
        &[
            "a", "B", "z", "0", "9", " ", ".", "_", "/", "'", "\"", "-", "|", "&", ";", "<", ">",
            "(", ")", "$", "`", "\\", "*", "?", "[", "#", "~", "=", "%", "\n", "\t", "é", "😀",
        ][..],
        0..12,
    )
}

/// Plain word text for the differential test against `shell_words::split`: no operators,
/// expansions, globs, braces, tildes or comments, and letters that spell no reserved word.
fn plain_text() -> impl Strategy<Value = String> {
    common::pieces_of(
        &[
            "a", "b", "c", "x", "y", "z", "0", "7", " ", "\t", "'", "\"", "\\", ".", "_", "/", "-",
        ][..],
        0..40,
    )
}

/// Constructs that nest: random stacks of them reach the depth limit through every path.
const OPENERS: &[&str] = &[
    "$(",
    "(",
    "{ ",
    "${x:-",
    "\"$(",
    "\"${x:-\"",
    "$((",
    "<(",
    "if ",
    "while ",
    "until ",
    "for x in $(",
    "case $( ",
    "case x in a) ",
    "f() { ",
    "function g { ",
    "[[ $(",
    "((",
    "a=($(",
    "x=$(",
    "@(",
    "`",
    "$(( $(",
    "cat <<<$(",
    "echo <<EOF $(",
];

common::robustness_properties!(
    never_panics_on_shell_metacharacters,
    META,
    OPENERS,
    PATTERNS
);

proptest! {
    #[test]
    fn join_then_lex_round_trips(argv in prop::collection::vec(argv_word(), 1..6)) {
        prop_assume!(!RESERVED.contains(&argv[0].as_str()));
        let line = shell_words::join(&argv);
        let script = lex(&line);
        prop_assert_eq!(&script.error, &None, "{}", line);
        prop_assert_eq!(script.commands.len(), 1, "{}", line);
        let cmd = &script.commands[0];
        prop_assert!(cmd.redirects.is_empty() && cmd.assignments.is_empty());
        let words: Vec<Option<String>> = cmd.words.iter().map(Word::literal_text).collect();
        let expected: Vec<Option<String>> = argv.iter().cloned().map(Some).collect();
        prop_assert_eq!(words, expected, "{}", line);
    }

    #[test]
    fn agrees_with_shell_words_split(text in plain_text()) {
        let script = lex(&text);
        check_spans(&text, &script);
        match shell_words::split(&text) {
            Ok(expected) => {
                prop_assert_eq!(&script.error, &None, "{:?}", text);
                let words: Vec<String> = script
                    .commands
                    .iter()
                    .flat_map(|c| c.words.iter().map(|w| w.literal_text().unwrap_or_default()))
                    .collect();
                prop_assert!(script.commands.len() <= 1);
                prop_assert_eq!(words, expected, "{:?}", text);
            }
            Err(_) => prop_assert!(script.error.is_some(), "{:?}", text),
        }
    }
}

/// Patterns that must finish when repeated (deep nesting, unbalanced quotes, long runs).
const PATTERNS: &[&str] = &[
    "$(",
    "(",
    "{ ",
    "\"",
    "'",
    "`",
    "\\`",
    "${",
    "$((",
    "((",
    "<(",
    "$'",
    "{a,",
    "}",
    "if ",
    "! ",
    "@(",
    "f() ",
    "a=(",
    "[[ ",
    "case x in a) ",
    "cat <<EOF\n",
    "((a) ; ",
    "$((a) ",
    "(( # ((\n a ) ) ; ",
    "x ",
    "\"$(",
    "`$((",
    ")",
    ";",
    "&&",
    "|",
];
