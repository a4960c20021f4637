//! A small GNU-style option parser shared by the command parsers.
//!
//! It knows short clusters (`-rf`), short options with attached or separate values (`-n5`,
//! `-n 5`), long options with unique-prefix matching (`--rec` → `--recursive`) and `=` values,
//! `--` as the end of options, and GNU argument permutation (options after operands count).

use crate::args::Arg;

/// Whether an option takes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Arity {
    /// A flag.
    None,
    /// Always takes a value (attached or the next argument).
    Required,
    /// Takes a value only when attached (`--opt=value`, `-ivalue`).
    Optional,
}

/// One known option.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Opt {
    /// The canonical name reported back (usually the long name).
    pub name: &'static str,
    /// The short letter.
    pub short: Option<char>,
    /// The long name without dashes.
    pub long: Option<&'static str>,
    /// Value arity.
    pub arity: Arity,
}

impl Opt {
    /// A flag with a short and a long spelling.
    pub(crate) const fn flag(
        name: &'static str,
        short: Option<char>,
        long: Option<&'static str>,
    ) -> Opt {
        Opt {
            name,
            short,
            long,
            arity: Arity::None,
        }
    }

    /// An option with a required value.
    pub(crate) const fn value(
        name: &'static str,
        short: Option<char>,
        long: Option<&'static str>,
    ) -> Opt {
        Opt {
            name,
            short,
            long,
            arity: Arity::Required,
        }
    }

    /// An option whose value is optional (attached only).
    pub(crate) const fn optional(
        name: &'static str,
        short: Option<char>,
        long: Option<&'static str>,
    ) -> Opt {
        Opt {
            name,
            short,
            long,
            arity: Arity::Optional,
        }
    }
}

/// The options of `a` then those of `b`, as one table (`N` is their total length): tools
/// that share most of their options list the shared ones once.
pub(crate) const fn join<const N: usize>(a: &[Opt], b: &[Opt]) -> [Opt; N] {
    assert!(a.len() + b.len() == N, "N is the length of both tables");
    let mut out = [Opt::flag("", None, None); N];
    let mut at = 0;
    while at < a.len() {
        out[at] = a[at];
        at += 1;
    }
    while at < N {
        out[at] = b[at - a.len()];
        at += 1;
    }
    out
}

/// One short flag named `name` per ASCII letter of `letters` (`N` of them): a word of such
/// letters after `-` reads as that one option (`chmod -rwx`).
pub(crate) const fn letters<const N: usize>(name: &'static str, letters: &str) -> [Opt; N] {
    let bytes = letters.as_bytes();
    assert!(bytes.len() == N, "N is the number of letters");
    let mut out = [Opt::flag("", None, None); N];
    let mut at = 0;
    while at < N {
        out[at] = Opt::flag(name, Some(bytes[at] as char), None);
        at += 1;
    }
    out
}

/// One parsed item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Item<'a> {
    /// A known option, with its value if it has one. The value is `None` for a flag or when
    /// a required value is missing (see [`Item::MissingValue`]).
    Opt {
        name: &'static str,
        value: Option<&'a Arg>,
        attached: Option<String>,
    },
    /// A required value is missing at the end of the arguments.
    MissingValue(&'static str),
    /// An option-looking argument that is not known (the text of the offending option).
    Unknown(String),
    /// An ambiguous long-option prefix.
    Ambiguous(String),
    /// An operand.
    Operand(&'a Arg),
}

/// How the parser treats operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Order {
    /// GNU permutation: options anywhere until `--`.
    Permute,
    /// POSIX: the first operand ends option parsing (wrappers: it is the command).
    StopAtOperand,
}

/// Parses `args` against `opts`. With [`Order::StopAtOperand`], parsing stops at the first
/// operand and the index of that operand is returned as `rest` (everything from it on is
/// untouched). `--` always ends options and is consumed.
pub(crate) fn parse<'a>(args: &'a [Arg], opts: &[Opt], order: Order) -> (Vec<Item<'a>>, usize) {
    let mut items = Vec::new();
    let mut index = 0;
    let mut options_done = false;
    while index < args.len() {
        let arg = &args[index];
        if options_done || !arg.is_option() {
            if order == Order::StopAtOperand {
                return (items, index);
            }
            items.push(Item::Operand(arg));
            index += 1;
            continue;
        }
        let text = arg.text.as_str();
        if text == "--" {
            options_done = true;
            index += 1;
            if order == Order::StopAtOperand {
                return (items, index);
            }
            continue;
        }
        index += 1;
        if let Some(long) = text.strip_prefix("--") {
            index = parse_long(long, args, index, opts, &mut items);
        } else {
            index = parse_cluster(&text[1..], args, index, opts, &mut items);
        }
    }
    (items, args.len())
}

fn parse_long<'a>(
    body: &str,
    args: &'a [Arg],
    index: usize,
    opts: &[Opt],
    items: &mut Vec<Item<'a>>,
) -> usize {
    let (name, attached) = match body.split_once('=') {
        Some((n, v)) => (n, Some(v.to_owned())),
        None => (body, None),
    };
    let exact = opts.iter().find(|o| o.long == Some(name));
    let found = exact.copied().or_else(|| {
        let candidates: Vec<&Opt> = opts
            .iter()
            .filter(|o| o.long.is_some_and(|l| l.starts_with(name)))
            .collect();
        let unique_name = candidates.first().map(|o| o.name);
        if !candidates.is_empty() && candidates.iter().all(|o| Some(o.name) == unique_name) {
            candidates.first().map(|o| **o)
        } else {
            None
        }
    });
    let Some(opt) = found else {
        let prefixes = opts
            .iter()
            .filter(|o| o.long.is_some_and(|l| l.starts_with(name)))
            .count();
        items.push(if prefixes > 1 {
            Item::Ambiguous(format!("--{name}"))
        } else {
            Item::Unknown(format!("--{name}"))
        });
        return index;
    };
    match opt.arity {
        Arity::None => {
            if attached.is_some() {
                items.push(Item::Unknown(format!("--{body}")));
            } else {
                items.push(Item::Opt {
                    name: opt.name,
                    value: None,
                    attached: None,
                });
            }
        }
        Arity::Optional => items.push(Item::Opt {
            name: opt.name,
            value: None,
            attached,
        }),
        Arity::Required => return required(&opt, attached, args, index, items),
    }
    index
}

/// Pushes an option that needs a value: the attached one, else the next argument (which
/// it consumes); returns the index after it.
fn required<'a>(
    opt: &Opt,
    attached: Option<String>,
    args: &'a [Arg],
    index: usize,
    items: &mut Vec<Item<'a>>,
) -> usize {
    if attached.is_some() {
        items.push(Item::Opt {
            name: opt.name,
            value: None,
            attached,
        });
        return index;
    }
    let Some(value) = args.get(index) else {
        items.push(Item::MissingValue(opt.name));
        return index;
    };
    items.push(Item::Opt {
        name: opt.name,
        value: Some(value),
        attached: None,
    });
    index + 1
}

fn parse_cluster<'a>(
    cluster: &str,
    args: &'a [Arg],
    index: usize,
    opts: &[Opt],
    items: &mut Vec<Item<'a>>,
) -> usize {
    for (offset, letter) in cluster.char_indices() {
        let Some(opt) = opts.iter().find(|o| o.short == Some(letter)) else {
            items.push(Item::Unknown(format!("-{letter}")));
            continue;
        };
        let rest = &cluster[offset + letter.len_utf8()..];
        match opt.arity {
            Arity::None => items.push(Item::Opt {
                name: opt.name,
                value: None,
                attached: None,
            }),
            Arity::Optional => {
                let attached = (!rest.is_empty()).then(|| rest.to_owned());
                items.push(Item::Opt {
                    name: opt.name,
                    value: None,
                    attached,
                });
                return index;
            }
            Arity::Required => {
                let attached = (!rest.is_empty()).then(|| rest.to_owned());
                return required(opt, attached, args, index, items);
            }
        }
    }
    index
}

#[cfg(test)]
mod tests {
    use super::*;

    const RM: &[Opt] = &[
        Opt::flag("recursive", Some('r'), Some("recursive")),
        Opt::flag("force", Some('f'), Some("force")),
        Opt::optional("interactive", None, Some("interactive")),
        Opt::value("iterations", Some('n'), Some("iterations")),
        Opt::flag("preserve-root", None, Some("preserve-root")),
        Opt::flag("no-preserve-root", None, Some("no-preserve-root")),
    ];

    fn args(list: &[&str]) -> Vec<Arg> {
        list.iter().map(|t| Arg::literal(t)).collect()
    }

    fn names(items: &[Item<'_>]) -> Vec<String> {
        items
            .iter()
            .map(|i| match i {
                Item::Opt { name, .. } => (*name).to_owned(),
                Item::Operand(a) => format!("<{}>", a.text),
                Item::Unknown(u) => format!("?{u}"),
                Item::Ambiguous(u) => format!("~{u}"),
                Item::MissingValue(n) => format!("!{n}"),
            })
            .collect()
    }

    #[test]
    fn clusters_permutation_and_end_of_options() {
        let a = args(&["build", "-rf", "--", "-x"]);
        let (items, _) = parse(&a, RM, Order::Permute);
        assert_eq!(names(&items), ["<build>", "recursive", "force", "<-x>"]);
    }

    #[test]
    fn long_prefixes_values_and_unknowns() {
        let a = args(&[
            "--rec",
            "--interactive=never",
            "-n3",
            "-n",
            "4",
            "--i",
            "--no",
            "-z",
        ]);
        let (items, _) = parse(&a, RM, Order::Permute);
        assert_eq!(
            names(&items),
            [
                "recursive",
                "interactive",
                "iterations",
                "iterations",
                "~--i",
                "no-preserve-root",
                "?-z"
            ]
        );
    }

    #[test]
    fn stop_at_operand_returns_rest() {
        let a = args(&["-f", "rm", "-rf"]);
        let (items, rest) = parse(&a, RM, Order::StopAtOperand);
        assert_eq!(names(&items), ["force"]);
        assert_eq!(rest, 1);
    }

    #[test]
    fn missing_value_is_reported() {
        let a = args(&["-n"]);
        let (items, _) = parse(&a, RM, Order::Permute);
        assert_eq!(names(&items), ["!iterations"]);
    }
}
