//! `Remove-Item` and its aliases (`rm ri rd rmdir del erase`).
//!
//! Parameter names resolve by case-insensitive prefix, stricter than PowerShell itself
//! (reference 4.6): an exact name wins; otherwise a prefix is expanded only when every
//! parameter it could mean has the same effect. Anything the guard cannot read exactly —
//! an unknown or ambiguous name, a filter, a literal path, a variable switch value, targets
//! from the pipeline — makes the op undeterminable.

use agent_guard_lex::Word;
use agent_guard_types::{Dialect, OpKind, OpSpec};

use crate::windows::{self, Piece, Split, Tok};

/// PowerShell makes an array of `a,b`: each element is a target.
pub(crate) const ARRAY: Split = Split {
    delimiters: &[','],
    slash: false,
};

/// The dash characters PowerShell accepts before a parameter name.
const DASHES: [char; 4] = ['-', '\u{2013}', '\u{2014}', '\u{2015}'];

/// What a parameter does; names in the same group have the same effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Group {
    Recurse,
    Force,
    WhatIf,
    Path,
    Confirm,
    /// Takes a value and changes nothing about what is deleted.
    Neutral,
    /// Changes the target set in ways the guard does not follow; `true` if it takes a value.
    Unsafe(bool),
}

impl Group {
    fn same(self, other: Group) -> bool {
        match (self, other) {
            (Group::Unsafe(_), Group::Unsafe(_)) => true,
            _ => self == other,
        }
    }
}

const PARAMETERS: &[(&str, Group)] = &[
    ("recurse", Group::Recurse),
    ("force", Group::Force),
    ("whatif", Group::WhatIf),
    ("path", Group::Path),
    ("pspath", Group::Path),
    ("confirm", Group::Confirm),
    ("erroraction", Group::Neutral),
    ("literalpath", Group::Unsafe(true)),
    ("include", Group::Unsafe(true)),
    ("exclude", Group::Unsafe(true)),
    ("filter", Group::Unsafe(true)),
    ("stream", Group::Unsafe(true)),
    ("attributes", Group::Unsafe(true)),
    ("credential", Group::Unsafe(true)),
    ("verbose", Group::Unsafe(false)),
    ("debug", Group::Unsafe(false)),
    ("errorvariable", Group::Unsafe(true)),
    ("outvariable", Group::Unsafe(true)),
    ("pipelinevariable", Group::Unsafe(true)),
    ("warningaction", Group::Unsafe(true)),
];

/// Resolves a parameter name (without dashes). Returns the full name and its group.
fn resolve(name: &str) -> Option<(&'static str, Group)> {
    let lowered = name.to_ascii_lowercase();
    if lowered == "lp" {
        return Some(("literalpath", Group::Unsafe(true)));
    }
    if let Some(&(full, group)) = PARAMETERS.iter().find(|(n, _)| *n == lowered) {
        return Some((full, group));
    }
    if lowered.is_empty() {
        return None;
    }
    let candidates: Vec<&(&str, Group)> = PARAMETERS
        .iter()
        .filter(|(n, _)| n.starts_with(&lowered))
        .collect();
    let first = candidates.first()?;
    if !candidates.iter().all(|(_, g)| g.same(first.1)) {
        return None;
    }
    candidates
        .iter()
        .min_by_key(|(n, _)| n.len())
        .map(|&&(n, g)| (n, g))
}

/// A parameter argument: its name and the value attached with `:`, if any.
#[derive(Debug)]
pub(crate) struct Parameter {
    /// The name without dashes, as written.
    pub(crate) name: String,
    /// The pieces after `:` (possibly empty: `-Path: x` takes the next word).
    pub(crate) value: Option<Vec<Piece>>,
}

/// Reads a parameter argument (`-Name`, `-Name:value`, `--Name`, with typographic dashes).
/// A quoted `'-x'` and a negative number `-1` are ordinary arguments.
pub(crate) fn parameter(tok: &Tok) -> Option<Parameter> {
    let head = tok.bare_head();
    if !head.starts_with(DASHES) {
        return None;
    }
    let body = head.trim_start_matches(DASHES);
    if body.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
        return None;
    }
    if let Some(colon) = body.find(':') {
        let mut value = Vec::new();
        if colon + 1 < body.len() {
            value.push(Piece::Lit {
                text: body[colon + 1..].to_owned(),
                quoted: false,
            });
        }
        value.extend(tok.pieces.iter().skip(1).cloned());
        return Some(Parameter {
            name: body[..colon].to_owned(),
            value: Some(value),
        });
    }
    // Anything glued after the name (`-Path"x"`) makes it a name nothing resolves to.
    let name = if tok.pieces.len() > 1 {
        tok.text.trim_start_matches(DASHES).to_owned()
    } else {
        body.to_owned()
    };
    Some(Parameter { name, value: None })
}

/// Reads a boolean switch value: `None` (no value), `$true`, `true`, `1` are true; `$false`,
/// `false`, `0` are false; anything else is not known.
pub(crate) fn switch_value(value: Option<&[Piece]>) -> Option<bool> {
    let Some(value) = value else {
        return Some(true);
    };
    let text = match value {
        [Piece::Lit { text, .. }] => text.to_ascii_lowercase(),
        [Piece::Opaque(raw)] => match raw.to_ascii_lowercase().as_str() {
            "$true" => return Some(true),
            "$false" => return Some(false),
            _ => return None,
        },
        _ => return None,
    };
    match text.as_str() {
        "true" | "1" => Some(true),
        "false" | "0" => Some(false),
        _ => None,
    }
}

/// Parses `Remove-Item` (reached as `name`) with its argument words. `piped` says the command
/// reads pipeline input.
pub(crate) fn parse(name: &str, words: &[Word], piped: bool) -> OpSpec {
    let mut op = OpSpec::new("remove-item", OpKind::FsDelete, Dialect::PowerShell);
    if name != "remove-item" {
        op.note(format!("{name} is an alias of Remove-Item"));
    }
    let toks: Vec<Tok> = words.iter().map(windows::whole).collect();
    let mut parameters_done = false;
    let mut i = 0;
    while let Some(tok) = toks.get(i) {
        i += 1;
        let parameter = if parameters_done {
            None
        } else {
            parameter(tok)
        };
        let Some(Parameter { name, value }) = parameter else {
            push_targets(&mut op, &words[i - 1]);
            continue;
        };
        if name.is_empty() && tok.text == "--" {
            // `--` ends parameter parsing: what follows are paths (reference gap, fixed).
            parameters_done = true;
            continue;
        }
        let Some((full, group)) = resolve(&name) else {
            op.mark_undeterminable(format!("unknown parameter {}", tok.text));
            continue;
        };
        if !full.eq_ignore_ascii_case(&name) {
            op.note(format!(
                "-{} expanded to -{full}",
                name.to_ascii_lowercase()
            ));
        }
        // A value after `-Name:` with nothing attached is the next word.
        let takes_value = matches!(group, Group::Path | Group::Neutral | Group::Unsafe(true));
        let next_value = |i: &mut usize| -> Option<Tok> {
            let tok = toks.get(*i).cloned();
            *i += 1;
            tok
        };
        let value = match value {
            Some(v) if v.is_empty() => next_value(&mut i).map(|t| t.pieces),
            Some(v) => Some(v),
            None if takes_value => next_value(&mut i).map(|t| t.pieces),
            None => None,
        };
        match group {
            Group::Recurse | Group::Force | Group::WhatIf | Group::Confirm => {
                let Some(on) = switch_value(value.as_deref()) else {
                    op.mark_undeterminable(format!("the value of -{full} is not known"));
                    continue;
                };
                match group {
                    Group::Recurse => op.recursive = on,
                    Group::Force => op.force = on,
                    Group::WhatIf => op.dry_run = on,
                    _ if on => op.mark_undeterminable("-Confirm asks before each delete"),
                    _ => {}
                }
            }
            Group::Path => match value {
                Some(pieces) => {
                    let value = Tok::with_pieces(pieces, tok.span);
                    push_value_targets(&mut op, &value);
                }
                None => op.mark_undeterminable(format!("-{full} needs a value")),
            },
            Group::Neutral => {
                if value.is_none() {
                    op.mark_undeterminable(format!("-{full} needs a value"));
                }
            }
            Group::Unsafe(_) => {
                op.mark_undeterminable(format!("-{full} makes the deleted set undeterminable"));
            }
        }
    }
    if op.targets.is_empty() && !op.dry_run {
        op.mark_undeterminable("no target: the paths arrive from the pipeline");
    } else if piped && !op.dry_run {
        op.mark_undeterminable("pipeline input may add targets");
    }
    if op.targets.iter().any(|t| t.text.starts_with("//")) {
        op.note("UNC target");
    }
    op
}

/// Adds the targets of a positional word (`a,b` is two).
pub(crate) fn push_targets(op: &mut OpSpec, word: &Word) {
    for tok in windows::tokens(word, ARRAY) {
        op.targets.push(windows::target(&tok, Dialect::PowerShell));
    }
}

/// Adds the targets of an attached or following `-Path` value.
pub(crate) fn push_value_targets(op: &mut OpSpec, value: &Tok) {
    let mut current: Vec<Piece> = Vec::new();
    let flush = |current: &mut Vec<Piece>, op: &mut OpSpec| {
        if !current.is_empty() {
            let tok = Tok::with_pieces(std::mem::take(current), value.span);
            op.targets.push(windows::target(&tok, Dialect::PowerShell));
        }
    };
    for piece in &value.pieces {
        match piece {
            Piece::Lit {
                text,
                quoted: false,
            } if text.contains(',') => {
                let mut parts = text.split(',');
                if let Some(first) = parts.next()
                    && !first.is_empty()
                {
                    current.push(Piece::Lit {
                        text: first.to_owned(),
                        quoted: false,
                    });
                }
                for part in parts {
                    flush(&mut current, op);
                    if !part.is_empty() {
                        current.push(Piece::Lit {
                            text: part.to_owned(),
                            quoted: false,
                        });
                    }
                }
            }
            other => current.push(other.clone()),
        }
    }
    flush(&mut current, op);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(line: &str) -> OpSpec {
        let script = agent_guard_lex::powershell::lex(line);
        let words = &script.commands[0].words;
        let name = windows::program_name(&words[0].literal_text().unwrap());
        parse(&name, &words[1..], false)
    }

    fn targets(op: &OpSpec) -> Vec<&str> {
        op.targets.iter().map(|t| t.text.as_str()).collect()
    }

    #[test]
    fn prefixes_resolve_only_when_unambiguous() {
        assert_eq!(resolve("r").map(|r| r.0), Some("recurse"));
        assert_eq!(resolve("fo").map(|r| r.0), Some("force"));
        assert_eq!(resolve("RECURSE").map(|r| r.0), Some("recurse"));
        assert_eq!(resolve("lp").map(|r| r.0), Some("literalpath"));
        assert_eq!(resolve("pa").map(|r| r.0), Some("path"));
        for ambiguous in ["f", "w", "c", "p", "e", "wi", "ea", "NotAParameter", ""] {
            assert_eq!(resolve(ambiguous), None, "{ambiguous}");
        }
        assert_eq!(resolve("a").map(|r| r.1), Some(Group::Unsafe(true)));
    }

    #[test]
    fn reference_rows() {
        let o = op("ri build -r -fo");
        assert!(o.recursive && o.force && !o.undeterminable);
        assert!(o.notes.contains(&"-r expanded to -recurse".to_owned()));
        assert!(o.notes.contains(&"-fo expanded to -force".to_owned()));
        let o = op("Remove-Item -Recurse -Force .\\build");
        assert_eq!(targets(&o), ["./build"]);
        let o = op("Remove-Item -Recurse:$false build");
        assert!(!o.recursive && !o.undeterminable);
        assert!(op("Remove-Item -Recurse -WhatIf build").dry_run);
        assert!(!op("Remove-Item -WhatIf:$false build").dry_run);
        assert!(op("Remove-Item -WhatIf:$flag build").undeterminable);
        assert!(op("Remove-Item -Confirm build").undeterminable);
        assert!(!op("Remove-Item -Confirm:$false build").undeterminable);
        assert!(op("Remove-Item -LiteralPath build").undeterminable);
        assert!(op("Remove-Item -Exclude keep build").undeterminable);
        let o = op("ri build -r -wi");
        assert!(o.undeterminable && o.recursive && !o.dry_run);
        assert!(op("Remove-Item -Force").undeterminable);
        let o = op("rd /s /q build");
        assert_eq!(targets(&o), ["/s", "/q", "build"]);
    }

    #[test]
    fn values_and_end_of_parameters() {
        let o = op("Remove-Item build -ErrorAction SilentlyContinue");
        assert_eq!(targets(&o), ["build"]);
        assert!(!o.undeterminable);
        let o = op("Remove-Item -ErrorAction:Stop build");
        assert_eq!(targets(&o), ["build"]);
        let o = op("Remove-Item -Path a,b -Recurse");
        assert_eq!(targets(&o), ["a", "b"]);
        let o = op("Remove-Item -Path:'a b'");
        assert_eq!(targets(&o), ["a b"]);
        let o = op("Remove-Item -Path: build");
        assert_eq!(targets(&o), ["build"]);
        let o = op("Remove-Item -- -Recurse");
        assert_eq!(targets(&o), ["-Recurse"]);
        assert!(!o.recursive);
        let o = op("Remove-Item '-Recurse'");
        assert_eq!(targets(&o), ["-Recurse"]);
        let o = op("Remove-Item \u{2013}Recurse build");
        assert!(o.recursive);
        assert!(op("Remove-Item -Path").undeterminable);
        let o = op("Remove-Item a.txt,b.txt");
        assert_eq!(targets(&o), ["a.txt", "b.txt"]);
        let o = op("Remove-Item 'a,b'");
        assert_eq!(targets(&o), ["a,b"]);
        assert!(op("Remove-Item --% build").undeterminable);
        let o = op("Remove-Item ~/x");
        assert!(o.targets[0].tilde);
        let o = op("Remove-Item 'file[1].txt'");
        assert!(o.targets[0].glob);
    }
}
