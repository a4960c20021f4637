//! Issue 35, point 5: input the lexer cannot follow is refused, never shortened. However
//! deep a destructive command is nested — subshells, `((`, groups, substitutions,
//! control structures, interpreter hops, script blocks — the line keeps an op the policy
//! cannot allow (the delete itself, or `unknown`/undeterminable); nesting past the lexer's
//! depth limit never turns a refusal into an allow. A NUL byte or an over-long line is
//! refused whatever its words.

use agent_guard_classify::{MAX_COMMAND_BYTES, classify};
use agent_guard_types::{Dialect, OpKind};
use proptest::prelude::*;

/// Returns `true` if the line has an op that is not allowed as it stands: a delete, or
/// something the policy can only refuse.
fn guarded(line: &str, dialect: Dialect) -> bool {
    classify(line, dialect)
        .ops
        .iter()
        .any(|op| op.kind == OpKind::FsDelete || op.kind == OpKind::Unknown || op.undeterminable)
}

/// POSIX frames a command may be nested in, as (open, close).
const POSIX_FRAMES: [(&str, &str); 11] = [
    ("(", ")"),
    ("((", "))"),
    ("( ", " )"),
    ("{ ", "; }"),
    // A space after `$(`: `$((` followed by `((` would be arithmetic, which runs nothing.
    ("echo $( ", ")"),
    ("x=$( ", ")"),
    ("if true; then ", "; fi"),
    ("while false; do :; done; for i in 1; do ", "; done"),
    ("true && ", ""),
    ("cat <(", ")"),
    ("f() { ", "; }; f"),
];

/// Wraps `inner` in `frames`, innermost first.
fn nest(inner: &str, frames: &[(&str, &str)]) -> String {
    frames.iter().fold(inner.to_owned(), |line, (open, close)| {
        format!("{open}{line}{close}")
    })
}

#[test]
fn every_depth_of_every_posix_frame_keeps_the_delete() {
    for (open, close) in POSIX_FRAMES {
        for depth in 0..=300 {
            let line = nest("rm -rf src", &vec![(open, close); depth]);
            assert!(
                guarded(&line, Dialect::Posix),
                "depth {depth} of {open}…{close}"
            );
        }
    }
}

#[test]
fn every_depth_of_cmd_and_powershell_frames_keeps_the_delete() {
    let cmd: [(&str, &str); 3] = [("(", ")"), ("cmd /c ", ""), ("if 1==1 (", ")")];
    for (open, close) in cmd {
        for depth in 0..=300 {
            let line = nest("rd /s /q src", &vec![(open, close); depth]);
            assert!(
                guarded(&line, Dialect::Cmd),
                "cmd depth {depth} of {open}…{close}"
            );
        }
    }
    let powershell: [(&str, &str); 4] = [
        ("& { ", " }"),
        ("(", ")"),
        ("if ($true) { ", " }"),
        ("$x = $(", ")"),
    ];
    for (open, close) in powershell {
        for depth in 0..=300 {
            let line = nest("Remove-Item -Recurse src", &vec![(open, close); depth]);
            assert!(
                guarded(&line, Dialect::PowerShell),
                "PowerShell depth {depth} of {open}…{close}"
            );
        }
    }
}

#[test]
fn a_nul_byte_or_an_over_long_line_is_refused_whatever_it_says() {
    for dialect in [Dialect::Posix, Dialect::Cmd, Dialect::PowerShell] {
        for line in [
            "rm -rf src\0",
            "\0rm -rf src",
            "echo hi\0; rm -rf src",
            "ls\0",
        ] {
            let ops = classify(line, dialect).ops;
            assert!(
                ops.iter().any(|op| op.kind == OpKind::Unknown),
                "{dialect:?}: {line:?} gave {ops:?}"
            );
        }
        let long = format!("echo {}", "a".repeat(MAX_COMMAND_BYTES));
        assert!(
            classify(&long, dialect)
                .ops
                .iter()
                .any(|op| op.kind == OpKind::Unknown),
            "{dialect:?}: an over-long line"
        );
    }
    assert!(classify("echo hi", Dialect::Posix).ops.is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Any mix of frames, any depth: the delete is never lost. (Process substitution is left
    /// out of the mix: inside `((…))` it runs in no shell — bash reads arithmetic there, and
    /// the shells that read `((` as two subshells have no `<(`.)
    #[test]
    fn mixed_nesting_never_loses_the_delete(
        frames in prop::collection::vec(
            prop::sample::select(
                POSIX_FRAMES.iter().copied().filter(|(open, _)| *open != "cat <(").collect::<Vec<_>>(),
            ),
            0..160,
        ),
    ) {
        let line = nest("rm -rf src", &frames);
        prop_assert!(guarded(&line, Dialect::Posix), "{line}");
    }
}
