use super::lex;
use crate::ast::{LexErrorKind, RedirectOp, Script, Separator, SimpleCommand, WordPart};
use crate::test_support;

/// Each command's words: literal text, or `<raw>` for a word with opaque parts.
fn words(src: &str) -> Vec<Vec<String>> {
    test_support::words(&lex(src), src)
}

fn ok(src: &str) -> Script {
    test_support::ok(lex(src), src)
}

fn find<'a>(script: &'a Script, src: &str, head: &str) -> &'a SimpleCommand {
    script
        .commands
        .iter()
        .find(|c| c.words.first().is_some_and(|w| w.raw(src) == head))
        .unwrap_or_else(|| panic!("no {head} in {src}"))
}

#[test]
fn unicode_escapes_depend_on_the_version() {
    // `u{e9} is é in PowerShell 7 and the letters u{e9} in Windows PowerShell 5.1.
    let script = ok("Remove-Item \"r`u{e9}sum`u{e9}.txt\"");
    let word = &script.commands[0].words[1];
    assert!(word.literal_text().is_none());
    assert!(
        word.parts
            .iter()
            .any(|p| matches!(p, WordPart::Opaque { .. }))
    );
    // Without a closing brace it is an escaped `u` in both.
    assert_eq!(words("Write-Host \"`u{e9\""), [vec!["Write-Host", "u{e9"]]);
}

#[test]
fn quoting_and_escapes() {
    assert_eq!(
        words("Remove-Item -Recurse \"a b\" 'c d' e`f"),
        [vec!["Remove-Item", "-Recurse", "a b", "c d", "ef"]]
    );
    assert_eq!(words("Write-Host 'it''s'"), [vec!["Write-Host", "it's"]]);
    assert_eq!(
        words("Write-Host \"a`\"b\"\"c\""),
        [vec!["Write-Host", "a\"b\"c"]]
    );
    assert_eq!(words("Write-Host \"`t\""), [vec!["Write-Host", "\t"]]);
    assert_eq!(
        words("Write-Host ab\"c d\"e"),
        [vec!["Write-Host", "abc de"]]
    );
    assert_eq!(words("ri \u{2018}a b\u{2019}"), [vec!["ri", "a b"]]);
    assert_eq!(words("ri \u{201C}a b\u{201D}"), [vec!["ri", "a b"]]);
    assert_eq!(words("ri a\u{00A0}b"), [vec!["ri", "a", "b"]]);
    assert_eq!(words("ri a `\n -Recurse"), [vec!["ri", "a", "-Recurse"]]);
    assert!(lex("ri 'open").error.is_some());
    assert!(lex("ri \"open").error.is_some());
}

#[test]
fn variables_and_expressions_are_opaque() {
    assert_eq!(
        words("Remove-Item $target $env:TEMP ${x y} @splat -Recurse:$false"),
        [vec![
            "Remove-Item",
            "<$target>",
            "<$env:TEMP>",
            "<${x y}>",
            "<@splat>",
            "<-Recurse:$false>"
        ]]
    );
    let src = "Remove-Item -Recurse (Join-Path $PWD build)";
    let script = ok(src);
    assert_eq!(script.commands.len(), 2);
    let inner = find(&script, src, "Join-Path");
    assert!(inner.context.in_substitution);
    let outer = find(&script, src, "Remove-Item");
    assert!(matches!(
        &outer.words[2].parts[..],
        [WordPart::CommandSubstitution { .. }]
    ));
    let src = "Write-Host \"$(Remove-Item x)\" @(rm y)";
    let script = ok(src);
    assert!(find(&script, src, "Remove-Item").context.in_substitution);
    assert!(find(&script, src, "rm").context.in_substitution);
}

#[test]
fn separators_and_pipelines() {
    let src = "Get-ChildItem *.log | Remove-Item; Write-Host hi\nri x && ri y || ri z";
    let script = ok(src);
    let seps: Vec<Separator> = script.commands.iter().map(|c| c.separator).collect();
    assert_eq!(
        seps,
        [
            Separator::Start,
            Separator::Pipe,
            Separator::Sequence,
            Separator::Sequence,
            Separator::And,
            Separator::Or
        ]
    );
    // A pipe at the end of a line continues on the next.
    let script = ok("Get-Item x |\n  Remove-Item");
    assert_eq!(script.commands[1].separator, Separator::Pipe);
    assert!(lex("| ri x").error.is_some());
}

#[test]
fn comments() {
    assert_eq!(
        words("ri a # ri b\nri c"),
        [vec!["ri", "a"], vec!["ri", "c"]]
    );
    assert_eq!(words("ri <# x #> a"), [vec!["ri", "a"]]);
    assert_eq!(words("ri a#b"), [vec!["ri", "a#b"]]);
    assert!(lex("ri <# open").error.is_some());
}

#[test]
fn keyword_bodies_and_script_blocks_are_listed() {
    let src = "if (Test-Path build) { Remove-Item build -Recurse } else { ri x }";
    let script = ok(src);
    assert!(find(&script, src, "Test-Path").context.in_control_flow);
    let body = find(&script, src, "Remove-Item");
    assert!(body.context.in_control_flow && !body.context.in_function);
    let src = "Get-ChildItem | ForEach-Object { Remove-Item $_ }";
    let script = ok(src);
    let block = find(&script, src, "Remove-Item");
    assert!(block.context.in_control_flow && block.context.in_function);
    for src in [
        "foreach ($d in 'a','b') { ri $d }",
        "while ($true) { ri x; break }",
        "do { ri x } while ($false)",
        "try { ri x } catch [System.Exception] { ri y } finally { ri z }",
        "function Clean-Up { param($p) ri $p }",
        "switch -regex ($x) { 'a' { ri a } default { ri b } }",
        "if ($a)\n{\n ri x\n}\nelseif ($b) { ri y }",
        "& { ri x }",
        "return ri x",
        "$r = ri x",
    ] {
        let script = ok(src);
        assert!(
            script
                .commands
                .iter()
                .any(|c| c.words.first().is_some_and(|w| w.raw(src) == "ri")),
            "{src}: {script:#?}"
        );
    }
    // After a pipe `foreach` is the ForEach-Object alias, not the keyword.
    let src = "gci | foreach { ri $_ }";
    let script = ok(src);
    assert!(find(&script, src, "foreach").words.len() == 2);
}

#[test]
fn a_word_after_a_keyword_on_a_new_line_is_a_command() {
    let src = "while ($x)\nRemove-Item build";
    let script = lex(src);
    assert!(
        script
            .commands
            .iter()
            .any(|c| c.words.first().is_some_and(|w| w.raw(src) == "Remove-Item"))
    );
    assert_eq!(words("end Remove-Item x"), [vec!["Remove-Item", "x"]]);
}

#[test]
fn assignments() {
    let src = "$x = 'build'; Remove-Item $x";
    let script = ok(src);
    assert_eq!(script.commands[0].assignments.len(), 1);
    assert_eq!(
        script.commands[0].words[0].literal_text().as_deref(),
        Some("build")
    );
    let script = ok("$n += 1");
    assert_eq!(script.commands[0].assignments.len(), 1);
    let script = ok("$a -eq 1");
    assert!(script.commands[0].assignments.is_empty());
    let script = ok("[int]$n = 5");
    assert_eq!(script.commands[0].assignments.len(), 1);
    let script = ok("[ = x");
    assert!(script.commands[0].assignments.is_empty());
}

#[test]
fn redirections_and_call_operator() {
    let src = "echo x > a.tmp 2>&1; echo y *>> log.txt; & 'C:\\tools\\x.exe' -a";
    let script = ok(src);
    let r = &script.commands[0].redirects;
    assert_eq!(r[0].op, RedirectOp::Out);
    assert_eq!(r[1].op, RedirectOp::DupOut);
    assert_eq!(script.commands[1].redirects[0].op, RedirectOp::AppendErr);
    assert_eq!(words(src)[2], ["&", "C:\\tools\\x.exe", "-a"]);
    assert!(lex("ri x < y").error.is_some());
}

#[test]
fn stop_parsing_passes_the_line_through() {
    assert_eq!(
        words("cmd /c --% del \"a b\" %X% | ri y"),
        [
            vec!["cmd", "/c", "--%", "del", "a b", "<%X%>"],
            vec!["ri", "y"]
        ]
    );
}

#[test]
fn here_strings() {
    let src = "$s = @'\nri x\n'@\nri y";
    let script = ok(src);
    assert_eq!(words(src), [vec!["ri x"], vec!["ri", "y"]]);
    assert_eq!(script.commands.len(), 2);
    let src = "Write-Host @\"\n$(ri z)\n\"@";
    let script = ok(src);
    assert!(find(&script, src, "ri").context.in_substitution);
    assert!(lex("@'\nunterminated").error.is_some());
}

#[test]
fn deep_nesting_is_bounded() {
    for opener in ["(", "$(", "{", "@(", "if ($x) {", "& {"] {
        let src = opener.repeat(5_000);
        let script = lex(&src);
        assert_eq!(
            script.error.map(|e| e.kind),
            Some(LexErrorKind::TooDeep),
            "{opener}"
        );
    }
}
