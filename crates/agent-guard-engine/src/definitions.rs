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

use std::path::{Path, PathBuf};

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
            Err(refused) => return *refused,
        }
    };
    let made = made(command);
    let movers: Vec<Remembered> = made
        .iter()
        .filter(|(_, body)| moves_the_shell(body))
        .map(|(def, _)| def.clone())
        .collect();
    if enforce && remember_sealed(&path, &movers).is_err() {
        return classify_after_judging_definitions(command, dialect, &neutral(&earlier));
    }
    // A definition judged where it stands (called on its line, or named like a program the
    // guard knows: `cat() { rm -rf build; }`) lasts in the shell too: a later `cat x` runs
    // its body. Remembered when the line itself may run.
    let acting: Vec<Remembered> = made
        .into_iter()
        .filter(|(def, body)| {
            // An advisory check remembers nothing: the bodies need no judging for it.
            enforce
                && !classification
                    .definitions
                    .iter()
                    .any(|d| d.text == def.text)
                && !classify(body, Dialect::Posix).ops.is_empty()
        })
        .map(|(def, _)| def)
        .collect();
    if enforce
        && !acting.is_empty()
        && (!undoable(decide(&classification.ops)) || remember_sealed(&path, &acting).is_err())
    {
        return classification;
    }
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
            runs_a_move(d)
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
    if enforce && remember_sealed(&path, &keep).is_err() {
        return judged;
    }
    classification
}

/// Remembers `new` at `path` (see [`remember`]) and brings the pending guard-file seals up
/// to date ([`crate::seal::guard_wrote`]): the file is sealed like a guard file, so a program
/// the guard cannot see into that empties or rewrites it is found, and it is put back.
fn remember_sealed(path: &Path, new: &[Remembered]) -> std::io::Result<()> {
    if new.is_empty() {
        return Ok(());
    }
    let before = crate::seal::before_guard_writes(path);
    remember(path, new)?;
    // `<state>/definitions/<session>.json`
    if let Some(state_dir) = path.parent().and_then(Path::parent) {
        crate::seal::guard_wrote(state_dir, path, &before);
    }
    Ok(())
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

/// Commands that move the shell elsewhere or make a link: what runs after them may act
/// somewhere else.
const MOVERS: &[&str] = &["cd", "pushd", "popd", "chdir", "ln", "link"];

/// How many commands of `text` (read as the shell reads it, quotes removed: `"c"d`) move the
/// shell or make a link, through `builtin`/`command` too; a command whose name is not
/// literal counts as one.
fn shell_moves(text: &str) -> usize {
    agent_guard_lex::posix::lex(text)
        .commands
        .iter()
        .filter(|c| {
            let names: Vec<Option<String>> = c
                .words
                .iter()
                .take(3)
                .map(agent_guard_lex::Word::literal_text)
                .collect();
            let name = names
                .iter()
                .find(|n| !matches!(n.as_deref(), Some("builtin" | "command")));
            match name {
                Some(Some(name)) => MOVERS.contains(&name.as_str()),
                Some(None) => true,
                None => false,
            }
        })
        .count()
}

/// Whether `text` moves the shell or makes a link ([`shell_moves`]).
fn moves_the_shell(text: &str) -> bool {
    shell_moves(text) > 0
}

/// The functions and aliases `command` defines, each with its body, whether or not the
/// classifier left them out: `ls() { cd /elsewhere; }` is judged where it stands, and still
/// moves what later lines act on. Lexed once, and only for a line that could define one.
fn made(command: &str) -> Vec<(Remembered, String)> {
    // Read for every line: most define nothing, and are not lexed again for it.
    if !(command.contains(')') || command.contains("function") || command.contains("alias")) {
        return Vec::new();
    }
    let script = agent_guard_lex::posix::lex(command);
    let mut found: Vec<(Remembered, String)> = script
        .functions
        .iter()
        .filter_map(|def| {
            let text = command.get(def.span.start..def.span.end)?;
            let definition = Definition {
                name: def.name.clone(),
                text: text.to_owned(),
            };
            let body = body_of(&definition);
            Some((
                Remembered {
                    name: definition.name,
                    text: definition.text,
                },
                body,
            ))
        })
        .collect();
    for c in &script.commands {
        if c.words
            .first()
            .and_then(agent_guard_lex::Word::literal_text)
            .as_deref()
            != Some("alias")
        {
            continue;
        }
        for word in c.words.iter().skip(1) {
            let (Some(literal), Some(text)) = (
                word.literal_text(),
                command.get(word.span.start..word.span.end),
            ) else {
                continue;
            };
            if let Some((name, value)) = literal.split_once('=') {
                found.push((
                    Remembered {
                        name: name.to_owned(),
                        text: format!("alias {text}"),
                    },
                    value.to_owned(),
                ));
            }
        }
    }
    found
}

/// The commands a remembered definition runs, as plain text: a function's body (between
/// its braces), an alias's value; the definition itself when neither can be read.
fn body_of(definition: &Definition) -> String {
    let text = definition.text.as_str();
    if text.starts_with("alias ") {
        let script = agent_guard_lex::posix::lex(text);
        if let Some(word) = script.commands.first().and_then(|c| c.words.get(1))
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

/// A `trap` command's action and whether one of its conditions is `DEBUG` (it runs before
/// every command, in the line's own directory).
fn trap_action(trap: &str) -> Option<(String, bool)> {
    let script = agent_guard_lex::posix::lex(trap);
    let words: Vec<String> = script
        .commands
        .first()?
        .words
        .iter()
        .map(agent_guard_lex::Word::literal_text)
        .collect::<Option<_>>()?;
    let debug = words.iter().skip(2).any(|w| w == "DEBUG");
    Some((words.get(1)?.clone(), debug))
}

/// A `trap` command's action, when it runs before every command (`DEBUG`).
fn debug_action(trap: &str) -> Option<String> {
    trap_action(trap).and_then(|(action, debug)| debug.then_some(action))
}

/// Whether what `definition` runs moves the shell (a trap: its action; a function or an
/// alias: its body).
fn runs_a_move(definition: &Definition) -> bool {
    if definition.name == "trap" {
        trap_action(&definition.text).is_none_or(|(action, _)| moves_the_shell(&action))
    } else {
        moves_the_shell(&body_of(definition))
    }
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
) -> Result<Classification, Box<Classification>> {
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
    // … and after a line that moves the shell, where it leaves it; between two of its moves
    // the shell is somewhere the guard does not follow.
    let moves = shell_moves(command);
    if !debug.is_empty() || moves > 0 {
        runs.push(format!("{debug}\n{command}\n{plain}\n{exits}"));
    }
    if moves > 1 {
        runs.push(format!("cd \"$__agent_guard_between\"\n{plain}\n{exits}"));
    }
    for text in runs {
        let ran = classify_judging_definitions(&text, Dialect::Posix);
        if !ran.ops.is_empty() && !undoable(decide(&ran.ops)) {
            return Err(Box::new(ran));
        }
    }
    // A remembered definition that moves the shell may have run (a call the guard cannot
    // see): the line starts somewhere the guard does not know.
    let mut given = neutral(earlier);
    if earlier.iter().any(runs_a_move) {
        given.push(Definition {
            name: "cd".to_owned(),
            text: "cd \"$__agent_guard_moved\"".to_owned(),
        });
    }
    let mut classification = classify_after(command, Dialect::Posix, &given);
    let mut op = OpSpec::new("<definitions>", OpKind::OpaqueProgram, Dialect::Posix);
    op.note("a function or alias this session defined may run where the guard cannot see");
    classification.ops.push(op);
    Ok(classification)
}
