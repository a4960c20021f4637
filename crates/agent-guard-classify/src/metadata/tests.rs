use agent_guard_types::{Dialect, OpKind, OpSpec, Span};
use serde::Deserialize;

use crate::classify;

fn ops_in(line: &str, dialect: Dialect) -> Vec<OpSpec> {
    classify(line, dialect).ops
}

fn posix(line: &str) -> Vec<OpSpec> {
    ops_in(line, Dialect::Posix)
}

/// The one op of a line, which must be a metadata op; its target texts.
fn metadata_targets(line: &str, dialect: Dialect) -> Vec<String> {
    let ops = ops_in(line, dialect);
    assert_eq!(ops.len(), 1, "{line}: {ops:?}");
    assert_eq!(ops[0].kind, OpKind::Metadata, "{line}: {ops:?}");
    assert_eq!(ops[0].dialect, dialect, "{line}");
    ops[0].targets.iter().map(|t| t.text.clone()).collect()
}

fn kinds(line: &str, dialect: Dialect) -> Vec<OpKind> {
    ops_in(line, dialect).iter().map(|o| o.kind).collect()
}

/// One row of `tests/classify/metadata.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Row {
    line: String,
    dialects: Vec<String>,
    kind: String,
    targets: Option<Vec<String>>,
    recursive: Option<bool>,
    undeterminable: Option<bool>,
    through_symlink: Option<bool>,
    #[allow(dead_code, reason = "read by people")]
    note: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Rows {
    row: Vec<Row>,
}

/// Where `row` differs from what the classifier makes of its line in `dialect`.
fn mismatch(row: &Row, dialect: Dialect) -> Option<String> {
    let ops = ops_in(&row.line, dialect);
    let kinds: Vec<OpKind> = ops.iter().map(|o| o.kind).collect();
    let want = match row.kind.as_str() {
        "metadata" => vec![OpKind::Metadata],
        "opaque" => vec![OpKind::OpaqueProgram],
        "none" => vec![],
        other => return Some(format!("unknown kind {other}")),
    };
    if kinds != want {
        return Some(format!("ops {kinds:?}, expected {want:?}"));
    }
    let op = ops.first()?;
    let texts: Vec<&str> = op.targets.iter().map(|t| t.text.as_str()).collect();
    let checks = [
        (
            row.targets.as_ref().map(|t| format!("{t:?}")),
            format!("{texts:?}"),
            "targets",
        ),
        (
            row.recursive.map(|b| b.to_string()),
            op.recursive.to_string(),
            "recursive",
        ),
        (
            row.undeterminable.map(|b| b.to_string()),
            op.undeterminable.to_string(),
            "undeterminable",
        ),
        (
            row.through_symlink.map(|b| b.to_string()),
            op.targets
                .first()
                .is_some_and(|t| t.through_symlink)
                .to_string(),
            "through_symlink",
        ),
    ];
    checks.into_iter().find_map(|(want, got, what)| {
        want.filter(|w| *w != got)
            .map(|w| format!("{what} {got}, expected {w}"))
    })
}

#[test]
fn metadata_rows_hold() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/classify/metadata.toml"
    );
    let rows: Rows = toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert!(rows.row.len() > 100, "the rows are loaded");
    let mut failures = Vec::new();
    for row in &rows.row {
        for name in &row.dialects {
            let dialect = match name.as_str() {
                "posix" => Dialect::Posix,
                "cmd" => Dialect::Cmd,
                "powershell" => Dialect::PowerShell,
                other => panic!("unknown dialect {other}"),
            };
            if let Some(why) = mismatch(row, dialect) {
                failures.push(format!("{name} `{}`: {why}", row.line));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn targets_are_built_like_other_path_targets() {
    let line = "chmod -R 755 'my dir' ~/bin \"$HOME/x\" *.sh {a,b}.txt";
    let o = &posix(line)[0];
    let texts: Vec<&str> = o.targets.iter().map(|t| t.text.as_str()).collect();
    assert_eq!(
        texts,
        ["my dir", "~/bin", "\"$HOME/x\"", "*.sh", "a.txt", "b.txt"]
    );
    assert!(o.targets[0].is_concrete() && !o.targets[0].tilde);
    assert!(o.targets[1].tilde);
    assert!(o.targets[2].opaque.is_some());
    assert!(o.targets[3].glob && o.targets[3].opaque.is_none());
    assert!(o.targets.iter().all(|t| t.through_symlink));
    // Spans point back into the command.
    let line = "chmod +x build.sh";
    let target = &posix(line)[0].targets[0];
    assert_eq!(target.span, Some(Span::new(9, 17)));
    assert_eq!(&line[9..17], "build.sh");
    assert_eq!(posix(line)[0].span, Span::new(0, line.len()));
}

#[test]
fn wrappers_and_compound_lines_reach_the_op() {
    for line in [
        "sudo chmod +x build.sh",
        "sudo -u bob chmod +x build.sh",
        "env A=1 chmod +x build.sh",
        "nohup chmod +x build.sh",
        "command chmod +x build.sh",
        "A=1 chmod +x build.sh",
        "bash -c 'chmod +x build.sh'",
    ] {
        assert_eq!(
            metadata_targets(line, Dialect::Posix),
            ["build.sh"],
            "{line}"
        );
        assert!(posix(line)[0].wrapped, "{line}");
    }
    let o = posix("make && chmod +x out/app && touch done");
    assert_eq!(
        o.iter().map(|o| o.kind).collect::<Vec<_>>(),
        [OpKind::OpaqueProgram, OpKind::Metadata, OpKind::Metadata]
    );
    assert!(o.iter().all(|op| op.in_compound_line));
    assert_eq!((o[1].segment_index, o[2].segment_index), (1, 2));
    // Arguments from stdin: the paths are not known.
    let o = &posix("ls *.sh | xargs chmod +x")[0];
    assert_eq!(o.kind, OpKind::Metadata);
    assert!(o.undeterminable && o.targets.is_empty());
}

#[test]
fn find_running_a_metadata_command_changes_metadata_below_its_starts() {
    let o = &posix("find scripts -name '*.sh' -exec chmod +x {} +")[0];
    assert_eq!((o.op.as_str(), o.kind), ("find", OpKind::Metadata));
    assert!(o.recursive && o.undeterminable);
    assert_eq!(o.targets[0].text, "scripts");
    assert_eq!(
        kinds("find . -exec touch {} \\;", Dialect::Posix),
        [OpKind::Metadata]
    );
    assert_eq!(
        kinds("fd -e sh -x chmod +x", Dialect::Posix),
        [OpKind::Metadata]
    );
    // With a delete among the commands it runs, it is a delete.
    assert_eq!(
        kinds(
            "find . -exec chmod +x {} \\; -exec rm {} \\;",
            Dialect::Posix
        ),
        [OpKind::FsDelete]
    );
}

#[test]
fn unresolved_paths_on_a_line_naming_git_are_unknown() {
    for line in [
        "X=.git; chmod +x $X/hooks/pre-commit",
        "cd .git && chmod +x hooks/pre-commit",
        "chmod +x \"$GIT_DIR/hooks/pre-commit\"",
        "ls .git/hooks | xargs chmod +x",
    ] {
        assert_eq!(
            kinds(line, Dialect::Posix).last(),
            Some(&OpKind::Unknown),
            "{line}"
        );
    }
    // Resolved, they stay metadata ops for the policy to judge.
    assert_eq!(
        metadata_targets("chmod +x .git/hooks/pre-commit", Dialect::Posix),
        [".git/hooks/pre-commit"]
    );
    assert_eq!(
        metadata_targets("chmod +x \"$X/build.sh\"", Dialect::Posix).len(),
        1
    );
}
