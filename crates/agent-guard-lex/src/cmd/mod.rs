//! The cmd.exe lexer: text → flat list of simple commands.
//!
//! cmd has no real grammar, only parsing phases; this lexer follows them closely enough to see
//! every command that could run:
//!
//! - `%VAR%`, `%1`, `%~dp0`, `%%i` / `%i` loop variables and `!VAR!` are
//!   [`WordPart::Parameter`] (opaque). A variable name never spans blanks or syntax
//!   characters, so `100% & del x & echo 50%` still shows the `del`.
//! - Outside double quotes `^` escapes the next character (a `^` before a newline continues
//!   the line). Inside double quotes everything is literal; a quote still open at the end of
//!   the line is an error (fail closed).
//! - `&`, `&&`, `||`, `|` and newlines separate commands even when glued to words.
//! - `( … )` blocks, `if … ( … ) else ( … )` and `for … in (…) do …` bodies are lexed, so a
//!   delete inside them is seen; a `for /f` command string (`('…')`) is lexed as commands in
//!   a substitution.
//! - `,` `;` `=` stay inside words: they separate arguments only for cmd's builtins, which the
//!   classifier splits itself.
//!
//! Never panics, runs in linear time, and nesting is bounded by [`MAX_DEPTH`].
//!
//! [`WordPart::Parameter`]: crate::WordPart::Parameter

use agent_guard_types::Span;

use crate::ast::{CommandContext, LexErrorKind, Script, Separator, SimpleCommand, nested};
use crate::cursor::{Cursor, deref_cursor};
use crate::list::ListState;

mod control;
mod word;

#[cfg(test)]
mod tests;

pub use crate::cursor::MAX_DEPTH;

/// Lexes cmd.exe text into a [`Script`].
///
/// Never fails and never panics: the first syntax problem is reported in [`Script::error`]
/// and every command that could be recognised is still listed, sorted by where it starts.
pub fn lex(text: &str) -> Script {
    let mut lexer = Lexer::new(text);
    lexer.parse_top();
    let Lexer { commands, cur, .. } = lexer;
    Script::in_source_order(commands, cur.error)
}

/// Context of commands inside `if` and `for` bodies.
fn control(ctx: CommandContext) -> CommandContext {
    CommandContext {
        in_control_flow: true,
        ..nested(ctx)
    }
}

/// Grows an optional span to cover `s`.
fn grow(span: &mut Option<Span>, s: Span) {
    *span = Some(span.map_or(s, |cur| cur.join(s)));
}

/// Why a command list stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// End of the region.
    Eof,
    /// A `)` closing the current block (not consumed).
    Close,
}

struct Lexer<'a> {
    /// Position, region (the input, or a `for /f` command string), first error and depth.
    cur: Cursor<'a>,
    commands: Vec<SimpleCommand>,
    /// Open `( … )` blocks: an unquoted `)` ends a word only inside one.
    blocks: u32,
    /// Inside a `for /f` command string the carets belong to the outer line, which removes
    /// them before the inner cmd parses it: skip them instead of escaping.
    carets_transparent: bool,
}

deref_cursor!(Lexer);

impl<'a> Lexer<'a> {
    fn new(src: &'a str) -> Self {
        Lexer {
            cur: Cursor::new(src, 0),
            commands: Vec::new(),
            blocks: 0,
            carets_transparent: false,
        }
    }

    /// Skips spaces, tabs and carriage returns.
    fn skip_blanks(&mut self) {
        while let Some(b' ' | b'\t' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    /// Returns `true` if the case-insensitive word `kw` is at `pos`, followed by a delimiter.
    fn keyword(&self, kw: &[u8]) -> bool {
        let end = self.pos + kw.len();
        let Some(found) = self.bytes.get(self.pos..end) else {
            return false;
        };
        end <= self.limit
            && !self.aborted
            && found.eq_ignore_ascii_case(kw)
            && matches!(
                self.byte(end),
                None | Some(b' ' | b'\t' | b'\r' | b'\n' | b',' | b';' | b'=' | b'(')
            )
    }

    /// Lexes the whole input; stray closers are reported and skipped.
    fn parse_top(&mut self) {
        let ctx = CommandContext::default();
        while self.parse_list(ctx) == Stop::Close {
            self.error_here(LexErrorKind::UnexpectedClose, 1);
            self.pos += 1;
        }
    }

    /// Lexes commands joined by separators until the region ends or a block closes.
    fn parse_list(&mut self, ctx: CommandContext) -> Stop {
        let mut list = ListState::new();
        loop {
            self.skip_blanks();
            let start = self.pos;
            let Some(b) = self.peek() else {
                return list.end(&mut self.cur, Stop::Eof);
            };
            let op = match b {
                b'\n' => {
                    self.pos += 1;
                    list.line_end();
                    continue;
                }
                b')' if self.blocks > 0 => return list.end(&mut self.cur, Stop::Close),
                b'&' if self.peek_at(1) == Some(b'&') => Some((Separator::And, 2)),
                b'&' => Some((Separator::Sequence, 1)),
                b'|' if self.peek_at(1) == Some(b'|') => Some((Separator::Or, 2)),
                b'|' => Some((Separator::Pipe, 1)),
                _ => None,
            };
            if let Some((sep, len)) = op {
                list.operator(&mut self.cur, sep, start, len);
                continue;
            }
            self.parse_command(ctx, list.separator(), false);
            list.command(&mut self.cur, start);
        }
    }

    /// Lexes one command at command position: a block, `if`, `for` or a simple command.
    /// `stop_at_else` ends a simple command before an `else` word (the body of an `if`).
    fn parse_command(&mut self, ctx: CommandContext, sep: Separator, stop_at_else: bool) {
        loop {
            // cmd drops `@` (echo off) and the delimiters `,` `;` `=` before a command name.
            while let Some(b' ' | b'\t' | b'\r' | b',' | b';' | b'=' | b'@') = self.peek() {
                self.pos += 1;
            }
            if self.peek() == Some(b'(') {
                self.block(ctx);
                self.trailing(ctx, sep);
                self.skip_blanks();
                if !self.at_command_end() {
                    // cmd refuses text glued after a block: the whole line does not run.
                    self.error_here(LexErrorKind::Malformed, 1);
                }
            } else if self.keyword(b"if") {
                self.if_command(ctx);
            } else if self.keyword(b"for") {
                self.for_command(ctx);
            } else if self.keyword(b"else") {
                // A stray `else` (cmd would refuse the line): keep lexing what follows, so a
                // command hidden behind it is still seen.
                self.pos += 4;
                continue;
            } else {
                self.parse_simple(ctx, sep, stop_at_else);
            }
            return;
        }
    }

    /// `( … )` at `pos`: the block's commands, one level deeper.
    fn block(&mut self, ctx: CommandContext) {
        let open = self.pos;
        self.pos += 1;
        if !self.enter() {
            return;
        }
        self.blocks += 1;
        match self.parse_list(nested(ctx)) {
            Stop::Close => self.pos += 1,
            Stop::Eof => self.set_error(LexErrorKind::UnclosedGroup, open, open + 1),
        }
        self.blocks -= 1;
        self.leave();
    }

    /// Redirections after a block (listed as a command with no words, so `(…) > f` is seen).
    fn trailing(&mut self, ctx: CommandContext, sep: Separator) {
        let mut cmd = SimpleCommand {
            separator: sep,
            context: ctx,
            ..SimpleCommand::default()
        };
        let mut span = None;
        loop {
            self.skip_blanks();
            let Some(redirect) = self.redirect(ctx) else {
                break;
            };
            grow(&mut span, redirect.span);
            cmd.redirects.push(redirect);
        }
        if let Some(span) = span {
            cmd.span = span;
            self.commands.push(cmd);
        }
    }

    /// Returns `true` if a separator (or the end) follows, where a command must end.
    fn at_command_end(&self) -> bool {
        match self.peek() {
            None | Some(b'\n' | b'&' | b'|') => true,
            Some(b')') => self.blocks > 0,
            Some(_) => false,
        }
    }

    /// Lexes a simple command: words and redirections up to a separator.
    fn parse_simple(&mut self, ctx: CommandContext, sep: Separator, stop_at_else: bool) {
        let mut cmd = SimpleCommand {
            separator: sep,
            context: ctx,
            ..SimpleCommand::default()
        };
        let mut span = None;
        loop {
            self.skip_blanks();
            if self.at_command_end() {
                break;
            }
            if let Some(redirect) = self.redirect(ctx) {
                grow(&mut span, redirect.span);
                cmd.redirects.push(redirect);
                continue;
            }
            let start = self.pos;
            let Some(word) = self.parse_word(ctx) else {
                self.set_error(LexErrorKind::Malformed, start, start + 1);
                self.pos += self.char_len_at(start);
                continue;
            };
            if stop_at_else
                && !cmd.words.is_empty()
                && self
                    .slice(word.span.start, word.span.end)
                    .eq_ignore_ascii_case("else")
            {
                self.pos = start;
                break;
            }
            grow(&mut span, word.span);
            cmd.words.push(word);
        }
        if let Some(span) = span {
            cmd.span = span;
            self.commands.push(cmd);
        }
    }
}
