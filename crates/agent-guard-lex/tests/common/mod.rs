//! Checks shared by the three lexers' property tests.

#![allow(dead_code, reason = "each test binary uses a different subset")]

use agent_guard_lex::{Script, Word};
use proptest::prelude::*;

/// A span is in bounds and on char boundaries.
pub(crate) fn check_span(text: &str, start: usize, end: usize, what: &str) {
    assert!(
        start <= end,
        "{what}: start {start} > end {end} in {text:?}"
    );
    assert!(
        end <= text.len(),
        "{what}: end {end} out of bounds in {text:?}"
    );
    assert!(
        text.is_char_boundary(start),
        "{what}: start {start} not a char boundary in {text:?}"
    );
    assert!(
        text.is_char_boundary(end),
        "{what}: end {end} not a char boundary in {text:?}"
    );
}

/// Text of `count` pieces drawn from `pieces`.
pub(crate) fn pieces_of(
    pieces: &'static [&'static str],
    count: std::ops::Range<usize>,
) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(pieces), count).prop_map(|v| v.concat())
}

/// The span check of the Windows dialects, whose words have no nested parts: every span is
/// in bounds and on char boundaries; top-level commands are ordered and do not overlap.
pub(crate) fn check_flat_spans(text: &str, script: &Script) {
    check_spans_with(text, script, check_flat_word);
}

/// Quotes one argument by putting `escape` before each of its characters in `special`; an
/// empty argument is `empty`.
pub(crate) fn escape_each(arg: &str, special: &str, escape: char, empty: &str) -> String {
    if arg.is_empty() {
        return empty.into();
    }
    let mut out = String::new();
    for c in arg.chars() {
        if special.contains(c) {
            out.push(escape);
        }
        out.push(c);
    }
    out
}

/// A word's span (the Windows dialects' words have no nested parts to check).
pub(crate) fn check_flat_word(text: &str, word: &Word) {
    check_span(text, word.span.start, word.span.end, "word");
}

/// Every span is in bounds and on char boundaries (words checked by `check_word`);
/// top-level commands are ordered and do not overlap.
pub(crate) fn check_spans_with(text: &str, script: &Script, check_word: fn(&str, &Word)) {
    if let Some(e) = &script.error {
        check_span(text, e.span.start, e.span.end, "error");
    }
    for c in &script.commands {
        check_span(text, c.span.start, c.span.end, "command");
        for w in c.assignments.iter().chain(&c.words) {
            check_word(text, w);
        }
        for r in &c.redirects {
            check_span(text, r.span.start, r.span.end, "redirect");
            if let Some(t) = &r.target {
                check_word(text, t);
            }
        }
    }
    let mut last_end = 0;
    for c in script.commands.iter().filter(|c| c.context.depth == 0) {
        assert!(
            c.span.start >= last_end,
            "top-level commands overlap in {text:?}: {script:#?}"
        );
        last_end = c.span.end;
    }
    let starts: Vec<usize> = script.commands.iter().map(|c| c.span.start).collect();
    assert!(
        starts.windows(2).all(|w| w[0] <= w[1]),
        "commands not in textual order"
    );
}

/// Lexes each pattern repeated 1, 10, 1 000 and 100 000 times on a thread with a 2 MiB
/// stack, checking every result with `check`: pathological input must finish, without a
/// hang or a stack overflow. No timing assertion: finishing is the test.
pub(crate) fn pathological_input_finishes(
    patterns: &'static [&'static str],
    lex: fn(&str) -> Script,
    check: fn(&str, &Script),
) {
    let expected = patterns.len() * 4;
    let handle = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(move || {
            let mut finished = 0;
            for pattern in patterns {
                for n in [1, 10, 1_000, 100_000] {
                    let text = pattern.repeat(n);
                    let script = lex(&text);
                    check(&text, &script);
                    finished += 1;
                }
            }
            finished
        })
        .expect("spawn");
    assert_eq!(handle.join().expect("no panic or overflow"), expected);
}

/// The words of `line`, which must lex into exactly one plain command (no error, no
/// redirects, no assignments): `None` for a word that is not a literal.
pub(crate) fn single_command_argv(line: &str, lex: fn(&str) -> Script) -> Vec<Option<String>> {
    let script = lex(line);
    assert_eq!(script.error, None, "{line}");
    assert_eq!(script.commands.len(), 1, "{line}");
    let cmd = &script.commands[0];
    assert!(
        cmd.redirects.is_empty() && cmd.assignments.is_empty(),
        "{line}"
    );
    cmd.words.iter().map(Word::literal_text).collect()
}

/// The robustness properties every lexer has: it never panics on arbitrary text or on text
/// of up to 120 of its metacharacters (`$meta`; the test is named `$meta_test`), repeated
/// fragments finish, random stacks of the constructs that nest (`$openers`) reach the depth
/// limit without overflowing a test thread's 2 MiB stack, and each of `$patterns` repeated up
/// to 100 000 times finishes. Every result is checked with the calling file's `check_spans`;
/// `lex` is the calling file's lexer.
macro_rules! robustness_properties {
    ($meta_test:ident, $meta:expr, $openers:expr, $patterns:expr) => {
        /// Pathological input must finish (no hang, no stack overflow).
        #[test]
        fn pathological_input_finishes() {
            common::pathological_input_finishes($patterns, lex, check_spans);
        }

        proptest! {
            #[test]
            fn never_panics_on_arbitrary_text(text in any::<String>()) {
                let script = lex(&text);
                check_spans(&text, &script);
            }

            #[test]
            fn $meta_test(text in common::pieces_of($meta, 0..120)) {
                let script = lex(&text);
                check_spans(&text, &script);
            }

            #[test]
            fn repeated_fragments_finish(
                fragment in common::pieces_of($meta, 0..120),
                n in 0usize..2_000,
            ) {
                let text = fragment.repeat(n.min(20_000 / fragment.len().max(1)));
                let script = lex(&text);
                check_spans(&text, &script);
            }

            #[test]
            fn random_deep_nesting_stays_on_the_stack(
                openers in prop::collection::vec(prop::sample::select($openers), 40..300),
            ) {
                let text = openers.concat();
                let script = lex(&text);
                check_spans(&text, &script);
            }
        }
    };
}
pub(crate) use robustness_properties;

/// Joins `argv` into one line, each argument quoted with `quote`, and checks that `lex` reads
/// it back as exactly `argv`: one plain command of literal words.
pub(crate) fn quoting_round_trips(
    argv: &[String],
    quote: fn(&str) -> String,
    lex: fn(&str) -> Script,
) -> Result<(), TestCaseError> {
    let line = argv.iter().map(|a| quote(a)).collect::<Vec<_>>().join(" ");
    let expected: Vec<Option<String>> = argv.iter().cloned().map(Some).collect();
    prop_assert_eq!(single_command_argv(&line, lex), expected, "{}", line);
    Ok(())
}
