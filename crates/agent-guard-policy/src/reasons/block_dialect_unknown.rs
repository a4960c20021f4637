//! `BLOCK_DIALECT_UNKNOWN`.

use agent_guard_types::{DialectResolution, ReasonCode, Verdict};

super::reason!(
    BlockDialectUnknown, BlockDialectUnknown, "BLOCK_DIALECT_UNKNOWN",
    catches: "A dialect selector (`--dialect`, a harness payload field, `AGENT_GUARD_DIALECT`, `.agent-guard.toml`) that is well-formed but names no dialect the guard knows (`fish`).",
    why: "Lexing a command with the wrong shell's rules can hide a delete. An unusable selector is a configuration defect, never a silent fallback to POSIX.",
    example: "agent-guard check --dialect fish -- rm -rf build",
    verdict: "BLOCK; the command is not classified.",
    recovery: "Fix the selector: `posix` (sh, bash, zsh), `cmd`, or `powershell` (pwsh).",
    enforcement: None,
    hint: "Select a known dialect: `posix`, `cmd` or `powershell`.",
    coverage: Coverage::Corpus,
);

/// Returns the refusal for an unusable dialect selector, `None` for a usable one.
pub fn dialect_verdict(resolution: &DialectResolution) -> Option<Verdict> {
    match resolution {
        DialectResolution::Ok { .. } => None,
        DialectResolution::Unknown => Some(Verdict::of(ReasonCode::BlockDialectUnknown)),
        DialectResolution::Invalid => Some(Verdict::of(ReasonCode::BlockDialectInvalid)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_map_to_codes() {
        assert!(dialect_verdict(&DialectResolution::resolve(Some("bash"))).is_none());
        assert_eq!(
            dialect_verdict(&DialectResolution::resolve(Some("fish")))
                .unwrap()
                .code,
            ReasonCode::BlockDialectUnknown
        );
        assert_eq!(
            dialect_verdict(&DialectResolution::resolve(Some("posix:cmd")))
                .unwrap()
                .code,
            ReasonCode::BlockDialectInvalid
        );
    }
}
