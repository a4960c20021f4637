//! Static expansion of a lexed word into fields: brace expansion and the home tilde.
//!
//! Nothing is looked up or run. Anything whose value is only known at run time (variables,
//! substitutions, `~user`) makes the whole word [`Expansion::Opaque`], so callers never
//! mistake an unknown for a literal path.

use crate::ast::{Brace, Word, WordPart};

/// One field (argument) a word expands to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// The text. A home-relative field starts with `~` (e.g. `~/x`).
    pub text: String,
    /// The field starts with the current user's home directory (a leading `~`).
    pub home: bool,
    /// An unquoted `*`, `?`, `[` or extglob group is in it: the shell would glob it.
    pub glob: bool,
}

/// The result of [`expand_word`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expansion {
    /// The fields, in bash order.
    Fields(Vec<Field>),
    /// The value depends on run time (or is too large); the reason is a short static text.
    Opaque(&'static str),
}

const TOO_LARGE: &str = "brace expansion too large";

/// Nesting of brace alternatives followed before giving up (the lexer never nests deeper).
const MAX_NESTING: u32 = 100;

/// A field being built.
#[derive(Debug, Clone, Default)]
struct Acc {
    text: String,
    home: bool,
    glob: bool,
    /// Something has been appended (a tilde only counts at the very start).
    started: bool,
}

/// Expands a word into fields without running anything: literal parts concatenate, brace
/// expansions multiply (in bash order), a leading `~` sets [`Field::home`].
///
/// Returns [`Expansion::Opaque`] for parameters, substitutions, arithmetic, `~user`, and when
/// there would be more than `limit` fields (checked before anything is generated, so
/// `{1..999999999}` is cheap).
pub fn expand_word(word: &Word, limit: usize) -> Expansion {
    let mut scan = Scan::default();
    scan.visit(&word.parts, 0);
    if scan.brace && scan.unquoted_dollar {
        // Bash expands braces before parameters: `{$,}HOME` becomes `$HOME HOME`, so a lone
        // `$` that looked literal may start a variable once the braces are gone.
        return Expansion::Opaque("variable formed by brace expansion");
    }
    match expand_parts(&word.parts, limit, 0) {
        Ok(fields) => Expansion::Fields(
            fields
                .into_iter()
                .map(|a| Field {
                    text: a.text,
                    home: a.home,
                    glob: a.glob,
                })
                .collect(),
        ),
        Err(reason) => Expansion::Opaque(reason),
    }
}

/// What a word contains, looked at before expanding it.
#[derive(Debug, Default)]
struct Scan {
    brace: bool,
    unquoted_dollar: bool,
}

impl Scan {
    fn visit(&mut self, parts: &[WordPart], depth: u32) {
        if depth > MAX_NESTING {
            return;
        }
        for part in parts {
            match part {
                WordPart::Literal {
                    text,
                    quoted: false,
                } => {
                    self.unquoted_dollar |= text.contains('$');
                }
                WordPart::Brace(brace) => {
                    self.brace = true;
                    if let Brace::List(alternatives) = brace {
                        for alt in alternatives {
                            self.visit(&alt.parts, depth + 1);
                        }
                    }
                }
                _ => {}
            }
        }
    }
}

fn expand_parts(parts: &[WordPart], limit: usize, depth: u32) -> Result<Vec<Acc>, &'static str> {
    if depth > MAX_NESTING {
        return Err("brace expansion nested too deeply");
    }
    if limit == 0 {
        return Err(TOO_LARGE);
    }
    let mut fields = vec![Acc::default()];
    for part in parts {
        match part {
            WordPart::Literal { text, quoted } => {
                let glob = !quoted && is_glob(text);
                append(&mut fields, text, glob);
            }
            WordPart::Tilde { user: None } => {
                for f in &mut fields {
                    f.home |= !f.started;
                    f.text.push('~');
                    f.started = true;
                }
            }
            WordPart::Tilde { user: Some(_) } => return Err("tilde with a user name"),
            WordPart::Brace(Brace::List(alternatives)) => {
                let mut alts = Vec::new();
                for alt in alternatives {
                    alts.extend(expand_parts(&alt.parts, limit, depth + 1)?);
                    if alts.len() > limit {
                        return Err(TOO_LARGE);
                    }
                }
                fields = product(&fields, &alts, limit)?;
            }
            WordPart::Brace(Brace::Sequence { start, end, step }) => {
                if let Some(seq) = Sequence::parse(start, end, step.as_deref()) {
                    let count = seq.count();
                    let total = u128::try_from(fields.len())
                        .unwrap_or(u128::MAX)
                        .saturating_mul(count);
                    if total > u128::try_from(limit).unwrap_or(u128::MAX) {
                        return Err(TOO_LARGE);
                    }
                    let alts: Vec<Acc> = seq
                        .items()
                        .map(|text| {
                            let glob = is_glob(&text);
                            Acc {
                                text,
                                home: false,
                                glob,
                                started: true,
                            }
                        })
                        .collect();
                    fields = product(&fields, &alts, limit)?;
                } else {
                    // Bash leaves an invalid sequence as literal text.
                    let text = match step {
                        Some(s) => format!("{{{start}..{end}..{s}}}"),
                        None => format!("{{{start}..{end}}}"),
                    };
                    let glob = is_glob(&text);
                    append(&mut fields, &text, glob);
                }
            }
            WordPart::Parameter { .. } => return Err("variable"),
            WordPart::CommandSubstitution { .. } => return Err("command substitution"),
            WordPart::ProcessSubstitution { .. } => return Err("process substitution"),
            WordPart::Arithmetic { .. } => return Err("arithmetic expansion"),
            WordPart::Opaque { reason, .. } => return Err(reason),
        }
    }
    Ok(fields)
}

fn append(fields: &mut [Acc], text: &str, glob: bool) {
    for f in fields {
        f.text.push_str(text);
        f.glob |= glob;
        f.started = true;
    }
}

/// Every prefix followed by every alternative, prefixes outermost (bash order).
fn product(prefixes: &[Acc], alts: &[Acc], limit: usize) -> Result<Vec<Acc>, &'static str> {
    let total = prefixes.len().checked_mul(alts.len()).ok_or(TOO_LARGE)?;
    if total > limit {
        return Err(TOO_LARGE);
    }
    let mut out = Vec::with_capacity(total);
    for p in prefixes {
        for a in alts {
            let mut text = String::with_capacity(p.text.len() + a.text.len());
            text.push_str(&p.text);
            text.push_str(&a.text);
            out.push(Acc {
                text,
                home: p.home || (!p.started && a.home),
                glob: p.glob || a.glob,
                started: p.started || a.started,
            });
        }
    }
    Ok(out)
}

/// Unquoted text the shell would glob: `*`, `?`, `[`, or an extglob group such as `@(a|b)`.
fn is_glob(text: &str) -> bool {
    text.contains(['*', '?', '[']) || ["@(", "!(", "+("].iter().any(|g| text.contains(g))
}

/// A valid `{x..y[..step]}` sequence.
#[derive(Debug, Clone, Copy)]
enum Sequence {
    Int {
        start: i64,
        end: i64,
        step: u64,
        width: usize,
    },
    Char {
        start: u8,
        end: u8,
        step: u64,
    },
}

impl Sequence {
    fn parse(start: &str, end: &str, step: Option<&str>) -> Option<Sequence> {
        // Bash ignores the step's sign (direction comes from the bounds) and treats 0 as 1.
        let step = match step {
            Some(s) => s.parse::<i64>().ok()?.unsigned_abs().max(1),
            None => 1,
        };
        if let (Ok(a), Ok(b)) = (start.parse::<i64>(), end.parse::<i64>()) {
            let padded = |s: &str| {
                let digits = s.trim_start_matches(['-', '+']);
                digits.len() > 1 && digits.starts_with('0')
            };
            let width = if padded(start) || padded(end) {
                start.len().max(end.len())
            } else {
                0
            };
            return Some(Sequence::Int {
                start: a,
                end: b,
                step,
                width,
            });
        }
        match (start.as_bytes(), end.as_bytes()) {
            ([a], [b]) if a.is_ascii_alphabetic() && b.is_ascii_alphabetic() => {
                Some(Sequence::Char {
                    start: *a,
                    end: *b,
                    step,
                })
            }
            _ => None,
        }
    }

    fn bounds(self) -> (i128, i128, u64) {
        match self {
            Sequence::Int {
                start, end, step, ..
            } => (i128::from(start), i128::from(end), step),
            Sequence::Char { start, end, step } => (i128::from(start), i128::from(end), step),
        }
    }

    /// Number of items, computed without generating them.
    fn count(self) -> u128 {
        let (a, b, step) = self.bounds();
        a.abs_diff(b) / u128::from(step) + 1
    }

    fn items(self) -> impl Iterator<Item = String> {
        let (a, b, step) = self.bounds();
        let step = i128::from(step);
        let dir = if a <= b { 1 } else { -1 };
        let count = self.count();
        (0..count).filter_map(move |i| {
            let value = a + dir * step * i128::try_from(i).ok()?;
            Some(self.render(value))
        })
    }

    fn render(self, value: i128) -> String {
        match self {
            Sequence::Int { width, .. } => {
                if value < 0 {
                    format!("-{:0w$}", value.unsigned_abs(), w = width.saturating_sub(1))
                } else {
                    format!("{value:0width$}")
                }
            }
            Sequence::Char { .. } => u8::try_from(value)
                .map(|b| char::from(b).to_string())
                .unwrap_or_default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::posix::lex;

    fn expand(text: &str, limit: usize) -> Expansion {
        let script = lex(text);
        let word = script
            .commands
            .first()
            .and_then(|c| c.words.get(1))
            .expect("an argument");
        expand_word(word, limit)
    }

    fn texts(text: &str) -> Vec<String> {
        match expand(text, 1000) {
            Expansion::Fields(f) => f.into_iter().map(|f| f.text).collect(),
            Expansion::Opaque(r) => panic!("opaque: {r}"),
        }
    }

    #[test]
    fn literals_concatenate() {
        assert_eq!(texts("rm a'b c'\"d\""), ["ab cd"]);
    }

    #[test]
    fn brace_lists_multiply_in_bash_order() {
        assert_eq!(texts("echo a{b,c}d{e,f}"), ["abde", "abdf", "acde", "acdf"]);
        assert_eq!(texts("echo {a,{b,c}}x"), ["ax", "bx", "cx"]);
        assert_eq!(texts("echo {build,dist}"), ["build", "dist"]);
        assert_eq!(texts("echo x{,.bak}"), ["x", "x.bak"]);
    }

    #[test]
    fn sequences() {
        assert_eq!(texts("rm {1..3}.log"), ["1.log", "2.log", "3.log"]);
        assert_eq!(texts("echo {3..1}"), ["3", "2", "1"]);
        assert_eq!(texts("echo {1..10..4}"), ["1", "5", "9"]);
        assert_eq!(texts("echo {10..1..-4}"), ["10", "6", "2"]);
        assert_eq!(texts("echo {01..03}"), ["01", "02", "03"]);
        assert_eq!(texts("echo {-2..1}"), ["-2", "-1", "0", "1"]);
        assert_eq!(texts("echo {a..e}"), ["a", "b", "c", "d", "e"]);
        assert_eq!(texts("echo {e..a..2}"), ["e", "c", "a"]);
        assert_eq!(texts("echo {a..zz}"), ["{a..zz}"]);
        assert_eq!(texts("echo {1..c}"), ["{1..c}"]);
    }

    #[test]
    fn huge_expansions_are_opaque_and_cheap() {
        assert_eq!(
            expand("echo {1..999999999}", 1000),
            Expansion::Opaque(TOO_LARGE)
        );
        assert_eq!(
            expand("echo {1..9223372036854775807}", 1000),
            Expansion::Opaque(TOO_LARGE)
        );
        assert_eq!(
            expand(
                "echo {-9223372036854775808..9223372036854775807}",
                usize::MAX
            ),
            Expansion::Opaque(TOO_LARGE)
        );
        let many = format!("echo {}", "{a,b}".repeat(40));
        assert_eq!(expand(&many, 1000), Expansion::Opaque(TOO_LARGE));
        assert!(matches!(expand("echo {a,b}{c,d}", 4), Expansion::Fields(f) if f.len() == 4));
        assert_eq!(expand("echo {a,b}{c,d}", 3), Expansion::Opaque(TOO_LARGE));
    }

    #[test]
    fn tilde_and_glob_flags() {
        let Expansion::Fields(f) = expand("rm ~/x", 10) else {
            panic!()
        };
        assert_eq!(
            f,
            [Field {
                text: "~/x".into(),
                home: true,
                glob: false
            }]
        );
        let Expansion::Fields(f) = expand("rm {~/a,b}", 10) else {
            panic!()
        };
        assert_eq!(
            f[0],
            Field {
                text: "~/a".into(),
                home: true,
                glob: false
            }
        );
        assert_eq!(
            f[1],
            Field {
                text: "b".into(),
                home: false,
                glob: false
            }
        );
        let Expansion::Fields(f) = expand("rm *.txt '*.md' !(keep)", 10) else {
            panic!()
        };
        assert!(f[0].glob);
        let Expansion::Fields(f) = expand("rm '*.md'", 10) else {
            panic!()
        };
        assert!(!f[0].glob);
        let Expansion::Fields(f) = expand("rm !(keep)", 10) else {
            panic!()
        };
        assert!(f[0].glob);
        let Expansion::Fields(f) = expand("rm a~b", 10) else {
            panic!()
        };
        assert_eq!(
            f[0],
            Field {
                text: "a~b".into(),
                home: false,
                glob: false
            }
        );
    }

    #[test]
    fn opaque_parts() {
        assert_eq!(
            expand("rm ~bob/y", 10),
            Expansion::Opaque("tilde with a user name")
        );
        assert_eq!(expand("rm $x", 10), Expansion::Opaque("variable"));
        assert_eq!(expand("rm \"$x\"", 10), Expansion::Opaque("variable"));
        assert_eq!(
            expand("rm $(ls)", 10),
            Expansion::Opaque("command substitution")
        );
        assert_eq!(
            expand("rm `ls`", 10),
            Expansion::Opaque("command substitution")
        );
        assert_eq!(
            expand("rm <(ls)", 10),
            Expansion::Opaque("process substitution")
        );
        assert_eq!(
            expand("rm $((1+2))", 10),
            Expansion::Opaque("arithmetic expansion")
        );
        assert_eq!(expand("rm {a,$x}", 10), Expansion::Opaque("variable"));
        let formed = Expansion::Opaque("variable formed by brace expansion");
        assert_eq!(expand("rm {$,}HOME", 10), formed);
        assert_eq!(
            expand("rm $'{'$,}HOME", 10),
            Expansion::Fields(vec![Field {
                text: "{$,}HOME".into(),
                home: false,
                glob: false
            }])
        );
        assert!(matches!(expand("rm {\\$,}HOME", 10), Expansion::Fields(f) if f.len() == 2));
        assert!(matches!(expand("rm a$", 10), Expansion::Fields(f) if f[0].text == "a$"));
    }
}
