//! Redirections: `[fd|{name}]op target`, including heredoc and here-string operators.

use agent_guard_types::Span;

use super::Lexer;
use super::heredoc::quote_remove;
use super::word::WordMode;
use crate::ast::{CommandContext, Heredoc, LexErrorKind, Redirect, RedirectOp};

/// Where a redirection starts: its fd (if any), operator and the end of the operator.
#[derive(Debug, Clone, Copy)]
pub(super) struct RedirectStart {
    fd: Option<u32>,
    op: RedirectOp,
    op_end: usize,
}

impl Lexer<'_> {
    /// The operator at byte `p`, with its length. `<(` and `>(` are process substitutions.
    fn op_at(&self, p: usize) -> Option<(RedirectOp, usize)> {
        let rest = self.bytes.get(p..self.limit).unwrap_or(&[]);
        let at = |s: &[u8]| rest.starts_with(s);
        let op = match rest.first()? {
            b'<' if at(b"<<<") => (RedirectOp::HereString, 3),
            b'<' if at(b"<<-") => (RedirectOp::HereDocStrip, 3),
            b'<' if at(b"<<") => (RedirectOp::HereDoc, 2),
            b'<' if at(b"<>") => (RedirectOp::ReadWrite, 2),
            b'<' if at(b"<&") => (RedirectOp::DupIn, 2),
            b'<' if !at(b"<(") => (RedirectOp::In, 1),
            b'>' if at(b">>") => (RedirectOp::Append, 2),
            b'>' if at(b">|") => (RedirectOp::Clobber, 2),
            b'>' if at(b">&") => (RedirectOp::DupOut, 2),
            b'>' if !at(b">(") => (RedirectOp::Out, 1),
            b'&' if at(b"&>>") => (RedirectOp::AppendErr, 3),
            b'&' if at(b"&>") => (RedirectOp::OutErr, 2),
            _ => return None,
        };
        Some(op)
    }

    /// Returns where a redirection starting at `pos` is, if one does. A number is an fd only
    /// when the operator follows it directly (`2>x`); `{name}` before the operator allocates
    /// an fd (reported as no fd).
    pub(super) fn redirect_here(&self) -> Option<RedirectStart> {
        let rest = self.rest();
        let first = *rest.first()?;
        let (fd, op_pos) = if first.is_ascii_digit() {
            let n = rest.iter().take_while(|b| b.is_ascii_digit()).count();
            (
                self.slice(self.pos, self.pos + n).parse::<u32>().ok(),
                self.pos + n,
            )
        } else if first == b'{' {
            let n = rest
                .iter()
                .skip(1)
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                .count();
            let name_ok = rest
                .get(1)
                .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_');
            if !name_ok || rest.get(n + 1) != Some(&b'}') {
                return None;
            }
            (None, self.pos + n + 2)
        } else {
            (None, self.pos)
        };
        // After a number or `{name}` only `<`/`>` operators count (`2&>x` is `2` then `&>x`).
        if op_pos != self.pos && self.byte(op_pos) == Some(b'&') {
            return None;
        }
        let (op, len) = self.op_at(op_pos)?;
        Some(RedirectStart {
            fd,
            op,
            op_end: op_pos + len,
        })
    }

    /// Lexes the redirection found by [`Lexer::redirect_here`]. Returns it and, for a heredoc,
    /// the id its body will be stored under.
    pub(super) fn parse_redirect(
        &mut self,
        ctx: CommandContext,
        at: RedirectStart,
    ) -> (Redirect, Option<usize>) {
        let start = self.pos;
        self.pos = at.op_end;
        self.skip_blanks();
        let target = match self.peek() {
            None | Some(b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'#') => None,
            Some(b'<' | b'>') if self.peek_at(1) != Some(b'(') => None,
            Some(_) => self.parse_word(ctx, WordMode::PLAIN),
        };
        let end = target.as_ref().map_or(at.op_end, |w| w.span.end);
        if target.is_none() {
            self.set_error(LexErrorKind::Malformed, start, at.op_end);
        }
        let mut heredoc = None;
        let mut id = None;
        if let (RedirectOp::HereDoc | RedirectOp::HereDocStrip, Some(word)) = (at.op, &target) {
            let raw = self.slice(word.span.start, word.span.end);
            let quoted = raw.contains(['\'', '"', '\\']);
            let delimiter = quote_remove(raw);
            let strip = at.op == RedirectOp::HereDocStrip;
            id = Some(self.register_heredoc(delimiter.clone(), strip, quoted, ctx));
            heredoc = Some(Heredoc {
                delimiter,
                quoted,
                body: String::new(),
                terminated: false,
            });
        }
        let redirect = Redirect {
            fd: at.fd,
            op: at.op,
            target,
            heredoc,
            span: Span::new(start, end),
        };
        (redirect, id)
    }
}
