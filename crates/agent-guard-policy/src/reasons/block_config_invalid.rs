//! `BLOCK_CONFIG_INVALID`.

super::reason!(
    BlockConfigInvalid, BlockConfigInvalid, "BLOCK_CONFIG_INVALID",
    catches: "A destructive-looking command while the workspace's `.agent-guard.toml` cannot be read: a syntax error, an unknown key, a value out of range, or a file that is too large or not UTF-8. Also an invalid `AGENT_GUARD_DEADLINE_MS`.",
    why: "The configuration decides the dialect, the quarantine location and what counts as regenerable. Guessing defaults could judge a delete with the wrong rules, so a broken configuration fails closed.",
    example: "agent-guard check -- rm -rf build   # with `dialct = \"posix\"` (a typo) in .agent-guard.toml",
    verdict: "BLOCK. Commands with no destructive vocabulary still pass.",
    recovery: "Fix the file; `agent-guard doctor` names the offending key and line.",
    enforcement: None,
    hint: "Fix the file the warning names (`.agent-guard.toml`, or the user's or the system's `agent-guard/config.toml`); `agent-guard status` shows the error.",
    coverage: Coverage::Corpus,
);

#[cfg(test)]
mod tests {
    use agent_guard_types::{Decision, ReasonCode};

    #[test]
    fn is_a_block() {
        assert_eq!(ReasonCode::BlockConfigInvalid.decision(), Decision::Block);
        assert_eq!(
            ReasonCode::parse("BLOCK_CONFIG_INVALID"),
            Some(ReasonCode::BlockConfigInvalid)
        );
    }
}
