//! Words in argument mode: quotes, escapes, here-strings, variables, subexpressions,
//! parenthesised arguments and script blocks.

use agent_guard_types::Span;

use super::{Lexer, is_double_quote, is_single_quote, nested};
use crate::ast::{CommandContext, LexErrorKind, Word, WordPart};
use crate::wordbuf::WordBuf;

/// Bytes that end a run of ordinary word characters. 0xC2 and 0xE2 start the Unicode spaces,
/// dashes and typographic quotes that need a closer look.
const WORD_SPECIAL: &[u8] = b" \t\r\n\x0B\x0C;|&(){}<>$@'\"`\xC2\xE1\xE2\xE3";

/// Context of commands inside a subexpression or a parenthesised argument.
fn substitution(ctx: CommandContext) -> CommandContext {
    CommandContext {
        in_substitution: true,
        ..nested(ctx)
    }
}

/// Context of commands inside a script block passed as an argument.
fn script_block(ctx: CommandContext) -> CommandContext {
    CommandContext {
        in_control_flow: true,
        in_function: true,
        ..nested(ctx)
    }
}

/// The character a backtick escape stands for inside double quotes.
fn escaped(c: char) -> char {
    match c {
        '0' => '\0',
        'a' => '\u{7}',
        'b' => '\u{8}',
        'e' => '\u{1B}',
        'f' => '\u{C}',
        'n' => '\n',
        'r' => '\r',
        't' => '\t',
        'v' => '\u{B}',
        other => other,
    }
}

impl Lexer<'_> {
    /// Reads one word at `pos`. Returns `None` if no word starts here.
    pub(super) fn parse_word(&mut self, ctx: CommandContext) -> Option<Word> {
        let start = self.pos;
        let mut buf = WordBuf::default();
        while let Some(b) = self.peek() {
            match b {
                b' ' | b'\t' | b'\r' | b'\n' | 0x0B | 0x0C | b';' | b'|' | b'&' | b')' | b'}'
                | b'<' | b'>' => break,
                b'(' => self.paren_part(ctx, &mut buf, 1),
                b'{' if self.pos == start => self.block_part(ctx, &mut buf),
                b'$' => self.dollar(ctx, &mut buf, false),
                b'@' if self.pos == start => self.at_sign(ctx, &mut buf),
                b'\'' => self.single_quote(&mut buf),
                b'"' => self.double_quote(ctx, &mut buf),
                b'`' => {
                    if self.blank_len() > 0 {
                        // A line continuation ends the word.
                        break;
                    }
                    self.backtick(&mut buf);
                }
                _ if b >= 0x80 => {
                    let Some(c) = self.char_at(self.pos) else {
                        break;
                    };
                    if c.is_whitespace() {
                        break;
                    } else if is_single_quote(c) {
                        self.single_quote(&mut buf);
                    } else if is_double_quote(c) {
                        self.double_quote(ctx, &mut buf);
                    } else {
                        let end = self.pos + c.len_utf8();
                        buf.lit(self.slice(self.pos, end), false);
                        self.pos = end;
                    }
                }
                _ => {
                    let end = self.run_end(self.pos + 1, WORD_SPECIAL);
                    buf.lit(self.slice(self.pos, end), false);
                    self.pos = end;
                }
            }
        }
        if self.pos == start {
            return None;
        }
        Some(Word {
            parts: buf.finish(),
            span: Span::new(start, self.pos),
        })
    }

    /// `( … )` (or `$( … )`, `@( … )`, `@{ … }` with `open_len` 2) as an opaque part whose
    /// statements are lexed as a substitution.
    fn paren_part(&mut self, ctx: CommandContext, buf: &mut WordBuf, open_len: usize) {
        let start = self.pos;
        let closer = if self.byte(start + open_len - 1) == Some(b'{') {
            b'}'
        } else {
            b')'
        };
        self.group(substitution(ctx), open_len, closer);
        self.pos = self.pos.max(start + 1);
        buf.part(WordPart::CommandSubstitution {
            raw: self.slice(start, self.pos).to_owned(),
        });
    }

    /// `{ … }` at the start of a word: a script block argument.
    fn block_part(&mut self, ctx: CommandContext, buf: &mut WordBuf) {
        let start = self.pos;
        self.group(script_block(ctx), 1, b'}');
        self.pos = self.pos.max(start + 1);
        buf.part(WordPart::CommandSubstitution {
            raw: self.slice(start, self.pos).to_owned(),
        });
    }

    /// `$…`: a subexpression, `${…}`, a variable, or a literal `$`.
    pub(super) fn dollar(&mut self, ctx: CommandContext, buf: &mut WordBuf, quoted: bool) {
        let start = self.pos;
        let end = match self.byte(start + 1) {
            Some(b'(') => {
                self.pos = start + 1;
                self.group(substitution(ctx), 1, b')');
                self.pos = self.pos.max(start + 2);
                buf.part(WordPart::CommandSubstitution {
                    raw: self.slice(start, self.pos).to_owned(),
                });
                return;
            }
            Some(b'{') => {
                let mut p = start + 2;
                loop {
                    match self.byte(p) {
                        None => {
                            self.set_error(
                                LexErrorKind::UnterminatedSubstitution,
                                start,
                                start + 2,
                            );
                            break p;
                        }
                        Some(b'}') => break p + 1,
                        Some(b'`') => p += 1 + usize::from(self.byte(p + 1).is_some()),
                        Some(_) => p += 1,
                    }
                }
            }
            Some(b'?' | b'$' | b'^') => start + 2,
            Some(_) => {
                let mut p = start + 1;
                while let Some(c) = self.char_at(p) {
                    if c.is_alphanumeric() || c == '_' || c == ':' {
                        p += c.len_utf8();
                    } else {
                        break;
                    }
                }
                p
            }
            None => start + 1,
        };
        if end == start + 1 {
            buf.lit("$", quoted);
            self.pos = start + 1;
            return;
        }
        let end = end.min(self.limit.max(start + 1));
        buf.part(WordPart::Parameter {
            raw: self.slice(start, end).to_owned(),
            quoted,
        });
        self.pos = end;
    }

    /// `@` at the start of a word: `@( … )`, `@{ … }`, here-strings, `@splat`, or literal.
    fn at_sign(&mut self, ctx: CommandContext, buf: &mut WordBuf) {
        let start = self.pos;
        match self.byte(start + 1) {
            Some(b'(' | b'{') => self.paren_part(ctx, buf, 2),
            Some(q @ (b'\'' | b'"')) if self.here_string_opens(start + 2) => {
                self.here_string(ctx, buf, q);
            }
            Some(c) if c.is_ascii_alphanumeric() || c == b'_' => {
                let end = self.run_end(start + 1, b" \t\r\n;|&(){}<>,'\"`$@");
                buf.part(WordPart::Parameter {
                    raw: self.slice(start, end).to_owned(),
                    quoted: false,
                });
                self.pos = end;
            }
            _ => {
                buf.lit("@", false);
                self.pos += 1;
            }
        }
    }

    /// Returns `true` if only blanks separate `p` from the end of its line.
    fn here_string_opens(&self, p: usize) -> bool {
        let end = self.run_end(p, b"\n");
        self.byte(end) == Some(b'\n')
            && self
                .slice(p, end)
                .bytes()
                .all(|b| matches!(b, b' ' | b'\t' | b'\r'))
    }

    /// `@'…'@` (literal) or `@"…"@` (expanding) at `pos`; the closer starts a line.
    fn here_string(&mut self, ctx: CommandContext, buf: &mut WordBuf, quote: u8) {
        let open = self.pos;
        let body = self.run_end(open + 2, b"\n") + 1;
        let closer = [b'\n', quote, b'@'];
        let mut p = body.saturating_sub(1);
        let close = loop {
            let nl = self.run_end(p, b"\n");
            if self.byte(nl).is_none() {
                break None;
            }
            if self.bytes.get(nl..nl + 3) == Some(&closer[..]) && nl + 3 <= self.limit {
                break Some(nl);
            }
            p = nl + 1;
        };
        let (body_end, after) = if let Some(nl) = close {
            (nl, nl + 3)
        } else {
            self.set_error(LexErrorKind::UnterminatedQuote, open, open + 2);
            (self.limit, self.limit)
        };
        let body_end = body_end.max(body).min(self.limit);
        if quote == b'\'' {
            buf.lit(self.slice(body.min(body_end), body_end), true);
        } else {
            let saved = self.limit;
            self.limit = body_end;
            self.pos = body.min(body_end);
            self.double_body(ctx, buf, false);
            self.limit = saved;
        }
        self.pos = after.max(open + 2);
    }

    /// `'…'` at `pos` (or a typographic single quote): literal, a doubled quote is a quote.
    fn single_quote(&mut self, buf: &mut WordBuf) {
        let open = self.pos;
        self.pos += self.char_len_at(open);
        let mut text = String::new();
        loop {
            let Some(c) = self.char_at(self.pos) else {
                self.set_error(LexErrorKind::UnterminatedQuote, open, open + 1);
                break;
            };
            if is_single_quote(c) {
                self.pos += c.len_utf8();
                match self.char_at(self.pos) {
                    Some(next) if is_single_quote(next) => {
                        text.push(next);
                        self.pos += next.len_utf8();
                    }
                    _ => break,
                }
                continue;
            }
            let end = self.run_end(self.pos, b"'\xE2");
            if end == self.pos {
                text.push(c);
                self.pos += c.len_utf8();
            } else {
                text.push_str(self.slice(self.pos, end));
                self.pos = end;
            }
        }
        buf.lit(&text, true);
    }

    /// `"…"` at `pos` (or a typographic double quote).
    fn double_quote(&mut self, ctx: CommandContext, buf: &mut WordBuf) {
        let open = self.pos;
        self.pos += self.char_len_at(open);
        let pushes = buf.pushes();
        if !self.double_body(ctx, buf, true) {
            self.set_error(LexErrorKind::UnterminatedQuote, open, open + 1);
        }
        if buf.pushes() == pushes {
            buf.lit("", true);
        }
    }

    /// The inside of a double-quoted string or an expanding here-string. With `closes`, a
    /// double quote ends it (a doubled one is a quote); returns `false` if the region ended
    /// first.
    fn double_body(&mut self, ctx: CommandContext, buf: &mut WordBuf, closes: bool) -> bool {
        loop {
            let Some(c) = self.char_at(self.pos) else {
                return !closes;
            };
            match c {
                c if closes && is_double_quote(c) => {
                    self.pos += c.len_utf8();
                    match self.char_at(self.pos) {
                        Some(next) if is_double_quote(next) => {
                            buf.lit(next.encode_utf8(&mut [0; 4]), true);
                            self.pos += next.len_utf8();
                        }
                        _ => return true,
                    }
                }
                '`' => {
                    let Some(next) = self.char_at(self.pos + 1) else {
                        self.pos += 1;
                        return !closes;
                    };
                    if next == 'u' && self.byte(self.pos + 2) == Some(b'{') {
                        self.unicode_escape(buf);
                        continue;
                    }
                    buf.lit(escaped(next).encode_utf8(&mut [0; 4]), true);
                    self.pos += 1 + next.len_utf8();
                }
                '$' => self.dollar(ctx, buf, true),
                _ => {
                    let end = self.run_end(self.pos, b"\"`$\xE2");
                    let end = if end == self.pos {
                        self.pos + c.len_utf8()
                    } else {
                        end
                    };
                    buf.lit(self.slice(self.pos, end), true);
                    self.pos = end;
                }
            }
        }
    }

    /// `` `u{…} `` inside double quotes, at `pos`: PowerShell 7 reads the code point, Windows
    /// PowerShell 5.1 the letters `u{…}`. Which one runs the line is unknown, so the part is
    /// opaque (an unclosed brace is an escaped `u` in both).
    fn unicode_escape(&mut self, buf: &mut WordBuf) {
        let open = self.pos + 3;
        let close = self.run_end(open, b"}\"\n");
        if self.byte(close) != Some(b'}') {
            buf.lit("u", true);
            self.pos += 2;
            return;
        }
        buf.part(WordPart::Opaque {
            raw: self.slice(self.pos, close + 1).to_owned(),
            reason: "a `u{…} escape: PowerShell 7 reads a character, Windows PowerShell 5.1 the letters",
        });
        self.pos = close + 1;
    }

    /// A backtick outside quotes: the next character literally.
    fn backtick(&mut self, buf: &mut WordBuf) {
        if let Some(c) = self.char_at(self.pos + 1) {
            buf.lit(c.encode_utf8(&mut [0; 4]), true);
            self.pos += 1 + c.len_utf8();
        } else {
            buf.lit("`", true);
            self.pos += 1;
        }
    }
}
