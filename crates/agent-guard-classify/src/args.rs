//! Arguments: lexed words after brace and tilde expansion.

use agent_guard_lex::{Expansion, SimpleCommand, Word, expand_word};
use agent_guard_types::{Span, Target};

/// The most fields one word may expand to before it is treated as opaque.
const EXPANSION_LIMIT: usize = 256;

/// One argument of a command after expansion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Arg {
    /// The text (a leading `~` stands for the home directory when `home` is set).
    pub text: String,
    /// The leading `~` is the home directory.
    pub home: bool,
    /// Contains active wildcards.
    pub glob: bool,
    /// Why the value is unknown, if it is.
    pub opaque: Option<&'static str>,
    /// Any part of the word was quoted or escaped.
    pub quoted: bool,
    /// The source word.
    pub span: Span,
}

impl Arg {
    /// The words `xargs` (or another runner fed from stdin) appends to the command: unknown.
    pub(crate) fn from_stdin() -> Arg {
        Arg {
            text: String::new(),
            home: false,
            glob: false,
            opaque: Some("names that arrive on stdin"),
            quoted: false,
            span: Span::default(),
        }
    }

    /// A literal word the line holds inside another (a variable's value split into words,
    /// `TAR_OPTIONS='…'`).
    pub(crate) fn synthetic(text: &str) -> Arg {
        Arg {
            text: text.into(),
            home: false,
            glob: false,
            opaque: None,
            quoted: true,
            span: Span::default(),
        }
    }

    /// Creates a literal argument (tests and synthetic words).
    #[cfg(test)]
    pub(crate) fn literal(text: &str) -> Arg {
        Arg {
            text: text.into(),
            home: false,
            glob: false,
            opaque: None,
            quoted: false,
            span: Span::default(),
        }
    }

    /// Returns the text when the argument is a known literal (globs allowed).
    pub(crate) fn known(&self) -> Option<&str> {
        if self.opaque.is_none() {
            Some(&self.text)
        } else {
            None
        }
    }

    /// Returns `true` if the argument is a known literal starting with `-`.
    pub(crate) fn is_option(&self) -> bool {
        self.opaque.is_none() && self.text.starts_with('-') && self.text.len() > 1
    }

    /// Converts the argument into an op target.
    pub(crate) fn target(&self) -> Target {
        Target {
            text: self.text.clone(),
            tilde: self.home,
            glob: self.glob,
            opaque: self.opaque.map(str::to_owned),
            span: Some(self.span),
            ..Target::default()
        }
    }
}

/// What bash passes for a process substitution (the descriptor number varies).
const PROCESS_SUBSTITUTION: &str = "/dev/fd/63";

/// Expands one word into arguments (several for a brace list, one opaque for an expansion).
pub(crate) fn expand(word: &Word, source: &str) -> Vec<Arg> {
    let quoted = word
        .parts
        .iter()
        .any(|p| matches!(p, agent_guard_lex::WordPart::Literal { quoted: true, .. }));
    // `>(wc -l)`, `<(sort a)`: bash hands the command a pipe's name, `/dev/fd/N`, never a
    // file of the workspace (the commands inside are judged on their own).
    if let [agent_guard_lex::WordPart::ProcessSubstitution { .. }] = word.parts.as_slice() {
        return vec![Arg {
            text: PROCESS_SUBSTITUTION.to_owned(),
            home: false,
            glob: false,
            opaque: None,
            quoted: false,
            span: word.span,
        }];
    }
    match expand_word(word, EXPANSION_LIMIT) {
        Expansion::Fields(fields) => fields
            .into_iter()
            .map(|f| Arg {
                text: f.text,
                home: f.home,
                glob: f.glob,
                opaque: None,
                quoted,
                span: word.span,
            })
            .collect(),
        Expansion::Opaque(reason) => vec![Arg {
            text: word.raw(source).to_owned(),
            home: false,
            glob: false,
            opaque: Some(reason),
            quoted,
            span: word.span,
        }],
    }
}

/// Expands every word of a command.
pub(crate) fn expand_all(command: &SimpleCommand, source: &str) -> Vec<Arg> {
    command
        .words
        .iter()
        .flat_map(|w| expand(w, source))
        .collect()
}

/// Returns the final path component of a command name (`/bin/rm` → `rm`).
pub(crate) fn basename(text: &str) -> &str {
    text.rsplit(['/', '\\']).next().unwrap_or(text)
}
