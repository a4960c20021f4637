//! Lists, pipelines and simple commands: the part of the grammar between separators.

use agent_guard_types::Span;

use super::Lexer;
use super::word::{WordMode, is_assignment};
use crate::ast::{CommandContext, LexErrorKind, Separator, SimpleCommand};
use crate::list::ListState;

/// Reserved words (recognised only where a command may start).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kw {
    If,
    Then,
    Elif,
    Else,
    Fi,
    Do,
    Done,
    Case,
    Esac,
    While,
    Until,
    For,
    Select,
    Function,
    LBrace,
    RBrace,
    Bang,
    DBracket,
}

const KEYWORDS: [(Kw, &str); 18] = [
    (Kw::If, "if"),
    (Kw::Then, "then"),
    (Kw::Elif, "elif"),
    (Kw::Else, "else"),
    (Kw::Fi, "fi"),
    (Kw::Do, "do"),
    (Kw::Done, "done"),
    (Kw::Case, "case"),
    (Kw::Esac, "esac"),
    (Kw::While, "while"),
    (Kw::Until, "until"),
    (Kw::For, "for"),
    (Kw::Select, "select"),
    (Kw::Function, "function"),
    (Kw::LBrace, "{"),
    (Kw::RBrace, "}"),
    (Kw::Bang, "!"),
    (Kw::DBracket, "[["),
];

impl Kw {
    /// Length of the word in bytes.
    pub(super) fn len(self) -> usize {
        KEYWORDS
            .iter()
            .find(|(k, _)| *k == self)
            .map_or(1, |(_, text)| text.len())
    }

    /// Words that end a command list (the enclosing construct decides what to do with them).
    fn ends_list(self) -> bool {
        matches!(
            self,
            Kw::Then | Kw::Elif | Kw::Else | Kw::Fi | Kw::Do | Kw::Done | Kw::Esac | Kw::RBrace
        )
    }
}

/// Why a command list stopped. The token that stopped it is not consumed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stop {
    /// End of the region.
    Eof,
    /// A `)`.
    Paren,
    /// A list-ending reserved word in command position.
    Reserved(Kw),
    /// A case terminator `;;`, `;&` or `;;&` of the given length.
    CaseTerm(usize),
}

/// Returns `true` if `next` may follow a reserved word (the word ends there).
fn ends_reserved(next: Option<u8>, kw: Kw) -> bool {
    match next {
        None | Some(b' ' | b'\t' | b'\r' | b'\n' | b';' | b'&' | b'|' | b')' | b'<' | b'>') => true,
        // `!(…)` is an extglob pattern, not negation.
        Some(b'(') => kw != Kw::Bang,
        Some(_) => false,
    }
}

/// Grows an optional span to cover `s`.
pub(super) fn grow(span: &mut Option<Span>, s: Span) {
    *span = Some(span.map_or(s, |cur| cur.join(s)));
}

impl Lexer<'_> {
    /// The reserved word at `pos`, if one is there as a whole word.
    pub(super) fn peek_reserved(&self) -> Option<Kw> {
        let rest = self.rest();
        KEYWORDS
            .iter()
            .find(|(kw, text)| {
                rest.starts_with(text.as_bytes())
                    && ends_reserved(rest.get(text.len()).copied(), *kw)
            })
            .map(|(kw, _)| *kw)
    }

    /// Returns `true` if the plain word `w` (e.g. `in`) is at `pos` as a whole word.
    pub(super) fn peek_word(&self, w: &[u8]) -> bool {
        let rest = self.rest();
        rest.starts_with(w) && ends_reserved(rest.get(w.len()).copied(), Kw::If)
    }

    /// Lexes the whole region as a script; stray closers are reported and skipped.
    pub(super) fn parse_top(&mut self, ctx: CommandContext) {
        loop {
            match self.parse_list(ctx) {
                Stop::Eof => break,
                stop => self.stray(stop),
            }
        }
    }

    /// Lexes a list closed by `)` (subshell or substitution body) and consumes the `)`.
    /// Returns `false` if the region ended first.
    pub(super) fn parse_paren_body(&mut self, ctx: CommandContext) -> bool {
        loop {
            match self.parse_list(ctx) {
                Stop::Paren => {
                    self.pos += 1;
                    return true;
                }
                Stop::Eof => return false,
                stop => self.stray(stop),
            }
        }
    }

    /// Reports and skips a token that closes nothing.
    fn stray(&mut self, stop: Stop) {
        let start = self.pos;
        let (kind, len) = match stop {
            Stop::Eof => return,
            Stop::Paren => (LexErrorKind::UnexpectedClose, 1),
            Stop::Reserved(kw @ (Kw::Fi | Kw::Done | Kw::Esac | Kw::RBrace)) => {
                (LexErrorKind::UnexpectedClose, kw.len())
            }
            Stop::Reserved(kw) => (LexErrorKind::Malformed, kw.len()),
            Stop::CaseTerm(len) => (LexErrorKind::Malformed, len),
        };
        self.set_error(kind, start, start + len);
        self.pos = (start + len).min(self.limit.max(start));
        if self.pos == start {
            // Defensive: never loop without progress.
            self.pos = self.limit;
        }
    }

    /// Lexes a command list: pipelines and and-or lists separated by `;`, `&` or newlines.
    pub(super) fn parse_list(&mut self, ctx: CommandContext) -> Stop {
        let mut list = ListState::new();
        loop {
            self.skip_blanks();
            let start = self.pos;
            let Some(b) = self.peek() else {
                return list.end(&mut self.cur, Stop::Eof);
            };
            let op = match b {
                b'\n' => {
                    self.consume_newline();
                    list.line_end();
                    continue;
                }
                b'#' => {
                    self.skip_comment();
                    continue;
                }
                b')' => return list.end(&mut self.cur, Stop::Paren),
                b';' => match (self.peek_at(1), self.peek_at(2)) {
                    (Some(b';'), Some(b'&')) => return list.end(&mut self.cur, Stop::CaseTerm(3)),
                    (Some(b';' | b'&'), _) => return list.end(&mut self.cur, Stop::CaseTerm(2)),
                    _ => Some((Separator::Sequence, 1)),
                },
                b'&' => match self.peek_at(1) {
                    Some(b'&') => Some((Separator::And, 2)),
                    Some(b'>') => None,
                    _ => Some((Separator::Background, 1)),
                },
                b'|' => match self.peek_at(1) {
                    Some(b'|') => Some((Separator::Or, 2)),
                    Some(b'&') => Some((Separator::PipeAll, 2)),
                    _ => Some((Separator::Pipe, 1)),
                },
                _ => None,
            };
            if let Some((sep, len)) = op {
                list.operator(&mut self.cur, sep, start, len);
                continue;
            }
            if let Some(kw) = self.peek_reserved()
                && kw.ends_list()
            {
                return list.end(&mut self.cur, Stop::Reserved(kw));
            }
            self.parse_command(ctx, list.separator());
            list.command(&mut self.cur, start);
        }
    }

    /// Lexes one command (simple or compound) in command position.
    fn parse_command(&mut self, ctx: CommandContext, sep: Separator) {
        loop {
            self.skip_blanks();
            // bash's `time [-p]` keyword prefixes a whole pipeline, compound commands included
            // (`time { rm -rf build; }`). With GNU time options it stays an ordinary word.
            if self.peek_word(b"time") {
                let start = self.pos;
                self.pos += 4;
                self.skip_blanks();
                if self.peek_word(b"-p") {
                    self.pos += 2;
                    self.skip_blanks();
                }
                if self.peek() == Some(b'-') {
                    self.pos = start;
                } else {
                    continue;
                }
            }
            // bash's `coproc [NAME] COMMAND` runs COMMAND in the background; NAME is only
            // allowed before a compound command (`coproc w { rm -rf build; }`).
            if self.peek_word(b"coproc") {
                self.pos += 6;
                self.skip_blanks();
                let name = self.pos;
                let end = self.run_while(name, |b| b.is_ascii_alphanumeric() || b == b'_');
                if end > name {
                    self.pos = end;
                    self.skip_blanks();
                    let compound = self.peek() == Some(b'(')
                        || matches!(
                            self.peek_reserved(),
                            Some(
                                Kw::LBrace
                                    | Kw::If
                                    | Kw::While
                                    | Kw::Until
                                    | Kw::For
                                    | Kw::Select
                                    | Kw::Case
                                    | Kw::DBracket
                            )
                        );
                    if !compound {
                        self.pos = name;
                    }
                }
                continue;
            }
            match self.peek_reserved() {
                Some(Kw::Bang) => {
                    self.pos += 1;
                    self.negate_next = true;
                    continue;
                }
                Some(Kw::Function) => {
                    self.function_keyword(ctx, sep);
                    return;
                }
                Some(kw) if kw.ends_list() => return,
                _ => {}
            }
            if !self.compound(ctx, sep, true) {
                self.parse_simple(ctx, sep);
            }
            return;
        }
    }

    /// Lexes a simple command: assignments, words and redirections up to an operator.
    pub(super) fn parse_simple(&mut self, ctx: CommandContext, sep: Separator) {
        let mut cmd = SimpleCommand {
            separator: sep,
            context: ctx,
            ..SimpleCommand::default()
        };
        let mut heredocs = Vec::new();
        let mut span = None;
        loop {
            self.skip_blanks();
            let Some(b) = self.peek() else { break };
            match b {
                b'\n' | b';' | b'|' | b')' => break,
                b'&' if self.peek_at(1) != Some(b'>') => break,
                b'#' => {
                    self.skip_comment();
                    break;
                }
                b'(' => {
                    // Only `NAME()` may put `(` here; anything else is a bash syntax error.
                    self.error_here(LexErrorKind::Malformed, 1);
                    self.pos += 1;
                    continue;
                }
                _ => {}
            }
            if self.redirect_into(ctx, &mut cmd, &mut heredocs, &mut span) {
                continue;
            }
            let first = cmd.words.is_empty();
            let mode = WordMode {
                assign_ok: first,
                cmd_pos: first && cmd.assignments.is_empty() && cmd.redirects.is_empty(),
                cond: false,
            };
            let Some(word) = self.parse_word(ctx, mode) else {
                self.error_here(LexErrorKind::Malformed, 1);
                self.pos += self.char_len_at(self.pos);
                continue;
            };
            grow(&mut span, word.span);
            if first && is_assignment(self.slice(word.span.start, word.span.end)) {
                cmd.assignments.push(word);
                continue;
            }
            let name = word.literal_text();
            let start = word.span.start;
            cmd.words.push(word);
            if mode.cmd_pos
                && let Some(name) = name.filter(|_| self.funcdef_parens_here())
            {
                // `NAME () BODY` defines a function; the definition itself runs nothing.
                self.function_def(ctx, sep, Some((name, start)));
                return;
            }
        }
        if let Some(span) = span {
            cmd.span = span;
            self.emit(cmd, &heredocs);
        }
    }

    /// Lexes a redirection into `cmd` if one starts at `pos`.
    pub(super) fn redirect_into(
        &mut self,
        ctx: CommandContext,
        cmd: &mut SimpleCommand,
        heredocs: &mut Vec<(usize, usize)>,
        span: &mut Option<Span>,
    ) -> bool {
        let Some(start) = self.redirect_here() else {
            return false;
        };
        let (redirect, id) = self.parse_redirect(ctx, start);
        if let Some(id) = id {
            heredocs.push((cmd.redirects.len(), id));
        }
        grow(span, redirect.span);
        cmd.redirects.push(redirect);
        true
    }

    /// After a compound command: its redirections (listed as a command with no words, so a
    /// truncating `done > file` is seen) and a check that an operator follows.
    pub(super) fn trailing(&mut self, ctx: CommandContext, sep: Separator) {
        let mut cmd = SimpleCommand {
            separator: sep,
            context: ctx,
            ..SimpleCommand::default()
        };
        let mut heredocs = Vec::new();
        let mut span = None;
        loop {
            self.skip_blanks();
            if !self.redirect_into(ctx, &mut cmd, &mut heredocs, &mut span) {
                break;
            }
        }
        if let Some(span) = span {
            cmd.span = span;
            self.emit(cmd, &heredocs);
        }
        match self.peek() {
            None | Some(b'\n' | b';' | b'&' | b'|' | b')' | b'#') => {}
            Some(_) => self.error_here(LexErrorKind::Malformed, 1),
        }
    }

    /// Lookahead: blanks, `(`, blanks, `)` — the parentheses of a function definition.
    pub(super) fn funcdef_parens_here(&self) -> bool {
        let rest = self.rest();
        let mut it = rest
            .iter()
            .copied()
            .skip_while(|b| matches!(b, b' ' | b'\t'));
        if it.next() != Some(b'(') {
            return false;
        }
        it.find(|b| !matches!(b, b' ' | b'\t')) == Some(b')')
    }
}
