use agent_guard_types::{OpKind, Target, WriteMode};

use super::*;

fn literal(text: &str) -> Target {
    Target::literal(text)
}

fn texts(targets: &[Target]) -> Vec<&str> {
    targets.iter().map(|t| t.text.as_str()).collect()
}

#[test]
fn placement_rules() {
    let one = Placement::of_operands(vec![literal("a.txt"), literal("b")], None);
    assert_eq!(texts(&one.targets()), ["b", "b/a.txt"]);
    let many = Placement::of_operands(vec![literal("x/a"), literal("y/b/"), literal("d")], None);
    assert_eq!(texts(&many.targets()), ["d/a", "d/b"]);
    let slash = Placement::of_operands(vec![literal("a"), literal("d/")], None);
    assert_eq!(texts(&slash.targets()), ["d/a"]);
    for dir in [".", "..", "sub/.", "../.."] {
        let placement = Placement::of_operands(vec![literal("a"), literal(dir)], None);
        assert_eq!(texts(&placement.targets()), [format!("{dir}/a")], "{dir}");
    }
    let into = Placement::of_operands(vec![literal("a"), literal("b")], Some(literal("d")));
    assert_eq!(texts(&into.targets()), ["d/a", "d/b"]);
    let mut exact = Placement::of_operands(vec![literal("a"), literal("b")], None);
    exact.exact = true;
    assert_eq!(texts(&exact.targets()), ["b"]);
    assert!(
        Placement::of_operands(vec![literal("a")], None)
            .targets()
            .is_empty()
    );
}

#[test]
fn joined_targets_keep_what_is_unknown() {
    let home = Target {
        tilde: true,
        ..literal("~")
    };
    let joined = join(&home, "a", &literal("a"));
    assert_eq!((joined.text.as_str(), joined.tilde), ("~/a", true));
    let glob = Target {
        glob: true,
        ..literal("*.txt")
    };
    assert!(join(&literal("d"), basename("src/*.txt"), &glob).glob);
    assert!(!join(&literal("d"), basename("*/a.txt"), &glob).glob);
    let opaque = Target {
        opaque: Some("variable".into()),
        ..literal("$X")
    };
    assert!(join(&literal("d"), "x", &opaque).opaque.is_some());
    assert_eq!(basename("a/b/"), "b");
    assert_eq!(basename("plain"), "plain");
}

#[test]
fn dispatch_knows_each_family() {
    let args = |line: &str| -> Vec<Arg> { line.split_whitespace().map(Arg::literal).collect() };
    for (name, line, kind, mode) in [
        ("cp", "a b", OpKind::Overwrite, WriteMode::InPlace),
        ("mv", "a b", OpKind::Move, WriteMode::Replace),
        ("truncate", "-s0 f", OpKind::Overwrite, WriteMode::InPlace),
        ("tee", "f", OpKind::Overwrite, WriteMode::InPlace),
        (
            "sed",
            "-i s/a/b/ f",
            OpKind::Overwrite,
            WriteMode::ReplaceAfterRead,
        ),
        (
            "gzip",
            "f",
            OpKind::SideEffectDelete,
            WriteMode::ReadThenRemove,
        ),
        (
            "mkfs.ext4",
            "/dev/sdb",
            OpKind::Overwrite,
            WriteMode::InPlace,
        ),
    ] {
        let ops = posix(name, &args(line));
        assert_eq!(ops.len(), 1, "{name} {line}");
        assert_eq!((ops[0].kind, ops[0].write), (kind, mode), "{name} {line}");
    }
    assert!(posix("cat", &args("a b")).is_empty());
    assert!(posix("grep", &args("-o x f")).is_empty());
}

#[test]
fn unresolved_appends_that_name_protected_paths() {
    for text in [
        "\"$PWD/.git/config\"",
        "$(git rev-parse --git-dir)/config",
        "\"$GIT_DIR/hooks/pre-commit\"",
        "$ROOT\\.GIT\\config",
        "$T/.agent-trash/x",
        "\"$Q/audit.jsonl\"",
    ] {
        assert!(super::names_protected(text), "{text}");
    }
    for text in [
        "\"$LOG\"",
        "$OUT/.gitignore",
        "$HOME/.bashrc",
        "$DIR/git/config",
    ] {
        assert!(!super::names_protected(text), "{text}");
    }
}

#[test]
fn lines_that_name_protected_paths() {
    for line in [
        "X=.git; echo x >> $X/config",
        "cd .git && echo x >> config",
        "echo x >> $X.git/config",
        "Get-Item .git\\config | Add-Content -Value x",
        "cd .agent-trash && echo x >> log",
        "X=.claude; echo '{}' >> $X/settings.local.json",
        "echo x >> \"$CLAUDE_CONFIG_DIR/settings.json\"",
        "cd .github && echo '{}' >> hooks/x.json",
        "D=$(pwd)/.codex; chmod 000 $D/hooks.json",
    ] {
        assert!(super::line_names_protected(line), "{line}");
    }
    for line in [
        "cd sub && echo done >> build.log",
        "cat .gitignore; echo x >> \"$LOG\"",
        "git log >> history.txt",
        "cd .github && echo x >> notes",
    ] {
        assert!(!super::line_names_protected(line), "{line}");
    }
}
