//! Statements: keyword constructs, simple commands, assignments, redirections and `--%`.

use agent_guard_types::Span;

use super::{Lexer, grow, nested};
use crate::ast::{
    CommandContext, LexErrorKind, Redirect, RedirectOp, Separator, SimpleCommand, Word, WordPart,
};
use crate::wordbuf::WordBuf;

/// How a keyword statement is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    /// Conditions in `( … )` and bodies in `{ … }` (`if`, loops, `try`, named blocks).
    Control,
    /// Like [`Class::Control`], but words on the keyword's line belong to it (`switch -regex`,
    /// `catch [T]`, `class C : B`, `data d`).
    Worded,
    /// A named function-like definition: the body runs only when called.
    Function,
    /// `return`, `throw`, `exit`, `break`, `continue`: the rest is an ordinary pipeline.
    Flow,
}

const KEYWORDS: &[(&str, Class)] = &[
    ("if", Class::Control),
    ("elseif", Class::Control),
    ("else", Class::Control),
    ("while", Class::Control),
    ("for", Class::Control),
    ("foreach", Class::Control),
    ("do", Class::Control),
    ("until", Class::Control),
    ("try", Class::Control),
    ("finally", Class::Control),
    ("begin", Class::Control),
    ("process", Class::Control),
    ("end", Class::Control),
    ("clean", Class::Control),
    ("dynamicparam", Class::Control),
    ("parallel", Class::Control),
    ("sequence", Class::Control),
    ("inlinescript", Class::Control),
    ("param", Class::Control),
    ("switch", Class::Worded),
    ("catch", Class::Worded),
    ("trap", Class::Worded),
    ("data", Class::Worded),
    ("class", Class::Worded),
    ("enum", Class::Worded),
    ("function", Class::Function),
    ("filter", Class::Function),
    ("workflow", Class::Function),
    ("configuration", Class::Function),
    ("return", Class::Flow),
    ("throw", Class::Flow),
    ("exit", Class::Flow),
    ("break", Class::Flow),
    ("continue", Class::Flow),
];

/// Returns `true` if byte `b` may continue a command name (so a keyword does not end there).
fn name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b >= 0x80 || matches!(b, b'-' | b'_' | b'.' | b'\\' | b'/' | b':')
}

/// Context of the commands in a keyword body or condition.
fn control(ctx: CommandContext) -> CommandContext {
    CommandContext {
        in_control_flow: true,
        ..nested(ctx)
    }
}

impl Lexer<'_> {
    /// The keyword at `pos`, if one is there as a whole word.
    fn keyword_here(&self) -> Option<(usize, Class)> {
        KEYWORDS.iter().find_map(|(kw, class)| {
            let end = self.pos + kw.len();
            let found = self.bytes.get(self.pos..end)?;
            (end <= self.limit
                && !self.aborted
                && found.eq_ignore_ascii_case(kw.as_bytes())
                && self.byte(end).is_none_or(|b| !name_byte(b)))
            .then_some((kw.len(), *class))
        })
    }

    /// Lexes one statement at `pos`.
    pub(super) fn parse_statement(&mut self, ctx: CommandContext, sep: Separator) {
        // After a pipe, `foreach` and the other words are commands (`… | foreach { … }`).
        if sep != Separator::Pipe
            && let Some((len, class)) = self.keyword_here()
        {
            if class == Class::Flow {
                self.pos += len;
                self.skip_blanks();
                self.parse_command(ctx, sep);
            } else {
                self.keyword_statement(ctx, len, class);
            }
            return;
        }
        self.parse_command(ctx, sep);
    }

    /// A keyword construct: its `( … )` conditions and `{ … }` body are lexed; it ends after
    /// the body. A word where none belongs starts a command of its own (fail closed:
    /// PowerShell would refuse the line, the guard still looks at the command).
    fn keyword_statement(&mut self, ctx: CommandContext, len: usize, class: Class) {
        let is_switch = self
            .bytes
            .get(self.pos..self.pos + len)
            .is_some_and(|k| k.eq_ignore_ascii_case(b"switch"));
        self.pos += len;
        if !self.enter() {
            return;
        }
        let body = match class {
            Class::Function => CommandContext {
                in_function: true,
                ..nested(ctx)
            },
            _ => control(ctx),
        };
        let words_ok = matches!(class, Class::Worded | Class::Function);
        let mut newline = false;
        loop {
            self.skip_blanks();
            match self.peek() {
                Some(b'\n') => {
                    self.pos += 1;
                    newline = true;
                }
                Some(b'#') => self.skip_comment(),
                Some(b'<') if self.peek_at(1) == Some(b'#') => self.skip_block_comment(),
                Some(b'(') => {
                    self.group(control(ctx), 1, b')');
                }
                Some(b'{') => {
                    if is_switch {
                        self.switch_body(body);
                    } else {
                        self.group(body, 1, b'}');
                    }
                    break;
                }
                Some(b'[') if words_ok => {
                    let _type = self.parse_word(ctx);
                }
                None | Some(b';' | b'|' | b'&' | b')' | b'}') => break,
                Some(_) if words_ok && !newline => {
                    let start = self.pos;
                    if self.parse_word(ctx).is_none() {
                        self.pos = start + self.char_len_at(start);
                    }
                }
                Some(_) => break,
            }
        }
        self.leave();
    }

    /// The `{ … }` of a `switch`: patterns and action blocks, every block lexed.
    fn switch_body(&mut self, ctx: CommandContext) {
        let open = self.pos;
        self.pos += 1;
        if !self.enter() {
            return;
        }
        loop {
            self.skip_space_nl();
            match self.peek() {
                None => {
                    self.set_error(LexErrorKind::UnclosedGroup, open, open + 1);
                    break;
                }
                Some(b'}') => {
                    self.pos += 1;
                    break;
                }
                Some(b'{') => {
                    self.group(ctx, 1, b'}');
                }
                Some(b'(') => {
                    self.group(ctx, 1, b')');
                }
                Some(b';' | b')' | b'|' | b'&') => self.pos += 1,
                Some(_) => {
                    let start = self.pos;
                    if self.parse_word(ctx).is_none() {
                        self.pos = start + self.char_len_at(start);
                    }
                }
            }
        }
        self.leave();
    }

    /// Lexes a simple command (or expression statement) up to a separator.
    pub(super) fn parse_command(&mut self, ctx: CommandContext, sep: Separator) {
        let mut cmd = SimpleCommand {
            separator: sep,
            context: ctx,
            ..SimpleCommand::default()
        };
        let mut span = None;
        self.skip_blanks();
        if self.peek() == Some(b'&') && self.peek_at(1) != Some(b'&') {
            // The call operator: `& 'C:\tools\x.exe' args`, `& { … }`.
            let start = self.pos;
            self.pos += 1;
            let word = Word {
                parts: vec![WordPart::Literal {
                    text: "&".into(),
                    quoted: false,
                }],
                span: Span::new(start, start + 1),
            };
            grow(&mut span, word.span);
            cmd.words.push(word);
        }
        loop {
            self.skip_blanks();
            match self.peek() {
                None | Some(b'\n' | b';' | b'|' | b'&' | b')' | b'}' | b'#') => break,
                Some(b'<') if self.peek_at(1) == Some(b'#') => {
                    self.skip_block_comment();
                    continue;
                }
                _ => {}
            }
            if let Some(redirect) = self.redirect(ctx) {
                grow(&mut span, redirect.span);
                cmd.redirects.push(redirect);
                continue;
            }
            if self.at_stop_parsing() {
                self.stop_parsing(&mut cmd, &mut span);
                break;
            }
            let start = self.pos;
            let Some(word) = self.parse_word(ctx) else {
                self.set_error(LexErrorKind::Malformed, start, start + 1);
                self.pos += self.char_len_at(start);
                continue;
            };
            grow(&mut span, word.span);
            let raw = self.slice(word.span.start, word.span.end);
            let variable = word
                .parts
                .iter()
                .any(|p| matches!(p, WordPart::Parameter { raw, .. } if raw.starts_with('$')));
            if cmd.words.is_empty()
                && variable
                && (raw.starts_with('$') || raw.starts_with('['))
                && self.assignment_operator()
            {
                cmd.assignments.push(word);
                continue;
            }
            cmd.words.push(word);
        }
        if let Some(span) = span {
            cmd.span = span;
            self.commands.push(cmd);
        }
    }

    /// Consumes an assignment operator (`=`, `+=`, `-=`, `*=`, `/=`, `%=`, `??=`) after
    /// blanks, and the blanks and newlines after it. Returns `false` (consuming nothing but
    /// blanks) if there is none.
    fn assignment_operator(&mut self) -> bool {
        self.skip_blanks();
        let len = match (self.peek(), self.peek_at(1), self.peek_at(2)) {
            (Some(b'='), Some(b'='), _) => return false,
            (Some(b'='), _, _) => 1,
            (Some(b'+' | b'-' | b'*' | b'/' | b'%'), Some(b'='), _) => 2,
            (Some(b'?'), Some(b'?'), Some(b'=')) => 3,
            _ => return false,
        };
        self.pos += len;
        self.skip_space_nl();
        true
    }

    /// A redirection at `pos`: `>`, `>>`, `n>`, `n>>`, `*>`, `*>>`, `n>&1`; `<` is reserved
    /// (a syntax error in PowerShell).
    fn redirect(&mut self, ctx: CommandContext) -> Option<Redirect> {
        let start = self.pos;
        let (fd, all, op_pos) = match (self.peek(), self.peek_at(1)) {
            (Some(d @ b'1'..=b'6'), Some(b'>')) => (Some(u32::from(d - b'0')), false, start + 1),
            (Some(b'*'), Some(b'>')) => (None, true, start + 1),
            (Some(b'>' | b'<'), _) => (None, false, start),
            _ => return None,
        };
        let append = self.byte(op_pos + 1) == Some(b'>');
        let mut end = op_pos + 1 + usize::from(append);
        let op = match (self.byte(op_pos), all, append) {
            (Some(b'<'), _, _) => {
                self.set_error(LexErrorKind::Malformed, start, end);
                RedirectOp::In
            }
            (_, true, false) => RedirectOp::OutErr,
            (_, true, true) => RedirectOp::AppendErr,
            (_, false, true) => RedirectOp::Append,
            (_, false, false) => RedirectOp::Out,
        };
        let op = if self.byte(end) == Some(b'&')
            && self.byte(end + 1).is_some_and(|b| b.is_ascii_digit())
        {
            end += 1;
            RedirectOp::DupOut
        } else {
            op
        };
        self.pos = end;
        self.skip_blanks();
        let target = match self.peek() {
            None | Some(b'\n' | b';' | b'|' | b'&' | b')' | b'}' | b'<' | b'>') => None,
            Some(_) => self.parse_word(ctx),
        };
        if target.is_none() {
            self.set_error(LexErrorKind::Malformed, start, end);
        }
        let span_end = target.as_ref().map_or(end, |t| t.span.end);
        Some(Redirect {
            fd,
            op,
            target,
            heredoc: None,
            span: Span::new(start, span_end),
        })
    }

    /// Returns `true` at a `--%` token.
    fn at_stop_parsing(&self) -> bool {
        self.at(b"--%")
            && matches!(
                self.byte(self.pos + 3),
                None | Some(b' ' | b'\t' | b'\r' | b'\n' | b'|')
            )
    }

    /// `--%`: the rest of the line up to a newline or `|` goes to the program as it is,
    /// split like a native command line (`"` groups, `%VAR%` expands).
    fn stop_parsing(&mut self, cmd: &mut SimpleCommand, span: &mut Option<Span>) {
        let start = self.pos;
        self.pos += 3;
        let marker = Word {
            parts: vec![WordPart::Literal {
                text: "--%".into(),
                quoted: false,
            }],
            span: Span::new(start, start + 3),
        };
        grow(span, marker.span);
        cmd.words.push(marker);
        loop {
            while let Some(b' ' | b'\t' | b'\r') = self.peek() {
                self.pos += 1;
            }
            if matches!(self.peek(), None | Some(b'\n' | b'|')) {
                break;
            }
            let word_start = self.pos;
            let mut buf = WordBuf::default();
            let mut quoted = false;
            while let Some(b) = self.peek() {
                match b {
                    b' ' | b'\t' | b'\r' | b'|' if !quoted => break,
                    b'\n' => break,
                    b'"' => {
                        quoted = !quoted;
                        buf.lit("", true);
                        self.pos += 1;
                    }
                    b'%' => {
                        let end = self.run_end(self.pos + 1, b" \t\r\n|\"%");
                        if self.byte(end) == Some(b'%') && end > self.pos + 1 {
                            buf.part(WordPart::Parameter {
                                raw: self.slice(self.pos, end + 1).to_owned(),
                                quoted,
                            });
                            self.pos = end + 1;
                        } else {
                            buf.lit("%", quoted);
                            self.pos += 1;
                        }
                    }
                    _ => {
                        let end = self.run_end(self.pos, b" \t\r\n|\"%");
                        let end = if quoted {
                            self.run_end(self.pos, b"\n\"%")
                        } else {
                            end
                        };
                        buf.lit(self.slice(self.pos, end), quoted);
                        self.pos = end;
                    }
                }
            }
            let word = Word {
                parts: buf.finish(),
                span: Span::new(word_start, self.pos),
            };
            grow(span, word.span);
            cmd.words.push(word);
        }
    }
}
