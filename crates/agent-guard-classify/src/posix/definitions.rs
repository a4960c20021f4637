//! Definitions run nothing (issue 38, point 2): a function (`f() { rm -rf build; }`) or an
//! alias (`alias x='rm -rf build'`) is judged where it can be called, not where it is
//! defined.
//!
//! A definition's body is left out of the line's ops when its name is not a word anywhere
//! else in the line (a call `f`, `"f"`, `eval f`, `trap f EXIT`, `xargs f`, `export -f f`,
//! `g=f` all hold it) and nothing else in the line could call it unseen: no command whose
//! name is not literal, no program the guard does not see into (`source x.sh`, `eval
//! "$x"`). Otherwise the body is judged as before, as if it ran where it is defined.

use agent_guard_lex::Script;
use agent_guard_types::{OpKind, OpSpec, Span};

/// Bytes that end a shell word or stand between a name and what follows it.
fn boundary(byte: u8) -> bool {
    byte.is_ascii_whitespace()
        || matches!(
            byte,
            b';' | b'&'
                | b'|'
                | b'('
                | b')'
                | b'<'
                | b'>'
                | b'{'
                | b'}'
                | b'\''
                | b'"'
                | b'`'
                | b'$'
                | b'='
                | b'\\'
                | b','
        )
}

/// Whether `name` is a word of `source` anywhere outside `own` (the definition itself), as
/// written or with its quotes and backslashes taken away (`g"g"`, `g''g`, `\\gg` call `gg`).
pub(super) fn named_elsewhere(source: &str, name: &str, own: Span) -> bool {
    if name.is_empty() {
        return true;
    }
    let before = source.get(..own.start.min(source.len())).unwrap_or(source);
    let after = source.get(own.end.min(source.len())..).unwrap_or_default();
    [before, after].into_iter().any(|part| {
        let dequoted: String = part
            .chars()
            .filter(|c| !matches!(c, '\'' | '"' | '\\'))
            .collect();
        holds_word(part, name) || holds_word(&dequoted, name)
    })
}

/// Whether `name` stands in `text` between word boundaries.
fn holds_word(text: &str, name: &str) -> bool {
    let bytes = text.as_bytes();
    text.match_indices(name).any(|(at, _)| {
        let end = at + name.len();
        (at == 0 || boundary(bytes[at - 1])) && (end == bytes.len() || boundary(bytes[end]))
    })
}

/// Whether a word of a command of `script` outside `own` holds `name` once the shell has
/// read it (`$'g\x67'` is `gg`).
fn a_word_names(script: &Script, name: &str, own: Span) -> bool {
    script
        .commands
        .iter()
        .filter(|c| !(c.span.start >= own.start && c.span.end <= own.end))
        .flat_map(|c| c.words.iter().chain(&c.assignments))
        .filter_map(agent_guard_lex::Word::literal_text)
        .any(|text| holds_word(&text, name))
}

/// Functions the shell calls by their name alone, unasked: bash's handler of unknown
/// commands, zsh's hooks and `TRAP…` functions. Never left out.
fn called_by_the_shell(name: &str) -> bool {
    matches!(
        name,
        "command_not_found_handle"
            | "command_not_found_handler"
            | "precmd"
            | "preexec"
            | "chpwd"
            | "periodic"
            | "zshaddhistory"
            | "zshexit"
    ) || name.starts_with("TRAP")
}

/// What [`uncalled_bodies`] found.
pub(super) struct Uncalled {
    /// For each command of the script, whether it lies in a body left out.
    pub(super) commands: Vec<bool>,
    /// The definitions left out, with their text.
    pub(super) definitions: Vec<crate::Definition>,
}

thread_local! {
    /// Set while every definition is to be judged where it stands
    /// ([`crate::classify_judging_definitions`]).
    static JUDGE_ALL: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `classify` with every definition judged where it stands.
pub(crate) fn judging_all<T>(classify: impl FnOnce() -> T) -> T {
    let before = JUDGE_ALL.with(|flag| flag.replace(true));
    let result = classify();
    JUDGE_ALL.with(|flag| flag.set(before));
    result
}

/// Whether a definition of `name` (its text at `own` in `source`) may be left out: the line
/// names it nowhere else, and called alone in a later line it would be a program the guard
/// does not know, so that line is judged with the remembered definitions
/// ([`crate::classify_after`]). A name the guard reads as a known program (`ls() { …; }`,
/// `alias cd='rm -rf ~'`) would let that later line through unseen: judged where it stands.
pub(super) fn may_leave_out(source: &str, name: &str, own: Span) -> bool {
    let plain = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':' | b'+'));
    plain
        && !called_by_the_shell(name)
        && !JUDGE_ALL.with(std::cell::Cell::get)
        && !named_elsewhere(source, name, own)
        && crate::classify_nested(name, agent_guard_types::Dialect::Posix, 1)
            .ops
            .iter()
            .any(|op| matches!(op.kind, OpKind::OpaqueProgram | OpKind::Unknown))
}

/// The function definitions of `script` that may be left out ([`may_leave_out`]), with
/// every definition that holds a judged one judged too (its body defines it).
fn leavable(script: &Script, source: &str) -> Vec<bool> {
    let mut leave: Vec<bool> = script
        .functions
        .iter()
        .map(|def| {
            may_leave_out(source, &def.name, def.span) && !a_word_names(script, &def.name, def.span)
        })
        .collect();
    let within = |inner: Span, outer: Span| inner.start >= outer.start && inner.end <= outer.end;
    for (at, def) in script.functions.iter().enumerate() {
        if !leave[at] {
            for (other, outer) in script.functions.iter().enumerate() {
                if within(def.span, outer.span) {
                    leave[other] = false;
                }
            }
        }
    }
    leave
}

/// For each command of `script`, whether it lies in the body of a function left out (see
/// the module).
pub(super) fn uncalled_bodies(script: &Script, source: &str) -> Uncalled {
    if script.functions.is_empty() {
        return Uncalled {
            commands: vec![false; script.commands.len()],
            definitions: Vec::new(),
        };
    }
    let leave = leavable(script, source);
    let definitions = script
        .functions
        .iter()
        .zip(&leave)
        .filter(|(_, leave)| **leave)
        .map(|(def, _)| crate::Definition {
            name: def.name.clone(),
            text: source
                .get(def.span.start..def.span.end)
                .unwrap_or_default()
                .to_owned(),
        })
        .collect();
    let spans: Vec<Span> = script
        .functions
        .iter()
        .zip(&leave)
        .filter(|(_, leave)| **leave)
        .map(|(def, _)| def.span)
        .collect();
    Uncalled {
        commands: script
            .commands
            .iter()
            .map(|c| {
                spans
                    .iter()
                    .any(|s| c.span.start >= s.start && c.span.end <= s.end)
            })
            .collect(),
        definitions,
    }
}

/// The commands that change the shell's directory.
const DIRECTORY_CHANGES: &[&str] = &["cd", "pushd", "popd", "chdir"];

/// Whether `command` calls a function `script` defined before it whose body changes the
/// shell's directory (`g() { cd /elsewhere; }; g; rm -rf build`).
pub(super) fn calls_a_directory_change(
    script: &Script,
    command: &agent_guard_lex::SimpleCommand,
) -> bool {
    let Some(name) = command
        .words
        .first()
        .and_then(agent_guard_lex::Word::literal_text)
    else {
        return false;
    };
    script
        .functions
        .iter()
        .filter(|def| def.name == name && def.span.end <= command.span.start)
        .any(|def| {
            script.commands.iter().any(|c| {
                c.span.start >= def.span.start
                    && c.span.end <= def.span.end
                    && c.words
                        .first()
                        .and_then(agent_guard_lex::Word::literal_text)
                        .is_some_and(|w| DIRECTORY_CHANGES.contains(&w.as_str()))
            })
        })
}

/// Whether `ops` (the line's ops with the uncalled definitions left out) hold something that
/// could call a definition unseen: an op the guard cannot read at all (`eval "$x"`, a
/// command whose name is not literal), or a script sourced into this shell. A program in
/// another process (`make`, `./x.sh`, `bash -c …`) sees a function only once it is exported,
/// which names it (`export -f f`).
pub(super) fn could_call_unseen(ops: &[OpSpec]) -> bool {
    ops.iter().any(|op| {
        op.kind == OpKind::Unknown || (op.kind == OpKind::OpaqueProgram && op.op == "source")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_a_word_only_between_boundaries() {
        let own = Span::new(0, 5);
        assert!(!named_elsewhere("f() { rm x; }", "f", Span::new(0, 13)));
        assert!(named_elsewhere("f() { rm x; }; f", "f", Span::new(0, 13)));
        assert!(named_elsewhere("xx; eval \"f\"", "f", own));
        assert!(named_elsewhere("xx; g=f", "f", own));
        assert!(
            !named_elsewhere("xx; f.sh; ./fx; ./f", "f", own),
            "files, not the function"
        );
    }
}
