//! Compound-line shapes (F1, F2) and the compound hard-reset rule.
//!
//! Shapes are about *compensation difficulty*, not effect uncertainty: targets resolved
//! before the line runs may be the wrong ones (F1: the line changes directory first) or may
//! not exist yet (F2: the line creates files first). The policy maps them to ASK unless a
//! hard boundary also fires.

use agent_guard_lex::SimpleCommand;
use agent_guard_types::{OpKind, OpSpec, Shape};

/// Commands that change the working directory.
const CD_HEADS: &[&str] = &["cd", "pushd", "popd", "chdir"];
/// Commands that create files.
const CREATE_HEADS: &[&str] = &[
    "touch", "mkdir", "cp", "mv", "install", "ln", "tee", "rsync", "dd", "mktemp",
];
/// Redirect targets that create nothing in the workspace.
const NULL_TARGETS: &[&str] = &["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"];

/// Where in the line directories change and files get created (command indices).
#[derive(Debug, Default)]
pub(crate) struct Positions {
    cd: Vec<usize>,
    create: Vec<usize>,
    own_cwd: Vec<usize>,
}

impl Positions {
    /// Records a command by its lower-cased name.
    pub(crate) fn note_command(&mut self, name: &str, index: usize) {
        if CD_HEADS.contains(&name) {
            self.cd.push(index);
        } else if CREATE_HEADS.contains(&name) {
            self.create.push(index);
        }
    }

    /// Records a command that runs in another directory itself (`env -C`, `sudo -D`).
    pub(crate) fn note_cwd_change(&mut self, index: usize) {
        self.own_cwd.push(index);
    }

    /// Records file-creating redirections (`> f`, `>> f`; not `2>/dev/null` or `2>&1`).
    pub(crate) fn note_redirects(&mut self, command: &SimpleCommand, index: usize, _source: &str) {
        let creates = command.redirects.iter().any(|r| {
            r.op.writes()
                && r.target.as_ref().is_none_or(|t| {
                    t.literal_text().is_none_or(|text| {
                        !(NULL_TARGETS.contains(&text.as_str())
                            || text == "-"
                            || (!text.is_empty() && text.chars().all(|c| c.is_ascii_digit())))
                    })
                })
        });
        if creates && !command.context.in_substitution {
            self.create.push(index);
        }
    }
}

/// Marks shapes on `ops` and applies the compound hard-reset rule.
pub(crate) fn apply(ops: &mut [OpSpec], positions: &Positions, commands: usize) {
    for op in ops.iter_mut() {
        if op.kind == OpKind::Unknown || op.kind == OpKind::Other {
            continue;
        }
        let index = op.segment_index;
        if op.kind == OpKind::GitResetHard && commands > 1 {
            op.mark_undeterminable("hard reset in a compound line");
        }
        let cwd_changed =
            positions.cd.iter().any(|&i| i < index) || positions.own_cwd.contains(&index);
        let cwd_matters = op.kind != OpKind::FsDelete
            || op
                .targets
                .iter()
                .any(|t| !(t.tilde || t.text.starts_with('/') || t.opaque.is_some()));
        if cwd_changed && cwd_matters {
            op.shape = Some(Shape::F1);
        }
        let target_dependent = matches!(
            op.kind,
            OpKind::FsDelete | OpKind::GitClean | OpKind::GitDiscard | OpKind::GitResetHard
        );
        if target_dependent && positions.create.iter().any(|&i| i < index) {
            op.shape = Some(Shape::F2);
        }
    }
}
