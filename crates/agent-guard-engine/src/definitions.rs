//! Definitions run nothing (issue 38, point 2): a line that only defines a function or an
//! alias is allowed and nothing is moved aside for it; a later line of the same session
//! that calls it is judged by its body.
//!
//! The classifier leaves out the definitions a line never calls
//! ([`agent_guard_classify::Classification::definitions`]). They stay left out only when
//! their bodies, judged as if called where they stand, could be made undoable (the policy's
//! decision is at most a compensation); a body that would be refused or asked about is
//! judged at its definition, as before.
//!
//! Under `--enforce` the left-out definitions with a body that does something, and the
//! `trap` commands whose action does something, are remembered for the session before the
//! line runs ([`agent_guard_session::definitions`], in the per-user state directory, found
//! from the environment alone). Every later line of the session is then judged three ways:
//! - with them defined first, so a call by its name is judged by its body;
//! - with every body and trap judged as if it ran before the line and after it (where the
//!   line's `cd`s leave the shell): a call the guard cannot see (an arithmetic expansion of a
//!   variable, `PS4` under `set -x`, an exported function in a child shell, the `EXIT` trap
//!   when the shell ends) may run one there, so a line where one could not be undone is
//!   refused (`cd ~` after `trap 'rm -rf .config' EXIT`);
//! - and it takes a checkpoint, which undoes what such a call does in the workspace.
//!
//! When they cannot be remembered, the definitions are judged where they stand.

use std::path::PathBuf;

use agent_guard_classify::{
    Classification, Definition, classify, classify_after, classify_after_judging_definitions,
    classify_judging_definitions,
};
use agent_guard_config::EnvSnapshot;
use agent_guard_session::definitions::{Remembered, definitions_path, read_definitions, remember};
use agent_guard_types::{Decision, Dialect, OpKind, OpSpec};

/// Where the session of `env` keeps its definitions; `None` without a home or state
/// directory (then nothing is left out: every definition is judged where it stands).
fn path(env: &EnvSnapshot) -> Option<PathBuf> {
    let home = env
        .home
        .as_deref()
        .filter(|h| !h.is_empty())
        .map(PathBuf::from);
    let state = crate::workspace::state_dir(env, home.as_deref())?;
    let session = env.session.as_deref().filter(|s| !s.is_empty());
    Some(definitions_path(&state, session))
}

/// Whether `decision` is at most a compensation: what it lets run can be undone.
fn undoable(decision: Option<Decision>) -> bool {
    decision.is_some_and(|d| d.rank() <= Decision::Snapshot.rank())
}

/// Classifies `command` in `dialect` for a check, with the session's remembered
/// definitions; `decide` gives the policy's decision on ops (`None` when it cannot be had).
/// When `enforce`, the line's own definitions are remembered before it runs.
pub(crate) fn classify_line(
    command: &str,
    dialect: Dialect,
    enforce: bool,
    env: &EnvSnapshot,
    mut decide: impl FnMut(&[OpSpec]) -> Option<Decision>,
) -> Classification {
    if dialect != Dialect::Posix {
        return classify(command, dialect);
    }
    let Some(path) = path(env) else {
        return classify_judging_definitions(command, dialect);
    };
    let earlier: Vec<Definition> = read_definitions(&path)
        .into_iter()
        .map(|r| Definition {
            name: r.name,
            text: r.text,
        })
        .collect();
    let classification = if earlier.is_empty() {
        classify(command, dialect)
    } else {
        match with_earlier(command, &earlier, &mut decide) {
            Ok(classification) => classification,
            Err(refused) => return refused,
        }
    };
    if classification.definitions.is_empty() {
        return classification;
    }
    let judged = classify_after_judging_definitions(command, dialect, &neutral(&earlier));
    // Bodies that do nothing need no memory; one that cannot be made undoable is judged
    // where it stands.
    let acts = judged.ops.len() > classification.ops.len();
    if acts && !undoable(decide(&judged.ops)) {
        return judged;
    }
    let keep: Vec<Remembered> = classification
        .definitions
        .iter()
        .filter(|d| {
            moves_the_shell(&d.text)
                || if d.name == "trap" {
                    !classify(&d.text, dialect).ops.is_empty()
                } else {
                    acts
                }
        })
        .map(|d| Remembered {
            name: d.name.clone(),
            text: d.text.clone(),
        })
        .collect();
    if enforce && remember(&path, &keep).is_err() {
        return judged;
    }
    classification
}

/// `earlier` with each `trap` command made a word list (`: trap …`): it names what its
/// action calls, and sets nothing off at the end of the line.
fn neutral(earlier: &[Definition]) -> Vec<Definition> {
    earlier
        .iter()
        .map(|d| Definition {
            name: d.name.clone(),
            text: if d.name == "trap" {
                format!(": {}", d.text)
            } else {
                d.text.clone()
            },
        })
        .collect()
}

/// Whether `text` names a command that moves the shell elsewhere (`cd`, `pushd`, `popd`)
/// or makes a link: what runs after it may act somewhere else.
fn moves_the_shell(text: &str) -> bool {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|word| matches!(word, "cd" | "pushd" | "popd" | "chdir" | "ln" | "link"))
}

/// The commands a remembered definition runs, as plain text: a function's body (between
/// its braces), an alias's value; the definition itself when neither can be read.
fn body_of(definition: &Definition) -> String {
    let text = definition.text.as_str();
    if let Some(value) = text.strip_prefix("alias ") {
        let script = agent_guard_lex::posix::lex(value);
        if let Some(word) = script.commands.first().and_then(|c| c.words.first())
            && let Some(literal) = word.literal_text()
            && let Some((_, value)) = literal.split_once('=')
        {
            return value.to_owned();
        }
        return text.to_owned();
    }
    match (text.find('{'), text.rfind('}')) {
        (Some(open), Some(close)) if open < close => text[open + 1..close].to_owned(),
        _ => text.to_owned(),
    }
}

/// A `trap` command's action, when one of its conditions is `DEBUG`: it runs before every
/// command, in the line's own directory.
fn debug_action(trap: &str) -> Option<String> {
    let script = agent_guard_lex::posix::lex(trap);
    let words: Vec<String> = script
        .commands
        .first()?
        .words
        .iter()
        .map(agent_guard_lex::Word::literal_text)
        .collect::<Option<_>>()?;
    let debug = words.iter().skip(2).any(|w| w == "DEBUG");
    debug.then(|| words.get(1).cloned()).flatten()
}

/// The classification of `command` after the session's `earlier` definitions (see the
/// module), with a checkpoint op; `Err` with what every remembered body and trap would do,
/// run before the line and after it, when that could not be undone. The bodies are judged
/// as plain commands, on their own, and around the line only when it moves the shell or
/// makes a link (`cd src`, `ln -s …`) or a `DEBUG` trap runs within it: an unrelated line
/// (`echo hi > notes.txt`) is not mixed with them.
fn with_earlier(
    command: &str,
    earlier: &[Definition],
    decide: &mut dyn FnMut(&[OpSpec]) -> Option<Decision>,
) -> Result<Classification, Classification> {
    let bodies: Vec<String> = earlier
        .iter()
        .filter(|d| d.name != "trap")
        .map(body_of)
        .collect();
    let traps: Vec<&Definition> = earlier.iter().filter(|d| d.name == "trap").collect();
    let debug: Vec<String> = traps.iter().filter_map(|t| debug_action(&t.text)).collect();
    let exits: Vec<&str> = traps
        .iter()
        .filter(|t| debug_action(&t.text).is_none())
        .map(|t| t.text.as_str())
        .collect();
    let plain = bodies.join("\n");
    let debug = debug.join("\n");
    let exits = exits.join("\n");
    // Before the line (and, when it does not move the shell, after it too) …
    let mut runs = vec![format!("{debug}\n{plain}\n{exits}")];
    // … and after a line that moves the shell, where it leaves it.
    if !debug.is_empty() || moves_the_shell(command) {
        runs.push(format!("{debug}\n{command}\n{plain}\n{exits}"));
    }
    for text in runs {
        let ran = classify_judging_definitions(&text, Dialect::Posix);
        if !ran.ops.is_empty() && !undoable(decide(&ran.ops)) {
            return Err(ran);
        }
    }
    let mut classification = classify_after(command, Dialect::Posix, &neutral(earlier));
    let mut op = OpSpec::new("<definitions>", OpKind::OpaqueProgram, Dialect::Posix);
    op.note("a function or alias this session defined may run where the guard cannot see");
    classification.ops.push(op);
    Ok(classification)
}
