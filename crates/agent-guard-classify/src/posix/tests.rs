use agent_guard_types::{OpKind, Shape};

use super::classify;

fn ops(line: &str) -> Vec<agent_guard_types::OpSpec> {
    classify(line, 0).ops
}

fn kinds(line: &str) -> Vec<OpKind> {
    ops(line).iter().map(|o| o.kind).collect()
}

fn targets(line: &str) -> Vec<String> {
    ops(line)
        .iter()
        .flat_map(|o| o.targets.iter().map(|t| t.text.clone()))
        .collect()
}

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
        "f() { rm -rf build; }",
        "true && rm -rf build",
        "echo ok;rm -rf build",
    ] {
        assert_eq!(kinds(line), [OpKind::FsDelete], "{line}");
        assert_eq!(targets(line), ["build"], "{line}");
    }
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
    assert_eq!(targets("rm -f a.txt 2>/dev/null >log.txt"), ["a.txt"]);
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
    assert!(
        ops("cat > notes.md <<'EOF'\nrun rm -rf build to clean\nand git clean -fd\nEOF\necho done")
            .is_empty()
    );
    let line = "cat > a.md <<'E1'\nrm -rf inside-a\nE1\ncat > b.md <<'E2'\ngit clean -fd inside-b\nE2\necho done";
    assert!(ops(line).is_empty());
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
    assert_eq!(kinds(". ./helpers.sh && rm x"), [OpKind::FsDelete]);
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
fn substitutions_with_destructive_commands_are_undeterminable() {
    let o = ops("echo \"$(rm -rf .)\"");
    assert_eq!(o.len(), 1);
    assert!(o[0].undeterminable);
    assert!(ops("x=$(pwd); echo $x").is_empty());
}

#[test]
fn shapes() {
    assert_eq!(ops("cd sub && rm -rf build")[0].shape, Some(Shape::F1));
    assert_eq!(ops("rm -rf build && cd sub")[0].shape, None);
    assert_eq!(ops("touch a.tmp && rm a.tmp")[0].shape, Some(Shape::F2));
    assert_eq!(ops("echo x > f.txt && rm f.txt")[0].shape, Some(Shape::F2));
    assert_eq!(ops("ls 2>/dev/null; rm f.txt")[0].shape, None);
    assert_eq!(ops("rm -rf build && mkdir build")[0].shape, None);
    assert_eq!(ops("cd /tmp && rm -rf /srv/data")[0].shape, None);
    assert_eq!(ops("env -C sub rm -rf build")[0].shape, Some(Shape::F1));
    assert!(ops("touch f && git reset --hard")[0].undeterminable);
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
    assert!(ops("$EDITOR notes.txt").is_empty());
}
