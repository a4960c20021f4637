//! A word under construction, shared by the cmd and PowerShell lexers: adjacent literal
//! pieces of the same quotedness merge into one [`WordPart::Literal`].

use crate::ast::WordPart;

/// Accumulates the parts of one word.
#[derive(Debug, Default)]
pub(crate) struct WordBuf {
    parts: Vec<WordPart>,
    cur: String,
    cur_quoted: bool,
    has_cur: bool,
    /// Number of pushes, to tell whether a quoted section produced anything.
    pushes: usize,
}

impl WordBuf {
    /// Appends literal text.
    pub(crate) fn lit(&mut self, text: &str, quoted: bool) {
        self.pushes += 1;
        if self.has_cur && self.cur_quoted != quoted {
            self.flush();
        }
        self.has_cur = true;
        self.cur_quoted = quoted;
        self.cur.push_str(text);
    }

    /// Appends an opaque part.
    pub(crate) fn part(&mut self, part: WordPart) {
        self.pushes += 1;
        self.flush();
        self.parts.push(part);
    }

    /// How many pieces have been pushed so far.
    pub(crate) fn pushes(&self) -> usize {
        self.pushes
    }

    fn flush(&mut self) {
        if self.has_cur {
            let text = std::mem::take(&mut self.cur);
            self.parts.push(WordPart::Literal {
                text,
                quoted: self.cur_quoted,
            });
            self.has_cur = false;
        }
    }

    /// Returns the finished parts.
    pub(crate) fn finish(mut self) -> Vec<WordPart> {
        self.flush();
        self.parts
    }
}
