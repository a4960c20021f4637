//! `ALLOW_REGENERABLE`.

use std::path::Path;

use agent_guard_types::{PathSpec, World};

use crate::PolicyContext;
use crate::fnmatch::fnmatch;

super::reason!(
    AllowRegenerable, AllowRegenerable, "ALLOW_REGENERABLE",
    catches: "A recursive delete where every existing target matches an artifact pattern (`node_modules`, `target`, `__pycache__`, `*.pyc`, …) in some path component, is ignored by git, and contains no tracked file.",
    why: "Build artifacts are provably regenerable, and quarantining gigabytes of them would waste space and time. Git's ignore rules are the proof that they are not project data.",
    example: "rm -rf node_modules",
    verdict: "ALLOW (deleted directly, after a durable intent record under `--enforce`). Disable with `AGENT_GUARD_ALLOW_REGENERABLE=0` or `[regenerable] enabled = false`; extend patterns with `AGENT_GUARD_ARTIFACTS` or `[regenerable] artifacts`.",
    recovery: "Regenerate the artifacts (`npm install`, `cargo build`, …).",
    enforcement: DurableIntent,
    hint: "",
    coverage: Coverage::Corpus,
);

/// Returns `true` if every affected target is a git-ignored artifact. Git is asked only
/// after every target has matched an artifact pattern, so most deletes never open the
/// repository.
pub(crate) fn applies(affected: &[PathSpec], ctx: &PolicyContext, world: &dyn World) -> bool {
    ctx.allow_regenerable
        && !affected.is_empty()
        && affected.iter().all(|s| {
            s.relative
                .as_deref()
                .is_some_and(|r| is_artifact(r, &ctx.artifacts))
        })
        && affected
            .iter()
            .all(|s| s.physical.as_deref().is_some_and(|p| world.git_ignored(p)))
}

/// Returns `true` if some component of `relative`, or the whole path, matches a pattern.
pub(crate) fn is_artifact(relative: &Path, patterns: &[String]) -> bool {
    let whole = relative.to_string_lossy();
    patterns.iter().any(|pattern| {
        fnmatch(pattern, &whole)
            || relative
                .components()
                .any(|c| fnmatch(pattern, &c.as_os_str().to_string_lossy()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{FakeWorld, dir, file};

    fn ctx() -> PolicyContext {
        let mut ctx = PolicyContext::new("/ws");
        ctx.artifacts = vec!["node_modules".into(), "*.pyc".into(), "build".into()];
        ctx
    }

    #[test]
    fn needs_pattern_and_ignore() {
        let mut world = FakeWorld::default();
        world.ignored.push("/ws/node_modules".into());
        assert!(applies(&[dir("node_modules")], &ctx(), &world));
        assert!(!applies(&[dir("build")], &ctx(), &world), "not ignored");
        assert!(!applies(&[dir("cache")], &ctx(), &world), "not an artifact");
        assert!(!applies(&[], &ctx(), &world));
        let mut off = ctx();
        off.allow_regenerable = false;
        assert!(!applies(&[dir("node_modules")], &off, &world));
    }

    #[test]
    fn git_is_not_asked_unless_every_pattern_matches() {
        let world = FakeWorld::default();
        assert!(!applies(
            &[dir("node_modules"), file("src/main.rs")],
            &ctx(),
            &world
        ));
        assert_eq!(*world.ignore_queries.borrow(), 0);
    }

    #[test]
    fn components_and_globs() {
        let patterns = ctx().artifacts;
        assert!(is_artifact(Path::new("pkg/__x/mod.pyc"), &patterns));
        assert!(is_artifact(Path::new("web/node_modules/x"), &patterns));
        assert!(!is_artifact(Path::new("src/lib.rs"), &patterns));
    }
}
