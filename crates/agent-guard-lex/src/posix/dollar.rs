//! Expansions that start with `$` or a backtick: parameters, command, process and arithmetic
//! substitutions, ANSI-C and locale quotes.
//!
//! Substitution bodies are lexed recursively in place, so their commands get exact spans and
//! a `case` pattern's `)` inside `$(…)` cannot close it. Backtick bodies must be de-escaped
//! first; they are lexed by a child lexer and their spans mapped back byte by byte.

use super::word::WordBuf;
use super::{Lexer, ansi, nested, remap};
use crate::ast::{CommandContext, LexErrorKind, WordPart};

/// The result of trying to read `((…))` as arithmetic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ArithOutcome {
    /// It was arithmetic; `pos` is after the closing `))`.
    Done,
    /// It was not (or is not tried again); `pos` is back at the start.
    Fallback {
        /// The attempt reached the end of input.
        at_eof: bool,
    },
}

/// Context of commands inside a substitution.
fn substituted(ctx: CommandContext) -> CommandContext {
    CommandContext {
        in_substitution: true,
        ..nested(ctx)
    }
}

/// Why a `$'…'` word whose bytes are not UTF-8 is opaque.
const NOT_UTF8: &str = "the name is bytes that are not UTF-8";

/// Special parameters after a lone `$`.
const SPECIAL_PARAMS: &[u8] = b"@*#?$!-0123456789";

impl Lexer<'_> {
    /// A `$` at `pos`. `quoted`: inside double quotes or a heredoc body.
    pub(super) fn dollar(&mut self, ctx: CommandContext, buf: &mut WordBuf, quoted: bool) {
        let start = self.pos;
        match self.peek_at(1) {
            Some(b'(') if self.peek_at(2) == Some(b'(') => self.arith_subst(ctx, buf),
            Some(b'(') => self.substitution(ctx, buf, start + 2, false),
            Some(b'{') => self.param_brace(ctx, buf, quoted),
            Some(b'\'') if !quoted => self.ansi_quote(buf),
            Some(b'"') if !quoted => {
                // `$"…"` (locale translation) is treated as plain double quotes.
                self.pos += 1;
                self.double_quote(ctx, buf);
            }
            Some(c) if c.is_ascii_alphabetic() || c == b'_' => {
                let end = self.run_while(start + 1, |b| b.is_ascii_alphanumeric() || b == b'_');
                self.pos = end;
                buf.part(WordPart::Parameter {
                    raw: self.slice(start, end).to_owned(),
                    quoted,
                });
            }
            Some(c) if SPECIAL_PARAMS.contains(&c) => {
                self.pos = start + 2;
                buf.part(WordPart::Parameter {
                    raw: self.slice(start, start + 2).to_owned(),
                    quoted,
                });
            }
            _ => {
                buf.lit("$", quoted);
                self.pos += 1;
            }
        }
    }

    /// The first position at or after `from` whose byte fails `keep` (or the region end).
    pub(super) fn run_while(&self, from: usize, keep: impl Fn(u8) -> bool) -> usize {
        let region = self.bytes.get(from..self.limit).unwrap_or(&[]);
        region
            .iter()
            .position(|&b| !keep(b))
            .map_or(self.limit.max(from), |i| from + i)
    }

    /// `$(…)` or `<(…)`/`>(…)` at `pos`; the body starts at `body`.
    pub(super) fn substitution(
        &mut self,
        ctx: CommandContext,
        buf: &mut WordBuf,
        body: usize,
        process: bool,
    ) {
        let start = self.pos;
        if !self.enter() {
            return;
        }
        self.pos = body;
        if !self.parse_paren_body(substituted(ctx)) {
            self.set_error(LexErrorKind::UnterminatedSubstitution, start, body);
        }
        self.leave();
        let raw = self.slice(start, self.pos).to_owned();
        buf.part(if process {
            WordPart::ProcessSubstitution { raw }
        } else {
            WordPart::CommandSubstitution { raw }
        });
    }

    /// `$((…))` at `pos`, or `$( (…) … )` when the parentheses do not close as `))`.
    fn arith_subst(&mut self, ctx: CommandContext, buf: &mut WordBuf) {
        let start = self.pos;
        if !self.enter() {
            return;
        }
        let outcome = self.try_arith(ctx, start, start + 3);
        self.leave();
        match outcome {
            ArithOutcome::Done => {
                buf.part(WordPart::Arithmetic {
                    raw: self.slice(start, self.pos).to_owned(),
                });
            }
            ArithOutcome::Fallback { at_eof } => {
                if at_eof {
                    self.set_error(LexErrorKind::UnterminatedSubstitution, start, start + 3);
                }
                self.pos = start;
                self.substitution(ctx, buf, start + 2, false);
            }
        }
    }

    /// Tries to read an arithmetic body starting at `body`, for a construct at `start`.
    /// On failure everything the attempt did is undone. Failures are memoised per position
    /// and the bytes failed attempts scan are budgeted, so nested ambiguous `((` stay linear.
    pub(super) fn try_arith(
        &mut self,
        ctx: CommandContext,
        start: usize,
        body: usize,
    ) -> ArithOutcome {
        if let Some(&at_eof) = self.arith.failed.get(&start) {
            return ArithOutcome::Fallback { at_eof };
        }
        if self.arith.budget == 0 {
            return ArithOutcome::Fallback { at_eof: false };
        }
        let cp = self.checkpoint();
        self.pos = body;
        match self.scan_arith(ctx) {
            Ok(()) => ArithOutcome::Done,
            Err(at_eof) => {
                let cost = self.pos.saturating_sub(start).max(1);
                self.arith.budget = self.arith.budget.saturating_sub(cost);
                self.arith.failed.insert(start, at_eof);
                self.restore(cp);
                ArithOutcome::Fallback { at_eof }
            }
        }
    }

    /// Scans an arithmetic body up to the `))` that closes it. Substitutions inside still
    /// run, so they are lexed. `Err(at_eof)` if a `)` closes early or the input ends.
    pub(super) fn scan_arith(&mut self, ctx: CommandContext) -> Result<(), bool> {
        let mut depth = 0usize;
        let mut scratch = WordBuf::default();
        loop {
            let Some(b) = self.peek() else {
                return Err(true);
            };
            match b {
                b'(' => {
                    depth += 1;
                    self.pos += 1;
                }
                b')' if depth > 0 => {
                    depth -= 1;
                    self.pos += 1;
                }
                b')' => {
                    if self.peek_at(1) == Some(b')') {
                        self.pos += 2;
                        return Ok(());
                    }
                    return Err(false);
                }
                b'\\' => self.escape(&mut scratch),
                b'\'' => self.single_quote(&mut scratch),
                b'"' => self.double_quote(ctx, &mut scratch),
                b'$' => self.dollar(ctx, &mut scratch, true),
                b'`' => self.backtick(ctx, &mut scratch, true),
                _ => self.pos = self.run_end(self.pos, b"()\\'\"$`"),
            }
        }
    }

    /// `${…}` at `pos`: finds the matching `}` through nested quotes and substitutions.
    fn param_brace(&mut self, ctx: CommandContext, buf: &mut WordBuf, quoted: bool) {
        let start = self.pos;
        if !self.enter() {
            return;
        }
        self.pos += 2;
        let mut depth = 1usize;
        let mut scratch = WordBuf::default();
        loop {
            let Some(b) = self.peek() else {
                self.set_error(LexErrorKind::UnterminatedSubstitution, start, start + 2);
                break;
            };
            match b {
                b'}' => {
                    self.pos += 1;
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                b'{' => {
                    depth += 1;
                    self.pos += 1;
                }
                b'\\' => self.escape(&mut scratch),
                // Inside double quotes a `'` in `${x:-it's}` is literal (bash).
                b'\'' if !quoted => self.single_quote(&mut scratch),
                b'"' => self.double_quote(ctx, &mut scratch),
                b'$' => self.dollar(ctx, &mut scratch, quoted),
                b'`' => self.backtick(ctx, &mut scratch, quoted),
                _ => self.pos = self.run_end(self.pos + 1, b"{}\\'\"$`"),
            }
        }
        self.leave();
        buf.part(WordPart::Parameter {
            raw: self.slice(start, self.pos).to_owned(),
            quoted,
        });
    }

    /// `$'…'` at `pos`: ANSI-C quoting, decoded to a quoted literal (opaque when its bytes are
    /// not UTF-8).
    fn ansi_quote(&mut self, buf: &mut WordBuf) {
        let start = self.pos;
        let body = start + 2;
        let mut i = body;
        let mut close = None;
        while let Some(b) = self.byte(i) {
            match b {
                b'\\' => i += 2,
                b'\'' => {
                    close = Some(i);
                    break;
                }
                _ => i += 1,
            }
        }
        let end = close.unwrap_or(self.limit);
        match String::from_utf8(ansi::decode(self.slice(body, end))) {
            Ok(text) => buf.lit(&text, true),
            // A `String` cannot carry the name, and any other spelling would name another
            // file: the part is opaque.
            Err(_) => buf.part(WordPart::Opaque {
                raw: self.slice(start, close.map_or(end, |c| c + 1)).to_owned(),
                reason: NOT_UTF8,
            }),
        }
        if let Some(c) = close {
            self.pos = c + 1;
        } else {
            self.set_error(LexErrorKind::UnterminatedQuote, start, body);
            self.pos = self.limit.max(start);
        }
    }

    /// A backtick substitution at `pos`. The body is de-escaped (a backslash before `$`, a
    /// backtick or a backslash is dropped; before `"` too inside double quotes) and lexed by a
    /// child lexer; its spans are mapped back onto this text.
    pub(super) fn backtick(&mut self, ctx: CommandContext, buf: &mut WordBuf, quoted: bool) {
        let start = self.pos;
        self.pos += 1;
        let mut content = String::new();
        // map[i] = position in this text of content byte i; one extra entry for the end.
        let mut map: Vec<usize> = Vec::new();
        let mut closed = false;
        while let Some(b) = self.peek() {
            match b {
                b'`' => {
                    closed = true;
                    break;
                }
                b'\\' => {
                    let next = self.peek_at(1);
                    match next {
                        Some(c @ (b'$' | b'`' | b'\\')) => {
                            map.push(self.pos + 1);
                            content.push(char::from(c));
                            self.pos += 2;
                        }
                        Some(b'"') if quoted => {
                            map.push(self.pos + 1);
                            content.push('"');
                            self.pos += 2;
                        }
                        _ => {
                            map.push(self.pos);
                            content.push('\\');
                            self.pos += 1;
                        }
                    }
                }
                _ => {
                    let end = self.run_end(self.pos, b"`\\");
                    content.push_str(self.slice(self.pos, end));
                    map.extend(self.pos..end);
                    self.pos = end;
                }
            }
        }
        let close = self.pos;
        map.push(close);
        if closed {
            self.pos += 1;
        } else {
            self.set_error(LexErrorKind::UnterminatedSubstitution, start, start + 1);
        }
        self.lex_backtick_body(ctx, &content, &map, close);
        buf.part(WordPart::CommandSubstitution {
            raw: self.slice(start, self.pos).to_owned(),
        });
    }

    fn lex_backtick_body(
        &mut self,
        ctx: CommandContext,
        content: &str,
        map: &[usize],
        close: usize,
    ) {
        if !self.enter() {
            return;
        }
        let mut child = Lexer::new(content, self.guard);
        child.parse_top(substituted(ctx));
        let aborted = child.aborted;
        let (commands, error) = child.finish();
        let f = |off: usize| map.get(off).copied().unwrap_or(close);
        for mut cmd in commands {
            remap::command(&mut cmd, &f);
            self.commands.push(cmd);
        }
        if let Some(e) = error {
            let span = remap::span(e.span, &f);
            self.set_error(e.kind, span.start, span.end);
        }
        if aborted {
            self.aborted = true;
        }
        self.leave();
    }
}
