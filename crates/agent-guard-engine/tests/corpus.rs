//! The corpus runner: every case in `tests/corpus/**.toml` runs through the real pipeline
//! (engine `check`, advisory) against a real temporary workspace built from its fixture.
//! Mismatches are collected and reported together, named `file:case`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use agent_guard_classify::classify;
use agent_guard_config::EnvSnapshot;
use agent_guard_engine::{CheckRequest, check};
use agent_guard_policy::{Coverage, REGISTRY};
use agent_guard_testutil::corpus::{Case, ExpectedOp};
use agent_guard_testutil::{Fixture, LoadedCase, corpus_root, load_cases, load_fixtures};
use agent_guard_types::{Dialect, DialectResolution, OpSpec, SessionMode, Shape};
use serde::Deserialize;

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
    // The rows name the store as `.agent-trash` in the workspace (a named store, the
    // reference tool's layout); a row with `AGENT_GUARD_TRASH = ""` gets the default, the
    // per-user store outside the workspace, which `{store}` names.
    let mut env = EnvSnapshot {
        home: Some(fixture.home.clone().into()),
        session: Some("corpus".into()),
        trash: Some(".agent-trash".into()),
        ..EnvSnapshot::default()
    };
    let store = fixture
        .home
        .join(".local/share/agent-guard")
        .join(agent_guard_engine::workspace_id(&fixture.ws));
    let expand = |text: &str| fixture.expand(&text.replace("{store}", &store.to_string_lossy()));
    for (key, value) in &case.env {
        let value = expand(value);
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
        agent_guard_session::set_mode(
            &trash,
            Some("corpus"),
            SessionMode::Restricted,
            "corpus",
            true,
            chrono::Utc::now(),
        )
        .map_err(|e| e.to_string())?;
    }
    let command = expand(&case.cmd);
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
    if let Some(expected) = &case.ops
        && let Some(problem) = ops_mismatch(expected, &command, dialect.as_deref(), &fixture)
    {
        problems.push(problem);
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

/// Compares the ops the classifier finds in `command` with the `expected` ones (their
/// targets expanded in `fixture`); says how they differ, if they do.
fn ops_mismatch(
    expected: &[ExpectedOp],
    command: &str,
    dialect: Option<&str>,
    fixture: &Fixture,
) -> Option<String> {
    let resolved = DialectResolution::resolve(dialect)
        .dialect()
        .unwrap_or_default();
    let ops = classify(command, resolved).ops;
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
                && e.targets
                    .as_ref()
                    .is_none_or(|t| t.iter().map(|x| fixture.expand(x)).collect::<Vec<_>>() == a.1)
                && e.recursive.is_none_or(|r| r == a.2)
                && e.undeterminable.is_none_or(|u| u == a.3)
                && e.shape.as_deref().is_none_or(|s| s == a.4)
        });
    (!matches).then(|| format!("ops: expected {expected:?}, got {actual:?}"))
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

#[test]
fn cmd_corpus() {
    let cases = run_dir("cmd");
    assert!(
        cases.len() >= 120,
        "the cmd corpus must hold at least 120 cases, has {}",
        cases.len()
    );
}

#[test]
fn powershell_corpus() {
    let cases = run_dir("powershell");
    assert!(
        cases.len() >= 120,
        "the PowerShell corpus must hold at least 120 cases, has {}",
        cases.len()
    );
}

/// Asserts that every reason code whose registry coverage expects a `dialect` corpus case
/// has one under `subdir`, and that no code the registry calls unreachable there has one.
fn every_code_has_a_case(subdir: &str, dialect: Dialect) {
    let cases = load_cases(&root(), subdir).expect("corpus loads");
    let covered: BTreeSet<&str> = cases.iter().map(|c| c.case.code.as_str()).collect();
    let mut missing = Vec::new();
    let mut unexpected = Vec::new();
    for rule in REGISTRY {
        let code = rule.code().as_str();
        match (
            rule.coverage().expects_corpus_case(dialect),
            covered.contains(code),
        ) {
            (true, false) => missing.push(code),
            (false, true) => unexpected.push(code),
            _ => {}
        }
    }
    assert!(
        missing.is_empty(),
        "reason codes without a {subdir} corpus case: {missing:?}"
    );
    assert!(
        unexpected.is_empty(),
        "codes the registry calls unreachable in {subdir} have cases (fix their `coverage`): \
         {unexpected:?}"
    );
}

/// Every code the registry covers by a test names a test that exists.
#[test]
fn test_coverage_names_existing_tests() {
    let workspace = root().join("../..");
    for rule in REGISTRY {
        let Coverage::Tests(named) = rule.coverage() else {
            continue;
        };
        let (file, test) = named.split_once(": ").unwrap_or((named, ""));
        let source = std::fs::read_to_string(workspace.join(file))
            .unwrap_or_else(|e| panic!("{}: {file}: {e}", rule.code()));
        let name = test.rsplit("::").next().unwrap_or(test);
        let name = name.split_whitespace().next().unwrap_or(name);
        assert!(
            name.is_empty() || source.contains(name),
            "{}: `{name}` is not in {file}",
            rule.code()
        );
    }
}

/// Every reason code reachable from POSIX has at least one corpus case.
#[test]
fn every_posix_reachable_code_has_a_case() {
    every_code_has_a_case("posix", Dialect::Posix);
}

/// Every reason code reachable from cmd has at least one corpus case.
#[test]
fn every_cmd_reachable_code_has_a_case() {
    every_code_has_a_case("cmd", Dialect::Cmd);
}

/// Every reason code reachable from PowerShell has at least one corpus case.
#[test]
fn every_powershell_reachable_code_has_a_case() {
    every_code_has_a_case("powershell", Dialect::PowerShell);
}

/// A parity file: the same logical operation written in each dialect.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ParityFile {
    fixture: Option<String>,
    #[serde(default)]
    group: Vec<ParityGroup>,
}

/// One command or several spellings of it.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum Spellings {
    One(String),
    Many(Vec<String>),
}

impl Spellings {
    fn list(&self) -> Vec<String> {
        match self {
            Spellings::One(one) => vec![one.clone()],
            Spellings::Many(many) => many.clone(),
        }
    }
}

/// One operation: its spellings per dialect, the verdict they all get, and optionally the
/// facts they all share.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ParityGroup {
    name: String,
    posix: Spellings,
    cmd: Spellings,
    powershell: Spellings,
    decision: String,
    code: String,
    fixture: Option<String>,
    cwd: Option<String>,
    mode: Option<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    ops: Option<Vec<ExpectedOp>>,
    note: Option<String>,
}

/// The dialect-independent facts of an op: kind, recursion, normalised targets (a leading
/// `./` and a trailing `/` dropped), undeterminable, shape, dry run.
fn facts(op: &OpSpec) -> String {
    let mut targets: Vec<String> = op
        .targets
        .iter()
        .map(|t| {
            let text = t.text.strip_prefix("./").unwrap_or(&t.text);
            let text = if text.len() > 1 {
                text.trim_end_matches('/')
            } else {
                text
            };
            let kind = if t.opaque.is_some() {
                "opaque"
            } else if t.glob {
                "glob"
            } else if t.tilde {
                "home"
            } else {
                "path"
            };
            if t.opaque.is_some() {
                kind.to_owned()
            } else {
                format!("{kind}:{text}")
            }
        })
        .collect();
    targets.sort();
    format!(
        "{} recursive={} undeterminable={} dry_run={} shape={:?} targets={targets:?}",
        op.kind.as_str(),
        op.recursive,
        op.undeterminable,
        op.dry_run,
        op.shape
    )
}

/// The same logical operation written in posix, cmd and PowerShell yields equivalent facts
/// and the same verdict.
#[test]
fn dialect_parity() {
    let root = root();
    let fixtures = load_fixtures(&root).expect("fixtures load");
    let mut files = Vec::new();
    for entry in std::fs::read_dir(root.join("parity")).expect("parity corpus") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "toml") {
            files.push(path);
        }
    }
    files.sort();
    let mut failures = Vec::new();
    let mut groups = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).expect("parity file reads");
        let file: ParityFile =
            toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for (index, group) in file.group.iter().enumerate() {
            groups += 1;
            let relative = path.strip_prefix(&root).unwrap_or(path);
            let name = format!("{}:{} ({})", relative.display(), index + 1, group.name);
            let mut seen: Option<(String, String)> = None;
            for (dialect, spellings) in [
                (Dialect::Posix, &group.posix),
                (Dialect::Cmd, &group.cmd),
                (Dialect::PowerShell, &group.powershell),
            ] {
                for cmd in spellings.list() {
                    let case = Case {
                        cmd: cmd.clone(),
                        dialect: Some(dialect.as_str().to_owned()),
                        fixture: group.fixture.clone().or_else(|| file.fixture.clone()),
                        cwd: group.cwd.clone(),
                        mode: group.mode.clone(),
                        env: group.env.clone(),
                        decision: group.decision.clone(),
                        code: group.code.clone(),
                        ops: group.ops.clone(),
                        note: group.note.clone(),
                        see: None,
                    };
                    let loaded = LoadedCase {
                        file: path.clone(),
                        index: index + 1,
                        case,
                    };
                    if let Err(problem) = run_case(&loaded, &fixtures) {
                        failures.push(format!("{name} [{dialect}] `{cmd}`: {problem}"));
                    }
                    let ops = classify(&cmd, dialect).ops;
                    let these: Vec<String> = ops.iter().map(facts).collect();
                    let these = these.join("; ");
                    match &seen {
                        None => seen = Some((cmd.clone(), these)),
                        Some((first, expected)) if *expected != these => failures.push(format!(
                            "{name} [{dialect}] `{cmd}`: facts differ from `{first}`:\n    {these}\n    {expected}"
                        )),
                        Some(_) => {}
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} parity failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        groups >= 30,
        "the parity corpus must hold at least 30 groups, has {groups}"
    );
}
