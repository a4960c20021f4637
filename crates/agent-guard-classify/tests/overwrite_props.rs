//! Property tests for issue 11: a redirection that truncates or rewrites a literal file is
//! always an overwrite of that file.
//!
//! Whatever the command, its wrappers, the construct around it, the spelling of the
//! operator and the quoting of the name, a `>`-family redirection (not an append, not a
//! descriptor duplication, not a null device) onto a literal name yields an `Overwrite`
//! op naming it, through a symlink. The policy turns an existing file named by such an op
//! into `SNAPSHOT_OVERWRITE` (or a refusal), never `ALLOW_NOOP`
//! (`crates/agent-guard-engine/tests/overwrite_never_noop.rs` checks that end to end).

use agent_guard_classify::classify;
use agent_guard_types::{Dialect, OpKind};
use proptest::prelude::*;

/// A file name and how it is spelled on the line.
fn spelled_name() -> impl Strategy<Value = (String, String)> {
    let name = "(sub/)?[a-zA-Z_][a-zA-Z0-9_.-]{0,10}";
    (name, 0..5_usize).prop_map(|(name, quoting)| {
        let spelled = match quoting {
            0 => name.clone(),
            1 => format!("'{name}'"),
            2 => format!("\"{name}\""),
            3 => name.chars().flat_map(|c| ['\\', c]).collect(),
            _ => {
                let (head, tail) = name.split_at(name.len() / 2);
                format!("{head}\"{tail}\"")
            }
        };
        (name, spelled)
    })
}

/// A redirection operator that opens its file for writing without appending.
fn operator() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(">".to_owned()),
        Just(">|".to_owned()),
        Just("&>".to_owned()),
        Just(">&".to_owned()),
        Just("<>".to_owned()),
        (0..10_u8).prop_map(|n| format!("{n}>")),
        (0..10_u8).prop_map(|n| format!("{n}>|")),
        (0..10_u8).prop_map(|n| format!("{n}<>")),
    ]
}

/// The command the redirection is on (possibly none: a bare redirection).
fn command() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "",
        "echo x",
        "printf '%s\\n' y",
        "cat",
        ":",
        "true",
        "ls -la",
        "make all",
        "cargo build",
        "exec",
        "sort notes.txt",
        "python3 tool.py",
        "./run.sh --flag",
    ])
    .prop_map(str::to_owned)
}

/// A wrapper before the command.
fn wrapper() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "",
        "sudo ",
        "env A=1 ",
        "A=1 ",
        "nice ",
        "nohup ",
        "command ",
        "time ",
        "timeout 5 ",
    ])
    .prop_map(str::to_owned)
}

/// A construct around the command (`%` is where the command goes).
fn frame() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "%",
        "(%)",
        "{ %; }",
        "if true; then %; fi",
        "for i in 1 2; do %; done",
        "while false; do %; done",
        "f() { %; }; f",
        "true && %",
        "false || %",
        "echo a | %",
        "% ; echo done",
        "case x in x) %;; esac",
    ])
    .prop_map(str::to_owned)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn a_truncating_redirection_onto_a_literal_name_is_an_overwrite_of_it(
        (name, spelled) in spelled_name(),
        op in operator(),
        blank in prop::bool::ANY,
        before in prop::bool::ANY,
        command in command(),
        wrapper in wrapper(),
        frame in frame(),
    ) {
        let space = if blank { " " } else { "" };
        let redirect = format!("{op}{space}{spelled}");
        let simple = match (command.is_empty(), before) {
            (true, _) => redirect,
            (false, true) => format!("{redirect} {wrapper}{command}"),
            (false, false) => format!("{wrapper}{command} {redirect}"),
        };
        let line = frame.replace('%', &simple);
        let ops = classify(&line, Dialect::Posix).ops;
        let hit = ops.iter().find(|o| {
            o.kind == OpKind::Overwrite && o.targets.iter().any(|t| t.text == name)
        });
        prop_assert!(hit.is_some(), "{line:?}: {ops:?}");
        let hit = hit.unwrap();
        let target = hit.targets.iter().find(|t| t.text == name).unwrap();
        prop_assert!(target.through_symlink && target.opaque.is_none() && !target.glob, "{line:?}");
        prop_assert!(!hit.undeterminable, "{line:?}: {hit:?}");
    }

    #[test]
    fn appends_duplications_and_sinks_write_over_nothing(
        (_, spelled) in spelled_name(),
        fd in 0..10_u8,
        command in command(),
        frame in frame(),
        form in 0..7_usize,
    ) {
        let redirect = match form {
            0 => format!(">> {spelled}"),
            1 => format!("&>> {spelled}"),
            2 => format!("{fd}>> {spelled}"),
            3 => format!("{fd}>&1"),
            4 => format!(">&{fd}"),
            5 => format!("{fd}> /dev/null"),
            _ => format!("> /dev/fd/{fd}"),
        };
        let line = frame.replace('%', &format!("{command} {redirect}"));
        let ops = classify(&line, Dialect::Posix).ops;
        prop_assert!(ops.iter().all(|o| o.kind != OpKind::Overwrite), "{line:?}: {ops:?}");
        // An append still names its file, so the policy can judge the protected paths.
        let appends = ops.iter().any(|o| o.kind == OpKind::Append && !o.targets.is_empty());
        prop_assert_eq!(appends, form <= 2, "{:?}: {:?}", line, ops);
    }

    #[test]
    fn windows_redirections_onto_a_literal_name_are_overwrites(
        name in "[a-zA-Z_][a-zA-Z0-9_.-]{0,10}",
        fd in prop::option::of(1..3_u8),
        powershell in prop::bool::ANY,
        quoted in prop::bool::ANY,
    ) {
        let (dialect, command) = if powershell {
            (Dialect::PowerShell, "Get-Date")
        } else {
            (Dialect::Cmd, "dir")
        };
        let fd = fd.map(|n| n.to_string()).unwrap_or_default();
        let spelled = if quoted { format!("\"{name}\"") } else { name.clone() };
        let line = format!("{command} {fd}> {spelled}");
        let lowered = name.to_ascii_lowercase();
        let numbered = |stem: &str| {
            lowered.strip_prefix(stem).is_some_and(|n| n.len() == 1 && n.as_bytes()[0].is_ascii_digit())
        };
        let reserved = ["nul", "con", "prn", "aux"].contains(&lowered.as_str())
            || numbered("com")
            || numbered("lpt");
        let ops = classify(&line, dialect).ops;
        let hit = ops.iter().any(|o| {
            o.kind == OpKind::Overwrite && o.targets.iter().any(|t| t.text == name.trim_end_matches(['.', ' ']))
        });
        prop_assert!(hit || reserved || name.trim_end_matches('.').is_empty(), "{line:?}: {ops:?}");
    }
}
