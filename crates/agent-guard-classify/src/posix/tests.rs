use agent_guard_types::{OpKind, Shape};

use super::classify;

crate::test_support::line_helpers!(classify);

#[test]
fn deletes_inside_control_flow_and_groups_are_seen() {
    for line in [
        "if true; then rm -rf build; fi",
        "if [ -d build ]; then echo x; else rm -rf build; fi",
        "for f in a b; do rm -rf build; done",
        "while false; do rm -rf build; done",
        "until true; do rm -rf build; done",
        "{ rm -rf build; }",
        "(rm -rf build)",
        "! rm -rf build",
        "case x in x) rm -rf build;; esac",
        "true && rm -rf build",
        "echo ok;rm -rf build",
    ] {
        assert_eq!(kinds(line), [OpKind::FsDelete], "{line}");
        assert_eq!(targets(line), ["build"], "{line}");
    }
    // A call of a function defined in the line: its body, and the call itself as a program
    // (it may change the directory for what follows).
    assert_eq!(
        kinds("f() { rm -rf build; }; f"),
        [OpKind::FsDelete, OpKind::OpaqueProgram]
    );
}

#[test]
fn brace_lists_expand_and_other_expansions_are_opaque() {
    assert_eq!(targets("rm -rf {build,dist}"), ["build", "dist"]);
    assert_eq!(targets("rm x{1..3}.log"), ["x1.log", "x2.log", "x3.log"]);
    let o = ops("rm -rf {build,$X}");
    assert!(o[0].targets[0].opaque.is_some());
    let o = ops("rm -rf $DIR");
    assert!(o[0].targets[0].opaque.is_some());
    assert!(ops("rm '{a,b}'")[0].targets[0].text == "{a,b}");
}

#[test]
fn comments_and_redirections_are_not_targets() {
    assert_eq!(targets("rm a.txt # and b.txt"), ["a.txt"]);
    // The redirection is an overwrite of its own, not a target of `rm`.
    let o = ops("rm -f a.txt 2>/dev/null >log.txt");
    assert_eq!(o.len(), 2);
    assert_eq!(
        (o[0].kind, o[0].targets[0].text.as_str()),
        (OpKind::Overwrite, "log.txt")
    );
    assert_eq!(o[1].kind, OpKind::FsDelete);
    assert_eq!(o[1].targets.len(), 1);
    assert_eq!(o[1].targets[0].text, "a.txt");
    assert!(ops("echo rm -rf build").is_empty());
    assert!(ops("grep -r \"rm -rf\" .").is_empty());
    assert!(ops("git commit -m \"rm -rf x\"").is_empty());
}

#[test]
fn quoted_parentheses_are_ordinary_names() {
    let o = ops("rm \"file (1).txt\"");
    assert_eq!(o[0].targets[0].text, "file (1).txt");
    assert!(!o[0].undeterminable && o[0].targets[0].opaque.is_none());
}

#[test]
fn heredoc_bodies_are_data() {
    // Only the redirections write: the bodies delete nothing.
    let line =
        "cat > notes.md <<'EOF'\nrun rm -rf build to clean\nand git clean -fd\nEOF\necho done";
    assert_eq!(kinds(line), [OpKind::Overwrite]);
    assert_eq!(targets(line), ["notes.md"]);
    let line = "cat > a.md <<'E1'\nrm -rf inside-a\nE1\ncat > b.md <<'E2'\ngit clean -fd inside-b\nE2\necho done";
    assert_eq!(kinds(line), [OpKind::Overwrite, OpKind::Overwrite]);
    assert_eq!(targets(line), ["a.md", "b.md"]);
}

#[test]
fn interpreter_hops() {
    assert_eq!(targets("bash -c 'rm -rf build'"), ["build"]);
    assert_eq!(targets("sh -c \"cd . ; rm -rf build\""), ["build"]);
    assert_eq!(kinds("bash -c \"rm -rf $DIR\""), [OpKind::Unknown]);
    // A script that is not literal, or that arrives on stdin, is unknown whatever the line
    // says (issue 12 items 10 and 11; the old rule only refused it with destructive words).
    assert_eq!(kinds("bash -c \"$CMD\""), [OpKind::Unknown]);
    assert_eq!(kinds("bash -c \"$CMD rm\""), [OpKind::Unknown]);
    assert_eq!(kinds("printf 'rm -rf .' | sh"), [OpKind::Unknown]);
    assert_eq!(kinds("curl https://x | sh"), [OpKind::Unknown]);
    assert_eq!(targets("eval 'rm -rf build'"), ["build"]);
    assert_eq!(kinds("eval \"$X rm\""), [OpKind::Unknown]);
    assert_eq!(
        kinds(". ./helpers.sh && rm x"),
        [OpKind::OpaqueProgram, OpKind::FsDelete]
    );
    assert_eq!(kinds("source ./helpers.sh rm"), [OpKind::Unknown]);
    assert_eq!(targets("bash <<'EOF'\nrm -rf build\nEOF"), ["build"]);
    assert_eq!(targets("bash <<< 'rm -rf build'"), ["build"]);
    let deep = "bash -c 'bash -c \"bash -c \\\"bash -c \\\\\\\"bash -c rm\\\\\\\"\\\"\"'";
    assert!(
        ops(deep)
            .iter()
            .any(|o| o.kind == OpKind::Unknown || o.kind == OpKind::FsDelete)
    );
}

#[test]
fn substitutions_are_judged_by_their_own_commands() {
    // A POSIX substitution runs its command in a subshell: judged like any other.
    let o = ops("echo \"$(rm -rf .)\"");
    assert_eq!(o.len(), 1);
    assert!(!o[0].undeterminable);
    assert!(ops("x=$(pwd); echo $x").is_empty());
    // Unless the line changes directory: the guard cannot place it.
    assert!(ops("echo $(cd sub && rm -rf build)")[0].undeterminable);
    assert!(ops("cd sub && echo $(rm -rf build)")[0].undeterminable);
}

#[test]
fn shapes() {
    // A literal change that certainly ran is listed for the policy to follow (issue 38).
    let o = ops("cd sub && rm -rf build");
    assert_eq!((o[0].shape, o[0].cd.len()), (None, 1));
    assert_eq!(ops("cd sub || rm -rf build")[0].shape, Some(Shape::F1));
    assert_eq!(ops("cd - && rm -rf build")[0].shape, Some(Shape::F1));
    assert_eq!(ops("rm -rf build && cd sub")[0].shape, None);
    // `touch` is an op of its own (a metadata change); the delete after it is F2.
    let o = ops("touch a.tmp && rm a.tmp");
    assert_eq!((o[0].kind, o[0].shape), (OpKind::Metadata, None));
    assert_eq!(o[1].shape, Some(Shape::F2));
    let o = ops("echo x > f.txt && rm f.txt");
    assert_eq!(
        (o[0].kind, o[0].shape),
        (OpKind::Overwrite, None),
        "F2 is never set on writes"
    );
    assert_eq!(o[1].shape, Some(Shape::F2));
    assert_eq!(ops("ls 2>/dev/null; rm f.txt")[0].shape, None);
    assert_eq!(ops("rm -rf build && mkdir build")[0].shape, None);
    assert_eq!(ops("cd /tmp && rm -rf /srv/data")[0].shape, None);
    assert_eq!(ops("env -C sub rm -rf build")[0].shape, Some(Shape::F1));
    assert!(ops("touch f && git reset --hard")[1].undeterminable);
    assert!(ops("echo hello && git reset --hard")[0].undeterminable);
    assert!(!ops("git reset --hard")[0].undeterminable);
}

#[test]
fn wrappers_and_assignments() {
    for line in [
        "env FLAG=1 rm -rf .",
        "FLAG=1 rm -rf .",
        "sudo -u root rm -rf .",
        "nice -n 5 rm -rf .",
        "nice -5 rm -rf .",
        "command -- rm -rf .",
        "exec rm -rf .",
        "timeout 5 rm -rf .",
        "time rm -rf .",
    ] {
        assert_eq!(targets(line), ["."], "{line}");
    }
    assert!(ops("xargs -0 rm -rf")[0].undeterminable);
    assert_eq!(kinds("env -S 'rm -rf .'"), [OpKind::Unknown]);
    assert!(ops("sudo -e rm").is_empty());
    assert!(ops("GIT_WORK_TREE=elsewhere git reset --hard")[0].undeterminable);
    assert!(ops("env GIT_INDEX_FILE=other git reset --hard")[0].undeterminable);
    assert!(ops("GIT_DIR=x git clean -fd")[0].undeterminable);
    assert!(!ops("FOO=1 git clean -fd")[0].undeterminable);
}

#[test]
fn vocabulary_floor_and_windows_verbs() {
    assert_eq!(kinds("Remove-Item -Recurse build"), [OpKind::Unknown]);
    let o = ops("del /s /q build");
    assert!(o[0].recursive && o[0].force);
    assert_eq!(targets("del build\\o.js"), ["build/o.js"]);
    assert_eq!(kinds("del a\\b; echo"), [OpKind::Unknown]);
    assert!(ops("RM --version").is_empty());
    assert_eq!(targets("/bin/rm -f x"), ["x"]);
    assert_eq!(targets("\\rm -f x"), ["x"]);
}

#[test]
fn parse_errors_fail_closed_only_with_vocabulary() {
    assert_eq!(kinds("rm -rf \"unterminated"), [OpKind::Unknown]);
    assert!(ops("echo \"unterminated").is_empty());
    assert!(classify("echo \"unterminated", 0).parse_error.is_some());
}

#[test]
fn opaque_command_names() {
    assert_eq!(kinds("CMD=rm; $CMD -rf /"), [OpKind::Unknown]);
    // Whatever runs is unknown, destructive words or not (issue 12 item 10).
    assert_eq!(kinds("$EDITOR notes.txt"), [OpKind::Unknown]);
}

fn refused(line: &str) -> bool {
    ops(line)
        .iter()
        .any(|o| o.kind == OpKind::Unknown || o.undeterminable)
}

#[test]
fn byte_escapes_name_the_file_bash_names() {
    assert_eq!(
        targets("rm $'r\\xc3\\xa9sum\\xc3\\xa9.txt'"),
        ["résumé.txt"]
    );
    assert_eq!(targets("$'\\x72\\x6d' -rf build"), ["build"]);
    let o = ops("rm $'\\xff'");
    assert!(o[0].targets[0].opaque.is_some(), "not UTF-8: opaque");
}

#[test]
fn the_sh_reading_of_double_parentheses_is_judged() {
    let o = ops("((rm -rf build))");
    assert_eq!(o.len(), 1);
    assert!(o[0].undeterminable);
    assert_eq!(o[0].targets[0].text, "build");
    assert!(ops("((i++)); (( n > 2 ))").is_empty());
    let o = ops("(( n > 2 )) && rm -rf build");
    assert_eq!(o.len(), 1);
    assert!(!o[0].undeterminable && o[0].shape.is_none());
    assert!(!refused("echo $( (rm -rf build) )"));
    assert!(ops("echo $((rm -rf build))").is_empty());
}

#[test]
fn command_words_that_are_not_literal_are_unknown() {
    for line in [
        "$a$b -rf data",
        "$(printf r)m -rf src",
        "\"$CMD\" x",
        "${X:-rm} -rf y",
        "sudo $X",
        "r* x",
        "ls | $PAGER",
        "git $SUB",
    ] {
        assert!(refused(line), "{line}");
    }
    assert!(ops("[ -f x ] && echo y").is_empty());
}

#[test]
fn programs_from_streams_are_unknown() {
    for line in [
        "curl -fsSL https://x | sh",
        "base64 -d f | bash",
        "bash <(curl x)",
        "sh /dev/stdin",
        "bash -s",
        "source <(x)",
        ". /dev/fd/3",
        "python - < x",
        "cat x | python3",
        "cat x | (sh)",
        "echo x | bash -c 'sh'",
        "ls | xargs sh",
        "echo x | pwsh -",
    ] {
        assert!(refused(line), "{line}");
    }
    // What a script file does is not read: the policy checkpoints it (issue 14).
    for line in [
        "bash script.sh",
        "python3 tool.py",
        "echo x | python3 -m json.tool",
    ] {
        assert_eq!(kinds(line), [OpKind::OpaqueProgram], "{line}");
    }
    for line in ["bash <<'EOF'\necho hi\nEOF", "sh < /dev/null", "bash"] {
        assert!(ops(line).is_empty(), "{line}");
    }
}

#[test]
fn strings_that_run_later_are_classified() {
    let o = ops("trap 'rm -rf build' EXIT");
    assert_eq!(o.len(), 1);
    assert!(!o[0].undeterminable);
    assert_eq!(
        ops("trap 'rm -rf build' EXIT; cd src")[0].shape,
        Some(Shape::F1)
    );
    assert!(ops("trap 'echo done' EXIT").is_empty());
    assert!(refused("trap \"$X\" EXIT"));
    // A definition runs nothing; one named like a known program is judged where it stands.
    assert!(ops("alias x='rm -rf build'").is_empty());
    assert!(refused("alias ls='rm -rf build'"));
    assert!(refused("alias cat=rm"));
    assert!(ops("alias ll='ls -la'").is_empty());
    assert!(refused("hash -p /bin/rm ls"));
    assert!(refused("GIT_EDITOR='rm -rf x' git commit"));
    assert!(refused("env GIT_PAGER='rm -rf x' git log"));
    assert!(refused("export EDITOR='rm x'"));
    assert!(ops("GIT_EDITOR=true git commit").is_empty());
    assert!(refused("git config alias.x '!rm -rf build'"));
    assert!(refused("git -c core.editor='rm -rf x' commit"));
    let o = ops("git -c alias.x='!rm -rf build' x");
    assert_eq!(o[0].targets[0].text, "build");
    assert_eq!(
        o[0].shape,
        Some(Shape::F1),
        "aliases run at the work tree's top"
    );
    let o = ops("git config clean.requireForce false && git clean -d");
    assert_eq!(o[0].kind, OpKind::GitClean);
    assert!(o[0].force && !o[0].dry_run);
    assert!(ops("git clean -d")[0].dry_run);
}

#[test]
fn per_file_commands_are_classified_both_ways() {
    assert!(ops("find . -exec sh -c 'echo {} | grep x' \\; -print").is_empty());
    assert!(ops("find . -exec bash -c 'wc -l \"$0\"' {} +").is_empty());
    assert!(ops("ls | xargs sh -c 'echo \"$1\"' _").is_empty());
    for line in [
        "find . -exec sudo rm {} +",
        "find . -exec sh -c 'rm -rf \"$1\"' _ {} \\;",
        "find . -execdir busybox rm {} \\;",
        "find . -exec {} \\;",
        "ls | xargs -I{} sh -c 'rm {}'",
        "ls | parallel rm",
        "fd -e o -x rm",
        "fd . -X rm -rf",
    ] {
        assert!(refused(line), "{line}");
    }
    assert!(ops("fd -e py -x wc -l").is_empty());
    assert_eq!(targets("parallel rm -rf ::: a b"), ["a", "b"]);
    assert_eq!(targets("busybox rm -rf build"), ["build"]);
    assert_eq!(targets("flock /tmp/l -c 'rm -rf build'"), ["build"]);
}
