//! Definitions run nothing (issue 38, point 2): a line that only defines a function or an
//! alias is allowed, and a later line of the same session that calls it is judged by its
//! body.
//!
//! The classifier leaves out the definitions a line never calls
//! ([`agent_guard_classify::Classification::definitions`]). Under `--enforce` (hook mode)
//! they are remembered for the session before the line runs
//! ([`agent_guard_session::definitions`]); a later line with something to judge is
//! classified with them defined first ([`agent_guard_classify::classify_after`]). A call of a
//! remembered name is always something to judge: a name the guard knows as a program is
//! never left out. When they cannot be remembered, the line's definitions are judged where
//! they stand, as if called.

use agent_guard_classify::{
    Classification, Definition, classify, classify_after, classify_judging_definitions,
};
use agent_guard_session::definitions::{Remembered, read_definitions, remember};
use agent_guard_types::Dialect;

use crate::workspace::Workspace;

/// Classifies `command` in `dialect` for a check: with the session's remembered
/// definitions when the line has anything to judge, and (when `enforce`) remembering the
/// line's own before it runs. `open` opens the workspace (once; `None` when it cannot be).
pub(crate) fn classify_line(
    command: &str,
    dialect: Dialect,
    enforce: bool,
    mut open: impl FnMut() -> Option<Workspace>,
) -> Classification {
    let mut classification = classify(command, dialect);
    if dialect != Dialect::Posix {
        return classification;
    }
    let workspace = (!classification.ops.is_empty()
        || (enforce && !classification.definitions.is_empty()))
    .then(&mut open)
    .flatten();
    if !classification.ops.is_empty()
        && let Some(ws) = &workspace
    {
        let earlier: Vec<Definition> = read_definitions(ws.trash(), ws.settings.session.as_deref())
            .into_iter()
            .map(|r| Definition {
                name: r.name,
                text: r.text,
            })
            .collect();
        if !earlier.is_empty() {
            classification = classify_after(command, dialect, &earlier);
        }
    }
    if enforce && !classification.definitions.is_empty() {
        let kept = workspace.is_some_and(|ws| keep(&ws, &classification.definitions));
        if !kept {
            return classify_judging_definitions(command, dialect);
        }
    }
    classification
}

/// Remembers `definitions` for `ws`'s session, durably; `false` when they could not be.
fn keep(ws: &Workspace, definitions: &[Definition]) -> bool {
    if agent_guard_recovery::ensure_layout(&ws.root, ws.trash()).is_err() {
        return false;
    }
    let new: Vec<Remembered> = definitions
        .iter()
        .map(|d| Remembered {
            name: d.name.clone(),
            text: d.text.clone(),
        })
        .collect();
    remember(ws.trash(), ws.settings.session.as_deref(), &new).is_ok()
}
