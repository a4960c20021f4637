//! Parameter binding for the cmdlets that write files (`Set-Content`, `Out-File`,
//! `Copy-Item`, …): names by exact spelling, documented alias or unambiguous prefix,
//! switches with `:$true`/`:$false`, values attached (`-Path:x`) or following, positional
//! arguments in the cmdlet's order, `--` ending parameters. The common parameters
//! (`-ErrorAction`, `-Verbose`, `-WhatIf`, …) are known to every cmdlet.

use agent_guard_lex::Word;
use agent_guard_types::{Dialect, OpSpec, Target};

use super::remove_item::{parameter, push_targets, push_value_targets, switch_value};
use crate::windows::{self, Tok};

/// What a parameter binds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The paths written (wildcards expand).
    Path,
    /// The paths written, taken literally.
    LiteralPath,
    /// The destination of a copy or move.
    Destination,
    /// A switch; its name is recorded when on.
    Switch,
    /// A value that does not change which paths are written; its text is recorded.
    Value,
    /// A value that changes the written set in ways the guard does not follow.
    Unsafe,
}

/// A list of parameters: `(spelling, canonical name, kind)`, every alias listed.
pub(crate) type Params = &'static [(&'static str, &'static str, Kind)];

/// One cmdlet's parameters: the shared groups it takes ([`PATHS`]), its own, and the
/// canonical names of its positional parameters in order.
#[derive(Debug)]
pub(crate) struct Cmdlet {
    pub(crate) groups: &'static [Params],
    pub(crate) params: Params,
    pub(crate) positional: &'static [&'static str],
}

impl Cmdlet {
    /// Every parameter the cmdlet takes: its groups, its own and the common parameters.
    fn all(&self) -> impl Iterator<Item = &'static (&'static str, &'static str, Kind)> + Clone {
        self.groups
            .iter()
            .copied()
            .flatten()
            .chain(self.params)
            .chain(COMMON)
    }
}

/// `-Path` and `-LiteralPath` with their aliases, as the provider cmdlets take them.
pub(crate) const PATHS: Params = &[
    ("path", "path", Kind::Path),
    ("literalpath", "path", Kind::LiteralPath),
    ("pspath", "path", Kind::LiteralPath),
    ("lp", "path", Kind::LiteralPath),
];

/// `-Filter`, `-Include` and `-Exclude` where they only narrow the paths a cmdlet acts on
/// (what it changes stays an over-approximation).
pub(crate) const FILTERS: Params = &[
    ("filter", "filter", Kind::Value),
    ("include", "include", Kind::Value),
    ("exclude", "exclude", Kind::Value),
];

/// The common parameters every cmdlet accepts.
const COMMON: &[(&str, &str, Kind)] = &[
    ("verbose", "verbose", Kind::Switch),
    ("vb", "verbose", Kind::Switch),
    ("debug", "debug", Kind::Switch),
    ("db", "debug", Kind::Switch),
    ("erroraction", "erroraction", Kind::Value),
    ("ea", "erroraction", Kind::Value),
    ("warningaction", "warningaction", Kind::Value),
    ("wa", "warningaction", Kind::Value),
    ("informationaction", "informationaction", Kind::Value),
    ("infa", "informationaction", Kind::Value),
    ("progressaction", "progressaction", Kind::Value),
    ("proga", "progressaction", Kind::Value),
    ("errorvariable", "errorvariable", Kind::Value),
    ("ev", "errorvariable", Kind::Value),
    ("warningvariable", "warningvariable", Kind::Value),
    ("wv", "warningvariable", Kind::Value),
    ("informationvariable", "informationvariable", Kind::Value),
    ("iv", "informationvariable", Kind::Value),
    ("outvariable", "outvariable", Kind::Value),
    ("ov", "outvariable", Kind::Value),
    ("outbuffer", "outbuffer", Kind::Value),
    ("ob", "outbuffer", Kind::Value),
    ("pipelinevariable", "pipelinevariable", Kind::Value),
    ("pv", "pipelinevariable", Kind::Value),
    ("whatif", "whatif", Kind::Switch),
    ("wi", "whatif", Kind::Switch),
    ("confirm", "confirm", Kind::Switch),
    ("cf", "confirm", Kind::Switch),
    ("usetransaction", "usetransaction", Kind::Switch),
    ("usetx", "usetransaction", Kind::Switch),
];

/// What the arguments bound.
#[derive(Debug, Default)]
pub(crate) struct Bound {
    /// The written paths (`Path`, `LiteralPath` and their positional slot).
    pub(crate) paths: Vec<Target>,
    /// The destination, when given.
    pub(crate) destination: Option<Target>,
    /// Switches that are on (canonical names).
    pub(crate) switches: Vec<&'static str>,
    /// Values by canonical name.
    pub(crate) values: Vec<(&'static str, Tok)>,
    /// Why the binding is not known exactly, if it is not.
    pub(crate) unknown: Vec<String>,
}

impl Bound {
    /// Whether the switch `name` is on.
    pub(crate) fn has(&self, name: &str) -> bool {
        self.switches.contains(&name)
    }

    /// The value bound to `name`, if any.
    pub(crate) fn value(&self, name: &str) -> Option<&Tok> {
        self.values.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }

    /// Records why the binding is not exact on `op`.
    pub(crate) fn mark(&self, op: &mut OpSpec) {
        for why in &self.unknown {
            op.mark_undeterminable(why.clone());
        }
        if self.has("whatif") {
            op.dry_run = true;
        }
    }
}

/// Resolves a parameter name: an exact spelling, or a prefix all of whose candidates are
/// the same parameter.
fn resolve(cmdlet: &Cmdlet, name: &str) -> Option<(&'static str, Kind)> {
    let lowered = name.to_ascii_lowercase();
    let all = cmdlet.all();
    if let Some(&(_, canonical, kind)) = all.clone().find(|(spelling, _, _)| *spelling == lowered) {
        return Some((canonical, kind));
    }
    if lowered.is_empty() {
        return None;
    }
    let mut candidates = all.filter(|(spelling, _, _)| spelling.starts_with(&lowered));
    let &(_, canonical, kind) = candidates.next()?;
    candidates
        .all(|(_, c, _)| *c == canonical)
        .then_some((canonical, kind))
}

/// Binds `words` (the arguments after the cmdlet name) to `cmdlet`'s parameters: named
/// ones first, then the positional words to the positional parameters not bound by name.
pub(crate) fn bind(words: &[Word], cmdlet: &Cmdlet) -> Bound {
    let mut bound = Bound::default();
    let toks: Vec<Tok> = words.iter().map(windows::whole).collect();
    let mut scratch = OpSpec::new("", agent_guard_types::OpKind::Other, Dialect::PowerShell);
    let mut positional_words: Vec<&Word> = Vec::new();
    let mut named: Vec<&'static str> = Vec::new();
    let mut parameters_done = false;
    let mut index = 0;
    while let Some(tok) = toks.get(index) {
        index += 1;
        let found = if parameters_done {
            None
        } else {
            parameter(tok)
        };
        let Some(found) = found else {
            positional_words.push(&words[index - 1]);
            continue;
        };
        if found.name.is_empty() && tok.text == "--" {
            parameters_done = true;
            continue;
        }
        let Some((canonical, kind)) = resolve(cmdlet, &found.name) else {
            bound
                .unknown
                .push(format!("unknown or ambiguous parameter {}", tok.text));
            continue;
        };
        named.push(canonical);
        let value = match (found.value, kind) {
            (Some(v), Kind::Switch) => Some(v),
            (None, Kind::Switch) => None,
            (Some(v), _) if !v.is_empty() => Some(v),
            _ => {
                index += 1;
                toks.get(index - 1).map(|t| t.pieces.clone())
            }
        };
        if kind == Kind::Switch {
            match switch_value(value.as_deref()) {
                Some(true) => bound.switches.push(canonical),
                Some(false) => {}
                None => bound
                    .unknown
                    .push(format!("the value of -{canonical} is not known")),
            }
            continue;
        }
        let Some(pieces) = value else {
            bound.unknown.push(format!("-{canonical} needs a value"));
            continue;
        };
        let value = Tok::with_pieces(pieces, tok.span);
        bind_value(
            &mut bound,
            canonical,
            kind,
            ValueOf::Tok(&value),
            &mut scratch,
        );
    }
    let mut slots = cmdlet.positional.iter().filter(|p| !named.contains(p));
    for word in positional_words {
        match slots.next() {
            Some(name) => {
                let kind = kind_of(cmdlet, name);
                bind_value(&mut bound, name, kind, ValueOf::Word(word), &mut scratch);
            }
            None => bound.unknown.push(format!(
                "an extra positional argument `{}`",
                windows::whole(word).text
            )),
        }
    }
    bound
}

/// The kind of a parameter by its canonical name (its first spelling).
fn kind_of(cmdlet: &Cmdlet, canonical: &str) -> Kind {
    cmdlet
        .all()
        .find(|(_, c, _)| *c == canonical)
        .map_or(Kind::Value, |(_, _, k)| *k)
}

/// A parameter's value: a whole positional word (split at commas) or a parameter's value.
#[derive(Clone, Copy)]
enum ValueOf<'a> {
    Word(&'a Word),
    Tok(&'a Tok),
}

fn bind_value(
    bound: &mut Bound,
    canonical: &'static str,
    kind: Kind,
    value: ValueOf<'_>,
    scratch: &mut OpSpec,
) {
    let targets = |scratch: &mut OpSpec| -> Vec<Target> {
        scratch.targets.clear();
        match &value {
            ValueOf::Word(word) => push_targets(scratch, word),
            ValueOf::Tok(tok) => push_value_targets(scratch, tok),
        }
        std::mem::take(&mut scratch.targets)
    };
    match kind {
        Kind::Path => bound.paths.extend(targets(scratch)),
        Kind::LiteralPath => bound
            .paths
            .extend(targets(scratch).into_iter().map(|mut t| {
                // `-LiteralPath` takes wildcard characters literally.
                t.glob = false;
                t
            })),
        Kind::Destination => {
            let mut all = targets(scratch);
            if all.len() > 1 {
                bound.unknown.push("several destinations".to_owned());
            }
            bound.destination = all.drain(..).next();
        }
        Kind::Unsafe => bound.unknown.push(format!(
            "-{canonical} changes the written set in ways the guard does not follow"
        )),
        Kind::Value | Kind::Switch => {
            let tok = match value {
                ValueOf::Word(word) => windows::whole(word),
                ValueOf::Tok(tok) => tok.clone(),
            };
            bound.values.push((canonical, tok));
        }
    }
}
