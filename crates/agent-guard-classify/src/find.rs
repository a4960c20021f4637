//! `find … -delete` and `find … -exec rm …`.
//!
//! What a `find` expression matches is only known when it runs, so a deleting `find` is an
//! undeterminable recursive delete of its starting points.

use agent_guard_types::{Dialect, OpKind, OpSpec};

use crate::args::{Arg, basename};

/// Programs that delete when `find` runs them.
const DELETERS: &[&str] = &[
    "rm", "rmdir", "unlink", "shred", "sh", "bash", "zsh", "dash", "ksh", "xargs", "git", "srm",
    "truncate",
];

/// Parses `find` arguments; `None` when the expression deletes nothing.
pub(crate) fn parse(args: &[Arg]) -> Option<OpSpec> {
    let mut op = OpSpec::new("find", OpKind::FsDelete, Dialect::Posix);
    op.recursive = true;
    let mut deletes = false;
    let mut exec_next = false;
    for arg in args {
        let Some(text) = arg.known() else {
            if exec_next {
                deletes = true;
            }
            exec_next = false;
            continue;
        };
        if exec_next {
            if DELETERS.contains(&basename(text)) {
                deletes = true;
            }
            exec_next = false;
            continue;
        }
        match text {
            "-delete" => deletes = true,
            "-exec" | "-execdir" | "-ok" | "-okdir" => exec_next = true,
            _ => {}
        }
    }
    if !deletes {
        return None;
    }
    // Starting points are the operands before the first expression token.
    for arg in args {
        let is_expression = arg
            .known()
            .is_some_and(|t| t.starts_with('-') || t == "(" || t == "!");
        if is_expression {
            break;
        }
        op.targets.push(arg.target());
    }
    op.mark_undeterminable("find selects what it deletes at run time");
    Some(op)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(line: &str) -> Option<OpSpec> {
        parse(
            &line
                .split_whitespace()
                .map(Arg::literal)
                .collect::<Vec<_>>(),
        )
    }

    #[test]
    fn deleting_find_is_undeterminable() {
        let o = op(". -name *.o -delete").unwrap();
        assert!(o.undeterminable && o.recursive);
        assert_eq!(o.targets[0].text, ".");
        assert!(op("build -type f -exec rm {} ;").unwrap().undeterminable);
        assert!(op("build -exec /bin/rm -f {} +").is_some());
        assert!(op(". -name x -print").is_none());
        assert!(op(". -exec grep rm {} ;").is_none());
    }
}
