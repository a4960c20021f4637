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
            if d.name == "trap" {
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

/// The classification of `command` after the session's `earlier` definitions (see the
/// module), with a checkpoint op; `Err` with the line judged as if every one of them ran
/// before it and after it, when that could not be undone.
fn with_earlier(
    command: &str,
    earlier: &[Definition],
    decide: &mut dyn FnMut(&[OpSpec]) -> Option<Decision>,
) -> Result<Classification, Classification> {
    let again: String = earlier
        .iter()
        .filter(|d| d.name != "trap")
        .map(|d| d.text.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    let around = format!("{command}\n{again}");
    let ran = classify_after_judging_definitions(&around, Dialect::Posix, earlier);
    if !undoable(decide(&ran.ops)) {
        return Err(ran);
    }
    let mut classification = classify_after(command, Dialect::Posix, &neutral(earlier));
    let mut op = OpSpec::new("<definitions>", OpKind::OpaqueProgram, Dialect::Posix);
    op.note("a function or alias this session defined may run where the guard cannot see");
    classification.ops.push(op);
    Ok(classification)
}
