//! Arguments of cmd and PowerShell commands, split the way the receiving program splits them.
//!
//! The lexers keep `,` `;` `=` inside words: only some programs treat them as separators
//! (cmd's builtins split at `,` `;` `=` and start a switch at every unquoted `/`; PowerShell
//! makes an array of `a,b`). The front ends split words here, per program.

use agent_guard_lex::{Word, WordPart};
use agent_guard_types::Span;

use crate::args::Arg;

/// A piece of an argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Piece {
    /// Literal text; `quoted` when it came from quotes or an escape.
    Lit { text: String, quoted: bool },
    /// A variable or expression, by its raw text.
    Opaque(String),
}

/// How to split words into arguments.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Split {
    /// Unquoted characters that separate arguments (and disappear).
    pub(crate) delimiters: &'static [char],
    /// An unquoted `/` starts a new argument (a cmd switch), even inside a word.
    pub(crate) slash: bool,
}

/// One argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tok {
    /// The text after quote removal; opaque pieces appear as their raw text.
    pub(crate) text: String,
    /// Why the value is unknown, if a piece is opaque.
    pub(crate) opaque: Option<String>,
    /// Some piece was quoted or escaped.
    pub(crate) quoted: bool,
    /// The pieces, in order.
    pub(crate) pieces: Vec<Piece>,
    /// The word it came from.
    pub(crate) span: Span,
}

impl Tok {
    fn from_pieces(pieces: Vec<Piece>, span: Span) -> Tok {
        let mut text = String::new();
        let mut opaque = None;
        let mut quoted = false;
        for piece in &pieces {
            match piece {
                Piece::Lit { text: t, quoted: q } => {
                    text.push_str(t);
                    quoted |= *q;
                }
                Piece::Opaque(raw) => {
                    text.push_str(raw);
                    opaque.get_or_insert_with(|| {
                        format!("`{raw}` is not known before the command runs")
                    });
                }
            }
        }
        Tok {
            text,
            opaque,
            quoted,
            pieces,
            span,
        }
    }

    /// Returns the text when every piece is literal.
    pub(crate) fn literal(&self) -> Option<&str> {
        self.opaque.is_none().then_some(self.text.as_str())
    }

    /// The unquoted literal text the argument starts with (where switches and parameter
    /// names live; a quoted `"/s"` or `'-Recurse'` is an ordinary argument).
    pub(crate) fn bare_head(&self) -> &str {
        match self.pieces.first() {
            Some(Piece::Lit {
                text,
                quoted: false,
            }) => text,
            _ => "",
        }
    }

    /// The argument as the POSIX parsers see it (for the vocabulary-floor probes).
    pub(crate) fn probe_arg(&self) -> Arg {
        Arg {
            text: self.text.clone(),
            home: false,
            glob: false,
            opaque: self.opaque.as_ref().map(|_| "not literal"),
            quoted: self.quoted,
            span: self.span,
        }
    }

    /// A new argument made of `pieces` (a parameter's attached value).
    pub(crate) fn with_pieces(pieces: Vec<Piece>, span: Span) -> Tok {
        Tok::from_pieces(pieces, span)
    }
}

/// Accumulates the pieces of one argument.
#[derive(Default)]
struct Acc {
    pieces: Vec<Piece>,
    started: bool,
}

impl Acc {
    fn push_lit(&mut self, c: &str, quoted: bool) {
        self.started = true;
        if let Some(Piece::Lit { text, quoted: q }) = self.pieces.last_mut()
            && *q == quoted
        {
            text.push_str(c);
            return;
        }
        self.pieces.push(Piece::Lit {
            text: c.to_owned(),
            quoted,
        });
    }

    fn flush(&mut self, span: Span, out: &mut Vec<Tok>) {
        if self.started {
            out.push(Tok::from_pieces(std::mem::take(&mut self.pieces), span));
        }
        self.started = false;
    }
}

/// Splits one word into arguments.
pub(crate) fn tokens(word: &Word, split: Split) -> Vec<Tok> {
    let mut out = Vec::new();
    let mut acc = Acc::default();
    for part in &word.parts {
        match part {
            WordPart::Literal {
                text,
                quoted: false,
            } => {
                for (i, c) in text.char_indices() {
                    if split.delimiters.contains(&c) {
                        acc.flush(word.span, &mut out);
                    } else {
                        if c == '/' && split.slash {
                            acc.flush(word.span, &mut out);
                        }
                        acc.push_lit(&text[i..i + c.len_utf8()], false);
                    }
                }
            }
            WordPart::Literal { text, quoted: true } => acc.push_lit(text, true),
            WordPart::Parameter { raw, .. }
            | WordPart::CommandSubstitution { raw }
            | WordPart::ProcessSubstitution { raw }
            | WordPart::Arithmetic { raw }
            | WordPart::Opaque { raw, .. } => {
                acc.started = true;
                acc.pieces.push(Piece::Opaque(raw.clone()));
            }
            WordPart::Tilde { .. } | WordPart::Brace(_) => {
                // Not produced by the Windows lexers; opaque if it ever is.
                acc.started = true;
                acc.pieces.push(Piece::Opaque("{…}".to_owned()));
            }
        }
    }
    acc.flush(word.span, &mut out);
    out
}

/// The whole word as one argument.
pub(crate) fn whole(word: &Word) -> Tok {
    tokens(
        word,
        Split {
            delimiters: &[],
            slash: false,
        },
    )
    .into_iter()
    .next()
    .unwrap_or_else(|| Tok::from_pieces(Vec::new(), word.span))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CMD: Split = Split {
        delimiters: &[',', ';', '='],
        slash: true,
    };

    fn texts(src: &str, split: Split) -> Vec<String> {
        let script = agent_guard_lex::cmd::lex(src);
        script.commands[0]
            .words
            .iter()
            .flat_map(|w| tokens(w, split))
            .map(|t| t.text)
            .collect()
    }

    #[test]
    fn cmd_builtins_split_at_delimiters_and_slashes() {
        assert_eq!(texts("rd/s/q build", CMD), ["rd", "/s", "/q", "build"]);
        assert_eq!(
            texts("del a.txt,b.txt;c=d", CMD),
            ["del", "a.txt", "b.txt", "c", "d"]
        );
        assert_eq!(texts("del \"a,b/c\"", CMD), ["del", "a,b/c"]);
        assert_eq!(texts("del build/o.js", CMD), ["del", "build", "/o.js"]);
        assert_eq!(texts("del \"\"", CMD), ["del", ""]);
        let toks: Vec<Tok> = agent_guard_lex::cmd::lex("del %X%/q").commands[0]
            .words
            .iter()
            .flat_map(|w| tokens(w, CMD))
            .collect();
        assert!(toks[1].opaque.is_some());
        assert_eq!(toks[2].text, "/q");
    }
}
