//! The dialect-neutral output of every lexer: a flat list of simple commands.
//!
//! Control flow (`if`, loops, `case`, functions), subshells, groups and substitutions are
//! flattened: every simple command that could run appears once, in textual order, with a
//! [`CommandContext`] that says where it sits. The classifier never needs the tree.

use agent_guard_types::Span;

/// A lexed command line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Script {
    /// Every simple command, in textual order (a substitution's commands come before the
    /// command that contains them ends, in the order their text starts).
    pub commands: Vec<SimpleCommand>,
    /// The first syntax error, if the text is not well-formed. Commands lexed before (and,
    /// where recovery was possible, after) the error are still listed.
    pub error: Option<LexError>,
    /// The shell functions the text defines (POSIX only), in textual order. The commands of
    /// a body are among [`Script::commands`], inside the definition's span.
    pub functions: Vec<FunctionDef>,
}

impl Script {
    /// A lexer's result: its commands sorted by where their text starts (nested commands are
    /// collected when they end), and its first error.
    pub(crate) fn in_source_order(
        mut commands: Vec<SimpleCommand>,
        error: Option<LexError>,
    ) -> Script {
        commands.sort_by_key(|c| c.span.start);
        Script {
            commands,
            error,
            functions: Vec::new(),
        }
    }
}

/// A function definition: `NAME () BODY` or `function NAME [()] BODY`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionDef {
    /// The function's name as written (a literal word).
    pub name: String,
    /// The whole definition, from its name (or `function`) to the end of its body.
    pub span: Span,
}

/// How a simple command is joined to the one before it at the same nesting level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Separator {
    /// First command of its list (start of the line, of a subshell, of a substitution, …).
    #[default]
    Start,
    /// `;` or a newline.
    Sequence,
    /// `&&`.
    And,
    /// `||`.
    Or,
    /// `|`: this command's stdin is the previous command's stdout.
    Pipe,
    /// `|&`: stdout and stderr piped.
    PipeAll,
    /// `&`: the previous command runs in the background.
    Background,
}

/// Where a simple command sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[allow(
    clippy::struct_excessive_bools,
    reason = "independent facts about where a command sits, not a state machine"
)]
pub struct CommandContext {
    /// Nesting depth: 0 at top level, +1 per subshell, group, substitution, control-flow body
    /// or function body.
    pub depth: u32,
    /// Inside a command or process substitution (`$(…)`, `` `…` ``, `<(…)`, `>(…)`), or a
    /// substitution in an unquoted heredoc body.
    pub in_substitution: bool,
    /// Inside a subshell `( … )`.
    pub in_subshell: bool,
    /// Inside a function body (runs only when called).
    pub in_function: bool,
    /// Inside a control-flow construct (`if`, `while`, `until`, `for`, `case`, `select`).
    pub in_control_flow: bool,
    /// Preceded by `!` (exit status negated).
    pub negated: bool,
    /// Read from `((…))` as nested subshells. POSIX sh (dash) runs `((rm -rf a))` as two
    /// subshells, bash evaluates it as arithmetic and runs nothing: the command runs only if
    /// the shell is not bash. Commands in substitutions inside `((…))` run in both readings
    /// and are listed without this flag.
    pub maybe_arithmetic: bool,
}

/// Returns the context of a construct nested one level inside `ctx` (never negated itself).
pub(crate) fn nested(ctx: CommandContext) -> CommandContext {
    CommandContext {
        depth: ctx.depth.saturating_add(1),
        negated: false,
        ..ctx
    }
}

/// One simple command: assignments, words and redirections.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SimpleCommand {
    /// Leading `NAME=value` assignments (each a whole word, including the name and `=`).
    pub assignments: Vec<Word>,
    /// The command name and its arguments. Empty for a bare assignment or redirection.
    pub words: Vec<Word>,
    /// Redirections, wherever they appeared among the words.
    pub redirects: Vec<Redirect>,
    /// How it is joined to the previous command at the same level.
    pub separator: Separator,
    /// Where it sits.
    pub context: CommandContext,
    /// The text of the whole command.
    pub span: Span,
}

/// A shell word: the concatenation of its parts.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Word {
    /// The parts, in order. Adjacent parts join without spaces (`a"b"$c` is three parts).
    pub parts: Vec<WordPart>,
    /// The raw text of the word in the source.
    pub span: Span,
}

/// A piece of a word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WordPart {
    /// Literal text. `quoted` is true when it came from quotes or an escape, so wildcard and
    /// brace characters in it are inert. Unquoted literal text may contain `*`, `?`, `[`.
    Literal {
        /// The text after quote removal and escape processing.
        text: String,
        /// It came from quoting or escaping.
        quoted: bool,
    },
    /// An unquoted leading `~` or `~user` (only at the start of a word).
    Tilde {
        /// The user name, `None` for the current user.
        user: Option<String>,
    },
    /// An unquoted brace expansion: `{a,b,c}` or `{1..3}` / `{a..e..2}`.
    Brace(Brace),
    /// Parameter expansion: `$x`, `${x}`, `${x:-y}`, `$1`, `$@`, `$?`, PowerShell `$env:X`,
    /// cmd `%VAR%`. Always opaque.
    Parameter {
        /// The raw text, e.g. `${HOME}`.
        raw: String,
        /// It appeared inside double quotes (no field splitting or globbing).
        quoted: bool,
    },
    /// Command substitution `$(…)` or `` `…` `` (PowerShell `$(…)` and `(…)` arguments).
    /// Always opaque; the commands inside are also listed in [`Script::commands`].
    CommandSubstitution {
        /// The raw text including delimiters.
        raw: String,
    },
    /// Process substitution `<(…)` / `>(…)`. Opaque; inner commands are listed.
    ProcessSubstitution {
        /// The raw text including delimiters.
        raw: String,
    },
    /// Arithmetic expansion `$((…))`. Opaque.
    Arithmetic {
        /// The raw text including delimiters.
        raw: String,
    },
    /// Quoted text whose value the guard cannot state: ANSI-C quoting whose bytes are not
    /// UTF-8 (`$'\xff'`), or an escape whose meaning depends on the shell's version.
    /// Always opaque.
    Opaque {
        /// The raw text of the quoted section.
        raw: String,
        /// Why it is opaque (a short static text).
        reason: &'static str,
    },
}

/// A brace expansion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Brace {
    /// `{a,b,c}`: each alternative is a word of its own (it may nest braces or be opaque).
    List(Vec<Word>),
    /// `{start..end[..step]}` over integers or single letters, kept raw.
    Sequence {
        /// The start bound.
        start: String,
        /// The end bound.
        end: String,
        /// The optional step.
        step: Option<String>,
    },
}

/// A redirection operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirectOp {
    /// `>`
    Out,
    /// `>>`
    Append,
    /// `>|`
    Clobber,
    /// `<`
    In,
    /// `<>`
    ReadWrite,
    /// `>&` (duplicate or, with a file name, redirect both)
    DupOut,
    /// `<&`
    DupIn,
    /// `&>`
    OutErr,
    /// `&>>`
    AppendErr,
    /// `<<` (heredoc)
    HereDoc,
    /// `<<-` (heredoc, leading tabs stripped)
    HereDocStrip,
    /// `<<<` (here-string)
    HereString,
}

impl RedirectOp {
    /// Returns `true` if the operator may create or truncate its target file.
    pub const fn writes(self) -> bool {
        matches!(
            self,
            RedirectOp::Out
                | RedirectOp::Append
                | RedirectOp::Clobber
                | RedirectOp::ReadWrite
                | RedirectOp::OutErr
                | RedirectOp::AppendErr
                | RedirectOp::DupOut
        )
    }
}

/// One redirection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    /// The explicit file descriptor (`2>`), if any.
    pub fd: Option<u32>,
    /// The operator.
    pub op: RedirectOp,
    /// The target word (a file, a descriptor like `1` or `-`, the here-string word, or the
    /// heredoc delimiter word).
    pub target: Option<Word>,
    /// The heredoc body, for `<<` / `<<-`.
    pub heredoc: Option<Heredoc>,
    /// The operator and its target in the source.
    pub span: Span,
}

/// A heredoc body: data, never commands (substitutions in an unquoted body still run, and
/// their commands are listed in the script).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Heredoc {
    /// The delimiter after quote removal.
    pub delimiter: String,
    /// The delimiter was quoted, so the body is literal.
    pub quoted: bool,
    /// The body text (without the terminator line).
    pub body: String,
    /// A terminator line was found.
    pub terminated: bool,
}

/// A syntax error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LexError {
    /// What went wrong.
    pub kind: LexErrorKind,
    /// Where (the opening construct, or the offending character).
    pub span: Span,
}

/// Kinds of syntax errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum LexErrorKind {
    /// A quote is never closed.
    UnterminatedQuote,
    /// A `$(`, `${`, `` ` ``, `<(` or `$((` is never closed.
    UnterminatedSubstitution,
    /// A `(` or `{` group is never closed.
    UnclosedGroup,
    /// A `)` or `}` closes nothing.
    UnexpectedClose,
    /// A construct is malformed (e.g. a redirection without a target).
    Malformed,
    /// Nesting exceeds the lexer's depth limit.
    TooDeep,
}

impl LexErrorKind {
    /// Returns a short static description.
    pub const fn as_str(self) -> &'static str {
        match self {
            LexErrorKind::UnterminatedQuote => "unterminated quote",
            LexErrorKind::UnterminatedSubstitution => "unterminated substitution",
            LexErrorKind::UnclosedGroup => "unclosed group",
            LexErrorKind::UnexpectedClose => "unexpected closing token",
            LexErrorKind::Malformed => "malformed construct",
            LexErrorKind::TooDeep => "nesting too deep",
        }
    }
}

impl std::fmt::Display for LexError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at byte {}", self.kind.as_str(), self.span.start)
    }
}

impl std::error::Error for LexError {}

impl Word {
    /// Returns the text if the word is a single literal with no active characters
    /// (no tilde, brace, parameter or substitution part). Unquoted wildcard characters are
    /// kept as text, so check [`Word::has_glob`] where that matters.
    pub fn literal_text(&self) -> Option<String> {
        let mut text = String::new();
        for part in &self.parts {
            match part {
                WordPart::Literal { text: t, .. } => text.push_str(t),
                _ => return None,
            }
        }
        Some(text)
    }

    /// Returns `true` if an unquoted literal part contains `*`, `?` or `[`, or an extglob
    /// group `@(…)`, `!(…)` or `+(…)` (`!(keep)` matches everything but `keep`).
    pub fn has_glob(&self) -> bool {
        self.parts.iter().any(|p| match p {
            WordPart::Literal {
                text,
                quoted: false,
            } => {
                text.contains(['*', '?', '['])
                    || ["@(", "!(", "+("].iter().any(|g| text.contains(g))
            }
            _ => false,
        })
    }

    /// Returns the raw source text of the word.
    pub fn raw<'a>(&self, source: &'a str) -> &'a str {
        source.get(self.span.start..self.span.end).unwrap_or("")
    }
}
