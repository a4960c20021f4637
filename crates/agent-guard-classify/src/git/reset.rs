//! `git reset --hard`.

use agent_guard_types::{OpKind, OpSpec};

use super::git_op;
use crate::args::Arg;

/// Parses the arguments after `git reset`. Only `--hard` destroys work; other modes are
/// ignored. Only `--hard [-q] [<commit>]` is supported: anything else is undeterminable.
pub(super) fn parse(args: &[Arg], wrapped: bool) -> Option<OpSpec> {
    // `--merge` (what `git merge --abort` runs) also resets the index: staged changes the
    // work tree does not hold are lost. It is kept like a hard reset (issue 37, point 1).
    if !args
        .iter()
        .any(|a| matches!(a.known(), Some("--hard" | "--merge")))
    {
        return None;
    }
    let mut op = git_op(OpKind::GitResetHard);
    for arg in args {
        match arg.known() {
            Some("--hard" | "--merge" | "-q" | "--quiet") => {}
            Some(text) if text.starts_with('-') => {
                op.mark_undeterminable(format!("unsupported git reset option {text}"));
            }
            _ => {
                let target = arg.target();
                if target.opaque.is_some() || target.text.contains(['*', '?', '[', '$']) {
                    op.mark_undeterminable("git reset target is not a literal revision");
                }
                op.targets.push(target);
            }
        }
    }
    if op.targets.len() > 1 {
        op.mark_undeterminable("git reset --hard with more than one target");
    }
    if wrapped {
        op.mark_undeterminable(
            "wrappers or assignments may change the git context of a hard reset",
        );
    }
    Some(op)
}

#[cfg(test)]
mod tests {
    use super::super::tests::git;

    #[test]
    fn supported_and_unsupported_forms() {
        for ok in [
            "reset --hard",
            "reset --hard HEAD~1",
            "reset -q --hard HEAD~1",
            "reset HEAD~1 --hard --quiet",
        ] {
            assert!(!git(ok).unwrap().undeterminable, "{ok}");
        }
        for bad in [
            "reset --hard --recurse-submodules",
            "reset --hard --no-recurse-submodules",
            "reset --hard --pathspec-from-file=paths.txt",
            "reset --hard HEAD other",
            "reset --hard -- file",
            "reset --hard -",
        ] {
            assert!(git(bad).unwrap().undeterminable, "{bad}");
        }
        // Not a discard: judged by the commit's hook files (`tree.rs`).
        let moves = |line| git(line).unwrap().kind == agent_guard_types::OpKind::GitMoveWorkTree;
        assert!(moves("reset HEAD~1"));
        assert!(moves("reset --soft HEAD~1"));
    }
}
