//! The PowerShell lexer: text → flat list of simple commands.
//!
//! Commands are read in PowerShell's argument mode:
//!
//! - `'…'` is literal (`''` is a quote), `"…"` expands `$…` and takes backtick escapes, a
//!   backtick outside quotes escapes the next character (before a newline it continues the
//!   line); here-strings `@'…'@` and `@"…"@`; the typographic quotes PowerShell accepts.
//! - `$name`, `$env:X`, `${…}`, `$?`, `@splat` are [`WordPart::Parameter`] (opaque). `$(…)`,
//!   `@(…)`, `@{…}` and parenthesised arguments `(…)` are [`WordPart::CommandSubstitution`]
//!   whose commands are listed with `in_substitution`.
//! - Script blocks `{ … }` passed as arguments (`ForEach-Object { Remove-Item $_ }`) are
//!   listed with `in_control_flow` and `in_function` (they run when the receiving command
//!   invokes them); keyword bodies (`if (…) { … }`, loops, `try`, `switch`) with
//!   `in_control_flow`, function bodies with `in_function`. Conditions in `( … )` are lexed.
//! - `;`, newlines, `|`, `&&`, `||` and a trailing `&` separate commands; `# …` and
//!   `<# … #>` are comments; `>`, `>>`, `2>`, `*>`, `2>&1` are redirections; `$x = …` puts
//!   `$x` in [`SimpleCommand::assignments`]; `--%` stops parsing (the rest of the line is
//!   split like a native command line).
//! - `,` stays inside words (array arguments are split by the classifier).
//!
//! Never panics, runs in linear time, and nesting is bounded by [`MAX_DEPTH`].
//!
//! [`WordPart::Parameter`]: crate::WordPart::Parameter
//! [`WordPart::CommandSubstitution`]: crate::WordPart::CommandSubstitution
//! [`SimpleCommand::assignments`]: crate::SimpleCommand::assignments

use agent_guard_types::Span;

use crate::ast::{CommandContext, LexErrorKind, Script, Separator, SimpleCommand, nested};
use crate::cursor::{Cursor, deref_cursor};
use crate::list::ListState;

mod statement;
mod word;

#[cfg(test)]
mod tests;

pub use crate::cursor::MAX_DEPTH;

/// Lexes PowerShell text into a [`Script`].
///
/// Never fails and never panics: the first syntax problem is reported in [`Script::error`]
/// and every command that could be recognised is still listed, sorted by where it starts.
pub fn lex(text: &str) -> Script {
    let mut lexer = Lexer::new(text);
    lexer.parse_top();
    let Lexer { commands, cur, .. } = lexer;
    Script::in_source_order(commands, cur.error)
}

/// Grows an optional span to cover `s`.
fn grow(span: &mut Option<Span>, s: Span) {
    *span = Some(span.map_or(s, |cur| cur.join(s)));
}

/// Returns `true` for the typographic single quotes PowerShell accepts as `'`.
fn is_single_quote(c: char) -> bool {
    matches!(c, '\'' | '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}')
}

/// Returns `true` for the typographic double quotes PowerShell accepts as `"`.
fn is_double_quote(c: char) -> bool {
    matches!(c, '"' | '\u{201C}' | '\u{201D}' | '\u{201E}')
}

/// Why a statement list stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// End of the region.
    Eof,
    /// The expected closer (`)` or `}`), not consumed.
    Close,
}

struct Lexer<'a> {
    /// Position, region (the input, or a here-string body), first error and nesting depth.
    cur: Cursor<'a>,
    commands: Vec<SimpleCommand>,
}

deref_cursor!(Lexer);

impl<'a> Lexer<'a> {
    fn new(src: &'a str) -> Self {
        Lexer {
            cur: Cursor::new(src, 0),
            commands: Vec::new(),
        }
    }

    /// The char at byte `p`, within the region.
    fn char_at(&self, p: usize) -> Option<char> {
        self.byte(p)?;
        self.src.get(p..self.limit)?.chars().next()
    }

    /// Length of the blank at `pos` (space, tab, CR, any Unicode space but a newline, or a
    /// backtick line continuation), or 0.
    fn blank_len(&self) -> usize {
        match self.peek() {
            Some(b' ' | b'\t' | b'\r' | 0x0B | 0x0C) => 1,
            Some(b'`') => match (self.peek_at(1), self.peek_at(2)) {
                (Some(b'\n'), _) => 2,
                (Some(b'\r'), Some(b'\n')) => 3,
                _ => 0,
            },
            Some(b) if b >= 0x80 => match self.char_at(self.pos) {
                Some(c) if c.is_whitespace() => c.len_utf8(),
                _ => 0,
            },
            _ => 0,
        }
    }

    /// Skips blanks (not newlines).
    fn skip_blanks(&mut self) {
        loop {
            let n = self.blank_len();
            if n == 0 {
                break;
            }
            self.pos += n;
        }
    }

    /// Skips a `#` comment up to (not including) the end of its line.
    fn skip_comment(&mut self) {
        self.pos = self.run_end(self.pos, b"\n");
    }

    /// Skips a `<# … #>` comment at `pos`.
    fn skip_block_comment(&mut self) {
        let open = self.pos;
        let mut p = open + 2;
        loop {
            let hash = self.run_end(p, b"#");
            match self.byte(hash) {
                None => {
                    self.set_error(LexErrorKind::Malformed, open, open + 2);
                    self.pos = hash;
                    return;
                }
                Some(_) if self.byte(hash + 1) == Some(b'>') => {
                    self.pos = hash + 2;
                    return;
                }
                Some(_) => p = hash + 1,
            }
        }
    }

    /// Skips blanks, newlines and comments.
    fn skip_space_nl(&mut self) {
        loop {
            self.skip_blanks();
            match self.peek() {
                Some(b'\n') => self.pos += 1,
                Some(b'#') => self.skip_comment(),
                Some(b'<') if self.peek_at(1) == Some(b'#') => self.skip_block_comment(),
                _ => break,
            }
        }
    }

    fn parse_top(&mut self) {
        let ctx = CommandContext::default();
        while self.parse_statements(ctx, None) == Stop::Close {
            // Unreachable without a closer; kept so a stray closer can never loop.
            self.pos += 1;
        }
    }

    /// Lexes statements until the region ends or `closer` (not consumed) is reached. A
    /// closer that closes nothing is reported and skipped.
    fn parse_statements(&mut self, ctx: CommandContext, closer: Option<u8>) -> Stop {
        let mut list = ListState::new();
        loop {
            self.skip_blanks();
            let start = self.pos;
            let Some(b) = self.peek() else {
                return list.end(&mut self.cur, Stop::Eof);
            };
            let op = match b {
                // Empty statements (`;;`) are allowed: `;` only ends a statement.
                b'\n' | b';' => {
                    self.pos += 1;
                    list.line_end();
                    continue;
                }
                b'#' => {
                    self.skip_comment();
                    continue;
                }
                b'<' if self.peek_at(1) == Some(b'#') => {
                    self.skip_block_comment();
                    continue;
                }
                b')' | b'}' => {
                    if closer == Some(b) {
                        return list.end(&mut self.cur, Stop::Close);
                    }
                    self.set_error(LexErrorKind::UnexpectedClose, start, start + 1);
                    self.pos += 1;
                    continue;
                }
                b'|' if self.peek_at(1) == Some(b'|') => Some((Separator::Or, 2)),
                b'|' => Some((Separator::Pipe, 1)),
                b'&' if self.peek_at(1) == Some(b'&') => Some((Separator::And, 2)),
                b'&' if list.after_command() => Some((Separator::Background, 1)),
                _ => None,
            };
            if let Some((sep, len)) = op {
                list.operator(&mut self.cur, sep, start, len);
                continue;
            }
            self.parse_statement(ctx, list.separator());
            list.command(&mut self.cur, start);
        }
    }

    /// Lexes a `( … )` or `{ … }` group at `pos` as statements in `ctx`, consuming the
    /// closer. Returns `false` (after reporting) if it is never closed.
    fn group(&mut self, ctx: CommandContext, open_len: usize, closer: u8) -> bool {
        let open = self.pos;
        self.pos += open_len;
        if !self.enter() {
            return false;
        }
        let done = match self.parse_statements(ctx, Some(closer)) {
            Stop::Close => {
                self.pos += 1;
                true
            }
            Stop::Eof => {
                self.set_error(LexErrorKind::UnclosedGroup, open, open + open_len);
                false
            }
        };
        self.leave();
        done
    }
}
