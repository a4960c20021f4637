//! Refs that fetching and remote bookkeeping delete or overwrite (issue 37, point 1):
//! `git fetch --prune` and `--prune-tags` (also through `git pull`, `git remote update
//! --prune`), a forced fetch into local refs (`-f`, a `+src:dst` refspec), `git remote
//! remove|rename|prune` and `git remote set-head`. A pruned remote-tracking ref may hold the
//! only pointer to a commit deleted upstream, and a tag has no reflog: each namespace they
//! reach is kept first (`SNAPSHOT_GIT_REFS`). The remote's configuration is not kept.

use agent_guard_types::{OpKind, OpSpec, Target};

use super::git_op;
use crate::args::Arg;

/// What a prune may delete: the refspecs (on the line or in the configuration, which may
/// map onto `refs/heads/` or `refs/tags/`) decide, so every ref is kept.
const PRUNED: &str = "refs/";

/// The ref op of `git fetch|pull|remote …` when it may delete or overwrite refs;
/// `config_prune`: the line set a prune setting before it (`-c fetch.prune=true`, `git config
/// fetch.prune true`).
pub(super) fn pruned(sub: &str, args: &[Arg], config_prune: bool) -> Option<OpSpec> {
    match sub {
        "fetch" | "pull" => fetch(args, config_prune),
        "remote" => remote(args, config_prune),
        _ => None,
    }
}

/// `git fetch|pull [OPTIONS] [REMOTE [REFSPEC…]]`.
fn fetch(args: &[Arg], config_prune: bool) -> Option<OpSpec> {
    if args
        .iter()
        .any(|a| matches!(a.known(), Some("--dry-run" | "--no-prune")))
    {
        return None;
    }
    let mut targets: Vec<String> = Vec::new();
    if config_prune {
        targets.push(PRUNED.to_owned());
    }
    let mut force = false;
    let mut operands = Vec::new();
    let mut options_done = false;
    for arg in args {
        let Some(text) = arg.known() else {
            operands.push(None);
            continue;
        };
        if options_done || !text.starts_with('-') || text == "-" {
            operands.push(Some(text));
            continue;
        }
        match text {
            "--" => options_done = true,
            "--prune" | "--prune-tags" => targets.push(PRUNED.to_owned()),
            "--force" => force = true,
            _ if !text.starts_with("--") && !text.contains('=') => {
                for letter in text[1..].chars() {
                    match letter {
                        'p' | 'P' => targets.push(PRUNED.to_owned()),
                        'f' => force = true,
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    // The refspecs after the remote: a forced one (or any under `-f`) may overwrite its
    // destination; one the guard cannot read may name any ref.
    let mut reaches_private = false;
    for refspec in operands.iter().skip(1) {
        match refspec {
            Some(spec) => {
                reaches_private |= spec
                    .trim_start_matches('+')
                    .split_once(':')
                    .is_some_and(|(_, dst)| reaches_private_refs(dst));
                let forced = force || spec.starts_with('+');
                match spec.trim_start_matches('+').split_once(':') {
                    Some((_, dst)) if forced && dst.starts_with("refs/") && !dst.contains('*') => {
                        targets.push(dst.to_owned());
                    }
                    Some((_, dst)) if forced && !dst.is_empty() => targets.push("refs/".to_owned()),
                    _ => {}
                }
            }
            None => targets.push("refs/".to_owned()),
        }
    }
    if force {
        targets.extend(["refs/remotes/".to_owned(), "refs/tags/".to_owned()]);
    }
    let mut op = op_over(targets, "git fetch prunes or overwrites refs");
    if reaches_private {
        // `git fetch --prune origin '+refs/*:refs/*'` deletes the private refs that hold what
        // earlier transactions kept: the guard's own state, never changed by a command.
        let op = op.get_or_insert_with(|| git_op(OpKind::GitRefDelete));
        op.mark_undeterminable(
            "the refspec writes or prunes under refs/agent-guard/, where the guard keeps what \
             earlier commands destroyed",
        );
    }
    op
}

/// Whether a refspec's destination (`refs/*`, `refs/agent-guard/x`) reaches the guard's
/// private namespace.
fn reaches_private_refs(dst: &str) -> bool {
    const PRIVATE: &str = "refs/agent-guard/";
    match dst.split_once('*') {
        Some((prefix, _)) => PRIVATE.starts_with(prefix) || prefix.starts_with(PRIVATE),
        None => dst.starts_with(PRIVATE),
    }
}

/// `git remote remove|rm|rename|prune|update|set-head …`.
fn remote(args: &[Arg], config_prune: bool) -> Option<OpSpec> {
    let words: Vec<Option<&str>> = args.iter().map(Arg::known).collect();
    let at = words
        .iter()
        .position(|w| w.is_none_or(|w| !w.starts_with('-')))?;
    let sub = words[at]?;
    let rest = &words[at + 1..];
    let names: Vec<Option<&str>> = rest
        .iter()
        .copied()
        .filter(|w| w.is_none_or(|w| !w.starts_with('-')))
        .collect();
    let dry_run = rest.iter().any(|w| matches!(w, Some("-n" | "--dry-run")));
    let namespace = |name: Option<&str>| match name {
        Some(name) => format!("refs/remotes/{name}/"),
        None => "refs/remotes/".to_owned(),
    };
    let targets: Vec<String> = match sub {
        "remove" | "rm" | "rename" => names.first().map(|n| namespace(*n)).into_iter().collect(),
        // A remote's refspecs may map onto local branches or tags: every ref is kept.
        "prune" if !dry_run => vec![PRUNED.to_owned()],
        "update" if config_prune || rest.iter().any(|w| matches!(w, Some("-p" | "--prune"))) => {
            vec![PRUNED.to_owned()]
        }
        "set-head" => {
            let mut op = git_op(OpKind::GitSymbolicRef);
            op.targets.push(Target::literal(match names.first() {
                Some(Some(name)) => format!("refs/remotes/{name}/HEAD"),
                _ => return None,
            }));
            op.note("git remote set-head moves or deletes the remote's HEAD");
            return Some(op);
        }
        _ => Vec::new(),
    };
    op_over(
        targets,
        &format!("git remote {sub} deletes or renames remote-tracking refs"),
    )
}

/// A ref op keeping `targets` (deduplicated; a namespace ending in `/`), or `None` when there
/// are none.
fn op_over(mut targets: Vec<String>, note: &str) -> Option<OpSpec> {
    targets.sort();
    targets.dedup();
    if targets.is_empty() {
        return None;
    }
    let mut op = git_op(OpKind::GitRefDelete);
    op.targets = targets.into_iter().map(Target::literal).collect();
    op.note(note);
    Some(op)
}

#[cfg(test)]
mod tests {
    fn kept(line: &str) -> Option<Vec<String>> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let args: Vec<crate::args::Arg> = words[1..]
            .iter()
            .map(|w| crate::args::Arg::literal(w))
            .collect();
        super::pruned(words[0], &args, false)
            .map(|op| op.targets.into_iter().map(|t| t.text).collect())
    }

    #[test]
    fn pruning_and_forcing_keep_the_namespaces() {
        assert_eq!(kept("fetch --prune origin").unwrap(), ["refs/"]);
        assert_eq!(kept("fetch -p").unwrap(), ["refs/"]);
        assert_eq!(kept("pull --prune").unwrap(), ["refs/"]);
        assert_eq!(
            kept("fetch --prune --prune-tags origin").unwrap(),
            ["refs/"]
        );
        assert_eq!(
            kept("fetch origin +refs/heads/*:refs/remotes/origin/*").unwrap(),
            ["refs/"]
        );
        assert_eq!(
            kept("fetch . +HEAD:refs/heads/feat").unwrap(),
            ["refs/heads/feat"]
        );
        assert_eq!(
            kept("fetch -f . HEAD:refs/tags/v2").unwrap(),
            ["refs/remotes/", "refs/tags/", "refs/tags/v2"]
        );
        assert_eq!(
            kept("remote remove origin").unwrap(),
            ["refs/remotes/origin/"]
        );
        assert_eq!(
            kept("remote rename origin o2").unwrap(),
            ["refs/remotes/origin/"]
        );
        assert_eq!(kept("remote prune origin").unwrap(), ["refs/"]);
        assert_eq!(kept("remote update --prune").unwrap(), ["refs/"]);
        assert_eq!(
            kept("remote set-head origin -d").unwrap(),
            ["refs/remotes/origin/HEAD"]
        );
    }

    #[test]
    fn refspecs_into_the_private_namespace_are_refused() {
        for line in [
            "fetch --prune origin +refs/*:refs/*",
            "fetch origin refs/*:refs/*",
            "fetch -f . HEAD:refs/agent-guard/stash/x/0",
            "pull -p origin +refs/a*:refs/a*",
        ] {
            let words: Vec<crate::args::Arg> = line
                .split_whitespace()
                .skip(1)
                .map(crate::args::Arg::literal)
                .collect();
            let op = super::pruned("fetch", &words, false).unwrap_or_else(|| panic!("{line}"));
            assert!(op.undeterminable, "{line}");
        }
        assert!(!super::reaches_private_refs("refs/remotes/origin/*"));
        assert!(!super::reaches_private_refs("refs/heads/*"));
    }

    #[test]
    fn plain_fetches_keep_nothing() {
        for line in [
            "fetch",
            "fetch origin",
            "fetch --all --tags",
            "fetch origin main:refs/remotes/origin/main",
            "pull --rebase",
            "remote -v",
            "remote add up url",
            "remote prune -n origin",
            "fetch --no-prune origin",
            "fetch --dry-run --prune",
        ] {
            assert_eq!(kept(line), None, "{line}");
        }
    }
}
