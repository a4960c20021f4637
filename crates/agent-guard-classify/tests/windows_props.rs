//! Property tests of the cmd and PowerShell front ends: no panics, facts point into the
//! input, nested hosts never hide a delete, and the dialects agree on simple deletes.

use agent_guard_classify::{classify, smells};
use agent_guard_types::{Dialect, OpKind, OpSpec};
use proptest::prelude::*;

/// Windows-ish text: delete words, switches, parameters, operators, quotes and expansions.
fn windowsish() -> impl Strategy<Value = String> {
    let atoms = prop::sample::select(vec![
        "del",
        "rd",
        "rmdir",
        "erase",
        "/s",
        "/q",
        "/f",
        "Remove-Item",
        "ri",
        "rm",
        "-Recurse",
        "-r",
        "-fo",
        "-Force",
        "-WhatIf:$false",
        "-Path",
        "build",
        "a.txt",
        "C:\\",
        "\\\\srv\\x",
        " ",
        " ",
        "&",
        "&&",
        "|",
        "||",
        ";",
        "\n",
        "\"",
        "'",
        "^",
        "`",
        "%X%",
        "!Y!",
        "$x",
        "$(",
        "(",
        ")",
        "{",
        "}",
        "@(",
        "if ",
        "exist ",
        "else ",
        "for ",
        "%i",
        " in ",
        " do ",
        "foreach ",
        "cmd",
        "/c",
        "powershell",
        "-Command",
        "pwsh",
        "-c",
        "iex",
        "call",
        "start",
        "git",
        "clean",
        "-fdx",
        "cd",
        "echo",
        ">",
        "2>&1",
        "*",
        ",",
        "--%",
        "<#",
        "#>",
        "#",
    ]);
    prop::collection::vec(atoms, 0..40).prop_map(|parts| parts.concat())
}

fn check(text: &str, dialect: Dialect) {
    let result = classify(text, dialect);
    for op in &result.ops {
        assert!(
            op.span.start <= op.span.end && op.span.end <= text.len(),
            "{text:?}"
        );
        assert!(op.kind != OpKind::Other, "{text:?}");
        for target in &op.targets {
            if let Some(span) = target.span {
                assert!(span.start <= span.end && span.end <= text.len(), "{text:?}");
            }
        }
    }
    if result.parse_error.is_some() && smells(text) {
        assert!(
            result.ops.len() == 1 && result.ops[0].kind == OpKind::Unknown,
            "a malformed destructive line is one unknown op: {text:?}"
        );
    }
}

/// The facts parity compares.
fn facts(op: &OpSpec) -> (OpKind, bool, bool, Vec<String>) {
    let targets = op
        .targets
        .iter()
        .map(|t| t.text.trim_start_matches("./").to_owned())
        .collect();
    (op.kind, op.recursive, op.undeterminable, targets)
}

proptest! {
    #[test]
    fn never_panics_on_arbitrary_text(text in "\\PC{0,200}") {
        check(&text, Dialect::Cmd);
        check(&text, Dialect::PowerShell);
    }

    #[test]
    fn never_panics_on_windowsish_text(text in windowsish()) {
        check(&text, Dialect::Cmd);
        check(&text, Dialect::PowerShell);
        check(&text, Dialect::Posix);
    }

    /// `rm -rf T`, `rd /s /q T` and `Remove-Item -Recurse -Force T` are the same fact.
    #[test]
    fn simple_tree_deletes_agree(target in "[a-z][a-z0-9_]{0,8}(/[a-z0-9_]{1,8}){0,2}") {
        let windows = target.replace('/', "\\");
        let posix = classify(&format!("rm -rf {target}"), Dialect::Posix).ops;
        let cmd = classify(&format!("rd /s /q {windows}"), Dialect::Cmd).ops;
        let ps = classify(&format!("Remove-Item -Recurse -Force {windows}"), Dialect::PowerShell).ops;
        prop_assert_eq!(posix.len(), 1);
        prop_assert_eq!(facts(&posix[0]), facts(&cmd[0]));
        prop_assert_eq!(facts(&posix[0]), facts(&ps[0]));
    }

    /// Running a delete through a nested host never hides it.
    #[test]
    fn nested_hosts_do_not_hide_deletes(
        target in "[a-z]{1,8}",
        outer in prop::sample::select(vec![Dialect::Posix, Dialect::Cmd, Dialect::PowerShell]),
    ) {
        let plain = classify(&format!("rd /s /q {target}"), Dialect::Cmd).ops;
        for line in [
            format!("cmd /c \"rd /s /q {target}\""),
            format!("cmd.exe /s /c \"rd /s /q {target}\""),
            format!("powershell -NoProfile -Command \"Remove-Item -Recurse -Force {target}\""),
            format!("pwsh -c \"ri {target} -r -fo\""),
        ] {
            let nested = classify(&line, outer).ops;
            prop_assert_eq!(nested.len(), 1, "{}", line);
            prop_assert!(nested[0].wrapped);
            prop_assert_eq!(facts(&nested[0]), facts(&plain[0]), "{}", line);
        }
    }
}

/// Pathological lines must finish on a 2 MiB stack (no hang, no overflow).
#[test]
fn pathological_lines_finish() {
    let patterns: &[(&str, Dialect)] = &[
        ("cd a & del b & ", Dialect::Cmd),
        ("cmd /c ", Dialect::Cmd),
        ("call ", Dialect::Cmd),
        ("if exist a ", Dialect::Cmd),
        ("(rd /s /q a) & ", Dialect::Cmd),
        ("powershell -c ", Dialect::Cmd),
        ("% { ri a; ", Dialect::PowerShell),
        ("Start-Job { ri a } ", Dialect::PowerShell),
        ("icm -a 1 ", Dialect::PowerShell),
        ("iex 'ri a'; ", Dialect::PowerShell),
        ("pwsh -c ", Dialect::PowerShell),
        ("ri a,", Dialect::PowerShell),
        ("cmd /c ", Dialect::Posix),
    ];
    let handle = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(move || {
            for (pattern, dialect) in patterns {
                for n in [1, 100, 5_000] {
                    let text = pattern.repeat(n) + "del x";
                    let _ = classify(&text, *dialect);
                }
            }
        })
        .expect("spawn");
    handle.join().expect("no panic or overflow");
}
