//! The commits `merge`, `pull`, `rebase`, `cherry-pick` and `revert` write into the work tree.

use agent_guard_types::{Target, TreePart, TreeSource};

use super::{Moved, has, options, revision, value_revision};
use crate::args::Arg;
use crate::getopt::Opt;

/// The options of `merge` (and those `pull` passes on to it) that take a value, and the
/// ones that stop or resume a merge instead of starting one.
const MERGE: &[Opt] = &[
    Opt::value("n", Some('m'), Some("message")),
    Opt::value("n", Some('F'), Some("file")),
    Opt::value("n", Some('s'), Some("strategy")),
    Opt::value("n", Some('X'), Some("strategy-option")),
    Opt::value("n", None, Some("into-name")),
    Opt::value("n", None, Some("cleanup")),
    Opt::optional("n", Some('S'), Some("gpg-sign")),
    Opt::optional("n", None, Some("log")),
    Opt::flag("n", Some('n'), None),
    Opt::flag("n", Some('e'), Some("edit")),
    Opt::flag("n", Some('q'), Some("quiet")),
    Opt::flag("n", Some('v'), Some("verbose")),
    Opt::flag("stops", None, Some("abort")),
    Opt::flag("stops", None, Some("quit")),
    Opt::flag("stops", None, Some("continue")),
];

/// `git merge [REV…]`: what each side brings since the merge base; without a revision, the
/// branch's upstream (`merge.defaultToUpstream`). `--abort`, `--quit` and `--continue` bring
/// nothing new.
pub(super) fn merge(args: &[Arg]) -> Option<Moved> {
    let (found, operands) = options(args, MERGE);
    if has(&found, "stops") {
        return None;
    }
    let revisions = if operands.is_empty() {
        vec![Target::literal("@{u}")]
    } else {
        operands.into_iter().map(revision).collect()
    };
    Some(Moved {
        sources: revisions
            .into_iter()
            .map(|rev| TreeSource::new(rev, TreePart::Merged))
            .collect(),
        paths: Vec::new(),
    })
}

/// The options of `pull` that take a value (its own, the fetch's and the merge's), and how
/// it integrates.
const PULL: &[Opt] = &[
    Opt::optional("rebase", None, Some("rebase")),
    Opt::flag("rebase", Some('r'), None),
    Opt::flag("no-rebase", None, Some("no-rebase")),
    Opt::value("n", None, Some("depth")),
    Opt::value("n", None, Some("deepen")),
    Opt::value("n", None, Some("shallow-since")),
    Opt::value("n", None, Some("shallow-exclude")),
    Opt::value("n", Some('j'), Some("jobs")),
    Opt::value("n", None, Some("upload-pack")),
    Opt::value("n", Some('o'), Some("server-option")),
    Opt::value("n", None, Some("negotiation-tip")),
    Opt::value("n", Some('s'), Some("strategy")),
    Opt::value("n", Some('X'), Some("strategy-option")),
    Opt::value("n", None, Some("cleanup")),
    Opt::optional("n", Some('S'), Some("gpg-sign")),
    Opt::optional("n", None, Some("log")),
    Opt::optional("n", None, Some("recurse-submodules")),
    Opt::flag("n", Some('n'), None),
    Opt::flag("n", Some('e'), Some("edit")),
    Opt::flag("n", Some('q'), Some("quiet")),
    Opt::flag("n", Some('v'), Some("verbose")),
];

/// `git pull [REMOTE [REFSPEC…]]`: what git fetches, then merges (or rebases onto). Without
/// a refspec, the branch's upstream (`@{u}`); `git pull origin main` merges what
/// `origin/main` will be after the fetch. A remote given as a URL or a path has no
/// remote-tracking branch to look at: its commits are not literal.
pub(super) fn pull(args: &[Arg]) -> Moved {
    let (found, operands) = options(args, PULL);
    let rebases = found.iter().any(|(name, _, attached)| {
        *name == "rebase"
            && attached
                .as_deref()
                .is_none_or(|value| !matches!(value, "false" | "no" | "off" | "0"))
    });
    let part = if rebases && !has(&found, "no-rebase") {
        TreePart::Whole
    } else {
        TreePart::Merged
    };
    let revisions: Vec<Target> = match operands.split_first() {
        None | Some((_, [])) => vec![Target::literal("@{u}")],
        Some((remote, refspecs)) => refspecs
            .iter()
            .filter_map(|refspec| fetched(remote, refspec))
            .collect(),
    };
    Moved {
        sources: revisions
            .into_iter()
            .map(|rev| TreeSource {
                fetched: true,
                ..TreeSource::new(rev, part)
            })
            .collect(),
        paths: Vec::new(),
    }
}

/// The remote-tracking branch a pull of `refspec` from `remote` updates (`origin` `main` →
/// `origin/main`; `+main:local` → `origin/main`); `None` for a refspec that fetches
/// nothing (`:x`).
fn fetched(remote: &Arg, refspec: &Arg) -> Option<Target> {
    let (Some(remote_name), Some(spec)) = (remote.known(), refspec.known()) else {
        return Some(not_literal(
            refspec,
            "a remote or refspec that is not literal",
        ));
    };
    let source = spec.trim_start_matches('+');
    let source = source.split_once(':').map_or(source, |(from, _)| from);
    if source.is_empty() {
        return None;
    }
    let url = remote_name.contains([':', '/', '\\']) || remote_name.starts_with('.');
    if url || remote.glob || refspec.glob {
        return Some(not_literal(
            refspec,
            "a commit fetched from a URL or a path",
        ));
    }
    let branch = source.strip_prefix("refs/heads/").unwrap_or(source);
    Some(Target {
        span: Some(refspec.span),
        ..Target::literal(format!("{remote_name}/{branch}"))
    })
}

/// A revision the guard cannot name, with why.
fn not_literal(arg: &Arg, why: &str) -> Target {
    Target {
        opaque: Some(why.to_owned()),
        ..arg.target()
    }
}

/// The options of `rebase` that take a value, and the ones that act on a rebase in
/// progress instead of starting one.
const REBASE: &[Opt] = &[
    Opt::value("onto", None, Some("onto")),
    Opt::flag("keep-base", None, Some("keep-base")),
    Opt::flag("root", None, Some("root")),
    Opt::value("n", Some('s'), Some("strategy")),
    Opt::value("n", Some('X'), Some("strategy-option")),
    Opt::value("n", Some('x'), Some("exec")),
    Opt::value("n", None, Some("whitespace")),
    Opt::value("n", None, Some("empty")),
    Opt::value("n", Some('C'), None),
    Opt::optional("n", Some('S'), Some("gpg-sign")),
    Opt::optional("n", None, Some("rebase-merges")),
    Opt::flag("n", Some('i'), Some("interactive")),
    Opt::flag("n", Some('q'), Some("quiet")),
    Opt::flag("n", Some('v'), Some("verbose")),
    Opt::flag("n", Some('f'), Some("force-rebase")),
    Opt::flag("stops", None, Some("abort")),
    Opt::flag("stops", None, Some("quit")),
    Opt::flag("stops", None, Some("continue")),
    Opt::flag("stops", None, Some("skip")),
    Opt::flag("stops", None, Some("edit-todo")),
    Opt::flag("stops", None, Some("show-current-patch")),
];

/// `git rebase [--onto NEWBASE] [UPSTREAM [BRANCH]]`: git checks out BRANCH, then the new
/// base (NEWBASE, else UPSTREAM, else the upstream `@{u}`), and replays the branch's own
/// commits there. The work tree passes through the whole base and ends on it with those
/// commits, so the base's whole tree is what counts. `--keep-base` keeps the base the branch
/// has; `--root` without `--onto` rewrites the branch where it is.
pub(super) fn rebase(args: &[Arg]) -> Option<Moved> {
    let (found, operands) = options(args, REBASE);
    if has(&found, "stops") {
        return None;
    }
    let onto = found.iter().find_map(|(name, value, attached)| {
        (*name == "onto")
            .then(|| value_revision(*value, attached.as_deref()))
            .flatten()
    });
    let mut revisions = Vec::new();
    if let Some(branch) = operands.get(1) {
        revisions.push(revision(branch));
    }
    let upstream = operands.first().map(|arg| revision(arg));
    let base = match (onto, upstream) {
        (Some(onto), _) => Some(onto),
        _ if has(&found, "keep-base") || has(&found, "root") => None,
        (None, Some(upstream)) => Some(upstream),
        (None, None) => Some(Target::literal("@{u}")),
    };
    revisions.extend(base);
    (!revisions.is_empty()).then(|| Moved {
        sources: revisions
            .into_iter()
            .map(|rev| TreeSource::new(rev, TreePart::Whole))
            .collect(),
        paths: Vec::new(),
    })
}

/// The options of `cherry-pick` and `revert` that take a value, and the ones that act on
/// a sequence in progress.
const PICK: &[Opt] = &[
    Opt::value("n", Some('m'), Some("mainline")),
    Opt::value("n", None, Some("strategy")),
    Opt::value("n", Some('X'), Some("strategy-option")),
    Opt::value("n", None, Some("cleanup")),
    Opt::optional("n", Some('S'), Some("gpg-sign")),
    Opt::flag("n", Some('n'), Some("no-commit")),
    Opt::flag("n", Some('e'), Some("edit")),
    Opt::flag("n", Some('x'), None),
    Opt::flag("n", Some('s'), Some("signoff")),
    Opt::flag("stdin", None, Some("stdin")),
    Opt::flag("stops", None, Some("abort")),
    Opt::flag("stops", None, Some("quit")),
    Opt::flag("stops", None, Some("continue")),
    Opt::flag("stops", None, Some("skip")),
];

/// `git cherry-pick COMMIT…` and `git revert COMMIT…`: each commit's own change (reversed
/// for a revert: the same paths). Commits given apart are each one; a line with a negative
/// one (`^A B`) is one range, walked as git walks it. `--stdin` reads them from stdin.
pub(super) fn pick(args: &[Arg]) -> Option<Moved> {
    let (found, operands) = options(args, PICK);
    if has(&found, "stops") {
        return None;
    }
    let mut revisions: Vec<Target> = operands.iter().map(|arg| revision(arg)).collect();
    if has(&found, "stdin") {
        revisions.push(Target {
            opaque: Some("commits read from stdin".to_owned()),
            ..Target::literal("--stdin")
        });
    }
    let negative = revisions
        .iter()
        .any(|rev| rev.text.starts_with('^') || rev.text == "--not");
    if negative && revisions.iter().all(|rev| rev.opaque.is_none()) {
        let words: Vec<&str> = revisions.iter().map(|rev| rev.text.as_str()).collect();
        revisions = vec![Target::literal(words.join(" "))];
    }
    (!revisions.is_empty()).then(|| Moved {
        sources: revisions
            .into_iter()
            .map(|rev| TreeSource::new(rev, TreePart::Change))
            .collect(),
        paths: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use agent_guard_types::{OpKind, TreePart};

    use super::super::tests::sources;
    use crate::git::tests::git;

    fn revs(line: &str) -> Vec<(String, TreePart)> {
        let (kind, found) = sources(line);
        assert!(
            matches!(kind, OpKind::GitMoveWorkTree | OpKind::OpaqueProgram),
            "{line}: {kind:?}"
        );
        found
            .into_iter()
            .map(|(rev, part, _, _)| (rev, part))
            .collect()
    }

    #[test]
    fn merges_and_pulls() {
        use TreePart::{Merged, Whole};
        assert_eq!(revs("merge evil"), [("evil".into(), Merged)]);
        assert_eq!(revs("merge --no-ff -m msg evil"), [("evil".into(), Merged)]);
        assert_eq!(
            revs("merge a b"),
            [("a".into(), Merged), ("b".into(), Merged)]
        );
        assert_eq!(revs("merge"), [("@{u}".into(), Merged)]);
        // `merge --abort` runs `reset --merge`, kept like a hard reset (issue 37).
        assert_eq!(
            git("merge --abort").map(|op| op.kind),
            Some(agent_guard_types::OpKind::GitResetHard)
        );
        assert_eq!(revs("pull"), [("@{u}".into(), Merged)]);
        assert_eq!(revs("pull origin"), [("@{u}".into(), Merged)]);
        assert_eq!(revs("pull origin main"), [("origin/main".into(), Merged)]);
        assert_eq!(
            revs("pull --rebase origin +main:x"),
            [("origin/main".into(), Whole)]
        );
        assert_eq!(revs("pull --rebase=false"), [("@{u}".into(), Merged)]);
        assert_eq!(revs("pull -r"), [("@{u}".into(), Whole)]);
        assert_eq!(
            revs("pull https://example.com/r.git main"),
            [("<opaque>".into(), Merged)]
        );
        let op = git("pull").unwrap();
        assert!(op.tree_sources[0].fetched);
    }

    #[test]
    fn rebases_and_picks() {
        use TreePart::{Change, Whole};
        assert_eq!(revs("rebase main"), [("main".into(), Whole)]);
        assert_eq!(revs("rebase"), [("@{u}".into(), Whole)]);
        assert_eq!(
            revs("rebase main topic"),
            [("topic".into(), Whole), ("main".into(), Whole)]
        );
        assert_eq!(revs("rebase --onto evil main"), [("evil".into(), Whole)]);
        assert!(git("rebase -i --keep-base main").is_none());
        assert!(git("rebase --continue").is_none());
        assert_eq!(revs("rebase -x make main"), [("main".into(), Whole)]);
        assert_eq!(revs("cherry-pick abc"), [("abc".into(), Change)]);
        assert_eq!(
            revs("cherry-pick a b"),
            [("a".into(), Change), ("b".into(), Change)]
        );
        assert_eq!(revs("cherry-pick ^a b"), [("^a b".into(), Change)]);
        assert_eq!(revs("cherry-pick a..b"), [("a..b".into(), Change)]);
        assert_eq!(revs("revert -n HEAD~2"), [("HEAD~2".into(), Change)]);
        assert!(git("revert --abort").is_none());
        assert!(git("cherry-pick").is_none());
    }
}
