use super::lex;
use crate::ast::{LexErrorKind, RedirectOp, Script, Separator, Word, WordPart};
use crate::test_support;

/// Each command's words: literal text, or `<raw>` for a word with opaque parts.
fn words(src: &str) -> Vec<Vec<String>> {
    test_support::words(&lex(src), src)
}

fn ok(src: &str) -> Script {
    test_support::ok(lex(src), src)
}

#[test]
fn separators_split_even_when_glued() {
    assert_eq!(
        words("echo x&del a.txt"),
        [vec!["echo", "x"], vec!["del", "a.txt"]]
    );
    assert_eq!(
        words("a&&b||c|d\ne"),
        [vec!["a"], vec!["b"], vec!["c"], vec!["d"], vec!["e"]]
    );
    let script = ok("a && b || c | d & e");
    let seps: Vec<Separator> = script.commands.iter().map(|c| c.separator).collect();
    assert_eq!(
        seps,
        [
            Separator::Start,
            Separator::And,
            Separator::Or,
            Separator::Pipe,
            Separator::Sequence
        ]
    );
}

#[test]
fn carets_escape_and_quotes_are_literal() {
    assert_eq!(words("del a^&b.txt"), [vec!["del", "a&b.txt"]]);
    assert_eq!(words("echo \"a & b\" ^\"x"), [vec!["echo", "a & b", "\"x"]]);
    assert_eq!(
        words("del \"C:\\proj\\build\\\""),
        [vec!["del", "C:\\proj\\build\\"]]
    );
    assert_eq!(words("echo \"^&\""), [vec!["echo", "^&"]]);
    assert_eq!(
        words("echo a^\nb & del x"),
        [vec!["echo", "ab"], vec!["del", "x"]]
    );
    assert_eq!(
        words("echo $(rm -rf .)"),
        [vec!["echo", "$(rm", "-rf", ".)"]]
    );
}

#[test]
fn unterminated_quote_is_an_error() {
    let script = lex("del /q \"unterminated");
    assert_eq!(
        script.error.map(|e| e.kind),
        Some(LexErrorKind::UnterminatedQuote)
    );
    assert_eq!(script.commands.len(), 1);
}

#[test]
fn variables_are_opaque() {
    assert_eq!(
        words("del /s /q %BUILD_DIR%"),
        [vec!["del", "/s", "/q", "<%BUILD_DIR%>"]]
    );
    assert_eq!(
        words("del %~dp0x %1 %%i !V!"),
        [vec!["del", "<%~dp0x>", "<%1>", "<%%i>", "<!V!>"]]
    );
    assert_eq!(words("del \"%TEMP%\\x\""), [vec!["del", "<\"%TEMP%\\x\">"]]);
    // A stray percent never swallows a separator.
    assert_eq!(
        words("echo 100% & del x & echo 50%"),
        [vec!["echo", "100%"], vec!["del", "x"], vec!["echo", "50%"]]
    );
    assert_eq!(words("echo Hello!"), [vec!["echo", "Hello!"]]);
    assert_eq!(words("del %i"), [vec!["del", "<%i>"]]);
    let script = ok("del %X:~0,3%");
    assert!(matches!(
        &script.commands[0].words[1].parts[..],
        [WordPart::Parameter { raw, quoted: false }] if raw == "%X:~0,3%"
    ));
}

#[test]
fn blocks_if_and_for_bodies_are_lexed() {
    for (src, expected) in [
        (
            "(del a & rd /s /q b)",
            vec![vec!["del", "a"], vec!["rd", "/s", "/q", "b"]],
        ),
        (
            "if exist build rd /s /q build",
            vec![vec!["rd", "/s", "/q", "build"]],
        ),
        (
            "if not exist x (del y) else (del z)",
            vec![vec!["del", "y"], vec!["del", "z"]],
        ),
        ("IF /I \"%A%\"==\"b\" del q", vec![vec!["del", "q"]]),
        ("if %x% equ 1 del q", vec![vec!["del", "q"]]),
        (
            "if exist a del a else del b",
            vec![vec!["del", "a"], vec!["del", "b"]],
        ),
        ("for %i in (*.log) do del %i", vec![vec!["del", "<%i>"]]),
        (
            "for /d %%d in (*) do (rd /s /q %%d)",
            vec![vec!["rd", "/s", "/q", "<%%d>"]],
        ),
        (
            "for /r . %f in (*.tmp) do del %f",
            vec![vec!["del", "<%f>"]],
        ),
        (
            "@echo off & @del x",
            vec![vec!["echo", "off"], vec!["del", "x"]],
        ),
    ] {
        assert_eq!(words(src), expected, "{src}");
        assert_eq!(lex(src).error, None, "{src}");
    }
    let script = ok("if exist b (\n  del a\n  del c\n)");
    assert_eq!(script.commands.len(), 2);
    assert!(script.commands.iter().all(|c| c.context.in_control_flow));
}

#[test]
fn for_f_command_strings_are_substitutions() {
    let script = ok("for /f \"delims=\" %i in ('dir /b ^| findstr x ^& del y') do echo %i");
    let inner: Vec<&str> = script
        .commands
        .iter()
        .filter(|c| c.context.in_substitution)
        .filter_map(|c| c.words.first())
        .map(|w| w.raw("for /f \"delims=\" %i in ('dir /b ^| findstr x ^& del y') do echo %i"))
        .collect();
    assert_eq!(inner, ["dir", "findstr", "del"]);
    let src = "for /f \"usebackq\" %i in (`del x`) do echo %i";
    let script = ok(src);
    assert!(script.commands.iter().any(|c| c.context.in_substitution));
}

#[test]
fn redirections() {
    let script = ok("echo x > a.tmp 2>&1 & type a >>b.txt");
    let c = &script.commands[0];
    assert_eq!(c.redirects.len(), 2);
    assert_eq!(c.redirects[0].op, RedirectOp::Out);
    assert_eq!(c.redirects[1].op, RedirectOp::DupOut);
    assert_eq!(c.redirects[1].fd, Some(2));
    assert_eq!(script.commands[1].redirects[0].op, RedirectOp::Append);
    let script = ok("(del a) > log.txt");
    assert_eq!(script.commands.len(), 2);
    assert!(lex("echo >").error.is_some());
}

#[test]
fn stray_operators_and_junk_after_blocks_are_errors() {
    assert!(lex("& del x").error.is_some());
    assert!(lex("del x &&").error.is_some());
    assert!(lex("(del x) y").error.is_some());
    assert!(lex("(del x").error.is_some());
    assert!(lex("if exist").error.is_some());
    assert!(lex("for %i in x do y").error.is_some());
    // A `)` outside a block is an ordinary character.
    assert_eq!(words("echo a)b"), [vec!["echo", "a)b"]]);
}

#[test]
fn spans_point_at_words() {
    let src = "  del  \"a b\"  c";
    let script = ok(src);
    let w: Vec<&str> = script.commands[0]
        .words
        .iter()
        .map(|w| w.raw(src))
        .collect();
    assert_eq!(w, ["del", "\"a b\"", "c"]);
    assert_eq!(script.commands[0].span.start, 2);
    assert_eq!(script.commands[0].span.end, src.len());
}

#[test]
fn deep_nesting_is_bounded() {
    let src = "(".repeat(10_000);
    let script = lex(&src);
    assert_eq!(script.error.map(|e| e.kind), Some(LexErrorKind::TooDeep));
    let src = "if 1==1 ".repeat(5_000) + "del x";
    let script = lex(&src);
    assert_eq!(script.error.map(|e| e.kind), Some(LexErrorKind::TooDeep));
}

#[test]
fn empty_quotes_are_an_argument() {
    let script = ok("start \"\" del x");
    let w: &Vec<Word> = &script.commands[0].words;
    assert_eq!(w.len(), 4);
    assert_eq!(w[1].literal_text().as_deref(), Some(""));
}
