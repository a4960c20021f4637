//! Commands that discard work-tree changes: `restore`, `checkout`, `switch`, `rm -f`.

use agent_guard_types::{OpKind, OpSpec};

use super::{git_op, pathspec};
use crate::args::Arg;
use crate::getopt::{self, Item, Opt, Order};

pub(super) const RESTORE: &[Opt] = &[
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

pub(super) const CHECKOUT: &[Opt] = &[
    Opt::flag("n", Some('q'), Some("quiet")),
    Opt::flag("force", Some('f'), Some("force")),
    Opt::value("branch", Some('b'), None),
    Opt::value("force-branch", Some('B'), None),
    Opt::value("orphan", None, Some("orphan")),
    Opt::flag("detach", None, Some("detach")),
    Opt::optional("n", Some('t'), Some("track")),
    Opt::flag("n", None, Some("no-track")),
    Opt::flag("n", Some('l'), None),
    Opt::flag("n", None, Some("guess")),
    Opt::flag("no-guess", None, Some("no-guess")),
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

pub(super) const SWITCH: &[Opt] = &[
    Opt::flag("force", Some('f'), Some("force")),
    Opt::flag("force", None, Some("discard-changes")),
    Opt::value("create", Some('c'), Some("create")),
    Opt::value("force-branch", Some('C'), Some("force-create")),
    Opt::flag("detach", Some('d'), Some("detach")),
    Opt::flag("n", None, Some("guess")),
    Opt::flag("no-guess", None, Some("no-guess")),
    Opt::optional("n", Some('t'), Some("track")),
    Opt::flag("n", None, Some("no-track")),
    Opt::value("orphan", None, Some("orphan")),
    Opt::flag("n", Some('m'), Some("merge")),
    Opt::value("n", None, Some("conflict")),
    Opt::flag("n", Some('q'), Some("quiet")),
    Opt::flag("n", None, Some("progress")),
    Opt::flag("n", None, Some("no-progress")),
    Opt::flag("n", None, Some("ignore-other-worktrees")),
    Opt::flag("n", None, Some("recurse-submodules")),
    Opt::flag("n", None, Some("no-recurse-submodules")),
];

pub(super) const RM: &[Opt] = &[
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
    if operands.is_empty() && !flags.contains(&"from-file") && !op.undeterminable {
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
    every_change_if_unknown(&mut op, flags.contains(&"from-file"));
    Some(op)
}

/// Pathspecs the guard cannot read (from a file, `$(…)`, spliced in by `xargs`, a wildcard git
/// expands itself) still name paths of this work tree, and git discards only tracked changes
/// under them: keeping every tracked change of the work tree (no pathspec) keeps whatever
/// they name.
fn every_change_if_unknown(op: &mut OpSpec, from_file: bool) {
    if from_file || op.targets.iter().any(|t| t.opaque.is_some() || t.glob) {
        op.targets.clear();
        op.note("its pathspecs are not known before it runs: every tracked change is kept");
    }
}

/// `checkout -f -B NAME` / `switch -C NAME --discard-changes`: beside the branch it resets,
/// the forced switch throws away local changes, all of them.
pub(super) fn forced_branch_discard(sub: &str, args: &[Arg]) -> Option<OpSpec> {
    let opts = match sub {
        "checkout" => CHECKOUT,
        "switch" => SWITCH,
        _ => return None,
    };
    let before = args
        .iter()
        .position(|a| a.known() == Some("--"))
        .map_or(args, |i| &args[..i]);
    forced_branch(before, opts)?;
    let mut op = git_op(OpKind::GitDiscard);
    let (flags, _) = scan(before, opts, &mut op, Order::Permute);
    flags.contains(&"force").then(|| {
        op.note(format!(
            "{sub} with a forced branch reset throws away local changes"
        ));
        op
    })
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
        every_change_if_unknown(&mut op, true);
        return Some(op);
    }
    if let Some(paths) = after {
        if paths.is_empty() && !flags.contains(&"force") {
            return None;
        }
        op.targets = paths.iter().map(pathspec).collect();
        // After `--` every word is a pathspec, never a branch.
        every_change_if_unknown(&mut op, false);
        return Some(op);
    }
    if let Some(name) = forced_branch(before, CHECKOUT) {
        // `-B NAME` resets NAME if it exists (local changes are kept or refused).
        return Some(name);
    }
    if flags.contains(&"branch") || flags.contains(&"orphan") {
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

/// The branch a forcing option (`checkout -B NAME`, `switch -C NAME`) resets, as a
/// branch-keeping op.
fn forced_branch(args: &[Arg], opts: &[Opt]) -> Option<OpSpec> {
    let (items, _) = getopt::parse(args, opts, Order::Permute);
    items.into_iter().find_map(|item| match item {
        Item::Opt {
            name: "force-branch",
            value,
            attached,
        } => super::history::forced_branch(value, attached),
        _ => None,
    })
}

/// `git switch -f` / `--discard-changes`; `-C NAME` resets a branch.
pub(super) fn switch(args: &[Arg]) -> Option<OpSpec> {
    if let Some(op) = forced_branch(args, SWITCH) {
        return Some(op);
    }
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

pub(super) const READ_TREE: &[Opt] = &[
    Opt::flag("m", Some('m'), None),
    Opt::flag("reset", None, Some("reset")),
    Opt::flag("u", Some('u'), None),
    Opt::flag("n", Some('i'), None),
    Opt::flag("dry-run", Some('n'), Some("dry-run")),
    Opt::flag("n", Some('v'), None),
    Opt::flag("n", Some('q'), None),
    Opt::flag("n", None, Some("trivial")),
    Opt::flag("n", None, Some("aggressive")),
    Opt::value("prefix", None, Some("prefix")),
    Opt::value("n", None, Some("index-output")),
    Opt::flag("n", None, Some("no-sparse-checkout")),
    Opt::flag("empty", None, Some("empty")),
    Opt::flag("n", None, Some("recurse-submodules")),
    Opt::flag("n", None, Some("no-recurse-submodules")),
];

/// `git read-tree -u --reset TREE` replaces the work tree with TREE, local changes and
/// colliding untracked files included, like `git reset --hard TREE` without moving `HEAD`:
/// the hard-reset kind, whose preflight checks the collisions. `read-tree -m -u` merges
/// into the work tree (git refuses to lose local changes there, but a snapshot costs
/// nothing): a discard. Without `-u` only the index changes.
pub(super) fn read_tree(args: &[Arg], wrapped: bool) -> Option<OpSpec> {
    let mut op = git_op(OpKind::GitDiscard);
    let (flags, trees) = scan(args, READ_TREE, &mut op, Order::Permute);
    if !flags.contains(&"u") || flags.contains(&"dry-run") {
        return None;
    }
    let reset = flags.contains(&"reset");
    if !reset && !flags.contains(&"m") {
        return None;
    }
    if flags.contains(&"prefix") || flags.contains(&"empty") {
        op.mark_undeterminable("git read-tree with --prefix or --empty");
    }
    if reset {
        let mut hard = git_op(OpKind::GitResetHard);
        hard.notes = op.notes;
        hard.undeterminable = op.undeterminable;
        hard.note("git read-tree -u --reset replaces the work tree like git reset --hard");
        hard.targets = trees.iter().map(|a| a.target()).collect();
        if hard.targets.len() != 1 || hard.targets.iter().any(|t| t.opaque.is_some()) {
            hard.mark_undeterminable("git read-tree --reset needs one literal tree");
        }
        if wrapped {
            hard.mark_undeterminable(
                "wrappers or assignments may change the git context of a hard reset",
            );
        }
        return Some(hard);
    }
    op.note("git read-tree -m -u merges trees into the work tree");
    Some(op)
}

const CHECKOUT_INDEX: &[Opt] = &[
    Opt::flag("force", Some('f'), Some("force")),
    Opt::flag("all", Some('a'), Some("all")),
    Opt::flag("n", Some('u'), Some("index")),
    Opt::flag("n", Some('q'), Some("quiet")),
    Opt::flag("n", Some('n'), Some("no-create")),
    Opt::flag("temp", None, Some("temp")),
    Opt::flag("stdin", None, Some("stdin")),
    Opt::flag("n", Some('z'), None),
    Opt::flag("n", None, Some("ignore-skip-worktree-bits")),
    Opt::value("prefix", None, Some("prefix")),
    Opt::value("n", None, Some("stage")),
];

/// `git checkout-index -f [-a | PATH…]` overwrites work-tree files with the index version:
/// a discard of those paths (all of them with `-a`). Without `-f` existing files are kept.
pub(super) fn checkout_index(args: &[Arg]) -> Option<OpSpec> {
    let mut op = git_op(OpKind::GitDiscard);
    let (flags, paths) = scan(args, CHECKOUT_INDEX, &mut op, Order::Permute);
    if !flags.contains(&"force") || flags.contains(&"temp") {
        return None;
    }
    if flags.contains(&"stdin") {
        op.mark_undeterminable("paths read from stdin");
    }
    if flags.contains(&"prefix") {
        op.mark_undeterminable("git checkout-index --prefix writes elsewhere");
    }
    if !flags.contains(&"all") {
        if paths.is_empty() && !op.undeterminable {
            return None;
        }
        op.targets = paths.into_iter().map(pathspec).collect();
    }
    op.note("git checkout-index -f overwrites work-tree files with the index");
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
        // Another commit's files, judged by their hook files (`tree.rs`).
        let moves = |line| git(line).unwrap().kind == agent_guard_types::OpKind::GitMoveWorkTree;
        assert!(moves("checkout main"));
        assert!(git("checkout -b feature").is_none());
        assert!(moves("checkout -"));
        assert!(git("checkout README.md").is_some());
        assert!(git("checkout -p").unwrap().undeterminable);
        // A wildcard git expands itself: every tracked change is kept.
        assert!(git("checkout -- '*.py'").unwrap().targets.is_empty());
    }

    #[test]
    fn plumbing_that_discards() {
        use agent_guard_types::OpKind;
        let o = git("read-tree -u --reset HEAD").unwrap();
        assert_eq!(o.kind, OpKind::GitResetHard);
        assert!(!o.undeterminable);
        assert_eq!(o.targets[0].text, "HEAD");
        assert!(git("read-tree --reset -u a b").unwrap().undeterminable);
        assert_eq!(
            git("read-tree -m -u HEAD").unwrap().kind,
            OpKind::GitDiscard
        );
        // Only the index: judged by the tree's hook files (`tree.rs`).
        let index_only = |line| git(line).unwrap().kind == OpKind::GitMoveWorkTree;
        assert!(index_only("read-tree HEAD"));
        assert!(index_only("read-tree --reset HEAD"));
        assert!(git("read-tree -n -u --reset HEAD").is_none());
        let o = git("checkout-index -a -f").unwrap();
        assert_eq!(o.kind, OpKind::GitDiscard);
        assert!(o.targets.is_empty());
        let o = git("checkout-index -f -- src/a.py").unwrap();
        assert_eq!(o.targets[0].text, "src/a.py");
        assert!(git("checkout-index -a").is_none());
        assert!(git("checkout-index -f --temp a").is_none());
        assert!(git("update-index --force-remove a").is_none());
        assert!(git("rm -r --cached dir").is_none());
    }

    #[test]
    fn switch_and_rm_forms() {
        assert!(git("switch -f main").is_some());
        assert!(git("switch --discard-changes main").is_some());
        assert_eq!(
            git("switch main").unwrap().kind,
            agent_guard_types::OpKind::GitMoveWorkTree
        );
        assert!(git("rm -f a.txt").is_some());
        assert_eq!(
            git("rm a.txt").unwrap().kind,
            agent_guard_types::OpKind::GitMoveWorkTree
        );
        assert!(git("rm -rf --cached dir").is_none());
        assert!(git("rm -n -f a").is_none());
    }
}
