//! Definitions run nothing (issue 38, point 2): a line that only defines a function or an
//! alias is allowed, and a later line of the same session that calls it is judged by its
//! body.
//!
//! The classifier leaves out the definitions a line never calls
//! ([`agent_guard_classify::Classification::definitions`]). Under `--enforce` (hook mode)
//! they are remembered for the session before the line runs
//! ([`agent_guard_session::definitions`], in the per-user state directory, found from the
//! environment alone: no workspace is opened for it), and every later line of the session
//! is classified with them defined first ([`agent_guard_classify::classify_after`]), so a
//! call of one, in any spelling the line names it by, is judged by its body. When they
//! cannot be remembered, the line's definitions are judged where they stand, as if called.

use std::path::PathBuf;

use agent_guard_classify::{
    Classification, Definition, classify, classify_after, classify_judging_definitions,
};
use agent_guard_config::EnvSnapshot;
use agent_guard_session::definitions::{Remembered, definitions_path, read_definitions, remember};
use agent_guard_types::Dialect;

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

/// Classifies `command` in `dialect` for a check: with the session's remembered
/// definitions defined first, and (when `enforce`) remembering the line's own before it
/// runs.
pub(crate) fn classify_line(
    command: &str,
    dialect: Dialect,
    enforce: bool,
    env: &EnvSnapshot,
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
    let classification = classify_after(command, dialect, &earlier);
    if enforce && !classification.definitions.is_empty() {
        let new: Vec<Remembered> = classification
            .definitions
            .iter()
            .map(|d| Remembered {
                name: d.name.clone(),
                text: d.text.clone(),
            })
            .collect();
        if remember(&path, &new).is_err() {
            return agent_guard_classify::classify_after_judging_definitions(
                command, dialect, &earlier,
            );
        }
    }
    classification
}
