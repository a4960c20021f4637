//! `ALLOW_REGENERABLE`.

use std::path::Path;

use agent_guard_types::{PathSpec, World};

use crate::PolicyContext;

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

/// Returns `true` if every affected target is a regenerable artifact, as the world says
/// (the policy matches no glob itself: the artifact patterns, git's ignore rules and the
/// index are the world's one "regenerable" fact, the one the checkpoint walk uses too).
pub(crate) fn applies(affected: &[PathSpec], ctx: &PolicyContext, world: &dyn World) -> bool {
    if !ctx.allow_regenerable || affected.is_empty() {
        return false;
    }
    let Some(paths) = affected
        .iter()
        .map(|s| s.physical.as_deref())
        .collect::<Option<Vec<&Path>>>()
    else {
        return false;
    };
    world.regenerable(&paths)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{FakeWorld, dir};

    fn ctx() -> PolicyContext {
        PolicyContext::new("/ws")
    }

    #[test]
    fn the_worlds_fact_decides() {
        let mut world = FakeWorld::default();
        world.regenerable.push("/ws/node_modules".into());
        assert!(applies(&[dir("node_modules")], &ctx(), &world));
        assert!(!applies(&[dir("build")], &ctx(), &world), "not regenerable");
        assert!(
            !applies(&[dir("node_modules"), dir("build")], &ctx(), &world),
            "every target must be"
        );
        assert!(!applies(&[], &ctx(), &world));
        let mut off = ctx();
        off.allow_regenerable = false;
        assert!(!applies(&[dir("node_modules")], &off, &world));
    }
}
