//! Heredoc bodies: found after the newline token that ends their line, read as data.
//!
//! Terminator lines are looked up in an index of all lines (built once, on the first
//! heredoc), so many unterminated heredocs cannot make the lexer quadratic. A missing
//! terminator leaves the body empty and the following lines are lexed as commands: we would
//! rather over-report than hide commands inside data.

use std::collections::HashMap;

use super::Lexer;
use super::word::WordBuf;
use crate::ast::CommandContext;

/// A heredoc whose body has not been read yet.
#[derive(Debug, Clone)]
pub(super) struct Pending {
    /// Index into [`Heredocs::results`].
    pub(super) id: usize,
    delimiter: String,
    /// `<<-`: leading tabs are stripped from body lines and the terminator.
    strip: bool,
    /// The delimiter was quoted: the body is literal, nothing in it runs.
    quoted: bool,
    /// Context of the command the heredoc belongs to (for substitutions in the body).
    ctx: CommandContext,
}

/// Heredoc bookkeeping of one lexer.
#[derive(Debug, Default)]
pub(super) struct Heredocs<'a> {
    /// Registered, body not read yet, in textual order.
    pub(super) pending: Vec<Pending>,
    /// Per heredoc id: the body and whether a terminator was found, once read.
    pub(super) results: Vec<Option<(String, bool)>>,
    /// `(command index, redirect index, heredoc id)` for every emitted heredoc redirect.
    pub(super) placements: Vec<(usize, usize, usize)>,
    index: Option<LineIndex<'a>>,
}

/// Line start positions by line content.
#[derive(Debug, Default)]
struct LineIndex<'a> {
    /// Keyed by the line without a trailing `\r`.
    exact: HashMap<&'a str, Vec<usize>>,
    /// Keyed by the line without leading tabs and trailing `\r` (for `<<-`).
    stripped: HashMap<&'a str, Vec<usize>>,
}

impl<'a> LineIndex<'a> {
    fn build(src: &'a str) -> Self {
        let mut index = LineIndex::default();
        let mut start = 0;
        for line in src.split('\n') {
            // The empty "line" after a final newline is not a line.
            if start == src.len() && line.is_empty() && start > 0 {
                break;
            }
            // A CRLF terminator still ends the heredoc: we then lex what follows as commands,
            // which over-reports rather than hides.
            let key = line.strip_suffix('\r').unwrap_or(line);
            index.exact.entry(key).or_default().push(start);
            index
                .stripped
                .entry(key.trim_start_matches('\t'))
                .or_default()
                .push(start);
            start += line.len() + 1;
        }
        index
    }

    /// The first line at or after `from` equal to `delimiter`.
    fn find(&self, delimiter: &str, strip: bool, from: usize) -> Option<usize> {
        let map = if strip { &self.stripped } else { &self.exact };
        let starts = map.get(delimiter)?;
        starts.get(starts.partition_point(|&s| s < from)).copied()
    }
}

/// Undoes the quoting of a heredoc delimiter word (`'EOF'`, `"EOF"`, `\EOF`, `E"O"F`).
pub(super) fn quote_remove(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    let (mut single, mut double) = (false, false);
    while let Some(c) = chars.next() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '\\' if !single => match chars.next() {
                Some(n) => {
                    if double && !matches!(n, '$' | '`' | '"' | '\\' | '\n') {
                        out.push('\\');
                    }
                    out.push(n);
                }
                None => out.push('\\'),
            },
            _ => out.push(c),
        }
    }
    out
}

impl Lexer<'_> {
    /// Registers a heredoc whose body starts after the next newline token; returns its id.
    pub(super) fn register_heredoc(
        &mut self,
        delimiter: String,
        strip: bool,
        quoted: bool,
        ctx: CommandContext,
    ) -> usize {
        let id = self.heredocs.results.len();
        self.heredocs.results.push(None);
        self.heredocs.pending.push(Pending {
            id,
            delimiter,
            strip,
            quoted,
            ctx,
        });
        id
    }

    /// Reads the bodies of all pending heredocs, in order, starting at `pos` (just after a
    /// newline token), and moves `pos` past them.
    pub(super) fn read_heredoc_bodies(&mut self) {
        let pending = std::mem::take(&mut self.heredocs.pending);
        let mut at = self.pos;
        let mut missing = false;
        let mut to_lex = Vec::new();
        for doc in pending {
            let found = if missing {
                None
            } else {
                self.find_terminator(&doc, at)
            };
            let result = if let Some((terminator, after)) = found {
                if !doc.quoted {
                    to_lex.push((at, terminator, doc.ctx));
                }
                let body = self.body_text(at, terminator, doc.strip);
                at = after;
                (body, true)
            } else {
                // Fail closed: no body, and the lines after are lexed as commands.
                missing = true;
                (String::new(), false)
            };
            if let Some(slot) = self.heredocs.results.get_mut(doc.id) {
                *slot = Some(result);
            }
        }
        for (start, end, ctx) in to_lex {
            self.lex_body(start, end, ctx);
        }
        self.pos = at;
    }

    /// Start of the terminator line and the position after it.
    fn find_terminator(&mut self, doc: &Pending, from: usize) -> Option<(usize, usize)> {
        let src = self.src;
        let index = self
            .heredocs
            .index
            .get_or_insert_with(|| LineIndex::build(src));
        let start = index.find(&doc.delimiter, doc.strip, from)?;
        let line_end = self
            .bytes
            .get(start..)
            .and_then(|rest| rest.iter().position(|&b| b == b'\n'));
        let line_end = line_end.map_or(self.bytes.len(), |i| start + i);
        if line_end > self.limit {
            return None;
        }
        Some((start, (line_end + 1).min(self.bytes.len())))
    }

    fn body_text(&self, start: usize, end: usize, strip: bool) -> String {
        let text = self.slice(start, end);
        if !strip {
            return text.to_owned();
        }
        text.split_inclusive('\n')
            .map(|line| line.trim_start_matches('\t'))
            .collect()
    }

    /// Lexes the substitutions of an unquoted heredoc body (they run in bash); the rest of
    /// the body is data.
    fn lex_body(&mut self, start: usize, end: usize, ctx: CommandContext) {
        let (saved_pos, saved_limit) = (self.pos, self.limit);
        self.pos = start;
        self.limit = end.min(saved_limit);
        let mut scratch = WordBuf::default();
        while let Some(b) = self.peek() {
            match b {
                b'\\' => {
                    self.pos += 1;
                    if self.peek().is_some() {
                        self.pos += self.char_len_at(self.pos);
                    }
                }
                b'$' => self.dollar(ctx, &mut scratch, true),
                b'`' => self.backtick(ctx, &mut scratch, false),
                _ => self.pos = self.run_end(self.pos, b"\\$`"),
            }
        }
        self.pos = saved_pos;
        self.limit = saved_limit;
    }
}

#[cfg(test)]
mod tests {
    use super::quote_remove;

    #[test]
    fn delimiters_lose_their_quotes() {
        assert_eq!(quote_remove("'EOF'"), "EOF");
        assert_eq!(quote_remove("\"EOF\""), "EOF");
        assert_eq!(quote_remove("\\EOF"), "EOF");
        assert_eq!(quote_remove("E\"O\"F"), "EOF");
        assert_eq!(quote_remove("$EOF"), "$EOF");
        assert_eq!(quote_remove("\"a\\b\""), "a\\b");
    }
}
