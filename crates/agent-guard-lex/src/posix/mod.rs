//! The POSIX shell lexer (a bash-compatible superset): text → flat list of simple commands.
//!
//! One recursive-descent pass over the input bytes. Every syntax character is ASCII, so every
//! position the lexer stops at is a char boundary; slices still go through `str::get` so a
//! mistake degrades to an empty string instead of a panic. Recursion is bounded by
//! [`MAX_DEPTH`]: past it the lexer records [`LexErrorKind::TooDeep`](crate::LexErrorKind::TooDeep) and stops. The only
//! backtracking (`((`/`$((` arithmetic versus nested subshells, which bash also decides by
//! trying) is memoised per position and budgeted, so the running time stays linear.

use std::collections::HashMap;

use crate::ast::{CommandContext, LexError, Script, SimpleCommand, nested};
use crate::cursor::{Cursor, deref_cursor};

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

pub use crate::cursor::MAX_DEPTH;

/// Lexes POSIX shell text (bash-compatible superset) into a [`Script`].
///
/// Never fails and never panics: syntax problems are reported in [`Script::error`] (the first
/// one only) and every command that could be recognised is still listed, sorted by where its
/// text starts.
pub fn lex(text: &str) -> Script {
    let mut lexer = Lexer::new(text, 0);
    lexer.parse_top(CommandContext::default());
    let functions = std::mem::take(&mut lexer.functions);
    let (commands, error) = lexer.finish();
    Script {
        functions,
        ..Script::in_source_order(commands, error)
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
    functions: usize,
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
    /// Position, region (the input, or a heredoc body), first error and nesting depth.
    cur: Cursor<'a>,
    commands: Vec<SimpleCommand>,
    /// The function definitions seen (a failed `((` attempt takes its own back).
    functions: Vec<crate::ast::FunctionDef>,
    /// A `!` was seen: the next emitted simple command is negated.
    negate_next: bool,
    heredocs: heredoc::Heredocs<'a>,
    arith: ArithMemo,
}

deref_cursor!(Lexer);

impl<'a> Lexer<'a> {
    fn new(src: &'a str, guard: u32) -> Self {
        Lexer {
            cur: Cursor::new(src, guard),
            commands: Vec::new(),
            functions: Vec::new(),
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
        (self.commands, self.cur.error)
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
            functions: self.functions.len(),
        }
    }

    fn restore(&mut self, cp: Checkpoint) {
        self.pos = cp.pos;
        self.commands.truncate(cp.commands);
        self.functions.truncate(cp.functions);
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
