//! An internal command with its first argument glued on (issue 35, from the second outside
//! review). cmd reads a builtin's name up to the first character that cannot be in it:
//! `cd..` is `cd ..`, `cd\` is `cd \`, `cd.claude` enters `.claude`, `del.\x` deletes
//! `.\x`, `echo.hello` prints `hello` (Wine's `cmd.exe` does each of these). Read as one
//! name they were programs the guard did not know, so `cd.. & del /q notes` deleted a file
//! outside the workspace after a checkpoint that could not keep it.

use crate::windows::{Piece, Tok};

/// The builtins that take a glued argument this way.
const BUILTINS: &[&str] = &[
    "cd", "chdir", "pushd", "popd", "del", "erase", "rd", "rmdir", "md", "mkdir", "type", "copy",
    "move", "ren", "rename", "dir", "echo",
];

/// Characters that end a builtin's name and start its argument (`/`, `,`, `;` and `=` are
/// split off already, as separators of every builtin).
const ENDS_NAME: &[char] = &['.', '\\', '+', '[', ']'];

/// `toks` with a glued builtin name split from its argument: `[cd.claude]` →
/// `[cd, .claude]`; `echo`'s separator is dropped, as cmd drops it (`echo.hi` prints `hi`).
pub(super) fn unglue(mut toks: Vec<Tok>) -> Vec<Tok> {
    let Some(head) = toks.first() else {
        return toks;
    };
    let Some(Piece::Lit {
        text,
        quoted: false,
    }) = head.pieces.first()
    else {
        return toks;
    };
    let lowered = text.to_ascii_lowercase();
    let Some(verb) = BUILTINS.iter().find(|verb| {
        lowered
            .strip_prefix(**verb)
            .and_then(|rest| rest.chars().next())
            .is_some_and(|c| ENDS_NAME.contains(&c))
    }) else {
        return toks;
    };
    let mut rest = text[verb.len()..].to_owned();
    if *verb == "echo" {
        rest.remove(0);
    }
    let span = head.span;
    let mut pieces = vec![Piece::Lit {
        text: rest,
        quoted: false,
    }];
    pieces.extend(head.pieces[1..].iter().cloned());
    let name = Tok::with_pieces(
        vec![Piece::Lit {
            text: text[..verb.len()].to_owned(),
            quoted: false,
        }],
        span,
    );
    let argument = Tok::with_pieces(pieces, span);
    toks.splice(0..1, [name, argument]);
    toks
}

#[cfg(test)]
mod tests {
    use agent_guard_types::Dialect;

    fn ops(line: &str) -> Vec<(String, Vec<String>)> {
        crate::classify(line, Dialect::Cmd)
            .ops
            .into_iter()
            .map(|op| {
                let targets = op.targets.iter().map(|t| t.text.clone()).collect();
                (op.op, targets)
            })
            .collect()
    }

    #[test]
    fn a_glued_builtin_is_the_builtin_with_its_argument() {
        assert_eq!(
            ops("del.\\notes.txt"),
            [("del".to_owned(), vec!["./notes.txt".to_owned()])]
        );
        assert_eq!(
            ops("DEL\\tmp\\x"),
            [("del".to_owned(), vec!["/tmp/x".to_owned()])]
        );
        assert!(ops("echo.hello").is_empty(), "echo prints");
        assert!(ops("type.\\notes.txt").is_empty(), "type reads");
        assert!(ops("dir.").is_empty());
        // A name that only starts like a builtin is another program.
        assert_eq!(ops("cdrecord.exe x")[0].0, "cdrecord");
    }
}
