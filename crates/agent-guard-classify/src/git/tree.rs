//! The commits a git command writes into the work tree, or into `HEAD` or the index for the
//! next command to write there (issue 35): `checkout`, `switch`, `reset REV`, `restore
//! --source`, `rm`, `read-tree` and `stash apply|pop|branch` here; `merge`, `pull`, `rebase`, `cherry-pick` and `revert` in
//! [`history`].
//!
//! Each becomes a [`TreeSource`] of the command's op, so that the world can compare the hook
//! files of that commit with the work tree's and the policy refuse a branch that carries a
//! different one. A command that destroys nothing by itself (`git checkout main`) gets an
//! op of its own, [`OpKind::GitMoveWorkTree`]; one that already has an op (`git reset --hard
//! REV`, `git checkout REV -- paths`, `git stash pop`) carries its sources on that op.
//!
//! Options git does not know make git refuse the whole command, so they are skipped here:
//! what remains is what git would run.

mod history;

use agent_guard_types::{OpKind, OpSpec, Target, TreePart, TreeSource};

use super::{git_op, pathspec};
use crate::args::Arg;
use crate::getopt::{self, Item, Opt, Order};

/// What a git command writes into the work tree: the commits, and the pathspecs that limit
/// the [`TreeSource::limited`] ones.
#[derive(Debug, Default)]
pub(super) struct Moved {
    sources: Vec<TreeSource>,
    paths: Vec<Target>,
}

impl Moved {
    /// One source, not limited.
    fn whole(source: TreeSource) -> Moved {
        Moved {
            sources: vec![source],
            paths: Vec::new(),
        }
    }

    /// One source limited to `paths`.
    fn limited(source: TreeSource, paths: Vec<Target>) -> Moved {
        Moved {
            sources: vec![source.limited()],
            paths,
        }
    }
}

/// Gives `op` (the op of `git <sub> <rest>`, if it has one) the commits the command writes
/// into the work tree; a command without an op that writes one gets a
/// [`OpKind::GitMoveWorkTree`] op. `refs_made`: an earlier command of the line may have
/// made or moved the refs they name.
pub(super) fn attach(
    sub: &str,
    rest: &[Arg],
    op: Option<OpSpec>,
    refs_made: bool,
) -> Option<OpSpec> {
    let Some(mut moved) = read(sub, rest).filter(|moved| !moved.sources.is_empty()) else {
        return op;
    };
    for source in &mut moved.sources {
        source.made_earlier = refs_made;
    }
    let mut op = op.unwrap_or_else(|| {
        let mut op = git_op(OpKind::GitMoveWorkTree);
        op.targets = moved.paths;
        op.note(format!(
            "git {sub} writes another commit's files into the work tree"
        ));
        op
    });
    op.tree_sources = moved.sources;
    Some(op)
}

/// What `git <sub> <rest>` writes into the work tree, if anything.
fn read(sub: &str, rest: &[Arg]) -> Option<Moved> {
    match sub {
        "checkout" => checkout(rest),
        "switch" => switch(rest),
        "reset" => reset(rest),
        "restore" => restore(rest),
        "rm" => rm(rest),
        "read-tree" => read_tree(rest),
        "stash" => stash(rest),
        "merge" => history::merge(rest),
        "pull" => Some(history::pull(rest)),
        "rebase" => history::rebase(rest),
        "cherry-pick" | "revert" => history::pick(rest),
        _ => None,
    }
}

/// A revision as git reads it from the command line: `-` is the branch checked out before
/// (`@{-1}`); one the shell does not spell literally, or with wildcards, is not literal.
pub(super) fn revision(arg: &Arg) -> Target {
    let mut target = arg.target();
    if target.text == "-" && target.opaque.is_none() {
        "@{-1}".clone_into(&mut target.text);
    }
    if target.glob && target.opaque.is_none() {
        target.opaque = Some("a revision with wildcards".to_owned());
    }
    target
}

/// A revision given as an option's value (`--source=REV`, `--onto REV`).
pub(super) fn value_revision(value: Option<&Arg>, attached: Option<&str>) -> Option<Target> {
    match (value, attached) {
        (_, Some(text)) => Some(Target::literal(text)),
        (Some(arg), None) => Some(revision(arg)),
        (None, None) => None,
    }
}

/// The options found: name, separate value, attached value.
pub(super) type Found<'a> = Vec<(&'static str, Option<&'a Arg>, Option<String>)>;

/// The options (name, separate value, attached value) and operands of `args` read with
/// `opts`; options git does not know are dropped (git refuses them).
pub(super) fn options<'a>(args: &'a [Arg], opts: &[Opt]) -> (Found<'a>, Vec<&'a Arg>) {
    let (items, rest) = getopt::parse(args, opts, Order::Permute);
    let mut found = Vec::new();
    let mut operands = Vec::new();
    for item in items {
        match item {
            Item::Opt {
                name,
                value,
                attached,
            } => found.push((name, value, attached)),
            Item::Operand(arg) => operands.push(arg),
            _ => {}
        }
    }
    operands.extend(&args[rest..]);
    (found, operands)
}

/// `args` split at the first `--`: before it, and the pathspecs after it.
fn split_dashes(args: &[Arg]) -> (&[Arg], Option<&[Arg]>) {
    match args.iter().position(|a| a.known() == Some("--")) {
        Some(at) => (&args[..at], Some(&args[at + 1..])),
        None => (args, None),
    }
}

/// Whether `name` is among the options found.
fn has(found: &Found<'_>, name: &str) -> bool {
    found.iter().any(|(n, _, _)| *n == name)
}

/// `git checkout BRANCH`, `-b NEW START`, `--orphan NEW START`, `--detach REV`: the whole
/// tree of the commit; `git checkout REV -- paths` and `git checkout REV paths`: that
/// commit's files at the paths. A lone name may be a remote branch git starts a local one
/// from (`--guess`, the default). `-p` and `--pathspec-from-file` are the discard's to
/// refuse; `-- paths` alone and `-b NEW` alone write no other commit.
fn checkout(args: &[Arg]) -> Option<Moved> {
    let (before, after) = split_dashes(args);
    let (found, operands) = options(before, super::discard::CHECKOUT);
    if has(&found, "patch") || has(&found, "from-file") {
        return None;
    }
    let first = operands.first()?;
    let source = TreeSource::new(revision(first), TreePart::Whole);
    if let Some(paths) = after {
        return Some(Moved::limited(source, paths.iter().map(pathspec).collect()));
    }
    let starts = ["branch", "force-branch", "orphan", "detach"]
        .iter()
        .any(|name| has(&found, name));
    if operands.len() > 1 && !starts {
        // `git checkout <tree-ish> <paths…>`
        return Some(Moved::limited(
            source,
            operands[1..].iter().copied().map(pathspec).collect(),
        ));
    }
    Some(Moved::whole(TreeSource {
        guess: !starts && !has(&found, "no-guess"),
        ..source
    }))
}

/// `git switch BRANCH`, `-c NEW START`, `--detach REV`: the whole tree of the commit (a lone
/// name may be a remote branch, as for checkout); `--orphan NEW`: the empty tree, every
/// tracked file removed.
fn switch(args: &[Arg]) -> Option<Moved> {
    let (found, operands) = options(args, super::discard::SWITCH);
    if has(&found, "orphan") {
        return Some(Moved::whole(TreeSource::empty_tree()));
    }
    let first = operands.first()?;
    let starts = ["create", "force-branch", "detach"]
        .iter()
        .any(|name| has(&found, name));
    Some(Moved::whole(TreeSource {
        guess: !starts && !has(&found, "no-guess"),
        ..TreeSource::new(revision(first), TreePart::Whole)
    }))
}

/// `git reset [--hard|--keep|--merge|--soft|--mixed] REV`: the whole tree of REV (without
/// REV, `HEAD`: no other commit); `git reset REV [--] paths`: REV's files at the paths.
/// `--soft` and `--mixed` leave the work tree but move `HEAD` or the index to REV, which the
/// next `git reset --hard`, `git checkout -- .` or `git stash` writes into it: they count
/// as well.
fn reset(args: &[Arg]) -> Option<Moved> {
    const RESET: &[Opt] = &[
        Opt::flag("n", None, Some("hard")),
        Opt::flag("n", None, Some("keep")),
        Opt::flag("n", None, Some("merge")),
        Opt::flag("n", None, Some("soft")),
        Opt::flag("n", None, Some("mixed")),
        Opt::flag("patch", Some('p'), Some("patch")),
        Opt::value("n", None, Some("pathspec-from-file")),
        Opt::flag("n", None, Some("pathspec-file-nul")),
        Opt::flag("n", Some('q'), Some("quiet")),
        Opt::flag("n", None, Some("recurse-submodules")),
        Opt::flag("n", None, Some("no-recurse-submodules")),
        Opt::flag("n", None, Some("no-refresh")),
        Opt::flag("n", None, Some("refresh")),
    ];
    let (before, after) = split_dashes(args);
    let (found, operands) = options(before, RESET);
    if has(&found, "patch") {
        return None;
    }
    let first = operands.first()?;
    let source = TreeSource::new(revision(first), TreePart::Whole);
    let mut paths: Vec<Target> = operands[1..].iter().copied().map(pathspec).collect();
    paths.extend(after.unwrap_or_default().iter().map(pathspec));
    Some(if paths.is_empty() {
        Moved::whole(source)
    } else {
        Moved::limited(source, paths)
    })
}

/// `git restore --source REV paths`: REV's files at the paths (with `--staged` only in the
/// index, which the next `git restore paths` writes into the work tree: it counts as well).
fn restore(args: &[Arg]) -> Option<Moved> {
    let (before, after) = split_dashes(args);
    let (found, mut operands) = options(before, super::discard::RESTORE);
    let source = found.iter().find_map(|(name, value, attached)| {
        (*name == "source")
            .then(|| value_revision(*value, attached.as_deref()))
            .flatten()
    })?;
    operands.extend(after.unwrap_or_default());
    let mut paths: Vec<Target> = operands.into_iter().map(pathspec).collect();
    if has(&found, "from-file") {
        paths.push(from_file());
    }
    Some(Moved::limited(
        TreeSource::new(source, TreePart::Whole),
        paths,
    ))
}

/// `git rm paths` (not `--cached`, not `-n`): the tracked files at the paths go, as if the
/// empty tree were checked out there.
fn rm(args: &[Arg]) -> Option<Moved> {
    let (before, after) = split_dashes(args);
    let (found, mut operands) = options(before, super::discard::RM);
    if has(&found, "cached") || has(&found, "dry-run") {
        return None;
    }
    operands.extend(after.unwrap_or_default());
    let mut paths: Vec<Target> = operands.into_iter().map(pathspec).collect();
    if has(&found, "from-file") {
        paths.push(from_file());
    }
    (!paths.is_empty()).then(|| Moved::limited(TreeSource::empty_tree(), paths))
}

/// A pathspec read from a file (`--pathspec-from-file`): any path.
fn from_file() -> Target {
    Target {
        opaque: Some("pathspecs read from a file".to_owned()),
        ..Target::literal("<pathspec-from-file>")
    }
}

/// `git read-tree [-u] [-m | --reset] TREE…`: each tree's files (the last one is what a
/// two-way merge ends at; a three-way merge is counted by every tree, more than it writes).
/// Without `-u` only the index changes, which the next `git checkout -- .` writes into the
/// work tree: it counts as well.
fn read_tree(args: &[Arg]) -> Option<Moved> {
    let (found, trees) = options(args, super::discard::READ_TREE);
    if has(&found, "dry-run") {
        return None;
    }
    let prefix = has(&found, "prefix");
    let sources = trees.into_iter().map(|tree| {
        let mut tree = revision(tree);
        if prefix {
            // The tree lands below a directory it names: its paths are not the commit's.
            tree.opaque = Some("git read-tree --prefix places a tree elsewhere".to_owned());
        }
        TreeSource::new(tree, TreePart::Whole)
    });
    Some(Moved {
        sources: sources.collect(),
        paths: Vec::new(),
    })
}

/// `git stash apply|pop [--index] [-q] [ENTRY]`: the entry's changes (`stash@{0}` when none
/// is named; a number `N` is `stash@{N}`); `git stash branch NAME [ENTRY]` also checks out
/// the commit the entry was made on.
fn stash(args: &[Arg]) -> Option<Moved> {
    const APPLY: &[Opt] = &[
        Opt::flag("n", None, Some("index")),
        Opt::flag("n", Some('q'), Some("quiet")),
    ];
    let sub = args.first()?.known()?;
    let (_, operands) = options(&args[1..], APPLY);
    let entry = match sub {
        "apply" | "pop" => operands.first(),
        "branch" => operands.get(1),
        _ => return None,
    };
    let entry = entry.map_or_else(|| Target::literal("stash@{0}"), |arg| revision(arg));
    let entry = if entry.opaque.is_none() && entry.text.bytes().all(|b| b.is_ascii_digit()) {
        Target::literal(format!("stash@{{{}}}", entry.text))
    } else {
        entry
    };
    let mut moved = Moved::whole(TreeSource::new(entry.clone(), TreePart::Stash));
    if sub == "branch" {
        let base = Target {
            text: format!("{}^", entry.text),
            ..entry
        };
        moved.sources.push(TreeSource::new(base, TreePart::Whole));
    }
    Some(moved)
}

#[cfg(test)]
mod tests {
    use agent_guard_types::{OpKind, TreePart, TreeSource};

    use super::super::tests::git;

    /// The sources of `line` as (rev, part, limited, guess), and the op's kind.
    pub(crate) fn sources(line: &str) -> (OpKind, Vec<(String, TreePart, bool, bool)>) {
        let op = git(line).unwrap_or_else(|| panic!("`{line}` has no op"));
        let shown = op
            .tree_sources
            .iter()
            .map(|s: &TreeSource| {
                let rev = s.rev.as_ref().map_or_else(
                    || "<empty>".to_owned(),
                    |t| match &t.opaque {
                        Some(_) => "<opaque>".to_owned(),
                        None => t.text.clone(),
                    },
                );
                (rev, s.part, s.limited, s.guess)
            })
            .collect();
        (op.kind, shown)
    }

    fn one(line: &str) -> (String, TreePart, bool, bool) {
        let (_, found) = sources(line);
        assert_eq!(found.len(), 1, "{line}: {found:?}");
        found.into_iter().next().unwrap()
    }

    #[test]
    fn checkout_and_switch() {
        use TreePart::Whole;
        assert_eq!(sources("checkout evil").0, OpKind::GitMoveWorkTree);
        assert_eq!(one("checkout evil"), ("evil".into(), Whole, false, true));
        assert_eq!(
            one("checkout --no-guess evil"),
            ("evil".into(), Whole, false, false)
        );
        assert_eq!(one("checkout -"), ("@{-1}".into(), Whole, false, true));
        assert_eq!(
            one("checkout -b x evil"),
            ("evil".into(), Whole, false, false)
        );
        assert_eq!(
            one("checkout --orphan x evil"),
            ("evil".into(), Whole, false, false)
        );
        assert_eq!(
            one("checkout --detach evil"),
            ("evil".into(), Whole, false, false)
        );
        assert_eq!(
            one("checkout -q -f evil"),
            ("evil".into(), Whole, false, true)
        );
        assert_eq!(sources("checkout -f evil").0, OpKind::GitDiscard);
        let (kind, found) = sources("checkout evil -- .claude");
        assert_eq!(kind, OpKind::GitDiscard);
        assert_eq!(found, [("evil".into(), Whole, true, false)]);
        assert_eq!(
            one("checkout evil src"),
            ("evil".into(), Whole, true, false)
        );
        assert!(git("checkout -b x").is_none());
        assert!(git("checkout --orphan x").is_none());
        assert!(sources("checkout -- .claude").1.is_empty());
        assert!(sources("checkout -p evil").1.is_empty());
        assert_eq!(one("switch evil"), ("evil".into(), Whole, false, true));
        assert_eq!(
            one("switch -c x evil"),
            ("evil".into(), Whole, false, false)
        );
        assert_eq!(
            one("switch --detach evil"),
            ("evil".into(), Whole, false, false)
        );
        assert_eq!(
            one("switch --orphan x"),
            ("<empty>".into(), Whole, false, false)
        );
        assert!(git("switch -c x").is_none());
        assert_eq!(sources("switch -C x evil").0, OpKind::GitBranchDelete);
    }

    #[test]
    fn resets_restores_and_removals() {
        use TreePart::{Stash, Whole};
        assert_eq!(sources("reset --hard evil").0, OpKind::GitResetHard);
        assert_eq!(
            one("reset --hard evil"),
            ("evil".into(), Whole, false, false)
        );
        assert!(sources("reset --hard").1.is_empty());
        assert_eq!(sources("reset --keep evil").0, OpKind::GitMoveWorkTree);
        assert_eq!(
            one("reset --merge evil"),
            ("evil".into(), Whole, false, false)
        );
        assert_eq!(
            one("reset --soft evil"),
            ("evil".into(), Whole, false, false)
        );
        assert_eq!(one("reset evil"), ("evil".into(), Whole, false, false));
        assert_eq!(
            one("reset evil -- .claude"),
            ("evil".into(), Whole, true, false)
        );
        assert!(git("reset").is_none());
        assert!(git("reset -p evil").is_none());
        assert_eq!(
            one("restore --source evil .claude"),
            ("evil".into(), Whole, true, false)
        );
        assert_eq!(
            one("restore -s evil -- .claude"),
            ("evil".into(), Whole, true, false)
        );
        assert!(sources("restore .claude").1.is_empty());
        assert_eq!(
            one("restore --staged --source evil x"),
            ("evil".into(), Whole, true, false)
        );
        let op = git("rm .claude/settings.json").unwrap();
        assert_eq!(op.kind, OpKind::GitMoveWorkTree);
        assert_eq!(op.targets[0].text, ".claude/settings.json");
        assert_eq!(one("rm -r .claude"), ("<empty>".into(), Whole, true, false));
        assert!(git("rm --cached .claude/settings.json").is_none());
        assert!(git("rm -n .claude/settings.json").is_none());
        assert_eq!(sources("rm -f x").0, OpKind::GitDiscard);
        assert_eq!(
            one("read-tree -m -u evil"),
            ("evil".into(), Whole, false, false)
        );
        assert_eq!(one("read-tree evil"), ("evil".into(), Whole, false, false));
        assert_eq!(
            one("read-tree --prefix=.claude/ evil"),
            ("<opaque>".into(), Whole, false, false)
        );
        assert_eq!(
            one("stash apply"),
            ("stash@{0}".into(), Stash, false, false)
        );
        assert_eq!(
            one("stash apply 2"),
            ("stash@{2}".into(), Stash, false, false)
        );
        assert_eq!(sources("stash pop").0, OpKind::GitStashDrop);
        assert_eq!(
            one("stash pop --index stash@{1}"),
            ("stash@{1}".into(), Stash, false, false)
        );
        assert_eq!(sources("stash branch b").1.len(), 2);
        assert!(git("stash list").is_none());
        assert!(sources("stash").1.is_empty());
    }
}
