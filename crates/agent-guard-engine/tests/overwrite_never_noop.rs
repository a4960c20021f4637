//! Issue 11, end to end through `check`: a command that redirects onto an existing file is
//! never `ALLOW_NOOP`, however the redirection is spelled or wherever it sits.
//!
//! A real temporary workspace holds the file; commands are generated from operators,
//! quotings, commands, wrappers and constructs (every operator, and a deterministic sample
//! of the rest), and every verdict must keep the old version first or refuse. The
//! classifier's side of the property is `crates/agent-guard-classify/tests/overwrite_props.rs`.

use std::collections::BTreeMap;

use agent_guard_config::EnvSnapshot;
use agent_guard_engine::{CheckRequest, check};
use agent_guard_testutil::{Fixture, FixtureSpec};
use agent_guard_types::{Decision, ReasonCode};

const OPERATORS: &[&str] = &[
    ">", ">|", "&>", ">&", "<>", "1>", "2>", "3>", "9>", "1>|", "2>|", "0<>", "3<>",
];
const SPELLINGS: &[&str] = &[
    "notes.txt",
    "'notes.txt'",
    "\"notes.txt\"",
    "not\\es.txt",
    "no\"tes\".txt",
    "./notes.txt",
    "sub/../notes.txt",
    "link-in",
];
const COMMANDS: &[&str] = &[
    "",
    "echo x",
    "cat",
    ":",
    "true",
    "ls",
    "make",
    "exec",
    "printf y",
    "./tool --flag",
];
const WRAPPERS: &[&str] = &[
    "", "sudo ", "env A=1 ", "A=1 ", "nice ", "command ", "time ",
];
const FRAMES: &[&str] = &[
    "%",
    "(%)",
    "{ %; }",
    "if true; then %; fi",
    "for i in 1; do %; done",
    "f() { %; }; f",
    "true && %",
    "echo a | %",
    "% ; echo done",
    "bash -c '%'",
    "sh -c \"%\"",
];

fn workspace() -> Fixture {
    let spec = FixtureSpec {
        git: true,
        files: BTreeMap::from([
            ("notes.txt".to_owned(), "precious notes\n".to_owned()),
            ("sub/keep.txt".to_owned(), "keep\n".to_owned()),
        ]),
        symlinks: BTreeMap::from([("link-in".to_owned(), "notes.txt".to_owned())]),
        commit: vec!["notes.txt".to_owned()],
        ..FixtureSpec::default()
    };
    Fixture::build(&spec).expect("fixture builds")
}

fn verdict(fixture: &Fixture, command: &str) -> (Decision, ReasonCode) {
    let report = check(&CheckRequest {
        command: command.to_owned(),
        cwd: fixture.ws.clone(),
        dialect_flag: Some("posix".to_owned()),
        env: EnvSnapshot {
            home: Some(fixture.home.clone().into()),
            session: Some("overwrite".into()),
            ..EnvSnapshot::default()
        },
        ..CheckRequest::default()
    });
    (report.decision, report.code)
}

/// A small deterministic generator (no extra dependency): the same sample on every run.
struct Lcg(u64);

impl Lcg {
    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let index = usize::try_from((self.0 >> 33) % from.len() as u64).unwrap_or(0);
        from[index]
    }
}

fn line(op: &str, name: &str, command: &str, wrapper: &str, frame: &str, before: bool) -> String {
    // Inside `bash -c '…'` (or `"…"`) a name quoted the same way cannot be written: use
    // the plain one.
    let clash = ['\'', '"']
        .iter()
        .any(|q| frame.contains(*q) && name.contains(*q));
    let name = if clash { "notes.txt" } else { name };
    let redirect = format!("{op} {name}");
    let simple = match (command.is_empty(), before) {
        (true, _) => redirect,
        (false, true) => format!("{redirect} {wrapper}{command}"),
        (false, false) => format!("{wrapper}{command} {redirect}"),
    };
    frame.replace('%', &simple)
}

#[test]
fn a_redirection_onto_an_existing_file_is_never_a_noop() {
    let fixture = workspace();
    let mut lines = Vec::new();
    for op in OPERATORS {
        for name in SPELLINGS {
            lines.push(line(op, name, "echo x", "", "%", false));
        }
    }
    let mut random = Lcg(11);
    for round in 0..300 {
        lines.push(line(
            random.pick(OPERATORS),
            random.pick(SPELLINGS),
            random.pick(COMMANDS),
            random.pick(WRAPPERS),
            random.pick(FRAMES),
            round % 2 == 0,
        ));
    }
    let mut failures = Vec::new();
    let mut kept = 0;
    for command in &lines {
        let (decision, code) = verdict(&fixture, command);
        if decision == Decision::Allow || code == ReasonCode::AllowNoop {
            failures.push(format!("{command:?}: {decision} [{code}]"));
        }
        kept += usize::from(code == ReasonCode::SnapshotOverwrite);
    }
    assert!(
        failures.is_empty(),
        "{} of {} lines were allowed:\n{}",
        failures.len(),
        lines.len(),
        failures.join("\n")
    );
    // Most keep the old version; the rest are refusals (a function body's redirection, a
    // write inside `$(…)`), never an allowance.
    assert!(
        kept * 2 > lines.len(),
        "only {kept} of {} were snapshots",
        lines.len()
    );
    // The file was only judged, never touched.
    let body = std::fs::read_to_string(fixture.ws.join("notes.txt")).expect("still there");
    assert_eq!(body, "precious notes\n");
}

#[test]
fn appends_and_sinks_stay_noops() {
    let fixture = workspace();
    for command in [
        "echo x >> notes.txt",
        "echo x &>> notes.txt",
        "echo x 2>> notes.txt",
        "echo x > /dev/null 2>&1",
        "echo x >&2",
        "cat notes.txt > new.txt",
        "cat > another.txt <<'EOF'\nbody\nEOF",
    ] {
        assert_eq!(
            verdict(&fixture, command),
            (Decision::Allow, ReasonCode::AllowNoop),
            "{command}"
        );
    }
}
