//! `RELOCATE_VIA_CLEAN_ENUMERATE`.

use agent_guard_types::{OpSpec, Plan, ReasonCode, Verdict};

use crate::PolicyContext;

super::reason!(
    RelocateViaCleanEnumerate, RelocateViaCleanEnumerate, "RELOCATE_VIA_CLEAN_ENUMERATE",
    catches: "A supported `git clean -f[d][x|X] [-- pathspec…]`.",
    why: "Untracked files are exactly what git cannot give back. The guard enumerates what the clean would remove (skipping nested repositories as git does), quarantines every match, and lets the command run only on full coverage.",
    example: "git clean -fdx",
    verdict: "RELOCATE (advisory); ALLOW after compensation under `--enforce`. An enumeration failure is `BLOCK_UNDETERMINABLE_EFFECT`.",
    recovery: "`agent-guard restore <txid>`.",
    enforcement: DurableIntent,
    hint: "Undo with `agent-guard restore <txid>`, or `agent-guard undo` for the newest transaction.",
    coverage: Coverage::CorpusExcept(WINDOWS, "git clean is floored in Windows dialects"),
);

/// The verdict and plan for a `git clean` that deletes; refused when it consults git's
/// ignore rules and git's configuration from the environment may change them unseen.
pub(crate) fn verdict(op: &OpSpec, ctx: &PolicyContext) -> Verdict {
    if !ctx.git_ignores_known && !ignores_rules(op) {
        let mut verdict = Verdict::of(ReasonCode::BlockUndeterminableEffect);
        verdict.reasons.clone_from(&op.notes);
        verdict.reasons.push(
            "git's configuration from the environment names an ignore file or an include the \
             guard does not read: what this git clean removes is not known (unset it, or use \
             git clean -x, which does not consult the ignore rules)"
                .to_owned(),
        );
        return verdict;
    }
    Verdict::of(ReasonCode::RelocateViaCleanEnumerate).with_plan(Plan::CleanEnumerate {
        cwd: ctx.cwd.clone(),
        flags: op.extra_flags.clone(),
        pathspecs: op.targets.iter().map(|t| t.text.clone()).collect(),
    })
}

/// Whether the clean ignores git's ignore rules (`-x` without `-X`): then no configuration
/// changes what it removes.
pub(crate) fn ignores_rules(op: &OpSpec) -> bool {
    let letters = |flag: &&String| flag.starts_with('-') && !flag.starts_with("--");
    let has = |letter| {
        op.extra_flags
            .iter()
            .filter(letters)
            .any(|f| f.contains(letter))
    };
    has('x') && !has('X')
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_guard_types::{Dialect, OpKind, Target};

    #[test]
    fn plan_carries_flags_and_pathspecs() {
        let mut op = OpSpec::new("git", OpKind::GitClean, Dialect::Posix);
        op.extra_flags = vec!["-d".into(), "-x".into()];
        op.targets.push(Target::literal("tmp"));
        let v = verdict(&op, &PolicyContext::new("/ws"));
        let Plan::CleanEnumerate {
            flags, pathspecs, ..
        } = v.plan
        else {
            panic!()
        };
        assert_eq!(flags, ["-d", "-x"]);
        assert_eq!(pathspecs, ["tmp"]);
    }
}
