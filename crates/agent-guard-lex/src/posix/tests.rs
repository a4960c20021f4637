//! Unit tests of the POSIX lexer, grouped by the feature they pin down.

use super::{MAX_DEPTH, lex};
use crate::ast::{
    Brace, CommandContext, LexErrorKind, RedirectOp, Script, Separator, SimpleCommand, Word,
    WordPart,
};

/// A word as text: its literal text, or its raw source when it has active parts.
fn render(src: &str, w: &Word) -> String {
    w.literal_text().unwrap_or_else(|| w.raw(src).to_owned())
}

fn words(src: &str, c: &SimpleCommand) -> Vec<String> {
    c.words.iter().map(|w| render(src, w)).collect()
}

/// Lexes text that must be error-free; returns every command's words.
fn ok(src: &str) -> Vec<Vec<String>> {
    let script = lex(src);
    assert_eq!(
        script.error, None,
        "unexpected error for {src:?}: {script:#?}"
    );
    script.commands.iter().map(|c| words(src, c)).collect()
}

fn err(src: &str) -> Option<LexErrorKind> {
    lex(src).error.map(|e| e.kind)
}

fn only(src: &str) -> SimpleCommand {
    let script = lex(src);
    assert_eq!(script.commands.len(), 1, "{src:?}: {script:#?}");
    script.commands.into_iter().next().expect("one command")
}

fn lit(text: &str, quoted: bool) -> WordPart {
    WordPart::Literal {
        text: text.into(),
        quoted,
    }
}

fn span_text<'a>(src: &'a str, c: &SimpleCommand) -> &'a str {
    &src[c.span.start..c.span.end]
}

fn find<'a>(script: &'a Script, src: &str, first_word: &str) -> &'a SimpleCommand {
    script
        .commands
        .iter()
        .find(|c| {
            c.words
                .first()
                .is_some_and(|w| render(src, w) == first_word)
        })
        .unwrap_or_else(|| panic!("no command {first_word:?} in {script:#?}"))
}

// 1. Quotes ------------------------------------------------------------------------------

#[test]
fn single_quotes_are_literal() {
    let c = only("echo 'a $b `c` \\d'");
    assert_eq!(c.words[1].parts, [lit("a $b `c` \\d", true)]);
}

#[test]
fn double_quote_escapes_and_active_parts() {
    let src = r#"echo "a\$b \x \\ \" \`" "$HOME/x" "`ls`""#;
    let script = lex(src);
    let c = find(&script, src, "echo");
    assert_eq!(c.words[1].parts, [lit(r#"a$b \x \ " `"#, true)]);
    assert_eq!(
        c.words[2].parts,
        [
            WordPart::Parameter {
                raw: "$HOME".into(),
                quoted: true
            },
            lit("/x", true)
        ]
    );
    assert_eq!(
        c.words[3].parts,
        [WordPart::CommandSubstitution { raw: "`ls`".into() }]
    );
    assert_eq!(lex(src).commands.len(), 2, "the backtick body is listed");
}

#[test]
fn ansi_c_and_locale_quotes() {
    let c = only(r#"echo $'a\nb' $'it\'s' $'\x41\u00e9\101' $'\c' $'\q' $"loc $x""#);
    assert_eq!(c.words[1].parts, [lit("a\nb", true)]);
    assert_eq!(c.words[2].parts, [lit("it's", true)]);
    assert_eq!(c.words[3].parts, [lit("AéA", true)]);
    assert_eq!(c.words[4].parts, [lit("\\c", true)]);
    assert_eq!(c.words[5].parts, [lit("\\q", true)]);
    assert_eq!(
        c.words[6].parts,
        [
            lit("loc ", true),
            WordPart::Parameter {
                raw: "$x".into(),
                quoted: true
            }
        ]
    );
}

#[test]
fn ansi_c_escapes_are_bytes() {
    // Byte escapes join into UTF-8 text (issue 12 item 4).
    let c = only(r"rm -rf $'r\xc3\xa9sum\xc3\xa9.txt' $'\303\251t\303\251' $'\x{c3}\x{a9}'");
    assert_eq!(c.words[2].parts, [lit("résumé.txt", true)]);
    assert_eq!(c.words[3].parts, [lit("été", true)]);
    assert_eq!(c.words[4].parts, [lit("é", true)]);
    // Bytes that are not UTF-8 cannot be a `String`: the part is opaque, never re-spelled.
    let src = r"rm a$'\xff'b $'\uD800'";
    let c = only(src);
    for (word, raw) in [(&c.words[1], r"$'\xff'"), (&c.words[2], r"$'\uD800'")] {
        assert!(word.literal_text().is_none(), "{raw}");
        assert!(
            word.parts
                .iter()
                .any(|p| matches!(p, WordPart::Opaque { raw: r, .. } if r == raw)),
            "{:?}",
            word.parts
        );
    }
}

#[test]
fn backslash_escapes_and_continuations() {
    assert_eq!(
        only(r"rm a\ b").words[1].parts,
        [lit("a", false), lit(" ", true), lit("b", false)]
    );
    assert_eq!(ok(r"rm a\ b"), [["rm", "a b"]]);
    assert_eq!(ok("echo a\\\nb c"), [["echo", "ab", "c"]]);
    assert_eq!(ok("echo a \\\n  b"), [["echo", "a", "b"]]);
    assert_eq!(ok("echo \"a\\\nb\""), [["echo", "ab"]]);
    assert_eq!(ok("echo 'a\\\nb'"), [["echo", "a\\\nb"]]);
    assert_eq!(ok("echo \\*"), [["echo", "*"]]);
    assert!(!only("echo \\*").words[1].has_glob());
    // A trailing backslash stays literal.
    assert_eq!(ok("echo a\\"), [["echo", "a\\"]]);
}

#[test]
fn empty_quotes_are_empty_arguments() {
    let c = only("printf '' \"\" $''");
    assert_eq!(c.words.len(), 4);
    for w in &c.words[1..] {
        assert_eq!(w.literal_text().as_deref(), Some(""));
    }
}

#[test]
fn unterminated_quotes() {
    assert_eq!(err("rm -rf \"x"), Some(LexErrorKind::UnterminatedQuote));
    assert_eq!(err("rm 'x"), Some(LexErrorKind::UnterminatedQuote));
    assert_eq!(err("rm $'x"), Some(LexErrorKind::UnterminatedQuote));
    let script = lex("rm -rf \"x");
    assert_eq!(words("rm -rf \"x", &script.commands[0]), ["rm", "-rf", "x"]);
    assert_eq!(script.error.map(|e| e.span.start), Some(7));
}

#[test]
fn raw_word_keeps_quotes() {
    let src = "rm \"a b\" 'c'd";
    let c = only(src);
    assert_eq!(c.words[1].raw(src), "\"a b\"");
    assert_eq!(c.words[2].raw(src), "'c'd");
}

// 2. Separators ------------------------------------------------------------------------------

#[test]
fn separators_split_glued_commands() {
    assert_eq!(ok("echo ok;rm x"), [vec!["echo", "ok"], vec!["rm", "x"]]);
    assert_eq!(ok("a&&b"), [["a"], ["b"]]);
    assert_eq!(ok("a|b"), [["a"], ["b"]]);
    let seps: Vec<Separator> = lex("a&&b|c||d|&e&f;g\nh")
        .commands
        .iter()
        .map(|c| c.separator)
        .collect();
    assert_eq!(
        seps,
        [
            Separator::Start,
            Separator::And,
            Separator::Pipe,
            Separator::Or,
            Separator::PipeAll,
            Separator::Background,
            Separator::Sequence,
            Separator::Sequence
        ]
    );
}

#[test]
fn separators_are_per_nesting_level() {
    let src = "a && (b; c) || d";
    let script = lex(src);
    let seps: Vec<(String, Separator)> = script
        .commands
        .iter()
        .map(|c| (words(src, c)[0].clone(), c.separator))
        .collect();
    assert_eq!(
        seps,
        [
            ("a".into(), Separator::Start),
            ("b".into(), Separator::Start),
            ("c".into(), Separator::Sequence),
            ("d".into(), Separator::Or)
        ]
    );
}

#[test]
fn operators_continue_over_newlines() {
    let script = lex("a &&\n\n  b |\n c");
    let seps: Vec<Separator> = script.commands.iter().map(|c| c.separator).collect();
    assert_eq!(seps, [Separator::Start, Separator::And, Separator::Pipe]);
    assert_eq!(lex("\n\na").commands[0].separator, Separator::Start);
}

#[test]
fn misplaced_operators_are_malformed() {
    assert_eq!(err("; ls"), Some(LexErrorKind::Malformed));
    assert_eq!(err("ls && && x"), Some(LexErrorKind::Malformed));
    assert_eq!(err("ls &&"), Some(LexErrorKind::Malformed));
    assert_eq!(err("ls |"), Some(LexErrorKind::Malformed));
    assert_eq!(err("echo a;; ls"), Some(LexErrorKind::Malformed));
    assert_eq!(ok("ls &"), [["ls"]]);
    assert_eq!(ok("ls;"), [["ls"]]);
}

// 3. Comments --------------------------------------------------------------------------------

#[test]
fn comments() {
    assert_eq!(ok("echo x #rm -rf y"), [["echo", "x"]]);
    assert_eq!(ok("echo a#b"), [["echo", "a#b"]]);
    assert_eq!(ok("# rm -rf /\nls"), [["ls"]]);
    assert_eq!(ok("ls;#rm x\npwd"), [vec!["ls"], vec!["pwd"]]);
    assert_eq!(ok("echo '#x' \\#y"), [["echo", "#x", "#y"]]);
    assert_eq!(
        ok("echo $(ls # )\n)"),
        [vec!["echo", "$(ls # )\n)"], vec!["ls"]]
    );
}

// 4. Redirections ------------------------------------------------------------------------------

#[test]
fn redirections_are_not_words() {
    let src = "rm -rf build 2>/dev/null";
    let c = only(src);
    assert_eq!(words(src, &c), ["rm", "-rf", "build"]);
    assert_eq!(c.redirects.len(), 1);
    let r = &c.redirects[0];
    assert_eq!((r.fd, r.op), (Some(2), RedirectOp::Out));
    assert_eq!(render(src, r.target.as_ref().unwrap()), "/dev/null");
    assert_eq!(&src[r.span.start..r.span.end], "2>/dev/null");
    assert_eq!(span_text(src, &c), src);
}

#[test]
fn every_redirection_operator() {
    let cases = [
        (">f", RedirectOp::Out),
        (">>f", RedirectOp::Append),
        (">|f", RedirectOp::Clobber),
        ("<f", RedirectOp::In),
        ("<>f", RedirectOp::ReadWrite),
        (">&2", RedirectOp::DupOut),
        ("<&0", RedirectOp::DupIn),
        ("&>f", RedirectOp::OutErr),
        ("&>>f", RedirectOp::AppendErr),
        ("<<<word", RedirectOp::HereString),
        ("<<EOF", RedirectOp::HereDoc),
        ("<<-EOF", RedirectOp::HereDocStrip),
    ];
    for (text, op) in cases {
        let src = format!("cmd {text} arg");
        let c = only(&src);
        assert_eq!(words(&src, &c), ["cmd", "arg"], "{src}");
        assert_eq!(c.redirects[0].op, op, "{src}");
        assert!(c.redirects[0].target.is_some(), "{src}");
    }
}

#[test]
fn redirection_fds_targets_and_positions() {
    let src = ">out echo hi 2>&1 1>>log {fd}>x 3< in";
    let c = only(src);
    assert_eq!(words(src, &c), ["echo", "hi"]);
    let got: Vec<(Option<u32>, RedirectOp, String)> = c
        .redirects
        .iter()
        .map(|r| (r.fd, r.op, render(src, r.target.as_ref().unwrap())))
        .collect();
    assert_eq!(
        got,
        [
            (None, RedirectOp::Out, "out".into()),
            (Some(2), RedirectOp::DupOut, "1".into()),
            (Some(1), RedirectOp::Append, "log".into()),
            (None, RedirectOp::Out, "x".into()),
            (Some(3), RedirectOp::In, "in".into()),
        ]
    );
    assert_eq!(span_text(src, &c), src);
}

#[test]
fn a_number_is_an_fd_only_when_glued_to_the_operator() {
    let src = "echo 2>x a2>y 3 >z";
    let c = only(src);
    assert_eq!(words(src, &c), ["echo", "a2", "3"]);
    let fds: Vec<Option<u32>> = c.redirects.iter().map(|r| r.fd).collect();
    assert_eq!(fds, [Some(2), None, None]);
}

#[test]
fn redirection_without_target_is_malformed() {
    for src in [
        "echo >",
        "echo > ;ls",
        "echo 2>",
        "cat <",
        "echo > #c",
        "echo >|",
    ] {
        assert_eq!(err(src), Some(LexErrorKind::Malformed), "{src}");
    }
}

#[test]
fn redirections_after_compound_commands_are_listed() {
    let src = "while read x; do rm \"$x\"; done < list > log";
    let script = lex(src);
    let last = script.commands.last().unwrap();
    assert!(last.words.is_empty());
    assert_eq!(last.redirects.len(), 2);
    assert_eq!(span_text(src, last), "< list > log");
    assert_eq!(last.context.depth, 0);
    assert!(last.redirects.iter().any(|r| r.op.writes()));
}

// 5. Heredocs ------------------------------------------------------------------------------

#[test]
fn quoted_heredoc_body_is_data() {
    let src = "cat > notes.md <<'EOF'\nrun rm -rf build\nEOF\necho done";
    let script = lex(src);
    assert_eq!(script.error, None);
    let all: Vec<Vec<String>> = script.commands.iter().map(|c| words(src, c)).collect();
    assert_eq!(all, [vec!["cat"], vec!["echo", "done"]]);
    let doc = script.commands[0].redirects[1].heredoc.as_ref().unwrap();
    assert_eq!(doc.delimiter, "EOF");
    assert!(doc.quoted && doc.terminated);
    assert_eq!(doc.body, "run rm -rf build\n");
    assert_eq!(span_text(src, &script.commands[1]), "echo done");
}

#[test]
fn heredoc_delimiter_forms() {
    for (src, delim, quoted) in [
        ("cat <<EOF\nx\nEOF", "EOF", false),
        ("cat <<'EOF'\nx\nEOF", "EOF", true),
        ("cat <<\"EOF\"\nx\nEOF", "EOF", true),
        ("cat <<\\EOF\nx\nEOF", "EOF", true),
        ("cat << E\"O\"F\nx\nEOF", "EOF", true),
    ] {
        let c = only(src);
        let r = &c.redirects[0];
        let doc = r.heredoc.as_ref().unwrap();
        assert_eq!(
            (doc.delimiter.as_str(), doc.quoted, doc.terminated),
            (delim, quoted, true)
        );
        assert_eq!(doc.body, "x\n", "{src}");
        assert!(r.target.is_some());
    }
}

#[test]
fn several_heredocs_on_one_line_and_long_bodies() {
    let body_a = "rm -rf not_a_command\n".repeat(200);
    let body_b = "echo $HOME 'quoted'\n".repeat(300);
    let src =
        format!("cat <<A; cat <<-B\n{body_a}A\n\t{body_b}\tB\ncat <<C\n{body_b}C\nrm -rf build\n");
    let script = lex(&src);
    assert_eq!(script.error, None);
    let all: Vec<Vec<String>> = script.commands.iter().map(|c| words(&src, c)).collect();
    assert_eq!(
        all,
        [
            vec!["cat"],
            vec!["cat"],
            vec!["cat"],
            vec!["rm", "-rf", "build"]
        ]
    );
    let last = &script.commands[3];
    assert_eq!(span_text(&src, last), "rm -rf build");
    assert_eq!(last.span.start, src.find("rm -rf build\n").unwrap());
    let a = script.commands[0].redirects[0].heredoc.as_ref().unwrap();
    let b = script.commands[1].redirects[0].heredoc.as_ref().unwrap();
    assert_eq!(a.body, body_a);
    assert_eq!(b.body, body_b, "leading tabs are stripped for <<-");
    assert_eq!(script.commands[1].separator, Separator::Sequence);
}

#[test]
fn unquoted_heredoc_substitutions_run() {
    let src = "cat <<EOF\nhello $(rm -rf a) `rm b` ${x:-$(rm c)}\n\\$(not run) '$(rm d)'\nEOF\necho after";
    let script = lex(src);
    assert_eq!(script.error, None);
    let subs: Vec<Vec<String>> = script
        .commands
        .iter()
        .filter(|c| c.context.in_substitution)
        .map(|c| words(src, c))
        .collect();
    assert_eq!(
        subs,
        [
            vec!["rm", "-rf", "a"],
            vec!["rm", "b"],
            vec!["rm", "c"],
            vec!["rm", "d"]
        ]
    );
    for c in &script.commands {
        assert!(src[c.span.start..c.span.end].starts_with(&words(src, c)[0]));
    }
    assert_eq!(
        span_text(src, script.commands.last().unwrap()),
        "echo after"
    );
}

#[test]
fn quoted_heredoc_substitutions_do_not_run() {
    let src = "cat <<'EOF'\n$(rm -rf a) `rm b`\nEOF";
    assert_eq!(ok(src), [["cat"]]);
}

#[test]
fn unterminated_heredoc_fails_closed() {
    let src = "cat <<EOF\nrm -rf y\necho z";
    let script = lex(src);
    let all: Vec<Vec<String>> = script.commands.iter().map(|c| words(src, c)).collect();
    assert_eq!(
        all,
        [vec!["cat"], vec!["rm", "-rf", "y"], vec!["echo", "z"]]
    );
    let doc = script.commands[0].redirects[0].heredoc.as_ref().unwrap();
    assert!(!doc.terminated);
    assert_eq!(doc.body, "");
    // No newline at all after the operator.
    let c = only("cat <<EOF");
    assert!(!c.redirects[0].heredoc.as_ref().unwrap().terminated);
}

#[test]
fn heredoc_in_substitution_and_pipeline() {
    let src = "x=$(cat <<EOF\nrm -rf inside\nEOF\n) && cat <<E | grep a\nbody\nE\nrm z";
    let script = lex(src);
    assert_eq!(script.error, None);
    let all: Vec<Vec<String>> = script.commands.iter().map(|c| words(src, c)).collect();
    assert_eq!(
        all,
        [
            vec![],
            vec!["cat"],
            vec!["cat"],
            vec!["grep", "a"],
            vec!["rm", "z"]
        ]
    );
    assert_eq!(script.commands[0].assignments.len(), 1);
}

#[test]
fn heredoc_terminator_may_end_with_cr() {
    let src = "cat <<EOF\r\nbody\r\nEOF\r\nrm x\r\n";
    assert_eq!(ok(src), [vec!["cat"], vec!["rm", "x"]]);
}

// 6. Here-strings -----------------------------------------------------------------------------

#[test]
fn here_string_substitutions_are_listed() {
    let src = "cat <<<\"$(rm hs)\" <<< plain";
    let script = lex(src);
    assert_eq!(script.error, None);
    let cat = find(&script, src, "cat");
    assert_eq!(cat.redirects.len(), 2);
    assert_eq!(cat.redirects[0].op, RedirectOp::HereString);
    assert_eq!(cat.redirects[0].heredoc, None);
    assert_eq!(
        render(src, cat.redirects[1].target.as_ref().unwrap()),
        "plain"
    );
    assert!(find(&script, src, "rm").context.in_substitution);
}

// 7. Subshells and groups ----------------------------------------------------------------

#[test]
fn subshells() {
    let src = "(cd sub && rm -rf build)";
    let script = lex(src);
    assert_eq!(script.error, None);
    let rm = find(&script, src, "rm");
    assert!(rm.context.in_subshell);
    assert_eq!(rm.context.depth, 1);
    assert_eq!(rm.separator, Separator::And);
    assert_eq!(span_text(src, rm), "rm -rf build");
    let single = lex("(rm -rf build)");
    assert_eq!(single.commands.len(), 1);
    assert!(single.commands[0].context.in_subshell);
}

#[test]
fn groups() {
    let src = "{ rm a; rm b; }";
    let script = lex(src);
    assert_eq!(script.error, None);
    assert_eq!(script.commands.len(), 2);
    for c in &script.commands {
        assert_eq!(c.context.depth, 1);
        assert!(!c.context.in_subshell);
    }
    assert_eq!(ok("{ echo a;}"), [["echo", "a"]]);
    assert_eq!(ok("{ echo a; }>f"), [vec!["echo", "a"], vec![]]);
}

#[test]
fn braces_are_reserved_only_in_command_position() {
    assert_eq!(ok("echo {"), [["echo", "{"]]);
    assert_eq!(ok("echo }"), [["echo", "}"]]);
    assert_eq!(ok("{ echo }; }"), [["echo", "}"]]);
    assert_eq!(ok("{echo,hi}"), [["{echo,hi}"]]);
    assert_eq!(err("{ echo }"), Some(LexErrorKind::UnclosedGroup));
}

#[test]
fn unclosed_and_stray_closers() {
    assert_eq!(err("(rm x"), Some(LexErrorKind::UnclosedGroup));
    assert_eq!(err("{ rm x;"), Some(LexErrorKind::UnclosedGroup));
    assert_eq!(err("rm x)"), Some(LexErrorKind::UnexpectedClose));
    assert_eq!(err("rm x; }"), Some(LexErrorKind::UnexpectedClose));
    assert_eq!(err("ls; fi"), Some(LexErrorKind::UnexpectedClose));
    // Commands after the error are still listed.
    let script = lex("rm a) ; rm b");
    assert_eq!(script.commands.len(), 2);
    let script = lex("(rm x");
    assert_eq!(script.commands.len(), 1);
}

// 8. Control flow ------------------------------------------------------------------------------

#[test]
fn if_clause() {
    let src = "if true; then rm -rf build; fi";
    let script = lex(src);
    assert_eq!(script.error, None);
    let all: Vec<Vec<String>> = script.commands.iter().map(|c| words(src, c)).collect();
    assert_eq!(all, [vec!["true"], vec!["rm", "-rf", "build"]]);
    for c in &script.commands {
        assert!(c.context.in_control_flow);
        assert_eq!(c.context.depth, 1);
    }
    assert_eq!(
        ok("if a; then b; elif c; then d; else e; fi; f"),
        [["a"], ["b"], ["c"], ["d"], ["e"], ["f"]]
    );
    assert_eq!(ok("if a\nthen\n b\nfi"), [["a"], ["b"]]);
}

#[test]
fn loops() {
    let src = "for f in a $(rm sub) b; do rm \"$f\"; done";
    let script = lex(src);
    assert_eq!(script.error, None);
    let all: Vec<Vec<String>> = script.commands.iter().map(|c| words(src, c)).collect();
    assert_eq!(all, [vec!["rm", "sub"], vec!["rm", "\"$f\""]]);
    assert!(script.commands.iter().all(|c| c.context.in_control_flow));
    assert!(script.commands[0].context.in_substitution);
    assert_eq!(ok("for ((i=0; i<3; i++)); do rm $i; done"), [["rm", "$i"]]);
    assert_eq!(ok("for x\ndo rm $x\ndone"), [["rm", "$x"]]);
    assert_eq!(ok("for x; do :; done"), [[":"]]);
    assert_eq!(ok("select x in a b; do rm $x; done"), [["rm", "$x"]]);
    assert_eq!(
        ok("while read x; do rm $x; done"),
        [["read", "x"], ["rm", "$x"]]
    );
    assert_eq!(ok("until false; do :; done"), [["false"], [":"]]);
    assert_eq!(ok("for i in 1 2; { rm $i; }"), [["rm", "$i"]]);
    // Reserved words are plain words elsewhere.
    assert_eq!(
        ok("echo for in do done"),
        [["echo", "for", "in", "do", "done"]]
    );
}

#[test]
fn case_clause() {
    let src = "case $x in a) rm a;; (b) rm b;; esac";
    let script = lex(src);
    assert_eq!(script.error, None);
    let all: Vec<Vec<String>> = script.commands.iter().map(|c| words(src, c)).collect();
    assert_eq!(all, [["rm", "a"], ["rm", "b"]]);
    assert!(script.commands.iter().all(|c| c.context.in_control_flow));
    assert_eq!(
        ok("case \"$1\" in\n  *.txt|*.md) rm \"$1\" ;&\n  @(x|y)) :;;&\n  *) echo no\nesac; ls"),
        [
            vec!["rm", "\"$1\""],
            vec![":"],
            vec!["echo", "no"],
            vec!["ls"]
        ]
    );
    assert_eq!(ok("case x in esac"), Vec::<Vec<String>>::new());
    assert_eq!(ok("case $(rm w) in a) ;; esac"), [["rm", "w"]]);
}

#[test]
fn case_inside_command_substitution() {
    let src = "echo $(case x in a) rm a;; esac) && rm b";
    let script = lex(src);
    assert_eq!(script.error, None);
    let rm_a = find(&script, src, "rm");
    assert!(rm_a.context.in_substitution && rm_a.context.in_control_flow);
    assert_eq!(
        script.commands.last().map(|c| c.separator),
        Some(Separator::And)
    );
    assert_eq!(script.commands.len(), 3);
}

#[test]
fn negation() {
    let c = only("! rm y");
    assert!(c.context.negated);
    let script = lex("a | ! b; c");
    let neg: Vec<bool> = script.commands.iter().map(|c| c.context.negated).collect();
    assert_eq!(neg, [false, true, false]);
    assert_eq!(ok("echo !(x)"), [["echo", "!(x)"]]);
}

#[test]
fn time_keyword_prefixes_pipelines_and_compounds() {
    assert_eq!(ok("time { rm -rf build; }"), [["rm", "-rf", "build"]]);
    assert_eq!(ok("time -p (rm x)"), [["rm", "x"]]);
    assert_eq!(ok("time rm x"), [["rm", "x"]]);
    assert_eq!(ok("time -v rm x"), [["time", "-v", "rm", "x"]]);
    assert_eq!(ok("echo time"), [["echo", "time"]]);
}

#[test]
fn functions() {
    for src in [
        "f() { rm -rf x; }",
        "function f { rm -rf x; }",
        "function f() { rm -rf x; }",
        "f () {\n rm -rf x\n}",
    ] {
        let script = lex(src);
        assert_eq!(script.error, None, "{src}");
        assert_eq!(script.commands.len(), 1, "{src}");
        let c = &script.commands[0];
        assert_eq!(words(src, c), ["rm", "-rf", "x"]);
        assert!(c.context.in_function);
        assert_eq!(c.context.depth, 1, "{src}");
    }
    assert_eq!(ok("f() ( rm x ); f"), [vec!["rm", "x"], vec!["f"]]);
    assert_eq!(err("f() rm x"), Some(LexErrorKind::Malformed));
    assert!(lex("f() rm x").commands[0].context.in_function);
}

#[test]
fn conditional_command() {
    let src = "[[ -f a && -f b ]] && rm a";
    let script = lex(src);
    assert_eq!(script.error, None);
    assert_eq!(script.commands.len(), 2);
    assert_eq!(
        words(src, &script.commands[0]),
        ["[[", "-f", "a", "&&", "-f", "b", "]]"]
    );
    assert!(script.commands[0].redirects.is_empty());
    assert_eq!(script.commands[1].separator, Separator::And);
    assert_eq!(
        ok("[[ $x =~ ^(a|b)$ || a < b ]]"),
        [["[[", "$x", "=~", "^(a|b)$", "||", "a", "<", "b", "]]"]]
    );
    assert_eq!(err("[[ -f a"), Some(LexErrorKind::Malformed));
    assert_eq!(lex("[[ -f a ; rm x").commands.len(), 2);
}

#[test]
fn arithmetic_command() {
    let src = "((x > 2)) && rm y";
    let script = lex(src);
    assert_eq!(script.error, None);
    // bash's reading runs nothing; the commands of sh's reading are flagged.
    let (sh, bash): (Vec<_>, Vec<_>) = script
        .commands
        .iter()
        .partition(|c| c.context.maybe_arithmetic);
    assert!(bash.iter().all(|c| c.redirects.is_empty()));
    assert_eq!(bash.len(), 1);
    assert_eq!(words(src, bash[0]), ["rm", "y"]);
    assert_eq!(bash[0].separator, Separator::And);
    assert_eq!(sh.len(), 1);
    assert_eq!(words(src, sh[0]), ["x"]);
    assert_eq!(sh[0].context.depth, 2);
    // A substitution runs in both readings and is listed once, unflagged; in sh's reading
    // its output is the command name.
    let src = "(( $(rm z) + 1 ))";
    let script = lex(src);
    let all: Vec<(Vec<String>, bool)> = script
        .commands
        .iter()
        .map(|c| (words(src, c), c.context.maybe_arithmetic))
        .collect();
    assert_eq!(
        all,
        [
            (
                vec!["$(rm z)".to_owned(), "+".to_owned(), "1".to_owned()],
                true
            ),
            (vec!["rm".to_owned(), "z".to_owned()], false)
        ]
    );
    // Not arithmetic: nested subshells.
    let src = "((cd x); rm y)";
    let script = lex(src);
    assert_eq!(script.error, None);
    let all: Vec<Vec<String>> = script.commands.iter().map(|c| words(src, c)).collect();
    assert_eq!(all, [["cd", "x"], ["rm", "y"]]);
    assert_eq!(script.commands[0].context.depth, 2);
    assert!(!script.commands[0].context.maybe_arithmetic);
}

#[test]
fn coproc_prefixes_a_command() {
    assert_eq!(ok("coproc rm -rf build"), [["rm", "-rf", "build"]]);
    assert_eq!(ok("coproc w { rm -rf build; }"), [["rm", "-rf", "build"]]);
    assert_eq!(ok("coproc { rm -rf build; }"), [["rm", "-rf", "build"]]);
    assert_eq!(ok("coproc w (rm -rf build)"), [["rm", "-rf", "build"]]);
    assert_eq!(ok("coproc cat x"), [["cat", "x"]]);
    assert_eq!(ok("echo coproc"), [["echo", "coproc"]]);
}

#[test]
fn arithmetic_text_is_also_read_as_subshells() {
    // dash runs these as nested subshells (issue 12 item 5).
    let src = "((rm -rf a))";
    let script = lex(src);
    assert_eq!(script.error, None);
    assert_eq!(script.commands.len(), 1);
    assert_eq!(words(src, &script.commands[0]), ["rm", "-rf", "a"]);
    assert!(script.commands[0].context.maybe_arithmetic);
    assert!(script.commands[0].context.in_subshell);
    let src = "echo x; ((cd b; rm -rf a)) | cat";
    let flagged: Vec<Vec<String>> = lex(src)
        .commands
        .iter()
        .filter(|c| c.context.maybe_arithmetic)
        .map(|c| words(src, c))
        .collect();
    assert_eq!(flagged, [vec!["cd", "b"], vec!["rm", "-rf", "a"]]);
    // Arithmetic that is not valid as subshells has only bash's reading.
    for src in ["(( (a) + (b) ))", "(( x = (1 + 2) * 3 ))"] {
        let script = lex(src);
        assert_eq!(script.error, None, "{src}");
        assert!(
            script
                .commands
                .iter()
                .all(|c| !c.context.maybe_arithmetic || words(src, c) != ["a"]),
            "{src}"
        );
    }
    // `$((…))` is arithmetic in every shell.
    assert!(lex("echo $((rm -rf a))").commands.len() == 1);
}

// 9. Brace expansion ----------------------------------------------------------------------------

fn brace_list(w: &Word) -> Vec<Vec<WordPart>> {
    match w.parts.as_slice() {
        [WordPart::Brace(Brace::List(alts))] => alts.iter().map(|a| a.parts.clone()).collect(),
        other => panic!("not a brace list: {other:?}"),
    }
}

#[test]
fn brace_lists() {
    let src = "rm -rf {build,dist}";
    let c = only(src);
    assert_eq!(
        brace_list(&c.words[2]),
        [vec![lit("build", false)], vec![lit("dist", false)]]
    );
    let WordPart::Brace(Brace::List(alts)) = &c.words[2].parts[0] else {
        panic!()
    };
    assert_eq!(alts[0].raw(src), "build");
    assert_eq!(alts[1].raw(src), "dist");
    let c = only("echo x{a,b}y");
    assert!(matches!(
        c.words[1].parts.as_slice(),
        [
            WordPart::Literal { .. },
            WordPart::Brace(Brace::List(_)),
            WordPart::Literal { .. }
        ]
    ));
    let c = only("echo {a,{b,c}}");
    let alts = brace_list(&c.words[1]);
    assert!(
        matches!(alts[1].as_slice(), [WordPart::Brace(Brace::List(inner))] if inner.len() == 2)
    );
    let c = only("echo {,a} {'a,b',c} {a,$x}");
    assert_eq!(brace_list(&c.words[1]), [vec![], vec![lit("a", false)]]);
    assert_eq!(
        brace_list(&c.words[2]),
        [vec![lit("a,b", true)], vec![lit("c", false)]]
    );
}

#[test]
fn brace_sequences() {
    let c = only("rm {1..3}.log {a..e} {1..10..2}");
    assert_eq!(
        c.words[1].parts,
        [
            WordPart::Brace(Brace::Sequence {
                start: "1".into(),
                end: "3".into(),
                step: None
            }),
            lit(".log", false)
        ]
    );
    assert!(
        matches!(&c.words[2].parts[0], WordPart::Brace(Brace::Sequence { start, .. }) if start == "a")
    );
    assert!(
        matches!(&c.words[3].parts[0], WordPart::Brace(Brace::Sequence { step: Some(s), .. }) if s == "2")
    );
}

#[test]
fn things_that_are_not_brace_expansions() {
    for (src, text) in [
        ("echo {}", "{}"),
        ("echo {a}", "{a}"),
        ("echo {a,b", "{a,b"),
        ("echo a,b}", "a,b}"),
        ("echo '{a,b}'", "{a,b}"),
        ("echo \\{a,b}", "{a,b}"),
        ("echo {1..}", "{1..}"),
        ("echo {..2}", "{..2}"),
        ("echo {1..2..3..4}", "{1..2..3..4}"),
    ] {
        assert_eq!(ok(src), [["echo", text]], "{src}");
    }
    let c = only("echo ${a,b}");
    assert!(matches!(
        c.words[1].parts.as_slice(),
        [WordPart::Parameter { .. }]
    ));
    let c = only("echo {{a,b}}");
    assert!(matches!(
        c.words[1].parts.as_slice(),
        [
            WordPart::Literal { .. },
            WordPart::Brace(Brace::List(_)),
            WordPart::Literal { .. }
        ]
    ));
}

// 10. Tilde -------------------------------------------------------------------------------------

#[test]
fn tildes() {
    let c = only("rm ~/x ~bob/y a~b \"~\" ~ ~bob ~\"q\"/z x=~");
    assert_eq!(
        c.words[1].parts,
        [WordPart::Tilde { user: None }, lit("/x", false)]
    );
    assert_eq!(
        c.words[2].parts,
        [
            WordPart::Tilde {
                user: Some("bob".into())
            },
            lit("/y", false)
        ]
    );
    assert_eq!(c.words[3].parts, [lit("a~b", false)]);
    assert_eq!(c.words[4].parts, [lit("~", true)]);
    assert_eq!(c.words[5].parts, [WordPart::Tilde { user: None }]);
    assert_eq!(
        c.words[6].parts,
        [WordPart::Tilde {
            user: Some("bob".into())
        }]
    );
    assert_eq!(
        c.words[7].parts,
        [lit("~", false), lit("q", true), lit("/z", false)]
    );
    assert_eq!(c.words[8].parts, [lit("x=~", false)]);
    let c = only("rm {~/a,b}");
    let alts = brace_list(&c.words[1]);
    assert_eq!(alts[0], [WordPart::Tilde { user: None }, lit("/a", false)]);
}

// 11. Opaque parts --------------------------------------------------------------------------------

#[test]
fn parameters() {
    let src = "echo $name ${x:-\"a}b\"} $1 $@ $* $# $? $$ $! $- $0 $12 ${a[$(rm i)]}";
    let script = lex(src);
    assert_eq!(script.error, None);
    let c = find(&script, src, "echo");
    let raws: Vec<String> = c.words[1..]
        .iter()
        .flat_map(|w| &w.parts)
        .map(|p| match p {
            WordPart::Parameter { raw, quoted: false } => raw.clone(),
            WordPart::Literal { text, .. } => format!("lit:{text}"),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        raws,
        [
            "$name",
            "${x:-\"a}b\"}",
            "$1",
            "$@",
            "$*",
            "$#",
            "$?",
            "$$",
            "$!",
            "$-",
            "$0",
            "$1",
            "lit:2",
            "${a[$(rm i)]}"
        ]
    );
    assert!(find(&script, src, "rm").context.in_substitution);
}

#[test]
fn lone_dollar_is_literal() {
    assert_eq!(
        ok("echo $ a$ $/ \"$\" $%"),
        [["echo", "$", "a$", "$/", "$", "$%"]]
    );
}

#[test]
fn command_substitutions_are_lexed() {
    let src = "echo \"$(rm -rf .)\"";
    let script = lex(src);
    assert_eq!(script.error, None);
    let rm = find(&script, src, "rm");
    assert!(rm.context.in_substitution);
    assert_eq!(rm.context.depth, 1);
    assert_eq!(span_text(src, rm), "rm -rf .");
    assert_eq!(
        script.commands[0].words[1].parts,
        [WordPart::CommandSubstitution {
            raw: "$(rm -rf .)".into()
        }]
    );
    let nested = "echo $(echo $(rm deep))";
    let script = lex(nested);
    assert_eq!(find(&script, nested, "rm").context.depth, 2);
    assert_eq!(
        script
            .commands
            .iter()
            .map(|c| c.span.start)
            .collect::<Vec<_>>(),
        [0, 7, 14]
    );
}

#[test]
fn backticks_are_lexed() {
    let src = "echo `rm x`";
    let script = lex(src);
    assert_eq!(script.error, None);
    let rm = find(&script, src, "rm");
    assert!(rm.context.in_substitution);
    assert_eq!(span_text(src, rm), "rm x");
    let src = "echo `echo \\`rm inner\\``";
    let script = lex(src);
    assert_eq!(script.error, None);
    let inner = find(&script, src, "rm");
    assert_eq!(inner.context.depth, 2);
    assert_eq!(span_text(src, inner), "rm inner");
    let src = "echo \"`rm \\\"q\\\"`\"";
    let script = lex(src);
    assert_eq!(words(src, find(&script, src, "rm")), ["rm", "q"]);
}

#[test]
fn arithmetic_expansion_is_not_a_command() {
    let c = only("echo $((1+2)) $(( (1+2)*3 ))");
    assert_eq!(
        c.words[1].parts,
        [WordPart::Arithmetic {
            raw: "$((1+2))".into()
        }]
    );
    assert!(matches!(
        c.words[2].parts.as_slice(),
        [WordPart::Arithmetic { .. }]
    ));
    let src = "echo $((1+$(rm arith)))";
    assert_eq!(find(&lex(src), src, "rm").context.depth, 1);
    // `$((` that does not close as `))` is a substitution of a subshell.
    let src = "echo $((cd x); rm y)";
    let script = lex(src);
    assert_eq!(script.error, None);
    assert_eq!(script.commands.len(), 3);
}

#[test]
fn process_substitutions() {
    let src = "diff <(rm a) >(rm b) c";
    let script = lex(src);
    assert_eq!(script.error, None);
    let diff = find(&script, src, "diff");
    assert_eq!(diff.words.len(), 4);
    assert!(diff.redirects.is_empty());
    assert_eq!(
        diff.words[1].parts,
        [WordPart::ProcessSubstitution {
            raw: "<(rm a)".into()
        }]
    );
    let inner: Vec<&SimpleCommand> = script
        .commands
        .iter()
        .filter(|c| c.context.in_substitution)
        .collect();
    assert_eq!(inner.len(), 2);
}

#[test]
fn unterminated_substitutions() {
    for src in [
        "echo $(rm x",
        "echo ${x",
        "echo `rm x",
        "echo $((1+2",
        "diff <(rm a",
    ] {
        assert_eq!(
            err(src),
            Some(LexErrorKind::UnterminatedSubstitution),
            "{src}"
        );
    }
    // The commands inside are still listed.
    assert!(
        lex("echo $(rm x")
            .commands
            .iter()
            .any(|c| c.context.in_substitution)
    );
    assert!(
        lex("echo `rm x")
            .commands
            .iter()
            .any(|c| c.context.in_substitution)
    );
}

// 12. Assignments ---------------------------------------------------------------------------------

#[test]
fn assignments() {
    let src = "x=$(rm y) A+=1 a[2]=z ls B=2";
    let script = lex(src);
    assert_eq!(script.error, None);
    let ls = find(&script, src, "ls");
    let asg: Vec<&str> = ls.assignments.iter().map(|w| w.raw(src)).collect();
    assert_eq!(asg, ["x=$(rm y)", "A+=1", "a[2]=z"]);
    assert_eq!(words(src, ls), ["ls", "B=2"]);
    assert_eq!(span_text(src, ls), src);
    assert!(find(&script, src, "rm").context.in_substitution);
    assert_eq!(ok("env X=y rm z"), [["env", "X=y", "rm", "z"]]);
    let bare = only("X=1");
    assert!(bare.words.is_empty());
    assert_eq!(bare.assignments.len(), 1);
    assert_eq!(ok("1x=2 \"a\"=b"), [["1x=2", "a=b"]]);
}

#[test]
fn array_assignments() {
    let src = "arr=(a 'b c' $(rm q)\n  d) cmd";
    let script = lex(src);
    assert_eq!(script.error, None);
    let cmd = find(&script, src, "cmd");
    assert_eq!(cmd.assignments.len(), 1);
    assert_eq!(cmd.assignments[0].raw(src), "arr=(a 'b c' $(rm q)\n  d)");
    assert!(find(&script, src, "rm").context.in_substitution);
    assert_eq!(err("echo a=(1)"), Some(LexErrorKind::Malformed));
}

// 13. Parentheses inside words ------------------------------------------------------------------

#[test]
fn parentheses_inside_words() {
    assert_eq!(ok("rm \"file (1).txt\""), [["rm", "file (1).txt"]]);
    let script = lex("rm file(1).txt; ls");
    assert_eq!(script.error.map(|e| e.kind), Some(LexErrorKind::Malformed));
    assert_eq!(script.commands.len(), 2, "the group stays in the word");
    let src = "rm @(a|b) !(keep) *(x) +(y z) ?(q)";
    let c = only(src);
    assert_eq!(lex(src).error, None);
    assert_eq!(
        words(src, &c),
        ["rm", "@(a|b)", "!(keep)", "*(x)", "+(y z)", "?(q)"]
    );
    assert!(c.words[1..].iter().all(Word::has_glob));
    assert!(!only("rm '!(keep)'").words[1].has_glob());
}

// 14. Spans -------------------------------------------------------------------------------------

#[test]
fn spans_cover_the_command() {
    let src = "  A=1 rm -rf 'x y' >out  ;  ls";
    let script = lex(src);
    assert_eq!(span_text(src, &script.commands[0]), "A=1 rm -rf 'x y' >out");
    assert_eq!(span_text(src, &script.commands[1]), "ls");
    let r = &script.commands[0].redirects[0];
    assert_eq!(&src[r.span.start..r.span.end], ">out");
}

#[test]
fn spans_in_substitutions_are_absolute() {
    let src = "echo a; x=\"$(ls; rm -rf 'q')\" && echo `cat f` <<<$(rm hs)";
    let script = lex(src);
    assert_eq!(script.error, None);
    for c in &script.commands {
        let text = span_text(src, c);
        assert!(text.starts_with(&c.words.first().map_or_else(
            || c.assignments[0].raw(src).to_owned(),
            |w| w.raw(src).to_owned()
        )));
    }
    assert_eq!(span_text(src, find(&script, src, "rm")), "rm -rf 'q'");
    assert_eq!(span_text(src, find(&script, src, "cat")), "cat f");
}

#[test]
fn unicode_is_ordinary_text() {
    let src = "rm -rf ñandú/😀 'é' \"ü\"; echo ок";
    let script = lex(src);
    assert_eq!(script.error, None);
    assert_eq!(
        words(src, &script.commands[0]),
        ["rm", "-rf", "ñandú/😀", "é", "ü"]
    );
    assert_eq!(span_text(src, &script.commands[1]), "echo ок");
}

// 15. Whitespace ------------------------------------------------------------------------------------

#[test]
fn tabs_and_carriage_returns_are_blanks() {
    assert_eq!(ok("rm\t-rf\r\nls\r\n"), [vec!["rm", "-rf"], vec!["ls"]]);
}

// Depth and robustness -------------------------------------------------------------------------

/// Runs `f` on a thread with the default 2 MiB test stack.
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("no stack overflow or panic");
}

#[test]
fn deep_nesting_is_too_deep_not_a_crash() {
    on_small_stack(|| {
        let n = 10_000;
        for text in [
            "$(".repeat(n),
            "(".repeat(n),
            "{ ".repeat(n),
            "${".repeat(n),
            "$((".repeat(n),
            "<(".repeat(n),
            "if ".repeat(n),
            "while ".repeat(n),
            "case x in a) ".repeat(n),
            "\"$(".repeat(n),
            "\"${x:-".repeat(n),
            format!("echo {}{}", "{a,".repeat(n), "}".repeat(n)),
            format!("{}x{}", "$(".repeat(n), ")".repeat(n)),
        ] {
            let script = lex(&text);
            assert_eq!(
                script.error.map(|e| e.kind),
                Some(LexErrorKind::TooDeep),
                "{}",
                &text[..20]
            );
        }
        // A function whose body is not compound is malformed first, but still bounded.
        assert!(lex(&"f() ".repeat(n)).error.is_some());
        assert!(lex(&"f() { ".repeat(n)).error.is_some());
        // An unclosed backtick is reported before its body is lexed.
        assert!(lex(&"`$(".repeat(n)).error.is_some());
        assert!(lex(&"\\`".repeat(n)).error.is_none());
    });
}

#[test]
fn ambiguous_arithmetic_stays_linear() {
    on_small_stack(|| {
        for n in [8, 30, 2_000] {
            for text in [
                format!("{}x{}", "((".repeat(n), "))".repeat(n)),
                format!("{}x{}", "(( $(".repeat(n), ") ))".repeat(n)),
                format!("{}x{}", "(( `".repeat(n), "` ))".repeat(n)),
                "((x)) ".repeat(n),
            ] {
                let started = std::time::Instant::now();
                let _ = lex(&text);
                assert!(started.elapsed().as_secs() < 5, "{n}: {}", &text[..12]);
            }
        }
    });
}

#[test]
fn nesting_up_to_the_limit_is_fine() {
    let depth = usize::try_from(MAX_DEPTH).unwrap() / 2;
    let text = format!("{}rm x{}", "$(".repeat(depth), ")".repeat(depth));
    let script = lex(&text);
    assert_eq!(script.error, None);
    let rm = script.commands.last().unwrap();
    assert_eq!(rm.context.depth, u32::try_from(depth).unwrap());
}

#[test]
fn commands_are_in_textual_order() {
    let src = "a $(b $(c)) `d`; e <(f)";
    let script = lex(src);
    let starts: Vec<usize> = script.commands.iter().map(|c| c.span.start).collect();
    let mut sorted = starts.clone();
    sorted.sort_unstable();
    assert_eq!(starts, sorted);
    assert_eq!(script.commands.len(), 6);
}

#[test]
fn default_context_at_top_level() {
    assert_eq!(only("ls").context, CommandContext::default());
}
