//! Words and redirections: carets, double quotes, `%…%` and `!…!` variables.

use agent_guard_types::Span;

use super::Lexer;
use crate::ast::{CommandContext, LexErrorKind, Redirect, RedirectOp, Word, WordPart};
use crate::wordbuf::WordBuf;

/// Bytes that end a run of ordinary word characters.
const WORD_SPECIAL: &[u8] = b" \t\r\n&|<>^\"%!)";

/// Bytes a variable name never contains: blanks and syntax characters. Stopping there keeps
/// a stray `%` from swallowing a separator (`100% & del x & echo 50%`).
const NAME_STOP: &[u8] = b" \t\r\n&|<>()^\"%";

/// Characters of `%~dp0`-style modifiers and `%%i` loop variables.
fn is_modifier(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'$' | b':' | b'_')
}

impl Lexer<'_> {
    /// Reads one word at `pos`. Returns `None` if no word starts here.
    pub(super) fn parse_word(&mut self, _ctx: CommandContext) -> Option<Word> {
        let start = self.pos;
        let mut buf = WordBuf::default();
        while let Some(b) = self.peek() {
            match b {
                b' ' | b'\t' | b'\r' | b'\n' | b'&' | b'|' | b'<' | b'>' => break,
                b')' if self.blocks > 0 => break,
                b')' => {
                    buf.lit(")", false);
                    self.pos += 1;
                }
                b'^' => self.caret(&mut buf),
                b'"' => self.quoted(&mut buf),
                b'%' => self.percent(&mut buf, false),
                b'!' => self.bang(&mut buf, false),
                _ => {
                    let end = self.run_end(self.pos, WORD_SPECIAL);
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

    /// `^x`: `x` literally. `^` before a newline joins the next line, whose first character
    /// is then literal; a trailing `^` is dropped.
    fn caret(&mut self, buf: &mut WordBuf) {
        if self.carets_transparent {
            self.pos += 1;
            return;
        }
        let newline = match (self.peek_at(1), self.peek_at(2)) {
            (None, _) => {
                self.pos += 1;
                return;
            }
            (Some(b'\n'), _) => Some(2),
            (Some(b'\r'), Some(b'\n')) => Some(3),
            _ => None,
        };
        let at = match newline {
            Some(len) => {
                self.pos += len;
                if matches!(self.peek(), None | Some(b'\n')) {
                    return;
                }
                self.pos
            }
            None => self.pos + 1,
        };
        let end = at + self.char_len_at(at);
        buf.lit(self.slice(at, end), true);
        self.pos = end;
    }

    /// `"…"`: literal up to the closing quote, except for variables. A quote still open at
    /// the end of the line is an error: cmd would pass the rest of the line as one argument.
    fn quoted(&mut self, buf: &mut WordBuf) {
        let open = self.pos;
        self.pos += 1;
        let pushes = buf.pushes();
        loop {
            match self.peek() {
                None | Some(b'\n') => {
                    self.set_error(LexErrorKind::UnterminatedQuote, open, open + 1);
                    break;
                }
                Some(b'"') => {
                    self.pos += 1;
                    break;
                }
                Some(b'%') => self.percent(buf, true),
                Some(b'!') => self.bang(buf, true),
                Some(_) => {
                    let end = self.run_end(self.pos, b"\"\n%!");
                    buf.lit(self.slice(self.pos, end), true);
                    self.pos = end;
                }
            }
        }
        if buf.pushes() == pushes {
            // `""` is an empty argument, not nothing.
            buf.lit("", true);
        }
    }

    /// `%NAME%`, `%1`, `%*`, `%~dp0`, `%%i`, `%i`: opaque. A `%` that starts none of these is
    /// literal.
    fn percent(&mut self, buf: &mut WordBuf, quoted: bool) {
        let start = self.pos;
        let len = match self.byte(start + 1) {
            Some(b'%') => match self.byte(start + 2) {
                Some(b'~') => 3 + self.modifier_run(start + 3),
                Some(c) if !NAME_STOP.contains(&c) => 2 + self.char_len_at(start + 2),
                _ => {
                    // `%%` is an escaped `%`.
                    buf.lit("%", quoted);
                    self.pos += 2;
                    return;
                }
            },
            Some(b'~') => 2 + self.modifier_run(start + 2),
            Some(c) if c.is_ascii_digit() || c == b'*' => 2,
            Some(c) => {
                let end = self.run_end(start + 1, NAME_STOP);
                if self.byte(end) == Some(b'%') && end > start + 1 {
                    end + 1 - start
                } else if c.is_ascii_alphanumeric() || c == b'_' {
                    // A loop variable (`%i`) or a name that is never closed: opaque either way.
                    2
                } else {
                    0
                }
            }
            None => 0,
        };
        if len == 0 {
            buf.lit("%", quoted);
            self.pos += 1;
            return;
        }
        let end = (start + len).min(self.limit.max(start));
        buf.part(WordPart::Parameter {
            raw: self.slice(start, end).to_owned(),
            quoted,
        });
        self.pos = end.max(start + 1);
    }

    /// Length of a modifier run (`dp0`, `nxi`, `$PATH:i`) starting at `p`.
    fn modifier_run(&self, p: usize) -> usize {
        let mut n = 0;
        while self.byte(p + n).is_some_and(is_modifier) {
            n += 1;
        }
        n
    }

    /// `!NAME!` (delayed expansion): opaque. A lone `!` is literal.
    fn bang(&mut self, buf: &mut WordBuf, quoted: bool) {
        let start = self.pos;
        let end = self.run_end(start + 1, b" \t\r\n&|<>()^\"!%");
        if self.byte(end) == Some(b'!') && end > start + 1 {
            buf.part(WordPart::Parameter {
                raw: self.slice(start, end + 1).to_owned(),
                quoted,
            });
            self.pos = end + 1;
        } else {
            buf.lit("!", quoted);
            self.pos += 1;
        }
    }

    /// A redirection at `pos`: `[n]>`, `[n]>>`, `[n]<`, `>&n`, `<&n` and its target.
    pub(super) fn redirect(&mut self, ctx: CommandContext) -> Option<Redirect> {
        let start = self.pos;
        let (fd, op_pos) = match (self.peek(), self.peek_at(1)) {
            (Some(d @ b'0'..=b'9'), Some(b'<' | b'>')) => (Some(u32::from(d - b'0')), start + 1),
            _ => (None, start),
        };
        let (op, len) = match (self.byte(op_pos), self.byte(op_pos + 1)) {
            (Some(b'>'), Some(b'>')) => (RedirectOp::Append, 2),
            (Some(b'>'), _) => (RedirectOp::Out, 1),
            (Some(b'<'), _) => (RedirectOp::In, 1),
            _ => return None,
        };
        let mut end = op_pos + len;
        let op = if self.byte(end) == Some(b'&') {
            end += 1;
            if op == RedirectOp::In {
                RedirectOp::DupIn
            } else {
                RedirectOp::DupOut
            }
        } else {
            op
        };
        self.pos = end;
        self.skip_blanks();
        let target = match self.peek() {
            None | Some(b'\n' | b'&' | b'|' | b'<' | b'>') => None,
            Some(b')') if self.blocks > 0 => None,
            Some(_) => self.parse_word(ctx),
        };
        if target.is_none() {
            self.set_error(LexErrorKind::Malformed, start, end);
        }
        let span_end = target.as_ref().map_or(end, |t| t.span.end);
        Some(Redirect {
            fd,
            op,
            target,
            heredoc: None,
            span: Span::new(start, span_end),
        })
    }
}
