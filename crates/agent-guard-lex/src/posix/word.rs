//! Words: finding where a word ends and collecting its pieces (quotes, escapes, `$…`,
//! backticks, extglob groups, array values).
//!
//! Tokenising yields flat [`Atom`]s; brace expansion and tilde prefixes are resolved
//! afterwards on the complete word (see `brace.rs`), as bash does, so an unclosed `{` never
//! forces a re-scan.

use agent_guard_types::Span;

use super::{Lexer, brace};
use crate::ast::{CommandContext, LexErrorKind, Word, WordPart};

/// Where a word is being read; changes what an unquoted `(` inside it means.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct WordMode {
    /// Before the command name: `NAME=(…)` array values are allowed.
    pub(super) assign_ok: bool,
    /// The first word of a command: `NAME()` ends the word before `(`.
    pub(super) cmd_pos: bool,
    /// Inside `[[ ]]`: parentheses in a word (regex groups) are part of it.
    pub(super) cond: bool,
}

impl WordMode {
    /// An ordinary argument word.
    pub(super) const PLAIN: WordMode = WordMode {
        assign_ok: false,
        cmd_pos: false,
        cond: false,
    };
}

/// A piece of a word before brace and tilde resolution.
#[derive(Debug, Clone)]
pub(super) enum Atom {
    /// Literal text; unquoted `{`, `,` and `}` are never inside (they are [`Atom::Meta`]).
    Lit { text: String, quoted: bool },
    /// An unquoted `{`, `,` or `}` at byte `pos`.
    Meta { ch: char, pos: usize },
    /// An opaque part (parameter, substitution, …) or an already built part.
    Part(WordPart),
}

/// Accumulates atoms, merging adjacent literals of the same quotedness.
#[derive(Debug, Default)]
pub(super) struct WordBuf {
    atoms: Vec<Atom>,
    cur: String,
    cur_quoted: bool,
    has_cur: bool,
    /// Number of pushes, to tell whether a quoted section produced anything.
    pushes: usize,
}

impl WordBuf {
    pub(super) fn lit(&mut self, text: &str, quoted: bool) {
        self.pushes += 1;
        if self.has_cur && self.cur_quoted != quoted {
            self.flush();
        }
        self.has_cur = true;
        self.cur_quoted = quoted;
        self.cur.push_str(text);
    }

    fn meta(&mut self, ch: char, pos: usize) {
        self.pushes += 1;
        self.flush();
        self.atoms.push(Atom::Meta { ch, pos });
    }

    pub(super) fn part(&mut self, part: WordPart) {
        self.pushes += 1;
        self.flush();
        self.atoms.push(Atom::Part(part));
    }

    fn flush(&mut self) {
        if self.has_cur {
            let text = std::mem::take(&mut self.cur);
            self.atoms.push(Atom::Lit {
                text,
                quoted: self.cur_quoted,
            });
            self.has_cur = false;
        }
    }

    /// The last thing pushed is an unquoted extglob prefix character (`?*+@!`).
    fn ends_with_extglob_prefix(&self) -> bool {
        self.has_cur && !self.cur_quoted && self.cur.ends_with(['?', '*', '+', '@', '!'])
    }

    fn into_atoms(mut self) -> Vec<Atom> {
        self.flush();
        self.atoms
    }
}

/// Length of a leading `NAME=`, `NAME+=` or `NAME[…]=` in raw word text.
fn assignment_prefix_len(raw: &str) -> Option<usize> {
    let b = raw.as_bytes();
    let first = *b.first()?;
    if !(first.is_ascii_alphabetic() || first == b'_') {
        return None;
    }
    let mut i = 1 + b
        .iter()
        .skip(1)
        .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
        .count();
    if b.get(i) == Some(&b'[') {
        i += b.iter().skip(i).position(|&c| c == b']')? + 1;
    }
    if b.get(i) == Some(&b'+') {
        i += 1;
    }
    (b.get(i) == Some(&b'=')).then_some(i + 1)
}

/// Returns `true` if raw word text is an assignment (`NAME=…`, `NAME+=…`, `NAME[i]=…`).
pub(super) fn is_assignment(raw: &str) -> bool {
    assignment_prefix_len(raw).is_some()
}

/// Bytes that end a run of ordinary word characters.
const WORD_SPECIAL: &[u8] = b" \t\r\n;&|()<>\\'\"$`{,}";

impl Lexer<'_> {
    /// Reads one word at `pos`. Returns `None` if no word starts here.
    pub(super) fn parse_word(&mut self, ctx: CommandContext, mode: WordMode) -> Option<Word> {
        let start = self.pos;
        let mut buf = WordBuf::default();
        while let Some(b) = self.peek() {
            match b {
                b' ' | b'\t' | b'\r' | b'\n' | b';' | b'&' | b'|' | b')' => break,
                b'<' | b'>' => {
                    if self.peek_at(1) != Some(b'(') {
                        break;
                    }
                    let open = self.pos;
                    self.substitution(ctx, &mut buf, open + 2, true);
                }
                b'(' => {
                    if !self.word_paren(ctx, mode, start, &mut buf) {
                        break;
                    }
                }
                b'\\' => self.escape(&mut buf),
                b'\'' => self.single_quote(&mut buf),
                b'"' => self.double_quote(ctx, &mut buf),
                b'$' => self.dollar(ctx, &mut buf, false),
                b'`' => self.backtick(ctx, &mut buf, false),
                b'{' | b',' | b'}' => {
                    buf.meta(char::from(b), self.pos);
                    self.pos += 1;
                }
                _ => {
                    let end = self.run_end(self.pos, WORD_SPECIAL);
                    buf.lit(self.slice(self.pos, end), false);
                    self.pos = end;
                }
            }
        }
        if self.pos == start {
            return None;
        }
        let end = self.pos;
        let (parts, too_deep) = brace::build(buf.into_atoms());
        if too_deep {
            self.set_error(LexErrorKind::TooDeep, start, end);
        }
        Some(Word {
            parts,
            span: Span::new(start, end),
        })
    }

    /// An unquoted `(` inside a word. Returns `false` if the word ends before it.
    fn word_paren(
        &mut self,
        ctx: CommandContext,
        mode: WordMode,
        start: usize,
        buf: &mut WordBuf,
    ) -> bool {
        if self.pos == start || (mode.cmd_pos && self.funcdef_parens_here()) {
            return false;
        }
        if buf.ends_with_extglob_prefix() || mode.cond {
            self.paren_group(ctx, buf);
            return true;
        }
        let so_far = self.slice(start, self.pos);
        if mode.assign_ok && assignment_prefix_len(so_far) == Some(so_far.len()) {
            self.array_value(ctx, buf);
            return true;
        }
        // `file(1).txt`: bash rejects it. Keep the balanced group in the word so what follows
        // is not misread as commands.
        self.error_here(LexErrorKind::Malformed, 1);
        self.paren_group(ctx, buf);
        true
    }

    /// A balanced `( … )` kept as unquoted word text (extglob `@(a|b)`, `[[` regex groups).
    fn paren_group(&mut self, ctx: CommandContext, buf: &mut WordBuf) {
        let open = self.pos;
        let mut depth = 0usize;
        while let Some(b) = self.peek() {
            match b {
                b'(' | b')' => {
                    buf.lit(if b == b'(' { "(" } else { ")" }, false);
                    self.pos += 1;
                    if b == b'(' {
                        depth += 1;
                    } else {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            return;
                        }
                    }
                }
                b'\\' => self.escape(buf),
                b'\'' => self.single_quote(buf),
                b'"' => self.double_quote(ctx, buf),
                b'$' => self.dollar(ctx, buf, false),
                b'`' => self.backtick(ctx, buf, false),
                _ => {
                    let end = self.run_end(self.pos, b"()\\'\"$`");
                    buf.lit(self.slice(self.pos, end), false);
                    self.pos = end;
                }
            }
        }
        self.set_error(LexErrorKind::Malformed, open, open + 1);
    }

    /// `NAME=( a b c )`: the elements become part of the assignment word.
    fn array_value(&mut self, ctx: CommandContext, buf: &mut WordBuf) {
        let open = self.pos;
        self.pos += 1;
        buf.lit("(", false);
        let mut first = true;
        loop {
            self.skip_space_nl();
            match self.peek() {
                None => {
                    self.set_error(LexErrorKind::UnclosedGroup, open, open + 1);
                    return;
                }
                Some(b')') => {
                    self.pos += 1;
                    buf.lit(")", false);
                    return;
                }
                Some(_) => {}
            }
            let at = self.pos;
            let Some(word) = self.parse_word(ctx, WordMode::PLAIN) else {
                self.set_error(LexErrorKind::Malformed, at, at + 1);
                self.pos = at + self.char_len_at(at);
                continue;
            };
            if !first {
                buf.lit(" ", false);
            }
            first = false;
            for part in word.parts {
                match part {
                    WordPart::Literal { text, quoted } => buf.lit(&text, quoted),
                    other => buf.part(other),
                }
            }
        }
    }

    /// `\x` outside quotes: `x` literally (quoted); `\` + newline: line continuation.
    pub(super) fn escape(&mut self, buf: &mut WordBuf) {
        let next = self.pos + 1;
        match self.peek_at(1) {
            // A trailing backslash stays literal, as in bash.
            None => {
                buf.lit("\\", true);
                self.pos = next;
            }
            Some(b'\n') => self.pos = next + 1,
            Some(_) => {
                let end = next + self.char_len_at(next);
                buf.lit(self.slice(next, end), true);
                self.pos = end;
            }
        }
    }

    /// `'…'`: everything literal up to the next `'`.
    pub(super) fn single_quote(&mut self, buf: &mut WordBuf) {
        let open = self.pos;
        let body = open + 1;
        let close = self.run_end(body, b"'");
        buf.lit(self.slice(body, close), true);
        if self.byte(close).is_some() {
            self.pos = close + 1;
        } else {
            self.set_error(LexErrorKind::UnterminatedQuote, open, body);
            self.pos = close;
        }
    }

    /// `"…"`: a backslash escapes only `$`, a backtick, `"`, a backslash and a newline; `$…`
    /// and backtick substitutions stay active.
    pub(super) fn double_quote(&mut self, ctx: CommandContext, buf: &mut WordBuf) {
        let open = self.pos;
        self.pos += 1;
        let pushes = buf.pushes;
        loop {
            let Some(b) = self.peek() else {
                self.set_error(LexErrorKind::UnterminatedQuote, open, open + 1);
                break;
            };
            match b {
                b'"' => {
                    self.pos += 1;
                    break;
                }
                b'\\' => match self.peek_at(1) {
                    Some(c @ (b'$' | b'`' | b'"' | b'\\')) => {
                        buf.lit(char::from(c).encode_utf8(&mut [0; 4]), true);
                        self.pos += 2;
                    }
                    Some(b'\n') => self.pos += 2,
                    _ => {
                        buf.lit("\\", true);
                        self.pos += 1;
                    }
                },
                b'$' => self.dollar(ctx, buf, true),
                b'`' => self.backtick(ctx, buf, true),
                _ => {
                    let end = self.run_end(self.pos, b"\"\\$`");
                    buf.lit(self.slice(self.pos, end), true);
                    self.pos = end;
                }
            }
        }
        if buf.pushes == pushes {
            // `""` is an empty argument, not nothing.
            buf.lit("", true);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assignment_prefixes() {
        assert_eq!(assignment_prefix_len("A=1"), Some(2));
        assert_eq!(assignment_prefix_len("A+=1"), Some(3));
        assert_eq!(assignment_prefix_len("a[1]=x"), Some(5));
        assert_eq!(assignment_prefix_len("a[$i]+=x"), Some(7));
        assert_eq!(assignment_prefix_len("_x9="), Some(4));
        assert_eq!(assignment_prefix_len("9x=1"), None);
        assert_eq!(assignment_prefix_len("=1"), None);
        assert_eq!(assignment_prefix_len("a[1"), None);
        assert_eq!(assignment_prefix_len("a"), None);
        assert_eq!(assignment_prefix_len("\"a\"=1"), None);
    }
}
