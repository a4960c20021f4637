//! Definitions run nothing (issue 38, point 2): a line that only defines a function or an
//! alias is allowed and nothing is moved aside for it; a later line of the same session
//! that calls it is judged by its body.
//!
//! The classifier leaves out the definitions a line never calls
//! ([`agent_guard_classify::Classification::definitions`]). They stay left out only when
//! their bodies, judged as if called where they stand, could be made undoable (the policy's
//! decision is at most a compensation); a body that would be refused or asked about is
//! judged at its definition, as before. Under `--enforce` the left-out definitions with a
//! body that does something are remembered for the session before the line runs
//! ([`agent_guard_session::definitions`], in the per-user state directory, found from the
//! environment alone), and every later line of the session is classified with them defined
//! first ([`agent_guard_classify::classify_after`]), so a call by its name is judged by its
//! body. A call the guard cannot see (an arithmetic expansion of a variable, `PS4` under
//! `set -x`, an exported function run by a child shell) may still run one: every later line
//! of such a session also takes a checkpoint, which undoes what the body can do (it was
//! judged undoable). When they cannot be remembered, the definitions are judged where they
//! stand.

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

/// Classifies `command` in `dialect` for a check, with the session's remembered
/// definitions defined first; `decide` gives the policy's decision on ops (`None` when it
/// cannot be had). When `enforce`, the line's own definitions are remembered before it runs.
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
    let unseen = |mut classification: Classification| {
        if !earlier.is_empty() {
            let mut op = OpSpec::new("<definitions>", OpKind::OpaqueProgram, Dialect::Posix);
            op.note("a function or alias this session defined may run where the guard cannot see");
            classification.ops.push(op);
        }
        classification
    };
    let classification = unseen(classify_after(command, dialect, &earlier));
    if classification.definitions.is_empty() {
        return classification;
    }
    let judged = unseen(classify_after_judging_definitions(
        command, dialect, &earlier,
    ));
    let (bodies, traps): (Vec<&Definition>, Vec<&Definition>) = classification
        .definitions
        .iter()
        .partition(|d| d.name != "trap");
    // Bodies that do nothing need no memory; one that cannot be made undoable is judged
    // where it stands.
    let acts = judged.ops.len() > classification.ops.len();
    if acts
        && decide(&judged.ops).is_none_or(|decision| decision.rank() > Decision::Snapshot.rank())
    {
        return judged;
    }
    let keep: Vec<Remembered> = traps
        .into_iter()
        .chain(bodies.into_iter().filter(|_| acts))
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
