//! The read position every dialect lexer moves over its input, with the bounds, error and
//! nesting bookkeeping they share.
//!
//! Each lexer holds a [`Cursor`] and derefs to it, so `self.pos`, `self.peek()` and
//! `self.enter()` read the same in all three dialects. The cursor never panics: positions past
//! the region read as end of input and slices go through `str::get`.

use agent_guard_types::Span;

use crate::ast::{LexError, LexErrorKind};

/// Maximum nesting depth a lexer descends into before it records [`LexErrorKind::TooDeep`].
///
/// 64 keeps the worst-case stack use of the recursive descent well under the 2 MiB of a
/// default test thread even in debug builds, and is far beyond what real commands nest.
pub const MAX_DEPTH: u32 = 64;

/// Position, region and error state of a lexer over one input text.
pub(crate) struct Cursor<'a> {
    /// The whole input text.
    pub(crate) src: &'a str,
    /// The same text as bytes (every syntax character is ASCII).
    pub(crate) bytes: &'a [u8],
    /// The next byte to read.
    pub(crate) pos: usize,
    /// End of the region being lexed (the input, or a nested body); acts as end of input.
    pub(crate) limit: usize,
    /// The first syntax problem seen, if any.
    pub(crate) error: Option<LexError>,
    /// Set after a `TooDeep` error: every loop sees end of input and unwinds.
    pub(crate) aborted: bool,
    /// Current recursion depth, checked against [`MAX_DEPTH`].
    pub(crate) guard: u32,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `src`, `guard` levels deep already.
    pub(crate) fn new(src: &'a str, guard: u32) -> Self {
        Cursor {
            src,
            bytes: src.as_bytes(),
            pos: 0,
            limit: src.len(),
            error: None,
            aborted: false,
            guard,
        }
    }

    /// The byte at absolute position `p`, within the region (`None` after an abort).
    pub(crate) fn byte(&self, p: usize) -> Option<u8> {
        if self.aborted || p >= self.limit {
            None
        } else {
            self.bytes.get(p).copied()
        }
    }

    /// The byte at `pos`, or `None` at the end of the region.
    pub(crate) fn peek(&self) -> Option<u8> {
        self.byte(self.pos)
    }

    /// The byte `off` bytes after `pos`, within the region.
    pub(crate) fn peek_at(&self, off: usize) -> Option<u8> {
        self.byte(self.pos.saturating_add(off))
    }

    /// The unread bytes of the region.
    pub(crate) fn rest(&self) -> &'a [u8] {
        if self.aborted {
            &[]
        } else {
            self.bytes.get(self.pos..self.limit).unwrap_or(&[])
        }
    }

    /// Returns `true` if the unread bytes start with `s`.
    pub(crate) fn at(&self, s: &[u8]) -> bool {
        self.rest().starts_with(s)
    }

    /// The source text between two positions (empty if out of range).
    pub(crate) fn slice(&self, a: usize, b: usize) -> &'a str {
        self.src.get(a..b).unwrap_or("")
    }

    /// Length in bytes of the char starting at `p` (1 if there is none).
    pub(crate) fn char_len_at(&self, p: usize) -> usize {
        self.src
            .get(p..)
            .and_then(|s| s.chars().next())
            .map_or(1, char::len_utf8)
    }

    /// The first position at or after `from` whose byte is in `stops` (or the region end).
    pub(crate) fn run_end(&self, from: usize, stops: &[u8]) -> usize {
        let end = if self.aborted { from } else { self.limit };
        let region = self.bytes.get(from..end).unwrap_or(&[]);
        region
            .iter()
            .position(|b| stops.contains(b))
            .map_or(end.max(from), |i| from + i)
    }

    /// Records an error unless one is already recorded (only the first is reported). The
    /// span is widened to char boundaries, since callers often point at "the next byte".
    pub(crate) fn set_error(&mut self, kind: LexErrorKind, start: usize, end: usize) {
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

    /// Records an error spanning the `len` bytes at `pos` (see [`Cursor::set_error`]).
    pub(crate) fn error_here(&mut self, kind: LexErrorKind, len: usize) {
        self.set_error(kind, self.pos, self.pos.saturating_add(len));
    }

    /// Enters one level of nesting; past [`MAX_DEPTH`] records `TooDeep`, aborts and returns
    /// `false` (the caller must then return without calling [`Cursor::leave`]).
    pub(crate) fn enter(&mut self) -> bool {
        if self.aborted {
            return false;
        }
        if self.guard >= MAX_DEPTH {
            self.error_here(LexErrorKind::TooDeep, 0);
            self.aborted = true;
            return false;
        }
        self.guard += 1;
        true
    }

    /// Leaves a level entered with [`Cursor::enter`].
    pub(crate) fn leave(&mut self) {
        self.guard = self.guard.saturating_sub(1);
    }
}

/// Implements `Deref`/`DerefMut` to the lexer's `cur: Cursor` field.
macro_rules! deref_cursor {
    ($lexer:ident) => {
        impl<'a> std::ops::Deref for $lexer<'a> {
            type Target = $crate::cursor::Cursor<'a>;
            fn deref(&self) -> &Self::Target {
                &self.cur
            }
        }
        impl std::ops::DerefMut for $lexer<'_> {
            fn deref_mut(&mut self) -> &mut Self::Target {
                &mut self.cur
            }
        }
    };
}
pub(crate) use deref_cursor;
