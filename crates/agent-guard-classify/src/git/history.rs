//! Commands that delete or move refs and the history only they reach: `update-ref`,
//! `tag -d`/`-f`, `reflog expire|delete`, `gc --prune=…`, `prune`, `repack -a -d`,
//! `symbolic-ref`, `filter-repo`.
//!
//! A branch deleted or overwritten through `update-ref refs/heads/…` is the branch-keeping
//! kind, and a tag or other full ref deleted or moved (`tag -d`, `tag -f`, `update-ref
//! [-d] refs/…`) is `git-ref-delete`: `SNAPSHOT_GIT_REFS` keeps what it pointed to first.
//! `reflog expire|delete` is `git-reflog-expire`: every reflog is kept, with its commits.
//! `symbolic-ref` (and `update-ref HEAD`) is `git-symbolic-ref`: the link and the ref it
//! names are kept. The others (pruning, `filter-repo`, a reflog op that also moves the ref)
//! have no compensation yet: they are unknown ops whose note names what would be lost.

use agent_guard_types::{OpKind, OpSpec, Target};

use super::config::Disarmed;
use super::git_op;
use crate::args::Arg;
use crate::getopt::{self, Item, Opt, Order};

/// An unknown git op: `what` would be lost, and nothing keeps it yet.
fn lost(what: String) -> OpSpec {
    let mut op = git_op(OpKind::Unknown);
    op.mark_undeterminable(what);
    op
}

fn names(args: &[&Arg]) -> String {
    args.iter()
        .map(|a| a.known().unwrap_or("<not literal>"))
        .collect::<Vec<_>>()
        .join(" ")
}

const UPDATE_REF: &[Opt] = &[
    Opt::flag("delete", Some('d'), Some("delete")),
    Opt::value("m", Some('m'), None),
    Opt::flag("no-deref", None, Some("no-deref")),
    Opt::flag("n", None, Some("create-reflog")),
    Opt::flag("stdin", None, Some("stdin")),
    Opt::flag("n", Some('z'), None),
    Opt::flag("n", None, Some("batch-updates")),
];

/// `git update-ref [-d] REF [NEW [OLD]]`, `--stdin`.
pub(super) fn update_ref(args: &[Arg]) -> Option<OpSpec> {
    let (items, _) = getopt::parse(args, UPDATE_REF, Order::Permute);
    let mut delete = false;
    let mut no_deref = false;
    let mut refs = Vec::new();
    for item in &items {
        match item {
            Item::Opt { name: "delete", .. } => delete = true,
            Item::Opt {
                name: "no-deref", ..
            } => no_deref = true,
            Item::Opt { name: "stdin", .. } => {
                return Some(lost(
                    "git update-ref --stdin reads ref updates from stdin: which refs move or go is unknown"
                        .to_owned(),
                ));
            }
            Item::Operand(arg) => refs.push(*arg),
            _ => {}
        }
    }
    let name = refs.first()?;
    if !delete {
        refs.get(1)?;
    }
    let verb = if delete { "deletes" } else { "moves" };
    match name.known() {
        Some(text) if text.starts_with("refs/heads/") => {
            let mut op = git_op(OpKind::GitBranchDelete);
            op.targets.push(name.target());
            op.note(format!("git update-ref {verb} the branch"));
            Some(op)
        }
        // Any other full ref: a tag, a note, a remote-tracking ref.
        Some(text) if text.starts_with("refs/") => {
            let mut op = git_op(OpKind::GitRefDelete);
            op.targets.push(name.target());
            op.note(format!("git update-ref {verb} {text}"));
            Some(op)
        }
        // `HEAD` moves or deletes the branch it names (or, detached or with `--no-deref`,
        // itself): the link and that branch are kept.
        // `--no-deref -d HEAD` deletes `.git/HEAD`: the directory is no longer a repository,
        // which nothing could open to restore it.
        Some("HEAD") if delete && no_deref => Some(lost(
            "git update-ref --no-deref -d HEAD deletes HEAD itself: the directory stops being a \
             repository"
                .to_owned(),
        )),
        Some("HEAD") => {
            let mut op = git_op(OpKind::GitSymbolicRef);
            op.targets.push(Target::literal("HEAD"));
            op.note(format!("git update-ref {verb} HEAD or the branch it names"));
            Some(op)
        }
        // `MERGE_HEAD`, a short name git resolves itself: not placed here.
        _ => Some(lost(format!(
            "git update-ref {verb} {}: what it pointed to would be lost (no ref-keeping compensation for that name)",
            names(&refs[..1])
        ))),
    }
}

const TAG: &[Opt] = &[
    Opt::flag("delete", Some('d'), Some("delete")),
    Opt::flag("force", Some('f'), Some("force")),
    Opt::flag("n", Some('a'), Some("annotate")),
    Opt::flag("n", Some('s'), Some("sign")),
    Opt::flag("n", Some('v'), Some("verify")),
    Opt::flag("n", Some('l'), Some("list")),
    Opt::flag("n", Some('e'), Some("edit")),
    Opt::flag("n", Some('i'), Some("ignore-case")),
    Opt::optional("n", Some('n'), None),
    Opt::value("n", Some('m'), Some("message")),
    Opt::value("n", Some('F'), Some("file")),
    Opt::value("n", Some('u'), Some("local-user")),
    Opt::value("n", None, Some("contains")),
    Opt::value("n", None, Some("no-contains")),
    Opt::value("n", None, Some("points-at")),
    Opt::value("n", None, Some("merged")),
    Opt::value("n", None, Some("no-merged")),
    Opt::value("n", None, Some("sort")),
    Opt::value("n", None, Some("format")),
    Opt::value("n", None, Some("cleanup")),
    Opt::optional("n", None, Some("column")),
    Opt::optional("n", None, Some("color")),
    Opt::flag("n", None, Some("create-reflog")),
    Opt::flag("n", None, Some("no-sign")),
    Opt::value("n", None, Some("trailer")),
];

/// `git tag -d NAME…` deletes tags; `git tag -f NAME [COMMIT]` moves an existing one.
pub(super) fn tag(args: &[Arg]) -> Option<OpSpec> {
    let (items, _) = getopt::parse(args, TAG, Order::Permute);
    let has = |n: &str| {
        items
            .iter()
            .any(|i| matches!(i, Item::Opt { name, .. } if *name == n))
    };
    let tags: Vec<&Arg> = items
        .iter()
        .filter_map(|i| match i {
            Item::Operand(a) => Some(*a),
            _ => None,
        })
        .collect();
    if tags.is_empty() {
        return None;
    }
    // `tag -d` deletes every named tag; `tag -f NAME [OBJECT]` moves the one it names.
    let named: &[&Arg] = if has("delete") {
        &tags
    } else if has("force") {
        &tags[..1]
    } else {
        return None;
    };
    let mut op = git_op(OpKind::GitRefDelete);
    for tag in named {
        match tag.known() {
            Some(name) => op
                .targets
                .push(Target::literal(format!("refs/tags/{name}"))),
            // A name built at run time: every tag is kept.
            None if !op.targets.iter().any(|t| t.text == "refs/tags/") => {
                op.targets.push(Target::literal("refs/tags/"));
            }
            None => {}
        }
    }
    if op.targets.iter().any(|t| t.text == "refs/tags/") {
        op.targets.retain(|t| t.text == "refs/tags/");
    }
    op.note(if has("delete") {
        "git tag -d deletes the tags (an annotated tag object is kept with its ref)"
    } else {
        "git tag -f moves the tag if it exists"
    });
    Some(op)
}

/// `git reflog expire|delete …` drop reflog entries (`--dry-run`/`-n` only reports).
pub(super) fn reflog(args: &[Arg]) -> Option<OpSpec> {
    let sub = args.first()?.known()?;
    if !matches!(sub, "expire" | "delete") {
        return None;
    }
    if args[1..]
        .iter()
        .any(|a| matches!(a.known(), Some("-n" | "--dry-run")))
    {
        return None;
    }
    // `--updateref` (and `--rewrite`) also move the ref itself, which keeping the reflogs
    // does not put back.
    if args[1..]
        .iter()
        .any(|a| matches!(a.known(), Some("--updateref" | "--rewrite")))
    {
        return Some(lost(format!(
            "git reflog {sub} --updateref/--rewrite also moves the ref (no compensation for that)"
        )));
    }
    let mut op = git_op(OpKind::GitReflogExpire);
    op.note(format!(
        "git reflog {sub} drops reflog entries: every reflog is kept, with its commits"
    ));
    Some(op)
}

/// `git gc --prune=<date>` prunes unreachable objects younger than the default two weeks;
/// so does any gc after the line shortened `gc.pruneExpire`.
pub(super) fn gc(args: &[Arg], disarmed: Disarmed) -> Option<OpSpec> {
    let prune = args
        .iter()
        .filter_map(Arg::known)
        .find_map(|t| t.strip_prefix("--prune="));
    if let Some(when) = prune {
        return Some(lost(format!(
            "git gc --prune={when} deletes unreachable objects now: dropped commits and stashes would be lost (no ref-keeping compensation yet)"
        )));
    }
    disarmed.prune.then(|| {
        lost(
            "git gc after the line changed gc.pruneExpire or a reflog expiry: unreachable objects may be deleted now (no ref-keeping compensation yet)"
                .to_owned(),
        )
    })
}

/// `git prune` deletes every unreachable loose object (unless `--expire` limits it).
pub(super) fn prune(args: &[Arg]) -> Option<OpSpec> {
    if args
        .iter()
        .any(|a| matches!(a.known(), Some("-n" | "--dry-run")))
    {
        return None;
    }
    Some(lost(
        "git prune deletes unreachable objects: dropped commits and stashes would be lost (no ref-keeping compensation yet)"
            .to_owned(),
    ))
}

/// `git repack -a -d` drops unreachable objects that were packed (`-A` or `-k` keep them).
pub(super) fn repack(args: &[Arg]) -> Option<OpSpec> {
    let mut all = false;
    let mut delete = false;
    let mut keep = false;
    for text in args.iter().filter_map(Arg::known) {
        match text {
            "--keep-unreachable" | "--cruft" | "--pack-kept-objects" => keep = true,
            "-n" => return None,
            _ if text.starts_with('-') && !text.starts_with("--") => {
                all |= text.contains('a');
                delete |= text.contains('d');
                keep |= text.contains('A') || text.contains('k');
            }
            _ => {}
        }
    }
    (all && delete && !keep).then(|| {
        lost(
            "git repack -a -d drops unreachable packed objects: dropped commits would be lost (no ref-keeping compensation yet)"
                .to_owned(),
        )
    })
}

const SYMBOLIC_REF: &[Opt] = &[
    Opt::flag("delete", Some('d'), Some("delete")),
    Opt::value("n", Some('m'), None),
    Opt::flag("n", Some('q'), Some("quiet")),
    Opt::flag("n", None, Some("short")),
    Opt::flag("n", None, Some("recurse")),
    Opt::flag("n", None, Some("no-recurse")),
];

/// `git symbolic-ref NAME REF` points `NAME` elsewhere, `git symbolic-ref -d NAME` deletes
/// it; with one operand and no `-d` it only reads.
pub(super) fn symbolic_ref(args: &[Arg]) -> Option<OpSpec> {
    let (items, _) = getopt::parse(args, SYMBOLIC_REF, Order::Permute);
    let delete = items
        .iter()
        .any(|i| matches!(i, Item::Opt { name: "delete", .. }));
    let names: Vec<&Arg> = items
        .iter()
        .filter_map(|i| match i {
            Item::Operand(a) => Some(*a),
            _ => None,
        })
        .collect();
    let name = names.first()?;
    if !delete && names.len() < 2 {
        return None;
    }
    let mut op = git_op(OpKind::GitSymbolicRef);
    op.targets.push(name.target());
    if name.known().is_none() {
        op.mark_undeterminable("git symbolic-ref names a ref that is not literal");
    }
    op.note(if delete {
        "git symbolic-ref -d deletes the symbolic ref: the ref it names is kept"
    } else {
        "git symbolic-ref points the ref elsewhere: what it names now is kept"
    });
    Some(op)
}

/// `git filter-branch` rewrites the refs it is given and, with `-f`, replaces the backup
/// under `refs/original/` it made the time before: beside the checkpoint of what its filters
/// do, every ref is kept (issue 37, point 1).
pub(super) fn filter_branch_refs(sub: &str, args: &[Arg]) -> Option<OpSpec> {
    if sub != "filter-branch"
        || args
            .iter()
            .any(|a| matches!(a.known(), Some("-h" | "--help")))
    {
        return None;
    }
    let mut op = git_op(OpKind::GitRefDelete);
    op.targets.push(Target::literal("refs/"));
    op.note("git filter-branch rewrites refs and replaces refs/original/: every ref is kept");
    Some(op)
}

/// `git filter-repo` rewrites every ref and expires the reflogs: the old history goes.
pub(super) fn filter_repo(args: &[Arg]) -> Option<OpSpec> {
    if args
        .iter()
        .filter_map(Arg::known)
        .any(|t| matches!(t, "--analyze" | "--dry-run" | "-h" | "--help" | "--version"))
    {
        return None;
    }
    Some(lost(
        "git filter-repo rewrites every ref and expires the reflogs: the old history would be lost (no ref-keeping compensation yet)"
            .to_owned(),
    ))
}

/// A branch named by `git checkout -B NAME` or `git switch -C NAME` (the value as an
/// argument, or attached): reset if it exists.
pub(super) fn forced_branch(value: Option<&Arg>, attached: Option<String>) -> Option<OpSpec> {
    let target = match (value, attached) {
        (_, Some(text)) => Target::literal(text),
        (Some(arg), None) => arg.target(),
        (None, None) => return None,
    };
    let mut op = git_op(OpKind::GitBranchDelete);
    // A name built at run time: every branch is kept.
    op.targets.push(if target.opaque.is_some() {
        Target::literal("refs/heads/")
    } else {
        target
    });
    op.note("resets the branch if it exists");
    Some(op)
}

#[cfg(test)]
mod tests {
    use super::super::tests::git;
    use agent_guard_types::OpKind;

    fn kind(line: &str) -> Option<OpKind> {
        git(line).map(|o| o.kind)
    }

    #[test]
    fn deleted_and_moved_refs_are_kept() {
        let targets = |line: &str| {
            let op = git(line).unwrap_or_else(|| panic!("{line}"));
            assert!(!op.undeterminable, "{line}");
            (
                op.kind,
                op.targets
                    .iter()
                    .map(|t| t.text.clone())
                    .collect::<Vec<_>>(),
            )
        };
        assert_eq!(
            targets("update-ref -d refs/heads/x"),
            (OpKind::GitBranchDelete, vec!["refs/heads/x".to_owned()])
        );
        assert_eq!(
            targets("update-ref --delete refs/tags/v1"),
            (OpKind::GitRefDelete, vec!["refs/tags/v1".to_owned()])
        );
        assert_eq!(
            targets("update-ref refs/notes/commits HEAD").0,
            OpKind::GitRefDelete
        );
        assert_eq!(
            targets("tag --delete v1 v2"),
            (
                OpKind::GitRefDelete,
                vec!["refs/tags/v1".to_owned(), "refs/tags/v2".to_owned()]
            )
        );
        assert_eq!(
            targets("tag -f v1.0 HEAD~2").1,
            vec!["refs/tags/v1.0".to_owned()]
        );
        assert_eq!(kind("tag v1.0"), None, "a new tag drops nothing");
        for line in [
            "reflog expire --expire=now --all",
            "reflog expire --expire-unreachable=now --all",
            "reflog delete HEAD@{1}",
            "reflog delete refs/heads/main@{2}",
        ] {
            assert_eq!(kind(line), Some(OpKind::GitReflogExpire), "{line}");
        }
    }

    #[test]
    fn ref_deletion_is_unknown_until_kept() {
        for line in [
            "update-ref --stdin",
            "update-ref --no-deref -d HEAD",
            "reflog delete --updateref HEAD@{0}",
            "reflog expire --rewrite --all",
            "gc --prune=now",
            "gc --prune=all --aggressive",
            "prune",
            "prune --expire=now",
            "repack -a -d",
            "repack -adf",
            "filter-repo --path src",
        ] {
            let op = git(line).unwrap_or_else(|| panic!("{line}"));
            assert_eq!(op.kind, OpKind::Unknown, "{line}");
            assert!(op.undeterminable, "{line}");
        }
    }

    #[test]
    fn harmless_forms() {
        for line in [
            "tag",
            "tag -l",
            "tag v1.0",
            "tag -a v1.0 -m release",
            "tag -m -d v1",
            "reflog",
            "reflog show",
            "reflog expire -n --all",
            "gc",
            "gc --aggressive",
            "prune -n",
            "repack -a -d -k",
            "repack -A -d",
            "repack -d",
            "symbolic-ref HEAD",
            "symbolic-ref --short -q HEAD",
            "symbolic-ref -m why HEAD",
            "update-ref refs/heads/x",
            "filter-repo --analyze",
        ] {
            assert_eq!(kind(line), None, "{line}");
        }
    }

    #[test]
    fn symbolic_refs_are_kept() {
        for (line, name) in [
            ("symbolic-ref HEAD refs/heads/main", "HEAD"),
            ("symbolic-ref -m why HEAD refs/heads/x", "HEAD"),
            (
                "symbolic-ref -d refs/remotes/origin/HEAD",
                "refs/remotes/origin/HEAD",
            ),
            ("symbolic-ref --delete -q refs/x", "refs/x"),
            ("update-ref HEAD HEAD~1", "HEAD"),
            ("update-ref -d HEAD", "HEAD"),
            ("update-ref --no-deref HEAD HEAD~1", "HEAD"),
        ] {
            let op = git(line).unwrap_or_else(|| panic!("{line}"));
            assert_eq!(op.kind, OpKind::GitSymbolicRef, "{line}");
            assert!(!op.undeterminable, "{line}");
            assert_eq!(op.targets[0].text, name, "{line}");
        }
    }

    #[test]
    fn branch_overwrites_are_kept() {
        let op = git("update-ref refs/heads/main HEAD~3").unwrap();
        assert_eq!(op.kind, OpKind::GitBranchDelete);
        assert_eq!(op.targets[0].text, "refs/heads/main");
        let op = git("checkout -B main origin/main").unwrap();
        assert_eq!(op.kind, OpKind::GitBranchDelete);
        assert_eq!(op.targets[0].text, "main");
        let op = git("switch -C topic").unwrap();
        assert_eq!(op.targets[0].text, "topic");
    }
}
