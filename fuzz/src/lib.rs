//! Invariants the fuzz targets assert on every input.

use agent_guard_classify::{classify, smells};
use agent_guard_lex::{Script, Word};
use agent_guard_types::{Dialect, OpKind};

fn span(text: &str, start: usize, end: usize, what: &str) {
    assert!(start <= end, "{what}: start after end");
    assert!(end <= text.len(), "{what}: out of bounds");
    assert!(
        text.is_char_boundary(start) && text.is_char_boundary(end),
        "{what}: not a char boundary"
    );
}

fn word(text: &str, w: &Word) {
    span(text, w.span.start, w.span.end, "word");
}

/// Checks a lexed script against its text, then the classifier on the same text:
/// - every span is in bounds and on char boundaries;
/// - top-level commands are in order and do not overlap;
/// - a malformed line with destructive vocabulary is exactly one unknown op (never allowed).
pub fn check(text: &str, script: &Script, dialect: Dialect) {
    if let Some(error) = &script.error {
        span(text, error.span.start, error.span.end, "error");
    }
    let mut last_end = 0;
    let mut last_start = 0;
    for command in &script.commands {
        span(text, command.span.start, command.span.end, "command");
        assert!(command.span.start >= last_start, "commands out of order");
        last_start = command.span.start;
        if command.context.depth == 0 {
            assert!(command.span.start >= last_end, "top-level commands overlap");
            last_end = command.span.end;
        }
        command
            .words
            .iter()
            .chain(&command.assignments)
            .for_each(|w| word(text, w));
        for redirect in &command.redirects {
            span(text, redirect.span.start, redirect.span.end, "redirect");
            if let Some(target) = &redirect.target {
                word(text, target);
            }
        }
    }
    let result = classify(text, dialect);
    for op in &result.ops {
        span(text, op.span.start, op.span.end, "op");
        assert!(op.kind != OpKind::Other, "an op of kind other was reported");
    }
    if script.error.is_some() && smells(text) {
        assert!(
            result.ops.len() == 1 && result.ops[0].kind == OpKind::Unknown,
            "a malformed destructive line must be one unknown op"
        );
    }
}
