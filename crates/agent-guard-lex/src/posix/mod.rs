//! The POSIX shell lexer (a bash-compatible superset): text → flat list of simple commands.
//!
//! One recursive-descent pass over the input bytes. Every syntax character is ASCII, so every
//! position the lexer stops at is a char boundary; slices still go through `str::get` so a
//! mistake degrades to an empty string instead of a panic. Recursion is bounded by
//! [`MAX_DEPTH`]: past it the lexer records [`LexErrorKind::TooDeep`] and stops. The only
//! backtracking (`((`/`$((` arithmetic versus nested subshells, which bash also decides by
//! trying) is memoised per position and budgeted, so the running time stays linear.

use std::collections::HashMap;

use agent_guard_types::Span;

use crate::ast::{CommandContext, LexError, LexErrorKind, Script, SimpleCommand};

mod ansi;
mod brace;
mod command;
mod control;
mod dollar;
mod heredoc;
mod redirect;
mod remap;
mod word;

#[cfg(test)]
mod tests;

/// Maximum nesting depth of subshells, groups, substitutions, control flow, function bodies,
/// `${…}` and brace expansions. Deeper input yields [`LexErrorKind::TooDeep`].
///
/// 64 keeps the worst-case stack use of the recursive descent well under the 2 MiB of a
/// default test thread even in debug builds, and is far beyond what real commands nest.
pub const MAX_DEPTH: u32 = 64;

/// Lexes POSIX shell text (bash-compatible superset) into a [`Script`].
///
/// Never fails and never panics: syntax problems are reported in [`Script::error`] (the first
/// one only) and every command that could be recognised is still listed, sorted by where its
/// text starts.
pub fn lex(text: &str) -> Script {
    let mut lexer = Lexer::new(text, 0);
    lexer.parse_top(CommandContext::default());
    let (mut commands, error) = lexer.finish();
    commands.sort_by_key(|c| c.span.start);
    Script { commands, error }
}

/// Returns the context of a construct nested one level inside `ctx`.
fn nested(ctx: CommandContext) -> CommandContext {
    CommandContext {
        depth: ctx.depth.saturating_add(1),
        negated: false,
        ..ctx
    }
}

/// Everything a failed `((` attempt must undo.
struct Checkpoint {
    pos: usize,
    commands: usize,
    error: Option<LexError>,
    pending: Vec<heredoc::Pending>,
    results: usize,
    placements: usize,
    negate_next: bool,
}

/// Memo and budget that keep arithmetic-versus-subshell trials linear.
struct ArithMemo {
    /// Start positions whose attempt failed, with whether it failed at the end of input.
    failed: HashMap<usize, bool>,
    /// Bytes that failed attempts may still scan before the lexer stops trying.
    budget: usize,
}

/// The lexer state. Parsing methods live in the submodules, one concept each.
struct Lexer<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    /// End of the region being lexed (the input, or a heredoc body); acts as end of input.
    limit: usize,
    commands: Vec<SimpleCommand>,
    error: Option<LexError>,
    /// Set after a `TooDeep` error: every loop sees end of input and unwinds.
    aborted: bool,
    /// Current recursion depth, checked against [`MAX_DEPTH`].
    guard: u32,
    /// A `!` was seen: the next emitted simple command is negated.
    negate_next: bool,
    heredocs: heredoc::Heredocs<'a>,
    arith: ArithMemo,
}

impl<'a> Lexer<'a> {
    fn new(src: &'a str, guard: u32) -> Self {
        Lexer {
            src,
            bytes: src.as_bytes(),
            pos: 0,
            limit: src.len(),
            commands: Vec::new(),
            error: None,
            aborted: false,
            guard,
            negate_next: false,
            heredocs: heredoc::Heredocs::default(),
            arith: ArithMemo {
                failed: HashMap::new(),
                budget: src.len().saturating_mul(4).saturating_add(1024),
            },
        }
    }

    /// Applies heredoc bodies to their redirections and returns the unsorted results.
    fn finish(mut self) -> (Vec<SimpleCommand>, Option<LexError>) {
        let placements = std::mem::take(&mut self.heredocs.placements);
        for (cmd, redir, id) in placements {
            let Some((body, terminated)) = self.heredocs.results.get_mut(id).and_then(Option::take)
            else {
                continue;
            };
            let doc = self
                .commands
                .get_mut(cmd)
                .and_then(|c| c.redirects.get_mut(redir))
                .and_then(|r| r.heredoc.as_mut());
            if let Some(doc) = doc {
                doc.body = body;
                doc.terminated = terminated;
            }
        }
        (self.commands, self.error)
    }

    /// The byte at `pos`, or `None` at the end of the region (or after an abort).
    fn peek(&self) -> Option<u8> {
        self.byte(self.pos)
    }

    /// The byte `off` bytes after `pos`, within the region.
    fn peek_at(&self, off: usize) -> Option<u8> {
        self.byte(self.pos.saturating_add(off))
    }

    /// The byte at absolute position `p`, within the region.
    fn byte(&self, p: usize) -> Option<u8> {
        if self.aborted || p >= self.limit {
            None
        } else {
            self.bytes.get(p).copied()
        }
    }

    /// The unread bytes of the region.
    fn rest(&self) -> &'a [u8] {
        if self.aborted {
            &[]
        } else {
            self.bytes.get(self.pos..self.limit).unwrap_or(&[])
        }
    }

    /// Returns `true` if the unread bytes start with `s`.
    fn at(&self, s: &[u8]) -> bool {
        self.rest().starts_with(s)
    }

    /// The source text between two positions (empty if out of range).
    fn slice(&self, a: usize, b: usize) -> &'a str {
        self.src.get(a..b).unwrap_or("")
    }

    /// Length in bytes of the char starting at `p` (1 if there is none).
    fn char_len_at(&self, p: usize) -> usize {
        self.src
            .get(p..)
            .and_then(|s| s.chars().next())
            .map_or(1, char::len_utf8)
    }

    /// The first position at or after `from` whose byte is in `stops` (or the region end).
    fn run_end(&self, from: usize, stops: &[u8]) -> usize {
        let region = self.bytes.get(from..self.limit).unwrap_or(&[]);
        region
            .iter()
            .position(|b| stops.contains(b))
            .map_or(self.limit.max(from), |i| from + i)
    }

    /// Records an error unless one is already recorded (only the first is reported). The
    /// span is widened to char boundaries, since callers often point at "the next byte".
    fn set_error(&mut self, kind: LexErrorKind, start: usize, end: usize) {
        if self.error.is_none() {
            let mut end = end.min(self.src.len());
            while !self.src.is_char_boundary(end) {
                end += 1;
            }
            let mut start = start.min(end);
            while !self.src.is_char_boundary(start) {
                start -= 1;
            }
            self.error = Some(LexError {
                kind,
                span: Span::new(start, end),
            });
        }
    }

    /// Enters one level of nesting; past [`MAX_DEPTH`] records `TooDeep`, aborts and returns
    /// `false` (the caller must then return without calling [`Lexer::leave`]).
    fn enter(&mut self) -> bool {
        if self.aborted {
            return false;
        }
        if self.guard >= MAX_DEPTH {
            self.set_error(LexErrorKind::TooDeep, self.pos, self.pos);
            self.aborted = true;
            return false;
        }
        self.guard += 1;
        true
    }

    /// Leaves a level entered with [`Lexer::enter`].
    fn leave(&mut self) {
        self.guard = self.guard.saturating_sub(1);
    }

    /// Skips spaces, tabs, carriage returns and line continuations.
    fn skip_blanks(&mut self) {
        while let Some(b) = self.peek() {
            match b {
                b' ' | b'\t' | b'\r' => self.pos += 1,
                b'\\' if self.peek_at(1) == Some(b'\n') => self.pos += 2,
                _ => break,
            }
        }
    }

    /// Skips a comment up to (not including) the end of its line.
    fn skip_comment(&mut self) {
        self.pos = self.run_end(self.pos, b"\n");
    }

    /// Consumes a newline token; pending heredoc bodies start right after it.
    fn consume_newline(&mut self) {
        self.pos += 1;
        if !self.heredocs.pending.is_empty() {
            self.read_heredoc_bodies();
        }
    }

    /// Skips blanks, comments and newlines (where a list may continue on the next line).
    fn skip_space_nl(&mut self) {
        loop {
            self.skip_blanks();
            match self.peek() {
                Some(b'\n') => self.consume_newline(),
                Some(b'#') => self.skip_comment(),
                _ => break,
            }
        }
    }

    /// Appends a finished simple command; `heredocs` pairs redirect indexes with heredoc ids.
    fn emit(&mut self, mut cmd: SimpleCommand, heredocs: &[(usize, usize)]) {
        cmd.context.negated = std::mem::take(&mut self.negate_next);
        let index = self.commands.len();
        for &(redir, id) in heredocs {
            self.heredocs.placements.push((index, redir, id));
        }
        self.commands.push(cmd);
    }

    fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            pos: self.pos,
            commands: self.commands.len(),
            error: self.error.clone(),
            pending: self.heredocs.pending.clone(),
            results: self.heredocs.results.len(),
            placements: self.heredocs.placements.len(),
            negate_next: self.negate_next,
        }
    }

    fn restore(&mut self, cp: Checkpoint) {
        self.pos = cp.pos;
        self.commands.truncate(cp.commands);
        // A TooDeep abort is final: keep its error so the caller still sees why lexing stopped.
        if !self.aborted {
            self.error = cp.error;
        }
        self.heredocs.results.truncate(cp.results);
        for p in &cp.pending {
            if let Some(r) = self.heredocs.results.get_mut(p.id) {
                *r = None;
            }
        }
        self.heredocs.pending = cp.pending;
        self.heredocs.placements.truncate(cp.placements);
        self.negate_next = cp.negate_next;
    }
}
