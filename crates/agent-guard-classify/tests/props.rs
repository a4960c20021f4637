//! Property tests: the classifier never panics, and what it reports points into the input.

use agent_guard_classify::classify;
use agent_guard_types::{Dialect, OpKind};
use proptest::prelude::*;

/// Shell-ish text: destructive words, operators, quotes and expansions in random order.
fn shellish() -> impl Strategy<Value = String> {
    let atoms = prop::sample::select(vec![
        "rm",
        "-rf",
        "-r",
        "build",
        " ",
        " ",
        ";",
        "&&",
        "|",
        "\n",
        "'",
        "\"",
        "$(",
        ")",
        "(",
        "{",
        "}",
        "`",
        "$X",
        "~",
        "*",
        "git",
        "clean",
        "-fd",
        "reset",
        "--hard",
        "push",
        "-f",
        "sudo",
        "env",
        "A=1",
        "bash",
        "-c",
        "eval",
        "xargs",
        "find",
        "-delete",
        "cd",
        "..",
        "touch",
        "<<",
        "EOF",
        "#",
        "\\",
        "if",
        "then",
        "fi",
        "for",
        "do",
        "done",
        "case",
        "esac",
        "del",
        "/s",
        "Remove-Item",
    ]);
    prop::collection::vec(atoms, 0..40).prop_map(|parts| parts.concat())
}

proptest! {
    #[test]
    fn never_panics_on_arbitrary_text(text in "\\PC{0,200}") {
        let _ = classify(&text, Dialect::Posix);
    }

    #[test]
    fn never_panics_on_shellish_text(text in shellish()) {
        let result = classify(&text, Dialect::Posix);
        for op in &result.ops {
            prop_assert!(op.span.start <= op.span.end && op.span.end <= text.len());
            prop_assert!(op.kind != OpKind::Other);
            for target in &op.targets {
                if let Some(span) = target.span {
                    prop_assert!(span.start <= span.end && span.end <= text.len());
                }
            }
        }
    }

    /// Adding a wrapper in front never hides a delete.
    #[test]
    fn wrappers_do_not_hide_deletes(target in "[a-z]{1,8}", wrapper in prop::sample::select(vec!["sudo", "env", "nice", "nohup", "command", "time", "exec", "timeout 5"])) {
        let plain = classify(&format!("rm -rf {target}"), Dialect::Posix);
        let wrapped = classify(&format!("{wrapper} rm -rf {target}"), Dialect::Posix);
        prop_assert_eq!(plain.ops.len(), 1);
        prop_assert_eq!(wrapped.ops.len(), 1);
        prop_assert_eq!(&wrapped.ops[0].targets[0].text, &target);
    }
}
