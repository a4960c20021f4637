//! Process exit codes: one place, documented, stable.
//!
//! | code | meaning |
//! |---|---|
//! | 0 | success; advisory `check` (any decision); enforced `check` may proceed |
//! | 1 | internal error (outside hook mode); `restore` errors |
//! | 2 | usage error; enforced BLOCK; `safe-delete` refusal |
//! | 3 | enforced ASK; `restore` conflicts |
//! | 4 | `audit verify`: a torn tail (repaired or pending), nothing tampered |
//! | 5 | `audit verify`: tampered |
//!
//! The engine's reports say which applies ([`agent_guard_engine::Exit`]); the commands here
//! return that, and this module adds the two rules of the CLI itself: hook mode never exits
//! 1 or 101 (every failure is a deny in the harness's own format), and a usage error is 2.

pub use agent_guard_types::ExitCode;

/// Maps a hook reply's exit code. Hook mode never exits 1: anything but 0 or 3 is 2.
pub const fn from_hook(code: u8) -> ExitCode {
    match code {
        0 => ExitCode::Success,
        3 => ExitCode::Ask,
        _ => ExitCode::Blocked,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_stable() {
        assert_eq!(ExitCode::Success.code(), 0);
        assert_eq!(ExitCode::InternalError.code(), 1);
        assert_eq!(ExitCode::Blocked.code(), 2);
        assert_eq!(ExitCode::Ask.code(), 3);
        assert_eq!(ExitCode::TornTail.code(), 4);
        assert_eq!(ExitCode::Tampered.code(), 5);
        assert_eq!(from_hook(0), ExitCode::Success);
        assert_eq!(from_hook(1), ExitCode::Blocked);
        assert_eq!(from_hook(101), ExitCode::Blocked);
        assert_eq!(from_hook(3), ExitCode::Ask);
    }
}
