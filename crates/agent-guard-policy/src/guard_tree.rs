//! Git commands that write another commit's files into the work tree, judged by that
//! commit's hook files (issue 35): `git checkout evil` where `evil` commits a
//! `.claude/settings.local.json` with `disableAllHooks` switches the guard off as surely as
//! writing the file, so it is refused (`BLOCK_SELF_PROTECTION`). Only a guard file that
//! would change counts: `git checkout main` that leaves every hook file as it is keeps its
//! verdict.
//!
//! The classifier names the commits ([`OpSpec::tree_sources`]); the world compares their
//! guard files with the work tree's commit ([`World::guard_tree_changes`]); this decides:
//!
//! - a guard file changes → refused, naming it (a limited source, `git checkout REV --
//!   paths`, only where its pathspecs reach);
//! - the guard cannot tell what the commit holds (a revision that is not literal, a range too
//!   long to read, a pull's commit not fetched yet, a name a command earlier in the line may
//!   create, [`TreeSource::made_earlier`]) → refused, unless no commit the repository has
//!   holds a guard file
//!   ([`World::guard_files_committed`]);
//! - the revision does not resolve otherwise → git fails on it: the op keeps its verdict.

use std::path::{Path, PathBuf};

use agent_guard_types::{GuardTreeChanges, OpSpec, ReasonCode, Target, TreeSource, Verdict, World};

use crate::PolicyContext;

/// The refusal when a source of `op` would change a guard file, or when one may and the
/// guard cannot tell; `None` when the op keeps its own verdict. An undeterminable op is
/// left to its own rule.
pub(crate) fn verdict(op: &OpSpec, ctx: &PolicyContext, world: &dyn World) -> Option<Verdict> {
    if op.tree_sources.is_empty() || op.undeterminable {
        return None;
    }
    let Some(dir) = directory(op, ctx, world) else {
        let mut verdict = Verdict::of(ReasonCode::BlockUndeterminableEffect);
        verdict.reasons.push(format!(
            "git {} writes another commit's files into the work tree from a directory the \
             guard cannot follow, so it cannot tell whether that commit changes the guard's \
             hook configuration",
            sub(op)
        ));
        return Some(verdict);
    };
    let mut unknown = None;
    for source in &op.tree_sources {
        match world.guard_tree_changes(&dir, source) {
            GuardTreeChanges::Unchanged => {}
            GuardTreeChanges::Changed(paths) => {
                let paths: Vec<PathBuf> = paths
                    .into_iter()
                    .filter(|path| !source.limited || reached(op, path, &dir, world))
                    .collect();
                if !paths.is_empty() {
                    return Some(changed(op, &paths, world));
                }
            }
            GuardTreeChanges::Unresolved(why) => {
                if source.fetched || (source.made_earlier && !names_a_path(source, &dir, world)) {
                    unknown.get_or_insert(why);
                }
            }
            GuardTreeChanges::Unknown(why) => {
                unknown.get_or_insert(why);
            }
        }
    }
    let why = unknown?;
    world
        .guard_files_committed(&dir)
        .then(|| cannot_tell(op, &why))
}

/// Where git runs: the line's directory, after each directory change before the op (a
/// `cd`, git's own `-C`); `None` when one is not literal. A change into a directory that
/// does not exist fails and leaves the directory as it was.
fn directory(op: &OpSpec, ctx: &PolicyContext, world: &dyn World) -> Option<PathBuf> {
    crate::ask::follow_cds(op, ctx, world, |_| true)
}

/// Whether one of the op's pathspecs reaches `changed` (at, above or below it); one that is
/// not literal or holds wildcards (git's own, which match across `/`) reaches any path.
fn reached(op: &OpSpec, changed: &Path, dir: &Path, world: &dyn World) -> bool {
    op.targets.iter().any(|target| {
        if !target.is_concrete() {
            return true;
        }
        let spec = world.path(target, dir);
        spec.physical
            .or(spec.resolved)
            .is_none_or(|path| changed.starts_with(&path) || path.starts_with(changed))
    })
}

/// Whether the source's revision, which does not resolve, names a path where git runs: then
/// git reads the word as a path (`git checkout README.md`), not as a branch a command before
/// it in the line could have made.
fn names_a_path(source: &TreeSource, dir: &Path, world: &dyn World) -> bool {
    source
        .rev
        .as_ref()
        .filter(|rev| rev.is_concrete())
        .is_some_and(|rev| world.path(&Target::literal(rev.text.clone()), dir).exists())
}

/// The git subcommand of `op`, for messages.
fn sub(op: &OpSpec) -> &str {
    op.sub.as_deref().unwrap_or("")
}

/// The refusal naming the guard files a source would change.
fn changed(op: &OpSpec, paths: &[PathBuf], world: &dyn World) -> Verdict {
    let shown: Vec<String> = paths
        .iter()
        .map(|path| {
            path.strip_prefix(world.workspace())
                .unwrap_or(path)
                .display()
                .to_string()
        })
        .collect();
    let mut verdict = Verdict::of(ReasonCode::BlockSelfProtection);
    verdict.reasons.push(format!(
        "git {} would change {}, which keeps agent-guard on: the commit it writes into the \
         work tree has another version of it (or none). Only a person runs this, in their own \
         terminal, after reading what that commit does to the hooks",
        sub(op),
        shown.join(", ")
    ));
    verdict
}

/// The refusal when a source may change a guard file and the guard cannot tell.
fn cannot_tell(op: &OpSpec, why: &str) -> Verdict {
    let mut verdict = Verdict::of(ReasonCode::BlockSelfProtection);
    verdict.reasons.push(format!(
        "git {} writes a commit into the work tree whose hook files the guard cannot read \
         ({why}), in a repository whose commits hold the guard's hook configuration. Only a \
         person runs this, in their own terminal",
        sub(op)
    ));
    verdict
}

#[cfg(test)]
mod tests {
    use agent_guard_types::{Dialect, OpKind, TreePart, TreeSource};

    use super::*;
    use crate::testing::{FakeWorld, dir, file};

    fn moving(rev: &str, part: TreePart) -> OpSpec {
        let mut op = OpSpec::new("git", OpKind::GitMoveWorkTree, Dialect::Posix);
        op.sub = Some("checkout".to_owned());
        op.tree_sources = vec![TreeSource::new(Target::literal(rev), part)];
        op
    }

    fn judge(op: &OpSpec, world: &FakeWorld) -> Option<ReasonCode> {
        verdict(op, &PolicyContext::new("/ws"), world).map(|v| v.code)
    }

    fn changes(rev: &str, answer: GuardTreeChanges) -> FakeWorld {
        let mut world = FakeWorld::with([dir(".claude"), dir("src"), file("README.md")]);
        world.tree.insert(rev.to_owned(), answer);
        world
    }

    #[test]
    fn a_changed_guard_file_is_refused_and_an_unchanged_one_passes() {
        let evil = PathBuf::from("/ws/.claude/settings.local.json");
        let world = changes("evil", GuardTreeChanges::Changed(vec![evil]));
        let op = moving("evil", TreePart::Whole);
        assert_eq!(judge(&op, &world), Some(ReasonCode::BlockSelfProtection));
        let reasons = verdict(&op, &PolicyContext::new("/ws"), &world)
            .unwrap()
            .reasons;
        assert!(
            reasons[0].contains(".claude/settings.local.json"),
            "{reasons:?}"
        );
        let world = changes("main", GuardTreeChanges::Unchanged);
        assert_eq!(judge(&moving("main", TreePart::Whole), &world), None);
    }

    #[test]
    fn a_limited_source_counts_only_where_its_pathspecs_reach() {
        let evil = PathBuf::from("/ws/.claude/settings.local.json");
        let world = changes("evil", GuardTreeChanges::Changed(vec![evil]));
        let mut op = moving("evil", TreePart::Whole);
        op.tree_sources[0].limited = true;
        op.targets = vec![Target::literal("src")];
        assert_eq!(judge(&op, &world), None);
        op.targets = vec![Target::literal(".claude")];
        assert_eq!(judge(&op, &world), Some(ReasonCode::BlockSelfProtection));
        op.targets = vec![Target {
            glob: true,
            ..Target::literal("*.json")
        }];
        assert_eq!(judge(&op, &world), Some(ReasonCode::BlockSelfProtection));
    }

    #[test]
    fn what_the_guard_cannot_read_is_refused_only_where_guard_files_are_committed() {
        let mut world = changes("$B", GuardTreeChanges::Unknown("not literal".to_owned()));
        let op = moving("$B", TreePart::Merged);
        assert_eq!(judge(&op, &world), None, "no commit holds a guard file");
        world.committed = true;
        assert_eq!(judge(&op, &world), Some(ReasonCode::BlockSelfProtection));
    }

    #[test]
    fn an_unresolved_revision_fails_in_git_unless_it_may_appear_first() {
        let mut world = changes("gone", GuardTreeChanges::Unresolved("no".to_owned()));
        world.committed = true;
        let mut op = moving("gone", TreePart::Whole);
        assert_eq!(judge(&op, &world), None, "git fails on it");
        op.in_compound_line = true;
        assert_eq!(
            judge(&op, &world),
            None,
            "`git status && git checkout gone`"
        );
        op.tree_sources[0].made_earlier = true;
        assert_eq!(
            judge(&op, &world),
            Some(ReasonCode::BlockSelfProtection),
            "`git fetch && git checkout gone`"
        );
        op.tree_sources[0].fetched = true;
        op.tree_sources[0].made_earlier = false;
        assert_eq!(judge(&op, &world), Some(ReasonCode::BlockSelfProtection));
        let mut path = moving("README.md", TreePart::Whole);
        path.tree_sources[0].made_earlier = true;
        world.tree.insert(
            "README.md".to_owned(),
            GuardTreeChanges::Unresolved("no".to_owned()),
        );
        assert_eq!(judge(&path, &world), None, "a path, not a revision");
    }

    #[test]
    fn a_directory_the_guard_cannot_follow_is_undeterminable() {
        let world = changes("main", GuardTreeChanges::Unchanged);
        let mut op = moving("main", TreePart::Whole);
        op.cd = vec![None];
        assert_eq!(
            judge(&op, &world),
            Some(ReasonCode::BlockUndeterminableEffect)
        );
    }
}
