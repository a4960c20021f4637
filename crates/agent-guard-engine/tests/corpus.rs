//! The corpus runner: every case in `tests/corpus/**.toml` runs through the real pipeline
//! (engine `check`, advisory) against a real temporary workspace built from its fixture.
//! Mismatches are collected and reported together, named `file:case`.

use std::collections::BTreeSet;
use std::path::PathBuf;

use agent_guard_classify::classify;
use agent_guard_config::EnvSnapshot;
use agent_guard_engine::{CheckRequest, check};
use agent_guard_testutil::{Fixture, LoadedCase, corpus_root, load_cases, load_fixtures};
use agent_guard_types::{DialectResolution, ReasonCode, SessionMode, Shape};

/// Codes no advisory corpus case can reach; each is exercised by the named tests.
const ENFORCE_ONLY: &[(ReasonCode, &str)] = &[
    (
        ReasonCode::RelocateFailedStorage,
        "reachable only under --enforce",
    ),
    (
        ReasonCode::CompensationFailed,
        "reachable only under --enforce",
    ),
];

fn root() -> PathBuf {
    corpus_root(env!("CARGO_MANIFEST_DIR"))
}

fn run_case(
    loaded: &LoadedCase,
    fixtures: &agent_guard_testutil::corpus::Fixtures,
) -> Result<(), String> {
    let case = &loaded.case;
    let name = case.fixture.as_deref().unwrap_or("repo");
    let spec = fixtures
        .fixture
        .get(name)
        .ok_or_else(|| format!("unknown fixture `{name}`"))?;
    let fixture = Fixture::build(spec).map_err(|e| format!("fixture: {e}"))?;
    let mut env = EnvSnapshot {
        home: Some(fixture.home.clone().into()),
        session: Some("corpus".into()),
        ..EnvSnapshot::default()
    };
    for (key, value) in &case.env {
        let value = fixture.expand(value);
        match key.as_str() {
            "AGENT_GUARD_ALLOW_REGENERABLE" => env.allow_regenerable = Some(value),
            "AGENT_GUARD_ARTIFACTS" => env.artifacts = Some(value.into()),
            "AGENT_GUARD_TRASH" => env.trash = Some(value.into()),
            "AGENT_GUARD_WORKSPACE" => env.workspace = Some(value.into()),
            "AGENT_GUARD_DIALECT" => env.dialect = Some(value),
            "HOME" => env.home = Some(value.into()),
            other => return Err(format!("unsupported env key {other}")),
        }
    }
    if case.mode.as_deref() == Some("RESTRICTED") {
        let trash = fixture.ws.join(".agent-trash");
        agent_guard_recovery::ensure_layout(&fixture.ws, &trash).map_err(|e| e.to_string())?;
        agent_guard_recovery::set_mode(
            &trash,
            Some("corpus"),
            SessionMode::Restricted,
            "corpus",
            true,
            chrono::Utc::now(),
        )
        .map_err(|e| e.to_string())?;
    }
    let command = fixture.expand(&case.cmd);
    let cwd = fixture
        .ws
        .join(fixture.expand(case.cwd.as_deref().unwrap_or(".")));
    let dialect = case.dialect.clone().filter(|d| d != "none");
    let report = check(&CheckRequest {
        command: command.clone(),
        cwd,
        dialect_flag: dialect.clone(),
        env,
        ..CheckRequest::default()
    });
    let mut problems = Vec::new();
    if report.decision.as_str() != case.decision || report.code.as_str() != case.code {
        problems.push(format!(
            "expected {} [{}], got {} [{}] (ops {:?}, warnings {:?})",
            case.decision, case.code, report.decision, report.code, report.ops, report.warnings
        ));
    }
    if let Some(expected) = &case.ops {
        let resolved = DialectResolution::resolve(dialect.as_deref())
            .dialect()
            .unwrap_or_default();
        let ops = classify(&command, resolved).ops;
        let actual: Vec<_> = ops
            .iter()
            .map(|op| {
                let shape = match op.shape {
                    Some(Shape::F1) => "F1",
                    Some(Shape::F2) => "F2",
                    None => "none",
                };
                (
                    op.kind.as_str().to_owned(),
                    op.targets
                        .iter()
                        .map(|t| t.text.clone())
                        .collect::<Vec<_>>(),
                    op.recursive,
                    op.undeterminable,
                    shape,
                )
            })
            .collect();
        let matches = expected.len() == actual.len()
            && expected.iter().zip(&actual).all(|(e, a)| {
                e.kind == a.0
                    && e.targets.as_ref().is_none_or(|t| {
                        t.iter().map(|x| fixture.expand(x)).collect::<Vec<_>>() == a.1
                    })
                    && e.recursive.is_none_or(|r| r == a.2)
                    && e.undeterminable.is_none_or(|u| u == a.3)
                    && e.shape.as_deref().is_none_or(|s| s == a.4)
            });
        if !matches {
            problems.push(format!("ops: expected {expected:?}, got {actual:?}"));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

fn run_dir(subdir: &str) -> Vec<LoadedCase> {
    let root = root();
    let fixtures = load_fixtures(&root).expect("fixtures load");
    let cases = load_cases(&root, subdir).expect("corpus loads");
    let mut failures = Vec::new();
    for loaded in &cases {
        if let Err(problem) = run_case(loaded, &fixtures) {
            failures.push(format!(
                "{}:{} `{}`: {problem}",
                loaded.file.display(),
                loaded.index,
                loaded.case.cmd.escape_debug()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} corpus cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    cases
}

#[test]
fn posix_corpus() {
    let cases = run_dir("posix");
    assert!(
        cases.len() >= 250,
        "the POSIX corpus must hold at least 250 cases, has {}",
        cases.len()
    );
}

/// Every reason code reachable from POSIX has at least one corpus case.
#[test]
fn every_posix_reachable_code_has_a_case() {
    let cases = load_cases(&root(), "posix").expect("corpus loads");
    let covered: BTreeSet<&str> = cases.iter().map(|c| c.case.code.as_str()).collect();
    let exempt: BTreeSet<&str> = ENFORCE_ONLY.iter().map(|(c, _)| c.as_str()).collect();
    let missing: Vec<&str> = ReasonCode::ALL
        .iter()
        .map(|c| c.as_str())
        .filter(|c| !covered.contains(c) && !exempt.contains(c))
        .collect();
    assert!(
        missing.is_empty(),
        "reason codes without a POSIX corpus case: {missing:?}"
    );
}
