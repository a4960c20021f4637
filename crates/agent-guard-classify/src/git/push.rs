//! `git push` with force, mirror, prune or ref deletion.

use agent_guard_types::{OpKind, OpSpec};

use super::git_op;
use crate::args::Arg;

/// Options that take a separate value.
const VALUED: &[&str] = &["-o", "--push-option", "--repo", "--receive-pack", "--exec"];

/// Parses the arguments after `git push`. `None` for an ordinary (fast-forward) push.
pub(super) fn parse(args: &[Arg]) -> Option<OpSpec> {
    let mut op = git_op(OpKind::GitPushForce);
    let mut destructive = false;
    let mut opaque = false;
    let mut options_done = false;
    let mut skip_value = false;
    for arg in args {
        if skip_value {
            skip_value = false;
            continue;
        }
        let Some(text) = arg.known() else {
            opaque = true;
            continue;
        };
        if !options_done && text == "--" {
            options_done = true;
        } else if !options_done && text.starts_with("--") {
            let name = text.split('=').next().unwrap_or(text);
            if matches!(
                name,
                "--force" | "--mirror" | "--delete" | "--prune" | "--force-with-lease"
            ) {
                destructive = true;
                op.note(name);
            }
            skip_value = VALUED.contains(&text);
        } else if !options_done && text.starts_with('-') && text.len() > 1 {
            // Short clusters: `-f`, `-uf`, `-d`, `-fu`; `-o` takes a value.
            for letter in text[1..].chars() {
                match letter {
                    'f' | 'd' => destructive = true,
                    'o' => {
                        skip_value = text.ends_with('o');
                        break;
                    }
                    _ => {}
                }
            }
        } else if text.starts_with('+') || text.starts_with(':') || text.contains(":+") {
            destructive = true;
            op.note("force refspec or remote ref deletion");
            op.targets.push(arg.target());
        } else {
            op.targets.push(arg.target());
        }
    }
    if destructive {
        return Some(op);
    }
    if opaque {
        // A value we cannot read could be `+main`, `:main` or `--force`.
        let mut unknown = git_op(OpKind::Unknown);
        unknown.mark_undeterminable("git push with an argument that is not literal");
        return Some(unknown);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::tests::git;
    use agent_guard_types::OpKind;

    #[test]
    fn force_forms() {
        for line in [
            "push --force origin main",
            "push -f origin main",
            "push -uf origin main",
            "push origin +main",
            "push origin :feature/x",
            "push --mirror",
            "push --delete origin x",
            "push -d origin x",
            "push --force-with-lease origin main",
            "push --force-with-lease=main:abc origin main",
            "push --prune origin",
        ] {
            assert_eq!(git(line).unwrap().kind, OpKind::GitPushForce, "{line}");
        }
        assert!(git("push origin main").is_none());
        assert!(git("push -u origin feature").is_none());
        assert!(git("push -o ci.skip origin main").is_none());
    }
}
