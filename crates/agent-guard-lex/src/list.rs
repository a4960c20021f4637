//! The bookkeeping of a command list, shared by the three dialects' list loops: which
//! separator joins the next command to the previous one, and a binary operator (`&&`, `||`,
//! `|`) still waiting for its right-hand command.
//!
//! Each dialect decides which bytes are operators and where a list stops; this decides what
//! an operator, a line end, a command and the end of the list mean for the [`Script`]: an
//! operator with no command before it, or a binary operator with none after it, is
//! `Malformed`.
//!
//! [`Script`]: crate::Script

use crate::ast::{LexErrorKind, Separator};
use crate::cursor::Cursor;

/// The state of one command list being lexed.
pub(crate) struct ListState {
    sep: Separator,
    after_cmd: bool,
    dangling: Option<usize>,
}

impl ListState {
    /// A list with no command yet.
    pub(crate) fn new() -> ListState {
        ListState {
            sep: Separator::Start,
            after_cmd: false,
            dangling: None,
        }
    }

    /// How the next command is joined to the previous one.
    pub(crate) fn separator(&self) -> Separator {
        self.sep
    }

    /// Whether a command was lexed since the last separator.
    pub(crate) fn after_command(&self) -> bool {
        self.after_cmd
    }

    /// A line end (or an empty-statement `;`): it ends the previous command, if any.
    pub(crate) fn line_end(&mut self) {
        if self.after_cmd {
            self.sep = Separator::Sequence;
            self.after_cmd = false;
        }
    }

    /// The operator `sep`, `len` bytes at `start`, which the cursor is at: consumed.
    pub(crate) fn operator(
        &mut self,
        cur: &mut Cursor<'_>,
        sep: Separator,
        start: usize,
        len: usize,
    ) {
        if !self.after_cmd {
            cur.set_error(LexErrorKind::Malformed, start, start + len);
        }
        cur.pos += len;
        self.sep = sep;
        self.after_cmd = false;
        self.dangling = matches!(
            sep,
            Separator::And | Separator::Or | Separator::Pipe | Separator::PipeAll
        )
        .then_some(start);
    }

    /// A command that started at `start` was lexed. If nothing could be lexed there, one
    /// char is skipped and reported rather than looping forever.
    pub(crate) fn command(&mut self, cur: &mut Cursor<'_>, start: usize) {
        if cur.pos == start && !cur.aborted {
            cur.set_error(LexErrorKind::Malformed, start, start + 1);
            cur.pos += cur.char_len_at(start);
        }
        self.sep = Separator::Sequence;
        self.after_cmd = true;
        self.dangling = None;
    }

    /// The list ends with `stop`; a binary operator still waiting is reported.
    pub(crate) fn end<S>(&self, cur: &mut Cursor<'_>, stop: S) -> S {
        if let Some(p) = self.dangling {
            cur.set_error(LexErrorKind::Malformed, p, p + 1);
        }
        stop
    }
}
