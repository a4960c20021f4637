//! Brace expansion and tilde prefixes, resolved on a complete word's atoms.
//!
//! Bash decides brace expansion after it knows the extent of a word, so this runs once per
//! word: one stack pass pairs unquoted `{` and `}` (commas belong to the innermost open
//! brace), then the parts are built. Linear; nesting deeper than [`MAX_DEPTH`] is left as
//! literal text and reported.

use agent_guard_types::Span;

use super::MAX_DEPTH;
use super::word::Atom;
use crate::ast::{Brace, Word, WordPart};

/// A `{` that starts an expansion, described by its index in the atom list.
#[derive(Debug)]
enum Pair {
    /// `{a,b}`: index of the closing `}` and of the top-level commas.
    List { close: usize, commas: Vec<usize> },
    /// `{x..y[..z]}`: index of the closing `}` and the bounds.
    Sequence {
        close: usize,
        start: String,
        end: String,
        step: Option<String>,
    },
}

impl Pair {
    fn close(&self) -> usize {
        match self {
            Pair::List { close, .. } | Pair::Sequence { close, .. } => *close,
        }
    }
}

/// Builds a word's parts from its atoms. Returns the parts and whether nesting was too deep.
pub(super) fn build(atoms: Vec<Atom>) -> (Vec<WordPart>, bool) {
    let pairs = match_pairs(&atoms);
    let mut builder = Builder {
        atoms,
        pairs,
        too_deep: false,
    };
    let len = builder.atoms.len();
    let mut parts = builder.parts(0, len, 0);
    apply_tilde(&mut parts, 0);
    (parts, builder.too_deep)
}

/// Pairs braces in one pass; only pairs that expand get an entry.
fn match_pairs(atoms: &[Atom]) -> Vec<Option<Pair>> {
    let mut pairs: Vec<Option<Pair>> = std::iter::repeat_with(|| None).take(atoms.len()).collect();
    let mut stack: Vec<(usize, Vec<usize>)> = Vec::new();
    for (i, atom) in atoms.iter().enumerate() {
        let Atom::Meta { ch, .. } = atom else {
            continue;
        };
        match ch {
            '{' => stack.push((i, Vec::new())),
            ',' => {
                if let Some(top) = stack.last_mut() {
                    top.1.push(i);
                }
            }
            _ => {
                let Some((open, commas)) = stack.pop() else {
                    continue;
                };
                let pair = if commas.is_empty() {
                    sequence(atoms.get(open + 1..i).unwrap_or(&[]), i)
                } else {
                    Some(Pair::List { close: i, commas })
                };
                if let Some(slot) = pairs.get_mut(open) {
                    *slot = pair;
                }
            }
        }
    }
    pairs
}

/// `x..y` or `x..y..z` as the only, unquoted content of a brace pair.
fn sequence(inner: &[Atom], close: usize) -> Option<Pair> {
    let [
        Atom::Lit {
            text,
            quoted: false,
        },
    ] = inner
    else {
        return None;
    };
    let pieces: Vec<&str> = text.split("..").collect();
    if !(2..=3).contains(&pieces.len()) || pieces.iter().any(|p| p.is_empty()) {
        return None;
    }
    Some(Pair::Sequence {
        close,
        start: pieces.first()?.to_string(),
        end: pieces.get(1)?.to_string(),
        step: pieces.get(2).map(|s| (*s).to_string()),
    })
}

struct Builder {
    atoms: Vec<Atom>,
    pairs: Vec<Option<Pair>>,
    too_deep: bool,
}

impl Builder {
    /// The parts of atoms `lo..hi`.
    fn parts(&mut self, lo: usize, hi: usize, depth: u32) -> Vec<WordPart> {
        let mut out = Vec::new();
        let mut i = lo;
        while i < hi {
            match self.atoms.get_mut(i) {
                Some(Atom::Lit { text, quoted }) => push_lit(&mut out, text, *quoted),
                Some(Atom::Part(part)) => {
                    // Each atom is visited once; take it instead of cloning.
                    let part = std::mem::replace(
                        part,
                        WordPart::Literal {
                            text: String::new(),
                            quoted: true,
                        },
                    );
                    out.push(part);
                }
                Some(Atom::Meta { ch, .. }) => {
                    let ch = *ch;
                    if self.pairs.get(i).is_some_and(Option::is_some) {
                        if depth >= MAX_DEPTH {
                            self.too_deep = true;
                        } else if let Some(pair) = self.pairs.get_mut(i).and_then(Option::take) {
                            let close = pair.close();
                            out.push(WordPart::Brace(self.brace(i, pair, depth)));
                            i = close + 1;
                            continue;
                        }
                    }
                    push_lit(&mut out, ch.encode_utf8(&mut [0; 4]), false);
                }
                None => break,
            }
            i += 1;
        }
        out
    }

    fn brace(&mut self, open: usize, pair: Pair, depth: u32) -> Brace {
        match pair {
            Pair::Sequence {
                start, end, step, ..
            } => Brace::Sequence { start, end, step },
            Pair::List { close, commas } => {
                let mut bounds = Vec::with_capacity(commas.len() + 2);
                bounds.push(open);
                bounds.extend(commas);
                bounds.push(close);
                let alternatives = bounds
                    .windows(2)
                    .map(|w| {
                        let (a, b) = (
                            w.first().copied().unwrap_or(open),
                            w.get(1).copied().unwrap_or(close),
                        );
                        let span = Span::new(self.meta_pos(a) + 1, self.meta_pos(b));
                        Word {
                            parts: self.parts(a + 1, b, depth + 1),
                            span,
                        }
                    })
                    .collect();
                Brace::List(alternatives)
            }
        }
    }

    fn meta_pos(&self, i: usize) -> usize {
        match self.atoms.get(i) {
            Some(Atom::Meta { pos, .. }) => *pos,
            _ => 0,
        }
    }
}

/// Appends literal text, merging with a previous literal of the same quotedness.
fn push_lit(out: &mut Vec<WordPart>, text: &str, quoted: bool) {
    if let Some(WordPart::Literal {
        text: prev,
        quoted: q,
    }) = out.last_mut()
        && *q == quoted
    {
        prev.push_str(text);
        return;
    }
    out.push(WordPart::Literal {
        text: text.to_owned(),
        quoted,
    });
}

/// Characters allowed in a `~user` prefix (`+`/`-` cover `~+` and `~-`, the directory stack).
fn user_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '+')
}

/// Turns a leading unquoted `~` or `~user` (up to `/` or the end of the word) into a
/// [`WordPart::Tilde`]. Also applies to the alternatives of a brace at the word's start, since
/// bash expands tildes after brace expansion.
fn apply_tilde(parts: &mut Vec<WordPart>, depth: u32) {
    let single = parts.len() == 1;
    match parts.first_mut() {
        Some(WordPart::Brace(Brace::List(alternatives))) if depth < MAX_DEPTH => {
            for alt in alternatives {
                apply_tilde(&mut alt.parts, depth + 1);
            }
        }
        Some(WordPart::Literal {
            text,
            quoted: false,
        }) if text.starts_with('~') => {
            let (user, rest) = match text.find('/') {
                Some(i) => (text.get(1..i).unwrap_or(""), text.get(i..).unwrap_or("")),
                // Without a `/` the prefix runs to the end of the word, and must be all here.
                None if single => (text.get(1..).unwrap_or(""), ""),
                None => return,
            };
            if !user.chars().all(user_char) {
                return;
            }
            let user = (!user.is_empty()).then(|| user.to_owned());
            let rest = rest.to_owned();
            if let Some(first) = parts.first_mut() {
                *first = WordPart::Tilde { user };
            }
            if !rest.is_empty() {
                parts.insert(
                    1,
                    WordPart::Literal {
                        text: rest,
                        quoted: false,
                    },
                );
            }
        }
        _ => {}
    }
}
