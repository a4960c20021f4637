//! Commands that discard work-tree changes: `restore`, `checkout`, `switch`, `rm -f`.

use agent_guard_types::{OpKind, OpSpec};

use super::{git_op, pathspec};
use crate::args::Arg;
use crate::getopt::{self, Item, Opt, Order};

const RESTORE: &[Opt] = &[
    Opt::value("source", Some('s'), Some("source")),
    Opt::flag("staged", Some('S'), Some("staged")),
    Opt::flag("worktree", Some('W'), Some("worktree")),
    Opt::flag("patch", Some('p'), Some("patch")),
    Opt::flag("n", Some('q'), Some("quiet")),
    Opt::flag("n", None, Some("progress")),
    Opt::flag("n", None, Some("no-progress")),
    Opt::flag("n", None, Some("ours")),
    Opt::flag("n", None, Some("theirs")),
    Opt::flag("n", Some('m'), Some("merge")),
    Opt::value("n", None, Some("conflict")),
    Opt::flag("n", None, Some("ignore-unmerged")),
    Opt::flag("n", None, Some("ignore-skip-worktree-bits")),
    Opt::flag("n", None, Some("recurse-submodules")),
    Opt::flag("n", None, Some("no-recurse-submodules")),
    Opt::flag("n", None, Some("overlay")),
    Opt::flag("n", None, Some("no-overlay")),
    Opt::value("from-file", None, Some("pathspec-from-file")),
    Opt::flag("n", None, Some("pathspec-file-nul")),
];

const CHECKOUT: &[Opt] = &[
    Opt::flag("n", Some('q'), Some("quiet")),
    Opt::flag("force", Some('f'), Some("force")),
    Opt::value("branch", Some('b'), None),
    Opt::value("branch", Some('B'), None),
    Opt::value("branch", None, Some("orphan")),
    Opt::flag("n", None, Some("detach")),
    Opt::optional("n", Some('t'), Some("track")),
    Opt::flag("n", None, Some("no-track")),
    Opt::flag("n", Some('l'), None),
    Opt::flag("n", None, Some("guess")),
    Opt::flag("n", None, Some("no-guess")),
    Opt::flag("n", Some('m'), Some("merge")),
    Opt::value("n", None, Some("conflict")),
    Opt::flag("patch", Some('p'), Some("patch")),
    Opt::flag("n", None, Some("ours")),
    Opt::flag("n", None, Some("theirs")),
    Opt::flag("n", None, Some("ignore-skip-worktree-bits")),
    Opt::flag("n", None, Some("ignore-other-worktrees")),
    Opt::flag("n", None, Some("overwrite-ignore")),
    Opt::flag("n", None, Some("no-overwrite-ignore")),
    Opt::flag("n", None, Some("recurse-submodules")),
    Opt::flag("n", None, Some("no-recurse-submodules")),
    Opt::flag("n", None, Some("overlay")),
    Opt::flag("n", None, Some("no-overlay")),
    Opt::flag("n", None, Some("progress")),
    Opt::flag("n", None, Some("no-progress")),
    Opt::value("from-file", None, Some("pathspec-from-file")),
    Opt::flag("n", None, Some("pathspec-file-nul")),
];

const SWITCH: &[Opt] = &[
    Opt::flag("force", Some('f'), Some("force")),
    Opt::flag("force", None, Some("discard-changes")),
    Opt::value("n", Some('c'), Some("create")),
    Opt::value("n", Some('C'), Some("force-create")),
    Opt::flag("n", Some('d'), Some("detach")),
    Opt::flag("n", None, Some("guess")),
    Opt::flag("n", None, Some("no-guess")),
    Opt::optional("n", Some('t'), Some("track")),
    Opt::flag("n", None, Some("no-track")),
    Opt::value("n", None, Some("orphan")),
    Opt::flag("n", Some('m'), Some("merge")),
    Opt::value("n", None, Some("conflict")),
    Opt::flag("n", Some('q'), Some("quiet")),
    Opt::flag("n", None, Some("progress")),
    Opt::flag("n", None, Some("no-progress")),
    Opt::flag("n", None, Some("ignore-other-worktrees")),
    Opt::flag("n", None, Some("recurse-submodules")),
    Opt::flag("n", None, Some("no-recurse-submodules")),
];

const RM: &[Opt] = &[
    Opt::flag("force", Some('f'), Some("force")),
    Opt::flag("dry-run", Some('n'), Some("dry-run")),
    Opt::flag("n", Some('r'), None),
    Opt::flag("cached", None, Some("cached")),
    Opt::flag("n", Some('q'), Some("quiet")),
    Opt::flag("n", None, Some("ignore-unmatch")),
    Opt::flag("n", None, Some("sparse")),
    Opt::value("from-file", None, Some("pathspec-from-file")),
    Opt::flag("n", None, Some("pathspec-file-nul")),
];

/// Collects options into flags; unknown options make the op undeterminable.
fn scan<'a>(
    args: &'a [Arg],
    opts: &[Opt],
    op: &mut OpSpec,
    order: Order,
) -> (Vec<&'static str>, Vec<&'a Arg>) {
    let (items, rest) = getopt::parse(args, opts, order);
    let mut flags = Vec::new();
    let mut operands = Vec::new();
    for item in items {
        match item {
            Item::Opt { name, .. } => flags.push(name),
            Item::Unknown(flag) | Item::Ambiguous(flag) => {
                op.mark_undeterminable(format!("unknown git option {flag}"));
            }
            Item::MissingValue(_) => op.mark_undeterminable("git option without a value"),
            Item::Operand(arg) => operands.push(arg),
        }
    }
    operands.extend(&args[rest..]);
    (flags, operands)
}

/// `git restore`: discards work-tree changes unless only `--staged` is given.
pub(super) fn restore(args: &[Arg]) -> Option<OpSpec> {
    let mut op = git_op(OpKind::GitDiscard);
    let (flags, operands) = scan(args, RESTORE, &mut op, Order::Permute);
    if flags.contains(&"staged") && !flags.contains(&"worktree") {
        return None;
    }
    if flags.contains(&"patch") {
        op.mark_undeterminable("interactive patch mode");
    }
    if flags.contains(&"from-file") {
        op.mark_undeterminable("pathspecs read from a file");
    } else if operands.is_empty() && !op.undeterminable {
        // git refuses `git restore` without a pathspec.
        return None;
    }
    if flags.contains(&"source") {
        op.note("restores content from another revision");
        if let Some(revision) = source_revision(args) {
            op.extra_flags.push(format!("--source={revision}"));
        }
    }
    op.targets = operands.into_iter().map(pathspec).collect();
    Some(op)
}

/// The value of `--source`/`-s`, when literal.
fn source_revision(args: &[Arg]) -> Option<String> {
    let (items, _) = getopt::parse(args, RESTORE, Order::Permute);
    items.into_iter().find_map(|item| match item {
        Item::Opt {
            name: "source",
            value,
            attached,
        } => attached.or_else(|| value.and_then(|v| v.known().map(str::to_owned))),
        _ => None,
    })
}

/// `git checkout`: `-- paths`, `-f`, `.` and path-like operands discard changes.
pub(super) fn checkout(args: &[Arg]) -> Option<OpSpec> {
    let mut op = git_op(OpKind::GitDiscard);
    let dashes = args.iter().position(|a| a.known() == Some("--"));
    let (before, after) = match dashes {
        Some(i) => (&args[..i], Some(&args[i + 1..])),
        None => (args, None),
    };
    let (flags, operands) = scan(before, CHECKOUT, &mut op, Order::Permute);
    if flags.contains(&"patch") {
        op.mark_undeterminable("interactive patch mode");
        return Some(op);
    }
    if flags.contains(&"from-file") {
        op.mark_undeterminable("pathspecs read from a file");
        return Some(op);
    }
    if let Some(paths) = after {
        if paths.is_empty() && !flags.contains(&"force") {
            return None;
        }
        op.targets = paths.iter().map(pathspec).collect();
        return Some(op);
    }
    if flags.contains(&"branch") {
        // Creating a branch keeps local changes (or refuses).
        return None;
    }
    let path_like = |a: &&Arg| {
        a.known()
            .is_none_or(|t| t.contains(['.', '/', '*', '?', '[']) || t.starts_with(':'))
    };
    let discards = match operands.as_slice() {
        [] => false,
        [single] => path_like(single),
        // `git checkout <tree-ish> <paths…>`
        [_, ..] => true,
    };
    if flags.contains(&"force") {
        op.note("checkout -f throws away local changes");
        if operands.len() > 1 {
            op.targets = operands[1..].iter().copied().map(pathspec).collect();
        }
        return Some(op);
    }
    if !discards {
        return None;
    }
    let paths = if operands.len() > 1 {
        &operands[1..]
    } else {
        &operands[..]
    };
    op.targets = paths.iter().copied().map(pathspec).collect();
    Some(op)
}

/// `git switch -f` / `--discard-changes`.
pub(super) fn switch(args: &[Arg]) -> Option<OpSpec> {
    let mut op = git_op(OpKind::GitDiscard);
    let (flags, _) = scan(args, SWITCH, &mut op, Order::Permute);
    (flags.contains(&"force") || op.undeterminable).then(|| {
        op.note("switch discards local changes");
        op
    })
}

/// `git rm -f`: removes modified files from the work tree; without `-f` git refuses to
/// drop uncommitted changes.
pub(super) fn rm(args: &[Arg]) -> Option<OpSpec> {
    let mut op = git_op(OpKind::GitDiscard);
    let (flags, operands) = scan(args, RM, &mut op, Order::Permute);
    if flags.contains(&"dry-run") || flags.contains(&"cached") {
        return None;
    }
    if !flags.contains(&"force") && !op.undeterminable {
        return None;
    }
    if flags.contains(&"from-file") {
        op.mark_undeterminable("pathspecs read from a file");
    }
    op.targets = operands.into_iter().map(pathspec).collect();
    Some(op)
}

#[cfg(test)]
mod tests {
    use super::super::tests::git;

    #[test]
    fn restore_forms() {
        assert!(git("restore --staged src/main.py").is_none());
        let o = git("restore --staged --worktree src/main.py").unwrap();
        assert_eq!(o.targets[0].text, "src/main.py");
        let o = git("restore --source=HEAD~2 src/a.py").unwrap();
        assert_eq!(o.targets.len(), 1);
        let o = git("restore -s HEAD~2 src/a.py").unwrap();
        assert_eq!(o.targets[0].text, "src/a.py");
        assert!(git("restore -p x").unwrap().undeterminable);
        assert!(git("restore").is_none());
    }

    #[test]
    fn checkout_forms() {
        assert_eq!(
            git("checkout -- src/main.py").unwrap().targets[0].text,
            "src/main.py"
        );
        assert_eq!(git("checkout HEAD~1 -- a b").unwrap().targets.len(), 2);
        assert!(git("checkout .").is_some());
        assert!(git("checkout -f").is_some());
        assert!(git("checkout main").is_none());
        assert!(git("checkout -b feature").is_none());
        assert!(git("checkout -").is_none());
        assert!(git("checkout README.md").is_some());
        assert!(git("checkout -p").unwrap().undeterminable);
        assert!(git("checkout -- '*.py'").unwrap().targets[0].glob);
    }

    #[test]
    fn switch_and_rm_forms() {
        assert!(git("switch -f main").is_some());
        assert!(git("switch --discard-changes main").is_some());
        assert!(git("switch main").is_none());
        assert!(git("rm -f a.txt").is_some());
        assert!(git("rm a.txt").is_none());
        assert!(git("rm -rf --cached dir").is_none());
        assert!(git("rm -n -f a").is_none());
    }
}
