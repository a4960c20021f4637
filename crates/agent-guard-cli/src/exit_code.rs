//! Process exit codes: one place, documented, stable.
//!
//! | code | meaning |
//! |---|---|
//! | 0 | success; advisory `check` (any decision); enforced `check` may proceed |
//! | 1 | internal error (outside hook mode); `restore` errors |
//! | 2 | usage error; enforced BLOCK; `safe-delete` refusal |
//! | 3 | enforced ASK; `restore` conflicts |
//!
//! In hook mode the process never exits 1 or 101: every failure is a deny in the harness's
//! own format.

use std::process::ExitCode as StdExitCode;

/// A process exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitCode {
    /// 0: success, or proceed.
    Success,
    /// 1: internal error.
    InternalError,
    /// 2: refused (BLOCK) or usage error.
    Blocked,
    /// 3: a human must approve (ASK), or restore conflicts.
    Ask,
}

impl ExitCode {
    /// The numeric value.
    pub const fn code(self) -> u8 {
        match self {
            ExitCode::Success => 0,
            ExitCode::InternalError => 1,
            ExitCode::Blocked => 2,
            ExitCode::Ask => 3,
        }
    }

    /// Maps a numeric code reported by the engine.
    pub fn from_engine(code: i32) -> ExitCode {
        match code {
            0 => ExitCode::Success,
            2 => ExitCode::Blocked,
            3 => ExitCode::Ask,
            _ => ExitCode::InternalError,
        }
    }
}

impl ExitCode {
    /// Maps a hook reply's exit code. Hook mode never exits 1: anything but 0 or 3 is 2.
    pub const fn from_hook(code: u8) -> ExitCode {
        match code {
            0 => ExitCode::Success,
            3 => ExitCode::Ask,
            _ => ExitCode::Blocked,
        }
    }
}

impl From<ExitCode> for StdExitCode {
    fn from(code: ExitCode) -> StdExitCode {
        StdExitCode::from(code.code())
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
        assert_eq!(ExitCode::from_engine(3), ExitCode::Ask);
        assert_eq!(ExitCode::from_engine(7), ExitCode::InternalError);
        assert_eq!(ExitCode::from_hook(0), ExitCode::Success);
        assert_eq!(ExitCode::from_hook(1), ExitCode::Blocked);
        assert_eq!(ExitCode::from_hook(3), ExitCode::Ask);
    }
}
