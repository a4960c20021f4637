//! Compound commands: subshells, groups, `if`, loops, `case`, functions, `[[ ]]`, `(( ))`.
//!
//! Lenient about structure (a missing `fi` or `done` just ends the construct, so the
//! enclosing list can still close), strict about quotes, substitutions and parentheses.

use agent_guard_types::Span;

use super::command::{Kw, Stop, grow};
use super::dollar::ArithOutcome;
use super::word::WordMode;
use super::{Lexer, nested, remap};
use crate::ast::{CommandContext, LexErrorKind, Separator, SimpleCommand, Word, WordPart};

/// Context of commands inside a control-flow construct.
fn control(ctx: CommandContext) -> CommandContext {
    CommandContext {
        in_control_flow: true,
        ..nested(ctx)
    }
}

/// Returns `true` if a word (not an operator) can start with `b`.
fn word_start(b: Option<u8>, next: Option<u8>) -> bool {
    match b {
        None | Some(b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'#') => false,
        Some(b'<' | b'>') => next == Some(b'('),
        Some(_) => true,
    }
}

impl Lexer<'_> {
    /// Lexes a compound command if one starts at `pos`; returns `false` if none does.
    /// `group_depth` is false for a function body, whose `{ }` is the function's own level.
    pub(super) fn compound(
        &mut self,
        ctx: CommandContext,
        sep: Separator,
        group_depth: bool,
    ) -> bool {
        if self.peek() == Some(b'(') {
            if self.peek_at(1) == Some(b'(') {
                self.arith_command(ctx, sep);
            } else {
                self.subshell(ctx, sep);
            }
            return true;
        }
        match self.peek_reserved() {
            Some(Kw::LBrace) => {
                self.group(ctx, group_depth);
                self.trailing(ctx, sep);
            }
            Some(Kw::If) => self.if_clause(ctx, sep),
            Some(Kw::While | Kw::Until) => self.while_clause(ctx, sep),
            Some(Kw::For) => self.for_clause(ctx, sep, 3),
            Some(Kw::Select) => self.for_clause(ctx, sep, 6),
            Some(Kw::Case) => self.case_clause(ctx, sep),
            Some(Kw::DBracket) => self.cond_command(ctx, sep),
            _ => return false,
        }
        true
    }

    /// `{ list; }` at `pos` (without its trailing redirections).
    fn group(&mut self, ctx: CommandContext, add_depth: bool) {
        let start = self.pos;
        self.pos += 1;
        if !self.enter() {
            return;
        }
        let inner = if add_depth { nested(ctx) } else { ctx };
        match self.parse_list(inner) {
            Stop::Reserved(Kw::RBrace) => self.pos += 1,
            _ => self.set_error(LexErrorKind::UnclosedGroup, start, start + 1),
        }
        self.leave();
    }

    /// `( list )` at `pos`.
    pub(super) fn subshell(&mut self, ctx: CommandContext, sep: Separator) {
        let start = self.pos;
        self.pos += 1;
        if !self.enter() {
            return;
        }
        let inner = CommandContext {
            in_subshell: true,
            ..nested(ctx)
        };
        if !self.parse_paren_body(inner) {
            self.set_error(LexErrorKind::UnclosedGroup, start, start + 1);
        }
        self.leave();
        self.trailing(ctx, sep);
    }

    /// `(( expr ))` at `pos`: an arithmetic command, which runs nothing itself (substitutions
    /// inside it are listed). Falls back to nested subshells when it is not arithmetic.
    fn arith_command(&mut self, ctx: CommandContext, sep: Separator) {
        let start = self.pos;
        if !self.enter() {
            return;
        }
        let outcome = self.try_arith(ctx, start, start + 2);
        self.leave();
        match outcome {
            ArithOutcome::Done => {
                self.sh_reading(ctx, start);
                self.trailing(ctx, sep);
            }
            ArithOutcome::Fallback { .. } => {
                self.pos = start;
                self.subshell(ctx, sep);
            }
        }
    }

    /// The other reading of an arithmetic command `start..pos`: POSIX sh (dash) runs
    /// `((rm -rf a))` as nested subshells. A child lexer reads the text that way; if it is
    /// valid as subshells, their commands are listed with
    /// [`CommandContext::maybe_arithmetic`] (those in substitutions are already listed: they
    /// run in both readings). The bytes read are charged to the arithmetic budget, shared with
    /// the child, so nested ambiguous `((` stay linear; past the budget the line is an error.
    fn sh_reading(&mut self, ctx: CommandContext, start: usize) {
        let end = self.pos;
        let cost = end.saturating_sub(start).max(1);
        if self.arith.budget < cost {
            self.set_error(LexErrorKind::TooDeep, start, start + 2);
            return;
        }
        self.arith.budget -= cost;
        if !self.enter() {
            return;
        }
        let text = self.slice(start, end);
        let mut child = Lexer::new(text, self.guard);
        child.arith.budget = self.arith.budget;
        // Read as if outside any substitution, so that a command the child lists in one was
        // in a substitution inside the arithmetic text (listed already); the line's own
        // context is given back below. (`echo $( ((rm -rf a)) )` deletes under dash.)
        let inner = CommandContext {
            maybe_arithmetic: true,
            in_substitution: false,
            ..ctx
        };
        child.subshell(inner, Separator::Start);
        let valid = child.error.is_none() && !child.aborted && child.pos == text.len();
        // Too deep anywhere below is too deep here: the commands past the limit were never
        // read, so the line must not look as if it had none.
        let aborted = child.aborted
            || child
                .error
                .as_ref()
                .is_some_and(|e| e.kind == LexErrorKind::TooDeep);
        self.arith.budget = child.arith.budget;
        let (commands, _) = child.finish();
        if valid {
            for mut cmd in commands {
                if cmd.context.in_substitution {
                    continue;
                }
                cmd.context.in_substitution = ctx.in_substitution;
                remap::command(&mut cmd, &|off| off + start);
                self.commands.push(cmd);
            }
        }
        if aborted {
            self.set_error(LexErrorKind::TooDeep, start, start + 2);
            self.aborted = true;
        }
        self.leave();
    }

    fn if_clause(&mut self, ctx: CommandContext, sep: Separator) {
        self.pos += Kw::If.len();
        if !self.enter() {
            return;
        }
        let inner = control(ctx);
        let mut stop = self.parse_list(inner);
        loop {
            match stop {
                Stop::Reserved(kw @ (Kw::Then | Kw::Elif | Kw::Else)) => {
                    self.pos += kw.len();
                    stop = self.parse_list(inner);
                }
                Stop::Reserved(Kw::Fi) => {
                    self.pos += Kw::Fi.len();
                    break;
                }
                _ => break,
            }
        }
        self.leave();
        self.trailing(ctx, sep);
    }

    /// `while`/`until` (both five letters).
    fn while_clause(&mut self, ctx: CommandContext, sep: Separator) {
        self.pos += Kw::While.len();
        if !self.enter() {
            return;
        }
        let inner = control(ctx);
        let mut stop = self.parse_list(inner);
        if stop == Stop::Reserved(Kw::Do) {
            self.pos += Kw::Do.len();
            stop = self.parse_list(inner);
        }
        if stop == Stop::Reserved(Kw::Done) {
            self.pos += Kw::Done.len();
        }
        self.leave();
        self.trailing(ctx, sep);
    }

    /// `for`/`select NAME [in WORDS]; do … done` and `for ((…;…;…)); do … done`.
    fn for_clause(&mut self, ctx: CommandContext, sep: Separator, kw_len: usize) {
        self.pos += kw_len;
        if !self.enter() {
            return;
        }
        let inner = control(ctx);
        self.skip_blanks();
        if self.at(b"((") {
            let start = self.pos;
            self.pos += 2;
            if self.scan_arith(inner).is_err() {
                self.set_error(LexErrorKind::Malformed, start, start + 2);
            }
        } else {
            if word_start(self.peek(), self.peek_at(1)) {
                self.parse_word(inner, WordMode::PLAIN);
            }
            self.skip_space_nl();
            if self.peek_word(b"in") {
                self.pos += 2;
                self.word_list(inner);
            }
        }
        self.skip_blanks();
        if self.peek() == Some(b';') && self.peek_at(1) != Some(b';') {
            self.pos += 1;
        }
        self.skip_space_nl();
        self.loop_body(inner);
        self.leave();
        self.trailing(ctx, sep);
    }

    /// `do list done` or `{ list; }` after a loop header.
    fn loop_body(&mut self, inner: CommandContext) {
        match self.peek_reserved() {
            Some(Kw::Do) => {
                self.pos += Kw::Do.len();
                if self.parse_list(inner) == Stop::Reserved(Kw::Done) {
                    self.pos += Kw::Done.len();
                }
            }
            Some(Kw::LBrace) => self.group(inner, false),
            _ => {}
        }
    }

    /// The words after `for NAME in`: data, but their substitutions run.
    fn word_list(&mut self, ctx: CommandContext) {
        loop {
            self.skip_blanks();
            if self.peek() == Some(b'#') {
                self.skip_comment();
            }
            if !word_start(self.peek(), self.peek_at(1)) {
                return;
            }
            if self.parse_word(ctx, WordMode::PLAIN).is_none() {
                return;
            }
        }
    }

    /// `case WORD in [(]PATTERN[|PATTERN]) list ;; … esac`.
    fn case_clause(&mut self, ctx: CommandContext, sep: Separator) {
        self.pos += Kw::Case.len();
        if !self.enter() {
            return;
        }
        let inner = control(ctx);
        self.skip_blanks();
        if word_start(self.peek(), self.peek_at(1)) {
            self.parse_word(inner, WordMode::PLAIN);
        }
        self.skip_space_nl();
        if self.peek_word(b"in") {
            self.pos += 2;
            self.case_items(inner);
        } else {
            self.error_here(LexErrorKind::Malformed, 0);
        }
        self.leave();
        self.trailing(ctx, sep);
    }

    fn case_items(&mut self, inner: CommandContext) {
        loop {
            self.skip_space_nl();
            if self.peek_reserved() == Some(Kw::Esac) {
                self.pos += Kw::Esac.len();
                return;
            }
            if matches!(self.peek(), None | Some(b')')) || !self.case_patterns(inner) {
                return;
            }
            match self.parse_list(inner) {
                Stop::CaseTerm(len) => self.pos += len,
                Stop::Reserved(Kw::Esac) => {}
                _ => return,
            }
        }
    }

    /// `[(]PATTERN[|PATTERN…])`: the patterns are data; returns `false` if malformed.
    fn case_patterns(&mut self, inner: CommandContext) -> bool {
        if self.peek() == Some(b'(') {
            self.pos += 1;
        }
        loop {
            self.skip_blanks();
            match self.peek() {
                Some(b')') => {
                    self.pos += 1;
                    return true;
                }
                Some(b'|') => self.pos += 1,
                b if word_start(b, self.peek_at(1)) || b == Some(b'#') => {
                    if self.parse_word(inner, WordMode::PLAIN).is_none() {
                        self.error_here(LexErrorKind::Malformed, 0);
                        return false;
                    }
                }
                _ => {
                    self.error_here(LexErrorKind::Malformed, 0);
                    return false;
                }
            }
        }
    }

    /// `function NAME [()] BODY` at `pos`.
    pub(super) fn function_keyword(&mut self, ctx: CommandContext, sep: Separator) {
        let start = self.pos;
        self.pos += Kw::Function.len();
        self.skip_blanks();
        let mut name = None;
        if word_start(self.peek(), self.peek_at(1)) {
            let mode = WordMode {
                cmd_pos: true,
                ..WordMode::PLAIN
            };
            name = self
                .parse_word(ctx, mode)
                .and_then(|word| word.literal_text())
                .map(|text| (text, start));
        }
        self.function_def(ctx, sep, name);
    }

    /// The optional `()` and the body of a function definition; `name` (with where the
    /// definition starts) is recorded in the script's functions when it is literal.
    pub(super) fn function_def(
        &mut self,
        ctx: CommandContext,
        sep: Separator,
        name: Option<(String, usize)>,
    ) {
        if self.funcdef_parens_here() {
            self.skip_blanks();
            self.pos += 1;
            self.skip_blanks();
            self.pos += 1;
        }
        if !self.enter() {
            return;
        }
        let body = CommandContext {
            in_function: true,
            ..nested(ctx)
        };
        self.skip_space_nl();
        if !self.compound(body, sep, false) {
            // Bash requires a compound body; list whatever follows anyway (fail closed).
            self.error_here(LexErrorKind::Malformed, 0);
            if word_start(self.peek(), self.peek_at(1)) {
                self.parse_simple(body, sep);
            }
        }
        self.leave();
        if let Some((name, start)) = name {
            self.functions.push(crate::ast::FunctionDef {
                name,
                span: Span::new(start, self.pos),
            });
        }
    }

    /// `[[ … ]]`: one command whose words run to `]]`; `&&`, `||`, `<`, `>`, `(`, `)` inside
    /// are words, not operators.
    fn cond_command(&mut self, ctx: CommandContext, sep: Separator) {
        let start = self.pos;
        let mut cmd = SimpleCommand {
            separator: sep,
            context: ctx,
            ..SimpleCommand::default()
        };
        cmd.words
            .push(literal_word("[[", Span::new(start, start + 2)));
        let mut span = Some(Span::new(start, start + 2));
        self.pos += 2;
        let mut closed = false;
        while !closed {
            self.skip_blanks();
            let p = self.pos;
            let Some(b) = self.peek() else { break };
            let op_len = match b {
                b'\n' => {
                    self.consume_newline();
                    continue;
                }
                // `;` cannot appear inside `[[ ]]`: stop so what follows is still listed.
                b';' => break,
                b'&' | b'|' => 1 + usize::from(self.peek_at(1) == Some(b)),
                b'<' | b'>' if self.peek_at(1) != Some(b'(') => 1,
                b'(' | b')' => 1,
                _ => 0,
            };
            let word = if op_len > 0 {
                self.pos += op_len;
                literal_word(self.slice(p, p + op_len), Span::new(p, p + op_len))
            } else {
                let mode = WordMode {
                    cond: true,
                    ..WordMode::PLAIN
                };
                let Some(w) = self.parse_word(ctx, mode) else {
                    self.pos += self.char_len_at(p);
                    continue;
                };
                closed = matches!(w.parts.as_slice(),
                    [WordPart::Literal { text, quoted: false }] if text == "]]");
                w
            };
            grow(&mut span, word.span);
            cmd.words.push(word);
        }
        if !closed {
            self.set_error(LexErrorKind::Malformed, start, start + 2);
        }
        let mut heredocs = Vec::new();
        loop {
            self.skip_blanks();
            if !self.redirect_into(ctx, &mut cmd, &mut heredocs, &mut span) {
                break;
            }
        }
        cmd.span = span.unwrap_or(Span::new(start, start + 2));
        self.emit(cmd, &heredocs);
        match self.peek() {
            None | Some(b'\n' | b';' | b'&' | b'|' | b')' | b'#') => {}
            Some(_) => self.error_here(LexErrorKind::Malformed, 1),
        }
    }
}

/// A word that is one unquoted literal.
fn literal_word(text: &str, span: Span) -> Word {
    Word {
        parts: vec![WordPart::Literal {
            text: text.to_owned(),
            quoted: false,
        }],
        span,
    }
}
