//! `docs/EVIDENCE.md`, generated from a run: the command corpora of every dialect and the
//! end-to-end scenarios (round trips, git compensations, crash points), so that nobody types
//! the figures by hand.
//!
//! `UPDATE_EVIDENCE=1 cargo test -p agent-guard-cli --test it evidence_md_is_current -- --ignored`
//! writes the file; without `UPDATE_EVIDENCE` the same test regenerates it in memory and fails
//! when anything above its `## Run` section differs from the committed file. `.ci/run` runs it.
//! The `## Run` section (version, commit, date, suite time) is volatile by nature: it is
//! rewritten on every update and never compared, so the check cannot fail spuriously.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use agent_guard_engine::{CheckRequest, EnvSnapshot, change_mode, check};
use agent_guard_testutil::corpus::Fixtures;
use agent_guard_testutil::{Case, Fixture, corpus_root, load_cases, load_fixtures};
use agent_guard_types::SessionMode;
use serde::Deserialize;

/// What an end-to-end scenario shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `check --enforce` → the real command → `restore`; the tree is byte-identical.
    RoundTrip,
    /// The same with git: work tree, stash list and branches are back.
    GitRoundTrip,
    /// A command that must stay refused.
    Refusal,
    /// The process is aborted at a fault point; the next command recovers everything.
    Crash,
}

/// One end-to-end scenario: a test of `roundtrip.rs`, `git.rs`, `crash.rs` or `audit.rs`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Scenario {
    /// The test's name.
    pub name: &'static str,
    /// The test itself (it panics on failure).
    pub run: fn(),
    /// What it shows.
    pub kind: Kind,
    /// It needs a second filesystem (`/dev/shm` as tmpfs) and is skipped without one.
    pub second_filesystem: bool,
}

/// The torn audit append: the crash point of the audit log (in `audit.rs`).
const AUDIT_CRASH: &[Scenario] = &[Scenario {
    name: "a_process_killed_mid_append_leaves_a_torn_tail_the_next_append_repairs",
    run: crate::audit::a_process_killed_mid_append_leaves_a_torn_tail_the_next_append_repairs,
    kind: Kind::Crash,
    second_filesystem: false,
}];

fn groups() -> [(&'static str, &'static [Scenario]); 4] {
    [
        ("roundtrip.rs", crate::roundtrip::SCENARIOS),
        ("git.rs", crate::git::SCENARIOS),
        ("crash.rs", crate::crash::SCENARIOS),
        ("audit.rs", AUDIT_CRASH),
    ]
}

const UPDATE: &str =
    "UPDATE_EVIDENCE=1 cargo test -p agent-guard-cli --test it evidence_md_is_current -- --ignored";
const RUN_HEADING: &str = "\n## Run\n";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every test of the scenario files is registered, so the evidence cannot silently omit one.
#[test]
fn every_scenario_is_registered() {
    for (file, scenarios) in groups().into_iter().take(3) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/it")
            .join(file);
        let source = std::fs::read_to_string(&path).unwrap();
        let mut tests = BTreeSet::new();
        let mut lines = source.lines().peekable();
        while let Some(line) = lines.next() {
            if line.trim() == "#[test]" {
                let next = lines.peek().copied().unwrap_or_default().trim();
                let name = next
                    .trim_start_matches("pub(crate) ")
                    .strip_prefix("fn ")
                    .and_then(|rest| rest.split('(').next())
                    .unwrap_or_default();
                tests.insert(name.to_owned());
            }
        }
        let registered: BTreeSet<String> = scenarios.iter().map(|s| s.name.to_owned()).collect();
        assert_eq!(registered, tests, "{file}: SCENARIOS and the tests differ");
    }
}

/// A scenario this machine cannot run keeps the committed result, so a machine without a
/// second filesystem neither fails the check nor weakens the file.
#[test]
fn scenarios_not_run_keep_the_committed_result() {
    let committed =
        "| `a` | `crash.rs` | crash point | passed |\n| `b` | `x.rs` | refusal | **FAILED** |";
    assert_eq!(committed_result(committed, "a").as_deref(), Some(PASSED));
    assert_eq!(committed_result(committed, "b").as_deref(), Some(FAILED));
    assert_eq!(committed_result(committed, "c"), None);
    assert_eq!(result_text(&Outcome::NotRun(None)), NOT_RUN);
    assert_eq!(result_text(&Outcome::NotRun(Some(PASSED.into()))), PASSED);
}

/// Generates `docs/EVIDENCE.md` and compares it with the committed file (or writes it).
#[test]
#[ignore = "runs every corpus case and every end-to-end scenario again; .ci/run runs it"]
fn evidence_md_is_current() {
    let path = repo().join("docs/EVIDENCE.md");
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    let started = Instant::now();
    let corpora = run_corpora();
    let corpus_time = started.elapsed();
    let scenarios_started = Instant::now();
    let results = run_scenarios(&committed);
    let scenario_time = scenarios_started.elapsed();
    let body = render(&corpora, &results);
    let run = render_run(corpus_time, scenario_time, started.elapsed());
    let fresh = format!("{body}{RUN_HEADING}{run}");
    if std::env::var_os("UPDATE_EVIDENCE").is_some() {
        std::fs::write(&path, &fresh).unwrap();
        return;
    }
    let committed_body = committed
        .split_once(RUN_HEADING)
        .map_or(committed.as_str(), |(body, _)| body);
    if committed_body != body {
        let diff: Vec<String> = body
            .lines()
            .zip(committed_body.lines().chain(std::iter::repeat("")))
            .filter(|(new, old)| new != old)
            .take(12)
            .map(|(new, old)| format!("- {old}\n+ {new}"))
            .collect();
        panic!(
            "docs/EVIDENCE.md is stale; regenerate it with\n  {UPDATE}\nfirst differences:\n{}",
            diff.join("\n")
        );
    }
}

/// One corpus's tally.
#[derive(Debug, Default)]
struct Tally {
    cases: usize,
    as_expected: usize,
    false_allow: usize,
    false_block: usize,
    other: usize,
    codes: BTreeSet<String>,
    by_class: BTreeMap<String, usize>,
    failures: Vec<String>,
}

/// A case ready to run, with the corpus it counts for.
struct Job {
    corpus: &'static str,
    label: String,
    case: Case,
}

fn run_corpora() -> Vec<(&'static str, Tally)> {
    let root = corpus_root(env!("CARGO_MANIFEST_DIR"));
    let fixtures = load_fixtures(&root).unwrap();
    let mut jobs = Vec::new();
    for corpus in ["posix", "cmd", "powershell"] {
        for loaded in load_cases(&root, corpus).unwrap() {
            jobs.push(Job {
                corpus,
                label: format!("{}:{}", loaded.file.display(), loaded.index),
                case: loaded.case,
            });
        }
    }
    jobs.extend(parity_jobs(&root));
    let tallies: Mutex<BTreeMap<&'static str, Tally>> = Mutex::default();
    parallel(&jobs, |job| {
        let outcome = run_case(&job.case, &fixtures);
        let mut tallies = tallies.lock().unwrap();
        let tally = tallies.entry(job.corpus).or_default();
        tally.cases += 1;
        tally.codes.insert(job.case.code.clone());
        *tally.by_class.entry(job.case.decision.clone()).or_default() += 1;
        match outcome {
            Ok((decision, code)) if decision == job.case.decision && code == job.case.code => {
                tally.as_expected += 1;
            }
            Ok((decision, code)) => {
                if decision == "ALLOW" && job.case.decision != "ALLOW" {
                    tally.false_allow += 1;
                } else if decision == "BLOCK" && job.case.decision != "BLOCK" {
                    tally.false_block += 1;
                } else {
                    tally.other += 1;
                }
                tally
                    .failures
                    .push(format!("{}: got {decision} [{code}]", job.label));
            }
            Err(error) => {
                tally.other += 1;
                tally.failures.push(format!("{}: {error}", job.label));
            }
        }
    });
    let mut tallies = tallies.into_inner().unwrap();
    ["posix", "cmd", "powershell", "parity"]
        .into_iter()
        .map(|name| (name, tallies.remove(name).unwrap_or_default()))
        .collect()
}

/// A parity group: one operation spelled in each dialect (the fields evidence needs).
#[derive(Debug, Deserialize)]
struct ParityFile {
    fixture: Option<String>,
    #[serde(default)]
    group: Vec<ParityGroup>,
}

#[derive(Debug, Deserialize)]
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
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Spellings {
    One(String),
    Many(Vec<String>),
}

fn parity_jobs(root: &Path) -> Vec<Job> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("parity"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    let mut jobs = Vec::new();
    for path in files {
        let file: ParityFile = toml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for group in &file.group {
            for (dialect, spellings) in [
                ("posix", &group.posix),
                ("cmd", &group.cmd),
                ("powershell", &group.powershell),
            ] {
                let list = match spellings {
                    Spellings::One(one) => vec![one.clone()],
                    Spellings::Many(many) => many.clone(),
                };
                for cmd in list {
                    jobs.push(Job {
                        corpus: "parity",
                        label: format!("parity {} [{dialect}]", group.name),
                        case: Case {
                            cmd,
                            dialect: Some(dialect.to_owned()),
                            fixture: group.fixture.clone().or_else(|| file.fixture.clone()),
                            cwd: group.cwd.clone(),
                            mode: group.mode.clone(),
                            env: group.env.clone(),
                            decision: group.decision.clone(),
                            code: group.code.clone(),
                            ops: None,
                            note: None,
                            see: None,
                        },
                    });
                }
            }
        }
    }
    jobs
}

/// Runs one case as `crates/agent-guard-engine/tests/corpus.rs` does: the engine's advisory
/// `check` in a real temporary workspace built from the case's fixture.
fn run_case(case: &Case, fixtures: &Fixtures) -> Result<(String, String), String> {
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
        change_mode(&fixture.ws, &env, SessionMode::Restricted, false)
            .map_err(|e| format!("mode: {e}"))?;
    }
    let cwd = fixture
        .ws
        .join(fixture.expand(case.cwd.as_deref().unwrap_or(".")));
    let report = check(&CheckRequest {
        command: fixture.expand(&case.cmd),
        cwd,
        dialect_flag: case.dialect.clone().filter(|d| d != "none"),
        env,
        ..CheckRequest::default()
    });
    Ok((
        report.decision.as_str().to_owned(),
        report.code.as_str().to_owned(),
    ))
}

/// What became of a scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    Passed,
    Failed,
    /// It needs a second filesystem this machine lacks; the committed result is kept.
    NotRun(Option<String>),
}

fn run_scenarios(committed: &str) -> Vec<(&'static str, Scenario, Outcome)> {
    let second_filesystem = crate::crash::cross_device_trash().is_some();
    let all: Vec<(&'static str, Scenario)> = groups()
        .into_iter()
        .flat_map(|(file, scenarios)| scenarios.iter().map(move |s| (file, *s)))
        .collect();
    let outcomes: Mutex<BTreeMap<&'static str, Outcome>> = Mutex::default();
    parallel(&all, |(_, scenario)| {
        let outcome = if scenario.second_filesystem && !second_filesystem {
            Outcome::NotRun(committed_result(committed, scenario.name))
        } else if std::panic::catch_unwind(scenario.run).is_ok() {
            Outcome::Passed
        } else {
            Outcome::Failed
        };
        outcomes.lock().unwrap().insert(scenario.name, outcome);
    });
    let mut outcomes = outcomes.into_inner().unwrap();
    all.into_iter()
        .map(|(file, s)| (file, s, outcomes.remove(s.name).unwrap_or(Outcome::Failed)))
        .collect()
}

/// The result cell of `name`'s row in the committed file.
fn committed_result(committed: &str, name: &str) -> Option<String> {
    let prefix = format!("| `{name}` |");
    let line = committed.lines().find(|l| l.starts_with(&prefix))?;
    let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
    cells.last().map(|c| (*c).to_owned())
}

const PASSED: &str = "passed";
const FAILED: &str = "**FAILED**";
const NOT_RUN: &str = "not run (needs a second filesystem)";

fn result_text(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Passed => PASSED.to_owned(),
        Outcome::Failed => FAILED.to_owned(),
        Outcome::NotRun(Some(committed)) => committed.clone(),
        Outcome::NotRun(None) => NOT_RUN.to_owned(),
    }
}

/// Runs `work` over `items` on two threads (the CI machine has two cores).
fn parallel<T: Sync>(items: &[T], work: impl Fn(&T) + Sync) {
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(index) else { break };
                    work(item);
                }
            });
        }
    });
}

const CLASSES: [&str; 5] = ["ALLOW", "RELOCATE", "SNAPSHOT", "ASK", "BLOCK"];

fn render(corpora: &[(&'static str, Tally)], scenarios: &[(&str, Scenario, Outcome)]) -> String {
    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(w, "# Evidence\n");
    let _ = writeln!(
        w,
        "Generated by a test, never by hand: `{UPDATE}`. `.ci/run` runs the same test without \
         `UPDATE_EVIDENCE` and fails when anything above the *Run* section differs from a fresh \
         run; the *Run* section (version, commit, date, suite time) changes on every run and is \
         never compared. The claims are limited to this corpus and these scenarios.\n"
    );
    let _ = writeln!(w, "## Command corpus\n");
    let _ = writeln!(
        w,
        "Every case of `tests/corpus/{{posix,cmd,powershell}}/**.toml` and every spelling of \
         `tests/corpus/parity/*.toml`, judged by the engine's `check` (advisory) in a real \
         temporary workspace built from its fixture, against the case's expected decision and \
         reason code.\n"
    );
    let _ = writeln!(
        w,
        "- **false ALLOW**: the case expects anything but ALLOW and the guard said ALLOW (the \
         command would run unprotected);\n- **false BLOCK**: the case expects anything but BLOCK \
         and the guard said BLOCK (a harmless or recoverable command refused);\n- **other**: any \
         other difference (another code, another protective class).\n"
    );
    let _ = writeln!(
        w,
        "| corpus | cases | as expected | false ALLOW | false BLOCK | other | reason codes |"
    );
    let _ = writeln!(w, "|---|---:|---:|---:|---:|---:|---:|");
    let mut total = Tally::default();
    for (name, tally) in corpora {
        let _ = writeln!(
            w,
            "| {name} | {} | {} | {} | {} | {} | {} |",
            tally.cases,
            tally.as_expected,
            tally.false_allow,
            tally.false_block,
            tally.other,
            tally.codes.len()
        );
        total.cases += tally.cases;
        total.as_expected += tally.as_expected;
        total.false_allow += tally.false_allow;
        total.false_block += tally.false_block;
        total.other += tally.other;
        total.codes.extend(tally.codes.iter().cloned());
    }
    let _ = writeln!(
        w,
        "| **all** | **{}** | **{}** | **{}** | **{}** | **{}** | **{}** |\n",
        total.cases,
        total.as_expected,
        total.false_allow,
        total.false_block,
        total.other,
        total.codes.len()
    );
    let _ = writeln!(w, "Cases by expected decision class:\n");
    let _ = writeln!(w, "| corpus | {} |", CLASSES.join(" | "));
    let _ = writeln!(w, "|---|{}", "---:|".repeat(CLASSES.len()));
    for (name, tally) in corpora {
        let cells: Vec<String> = CLASSES
            .iter()
            .map(|class| tally.by_class.get(*class).copied().unwrap_or(0).to_string())
            .collect();
        let _ = writeln!(w, "| {name} | {} |", cells.join(" | "));
    }
    let failures: Vec<&String> = corpora.iter().flat_map(|(_, t)| &t.failures).collect();
    if !failures.is_empty() {
        let _ = writeln!(w, "\nCases not as expected:\n");
        let mut failures = failures;
        failures.sort();
        for failure in failures {
            let _ = writeln!(w, "- `{failure}`");
        }
    }
    render_scenarios(w, scenarios);
    out
}

fn render_scenarios(w: &mut String, scenarios: &[(&str, Scenario, Outcome)]) {
    let _ = writeln!(w, "\n## End-to-end scenarios\n");
    let _ = writeln!(
        w,
        "The real binaries in a hermetic environment (a temporary git workspace, a fake home, \
         a clean environment), from `crates/agent-guard-cli/tests/it/`. A test of those files \
         that is not listed here fails `every_scenario_is_registered`.\n"
    );
    let count = |kind: Kind| {
        let of_kind: Vec<&Outcome> = scenarios
            .iter()
            .filter(|(_, s, _)| s.kind == kind)
            .map(|(_, _, o)| o)
            .collect();
        let passed = of_kind.iter().filter(|o| result_text(o) == PASSED).count();
        (passed, of_kind.len())
    };
    let (rt, rt_all) = count(Kind::RoundTrip);
    let (git, git_all) = count(Kind::GitRoundTrip);
    let (refused, refused_all) = count(Kind::Refusal);
    let (crash, crash_all) = count(Kind::Crash);
    let _ = writeln!(
        w,
        "- **Round trips restored byte-exact: {rt} of {rt_all}** (`roundtrip.rs`: `check \
         --enforce`, the real command through `sh -c`, `restore`; content, modes, mtimes and \
         symlink targets equal the original tree).\n- **Git round trips restored: {git} of \
         {git_all}** (`git.rs`: the same through the real `git`; work-tree content and modes, \
         the stash list and the branches equal the original, and a second restore changes \
         nothing). Refusals held: {refused} of {refused_all}.\n- **Crash points survived: \
         {crash} of {crash_all}** (`crash.rs`: the process aborted at each fault point of a \
         relocation, same filesystem and cross-device; the next command reconciles and every \
         item is back after restore. `audit.rs`: a process aborted halfway through an audit \
         append; verify reports a torn tail and the next append continues a valid chain).\n"
    );
    let _ = writeln!(w, "| scenario | file | shows | result |");
    let _ = writeln!(w, "|---|---|---|---|");
    for (file, scenario, outcome) in scenarios {
        let shows = match scenario.kind {
            Kind::RoundTrip => "round trip",
            Kind::GitRoundTrip => "git round trip",
            Kind::Refusal => "refusal",
            Kind::Crash => "crash point",
        };
        let _ = writeln!(
            w,
            "| `{}` | `{file}` | {shows} | {} |",
            scenario.name,
            result_text(outcome)
        );
    }
}

fn render_run(corpus: Duration, scenarios: Duration, total: Duration) -> String {
    let version = std::process::Command::new(assert_cmd::cargo::cargo_bin!("agent-guard"))
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(repo())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
    };
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    let dirty =
        git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    let now = chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ");
    let cpus = std::thread::available_parallelism().map_or(0, std::num::NonZero::get);
    format!(
        "\nVolatile: rewritten on every `UPDATE_EVIDENCE=1` run, never compared.\n\n\
         - binary: `{version}`, built from commit `{commit}`{} (the commit this file was \
         generated on, so the parent of the commit that adds it)\n\
         - generated: {now}, {} {}, {cpus} CPU(s)\n\
         - suite time: corpus {:.1} s, scenarios {:.1} s, total {:.1} s (two worker threads)\n",
        if dirty { " with local changes" } else { "" },
        std::env::consts::OS,
        std::env::consts::ARCH,
        corpus.as_secs_f64(),
        scenarios.as_secs_f64(),
        total.as_secs_f64()
    )
}
