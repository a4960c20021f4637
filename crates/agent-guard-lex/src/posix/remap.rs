//! Mapping spans of a child lexer (backtick bodies) back onto the parent text.

use agent_guard_types::Span;

use crate::ast::{Brace, SimpleCommand, Word, WordPart};

/// Maps both ends of a span. `f` maps a child byte offset to the parent offset of that byte
/// (and the child's length to the end of the body). An end maps to just after the byte
/// before it, so a span never swallows a removed backslash that follows it.
pub(super) fn span(s: Span, f: &dyn Fn(usize) -> usize) -> Span {
    let start = f(s.start);
    let end = if s.end > s.start {
        f(s.end - 1) + 1
    } else {
        start
    };
    Span::new(start, end)
}

/// Maps every span in a command.
pub(super) fn command(cmd: &mut SimpleCommand, f: &dyn Fn(usize) -> usize) {
    cmd.span = span(cmd.span, f);
    for w in cmd.assignments.iter_mut().chain(cmd.words.iter_mut()) {
        word(w, f);
    }
    for r in &mut cmd.redirects {
        r.span = span(r.span, f);
        if let Some(t) = &mut r.target {
            word(t, f);
        }
    }
}

fn word(w: &mut Word, f: &dyn Fn(usize) -> usize) {
    w.span = span(w.span, f);
    for part in &mut w.parts {
        if let WordPart::Brace(Brace::List(alternatives)) = part {
            for alt in alternatives {
                word(alt, f);
            }
        }
    }
}
