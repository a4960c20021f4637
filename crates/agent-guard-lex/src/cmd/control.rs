//! `if` and `for`: their conditions and sets are skipped, their bodies lexed as commands.

use super::{Lexer, Stop, control, nested};
use crate::ast::{CommandContext, LexErrorKind, Separator};

/// `if` conditions that take exactly one operand.
const UNARY: &[&str] = &["exist", "defined", "errorlevel", "cmdextversion"];
/// Comparison operators of `if [/i] a OP b`.
const COMPARE: &[&str] = &["equ", "neq", "lss", "leq", "gtr", "geq"];

impl Lexer<'_> {
    /// Skips blanks and reads one word, returning its raw text lower-cased.
    fn condition_word(&mut self, ctx: CommandContext) -> Option<String> {
        self.skip_blanks();
        if self.at_command_end() {
            return None;
        }
        let word = self.parse_word(ctx)?;
        Some(
            self.slice(word.span.start, word.span.end)
                .to_ascii_lowercase(),
        )
    }

    /// Skips an `if` condition; returns `false` if it is malformed.
    fn condition(&mut self, ctx: CommandContext) -> bool {
        let Some(first) = self.condition_word(ctx) else {
            return false;
        };
        if UNARY.contains(&first.as_str()) {
            return self.condition_word(ctx).is_some();
        }
        if let Some(i) = first.find("==") {
            // `a==b` glued, or `a== b`.
            return i + 2 < first.len() || self.condition_word(ctx).is_some();
        }
        let Some(op) = self.condition_word(ctx) else {
            return false;
        };
        if op == "==" || COMPARE.contains(&op.as_str()) {
            return self.condition_word(ctx).is_some();
        }
        op.starts_with("==")
    }

    /// `if [/i] [not] CONDITION COMMAND [else COMMAND]` at `pos`.
    pub(super) fn if_command(&mut self, ctx: CommandContext) {
        let start = self.pos;
        self.pos += 2;
        if !self.enter() {
            return;
        }
        let inner = control(ctx);
        self.skip_blanks();
        if self.keyword(b"/i") {
            self.pos += 2;
            self.skip_blanks();
        }
        if self.keyword(b"not") {
            self.pos += 3;
        }
        if !self.condition(inner) {
            self.set_error(LexErrorKind::Malformed, start, start + 2);
            self.leave();
            return;
        }
        self.skip_blanks();
        if self.at_command_end() {
            self.set_error(LexErrorKind::Malformed, start, start + 2);
            self.leave();
            return;
        }
        if self.peek() == Some(b'(') {
            self.block(inner);
            self.trailing(inner, Separator::Start);
        } else {
            self.parse_command(inner, Separator::Start, true);
        }
        self.skip_blanks();
        if self.keyword(b"else") {
            self.pos += 4;
            self.parse_command(inner, Separator::Sequence, false);
        }
        self.leave();
    }

    /// `for [/d|/l|/r [root]|/f ["options"]] %%v in (SET) do COMMAND` at `pos`.
    pub(super) fn for_command(&mut self, ctx: CommandContext) {
        let start = self.pos;
        self.pos += 3;
        if !self.enter() {
            return;
        }
        let inner = control(ctx);
        let mut lines = false;
        let mut backquote = false;
        loop {
            self.skip_blanks();
            if self.peek() != Some(b'/') {
                break;
            }
            let option = self.condition_word(inner).unwrap_or_default();
            self.skip_blanks();
            match option.as_str() {
                "/r" if !matches!(self.peek(), Some(b'%') | None) => {
                    let _root = self.condition_word(inner);
                }
                "/f" => {
                    lines = true;
                    if self.peek() == Some(b'"') {
                        backquote = self
                            .condition_word(inner)
                            .is_some_and(|o| o.contains("usebackq"));
                    }
                }
                _ => {}
            }
        }
        let malformed = |lexer: &mut Self| {
            lexer.set_error(LexErrorKind::Malformed, start, start + 3);
            lexer.leave();
        };
        // The loop variable, then `in`.
        if self.condition_word(inner).is_none() {
            return malformed(self);
        }
        self.skip_blanks();
        if !self.keyword(b"in") {
            return malformed(self);
        }
        self.pos += 2;
        self.skip_blanks();
        if self.peek() != Some(b'(') {
            return malformed(self);
        }
        self.for_set(inner, lines, backquote);
        self.skip_blanks();
        if !self.keyword(b"do") {
            return malformed(self);
        }
        self.pos += 2;
        self.skip_blanks();
        if self.at_command_end() {
            return malformed(self);
        }
        self.parse_command(inner, Separator::Start, false);
        self.leave();
    }

    /// The `( … )` set of a `for`. Under `/f`, a command string (`'…'`, or `` `…` `` with
    /// `usebackq`) runs: its commands are lexed as a substitution.
    fn for_set(&mut self, ctx: CommandContext, lines: bool, backquote: bool) {
        let open = self.pos;
        self.pos += 1;
        loop {
            match self.peek() {
                None => {
                    self.set_error(LexErrorKind::UnclosedGroup, open, open + 1);
                    return;
                }
                Some(b')') => {
                    self.pos += 1;
                    return;
                }
                Some(q @ (b'\'' | b'`')) if lines && (q == b'`') == backquote => {
                    self.command_string(ctx, q);
                }
                Some(b'"') => {
                    let close = self.run_end(self.pos + 1, b"\"\n");
                    self.pos = if self.byte(close) == Some(b'"') {
                        close + 1
                    } else {
                        close
                    };
                }
                Some(b'^') => {
                    self.pos = (self.pos + 1 + self.char_len_at(self.pos + 1)).min(self.limit);
                }
                Some(_) => self.pos += self.char_len_at(self.pos),
            }
        }
    }

    /// A `for /f` command string at `pos`, delimited by `quote`.
    fn command_string(&mut self, ctx: CommandContext, quote: u8) {
        let open = self.pos;
        let close = self.run_end(open + 1, &[quote]);
        if self.byte(close).is_none() {
            self.set_error(LexErrorKind::UnterminatedQuote, open, open + 1);
        }
        if self.enter() {
            let saved = (self.limit, self.blocks, self.carets_transparent);
            self.limit = close;
            self.pos = open + 1;
            self.blocks = 0;
            self.carets_transparent = true;
            let inner = CommandContext {
                in_substitution: true,
                ..nested(ctx)
            };
            while self.parse_list(inner) == Stop::Close {
                self.pos += 1;
            }
            (self.limit, self.blocks, self.carets_transparent) = saved;
            self.leave();
        }
        self.pos = if self.byte(close).is_some() {
            close + 1
        } else {
            close
        };
    }
}
