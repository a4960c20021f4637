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
        "python3",
        "node",
        "-e",
        "shutil.rmtree(",
        "os.remove",
        "uv",
        "run",
        "npx",
        "rimraf",
        "worktree",
        "remove",
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

    /// Inline code that names a deletion API is an unknown op, whatever surrounds the call.
    #[test]
    fn inline_deletion_code_is_never_ignored(
        call in prop::sample::select(vec![
            ("python3 -c", "import shutil; shutil.rmtree(P)"),
            ("python -Sc", "import os; os.remove(P)"),
            ("node -e", "require(F).rmSync(P)"),
            ("node --eval", "fs.unlinkSync(P)"),
            ("ruby -e", "FileUtils.rm_rf(P)"),
            ("perl -e", "unlink(P)"),
            ("php -r", "unlink(P);"),
            ("deno eval", "Deno.removeSync(P)"),
        ]),
        before in "[a-z0-9 =;.()\n]{0,30}",
        after in "[a-z0-9 =;.()\n]{0,30}",
        runner in prop::sample::select(vec!["", "sudo ", "uv run ", "npx ", "env A=1 "]),
    ) {
        let (program, code) = call;
        let code = format!("{before}\n{code}\n{after}");
        let line = format!("{runner}{program} '{code}'");
        let result = classify(&line, Dialect::Posix);
        prop_assert!(
            result.ops.iter().any(|op| op.kind == OpKind::Unknown),
            "{line:?} gave {:?}", result.ops
        );
    }

    /// Adding a wrapper in front never hides a delete.
    #[test]
    fn wrappers_do_not_hide_deletes(target in "[a-z]{1,8}", wrapper in prop::sample::select(vec!["sudo", "env", "nice", "nohup", "command", "time", "exec", "timeout 5", "uv run", "poetry run", "npx", "direnv exec ."])) {
        let plain = classify(&format!("rm -rf {target}"), Dialect::Posix);
        let wrapped = classify(&format!("{wrapper} rm -rf {target}"), Dialect::Posix);
        prop_assert_eq!(plain.ops.len(), 1);
        prop_assert_eq!(wrapped.ops.len(), 1);
        prop_assert_eq!(&wrapped.ops[0].targets[0].text, &target);
    }
}
