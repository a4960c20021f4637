//! Ref-dropping commands: `git stash drop|clear`, `git branch -D` and forced branch
//! overwrites. The commits they drop can be kept under private refs first.

use agent_guard_types::{OpKind, OpSpec};

use super::git_op;
use crate::args::Arg;

/// The stash subcommands that change the stash list: `drop [-q] [<stash>]`, `clear`,
/// `pop [--index] [-q] [<stash>]` and `branch <name> [<stash>]` (which drop the entry they
/// apply), and the pushes (`git stash`, `push`, `save`, `store`, or options first), which the
/// later stash ops of the line must see.
pub(super) fn stash(args: &[Arg]) -> Option<OpSpec> {
    let Some(first) = args.first() else {
        return Some(git_op(OpKind::GitStashPush));
    };
    let sub = first.known()?;
    let mut op = git_op(OpKind::GitStashDrop);
    let (options, entries): (&[&str], &[Arg]) = match sub {
        "drop" => (&["-q", "--quiet"], &args[1..]),
        "pop" => (&["-q", "--quiet", "--index"], &args[1..]),
        // `branch <name> [<stash>]`: the name is not an entry.
        "branch" => (&[], args.get(2..).unwrap_or_default()),
        "clear" => {
            op.note("drops every stash entry");
            return Some(op);
        }
        "push" | "save" | "store" => return Some(git_op(OpKind::GitStashPush)),
        flag if flag.starts_with('-') => return Some(git_op(OpKind::GitStashPush)),
        _ => return None,
    };
    for arg in entries {
        match arg.known() {
            Some(flag) if options.contains(&flag) => {}
            Some(flag) if flag.starts_with('-') => {
                op.mark_undeterminable(format!("unknown git stash {sub} option {flag}"));
            }
            _ => op.targets.push(arg.target()),
        }
    }
    if op.targets.iter().any(|t| t.opaque.is_some()) {
        // An entry named at run time: every entry is kept.
        op.targets.clear();
        op.note(format!(
            "git stash {sub} names an entry that is not literal: every entry is kept"
        ));
        return Some(op);
    }
    if op.targets.len() > 1 {
        op.mark_undeterminable(format!("git stash {sub} target is not one literal entry"));
    }
    if op.targets.is_empty() {
        op.targets
            .push(agent_guard_types::Target::literal("stash@{0}"));
    }
    Some(op)
}

/// `git replace -d OBJECT…` deletes `refs/replace/<OBJECT>`; `git replace -f OBJECT
/// REPLACEMENT` moves it. The ref is named by the object's full id, which only a full
/// hexadecimal id spells; an abbreviated one is resolved by git alone (issue 37, point 1).
pub(super) fn replace(args: &[Arg]) -> Option<OpSpec> {
    let texts: Vec<Option<&str>> = args.iter().map(Arg::known).collect();
    let flag = |short: &str, long: &str| {
        texts.iter().flatten().any(|t| {
            *t == long || (t.starts_with('-') && !t.starts_with("--") && t.contains(&short[1..]))
        })
    };
    let delete = flag("-d", "--delete");
    if !delete && !flag("-f", "--force") {
        return None;
    }
    let objects: Vec<&Arg> = args.iter().filter(|a| !a.is_option()).collect();
    let named: &[&Arg] = if delete {
        &objects
    } else {
        objects.get(..1).unwrap_or_default()
    };
    if named.is_empty() {
        return None;
    }
    let mut op = git_op(OpKind::GitRefDelete);
    for object in named {
        match object.known() {
            Some(id)
                if matches!(id.len(), 40 | 64) && id.chars().all(|c| c.is_ascii_hexdigit()) =>
            {
                op.targets.push(agent_guard_types::Target::literal(format!(
                    "refs/replace/{}",
                    id.to_ascii_lowercase()
                )));
            }
            // An abbreviated or computed id: which replace ref it names is git's to say, so
            // every one is kept.
            _ => {
                op.targets.retain(|t| t.text != "refs/replace/");
                op.targets
                    .push(agent_guard_types::Target::literal("refs/replace/"));
            }
        }
    }
    op.note("git replace deletes or moves replace refs");
    Some(op)
}

/// `git branch -D <name>…`, `--delete --force`, and forced overwrites (`-f NAME`,
/// `-M`/`-C`, `-m -f`, `--move --force`, `--copy --force`).
pub(super) fn branch(args: &[Arg]) -> Option<OpSpec> {
    let mut delete = false;
    let mut force = false;
    let mut moves = false;
    let mut remotes = false;
    let mut names = Vec::new();
    let mut options_done = false;
    for arg in args {
        match arg.known() {
            Some("--") if !options_done => options_done = true,
            Some("--delete") if !options_done => delete = true,
            Some("--force") if !options_done => force = true,
            Some("--remotes") if !options_done => remotes = true,
            Some("--move" | "--copy") if !options_done => moves = true,
            Some(text) if !options_done && text.starts_with("--") => {}
            Some(text) if !options_done && text.starts_with('-') && text.len() > 1 => {
                for letter in text[1..].chars() {
                    match letter {
                        'D' => {
                            delete = true;
                            force = true;
                        }
                        'd' => delete = true,
                        'f' => force = true,
                        'M' | 'C' => {
                            moves = true;
                            force = true;
                        }
                        'm' | 'c' => moves = true,
                        'r' => remotes = true,
                        _ => {}
                    }
                }
            }
            _ => names.push(arg),
        }
    }
    let mut op = git_op(OpKind::GitBranchDelete);
    if delete && remotes {
        // `git branch -d -r origin/topic` deletes remote-tracking refs, merged or not.
        let mut op = git_op(OpKind::GitRefDelete);
        for name in &names {
            op.targets.push(match name.known() {
                Some(text) => agent_guard_types::Target::literal(format!("refs/remotes/{text}")),
                None => agent_guard_types::Target::literal("refs/remotes/"),
            });
        }
        op.note("git branch -d -r deletes remote-tracking refs");
        return Some(op);
    }
    if delete && force {
        op.targets = names.iter().map(|a| a.target()).collect();
    } else if force && !delete {
        // `git branch -f name start` / `-M old new` / `-M new`: the branch overwritten, and
        // the one a move takes away with its reflog.
        op.targets = match (moves, names.as_slice()) {
            (true, [old, new, ..]) => vec![new.target(), old.target()],
            (_, [name, ..]) => vec![name.target()],
            (_, []) => Vec::new(),
        };
        op.note("overwrites an existing branch");
        if op.targets.is_empty() {
            return None;
        }
    } else {
        // `-d` refuses unmerged branches, `-m`/`-c` refuse to overwrite.
        return None;
    }
    if op.targets.iter().any(|t| t.opaque.is_some()) {
        // A name built at run time: every branch is kept.
        op.targets = vec![agent_guard_types::Target::literal("refs/heads/")];
        op.note("a branch name is not literal: every branch is kept");
    }
    Some(op)
}

#[cfg(test)]
mod tests {
    use super::super::tests::git;
    use agent_guard_types::OpKind;

    #[test]
    fn stash_and_branch_forms() {
        let o = git("stash drop").unwrap();
        assert_eq!(o.kind, OpKind::GitStashDrop);
        assert_eq!(o.targets[0].text, "stash@{0}");
        assert_eq!(
            git("stash drop stash@{2}").unwrap().targets[0].text,
            "stash@{2}"
        );
        assert!(git("stash clear").unwrap().targets.is_empty());
        assert_eq!(git("stash").unwrap().kind, OpKind::GitStashPush);
        assert_eq!(git("stash -u").unwrap().kind, OpKind::GitStashPush);
        assert_eq!(git("stash push -m x").unwrap().kind, OpKind::GitStashPush);
        let pop = git("stash pop --index stash@{1}").unwrap();
        assert_eq!(
            (pop.kind, pop.targets[0].text.as_str()),
            (OpKind::GitStashDrop, "stash@{1}")
        );
        assert_eq!(git("stash branch b").unwrap().targets[0].text, "stash@{0}");
        assert_eq!(git("stash branch b 2").unwrap().targets[0].text, "2");
        assert_eq!(git("stash apply").unwrap().kind, OpKind::GitMoveWorkTree);
        assert!(git("stash list").is_none());
        assert_eq!(git("branch -D old").unwrap().targets[0].text, "old");
        assert!(git("branch --delete --force old").is_some());
        assert!(git("branch -df old").is_some());
        assert!(git("branch -d old").is_none());
        assert!(git("branch new").is_none());
        assert_eq!(
            git("branch -f main HEAD~1").unwrap().targets[0].text,
            "main"
        );
        assert_eq!(git("branch -M old new").unwrap().targets[0].text, "new");
        assert_eq!(git("branch -m -f old new").unwrap().targets[0].text, "new");
        assert_eq!(
            git("branch --move --force old new").unwrap().targets[0].text,
            "new"
        );
        assert_eq!(git("branch -c -f a b").unwrap().targets[0].text, "b");
        assert_eq!(git("branch -C main").unwrap().targets[0].text, "main");
        assert!(git("branch -m old new").is_none());
        assert!(git("branch -c a b").is_none());
    }
}
