//! `agent-guard demo`: the guard's verdicts on a dozen commands, on a throw-away workspace.

use serde::Serialize;

use agent_guard_engine::EnvSnapshot;
use agent_guard_engine::{CheckRequest, check};

use crate::args::DemoArgs;
use crate::exit_code::ExitCode;
use crate::printer;

/// The commands the demo judges, with what each shows.
const COMMANDS: &[(&str, &str)] = &[
    ("ls -la && git status", "no destructive vocabulary"),
    ("grep -r \"rm -rf\" .", "quoted text is data, not a command"),
    ("rm -rf build", "a tree is quarantined first"),
    ("rm ./build -rf", "GNU options after operands count"),
    (
        "if true; then rm -rf build; fi",
        "deletes inside control flow are seen",
    ),
    ("rm -rf {build,dist}", "brace lists are expanded"),
    ("rm notes.txt", "a single file is quarantined"),
    (
        "rm -rf node_modules",
        "ignored build artifacts are regenerable",
    ),
    (
        "git clean -fdx",
        "untracked files are enumerated and quarantined",
    ),
    ("git reset --hard", "tracked changes are snapshotted"),
    (
        "echo reset > notes.txt",
        "an overwritten file keeps its old version",
    ),
    (
        "sed -i 's/draft/final/' notes.txt",
        "an in-place edit keeps the old version",
    ),
    ("gzip notes.txt", "a tool that consumes its input keeps it"),
    (
        "cd src && rm -rf build",
        "a cd first makes targets ambiguous",
    ),
    (
        "rm *.log",
        "a wildcard the workspace confines is checkpointed",
    ),
    ("rm -rf \"$BUILD_DIR\"", "variables are opaque"),
    (
        "python3 -c \"import shutil; shutil.rmtree('build')\"",
        "inline code that deletes is opaque",
    ),
    ("uv run rm -rf build", "package runners are seen through"),
    ("rm -rf ../other-project", "outside the workspace"),
    ("rm -rf .git", "git metadata is protected"),
    (
        "rm -rf build; rm -rf ~",
        "the home directory is never deleted",
    ),
    (
        "git push --force origin main",
        "remote history is never destroyed",
    ),
];

#[derive(Debug, Serialize)]
struct Row {
    command: &'static str,
    decision: String,
    code: String,
    shows: &'static str,
}

/// Runs the demo.
pub fn run(args: &DemoArgs) -> anyhow::Result<ExitCode> {
    let dir = tempfile::Builder::new()
        .prefix("agent-guard-demo-")
        .tempdir()?;
    let workspace = dir.path().join("project");
    agent_guard_engine::prepare_demo_workspace(&workspace)?;
    // The demo's own home: its audit chain key is created there, not in the user's state.
    let env = EnvSnapshot {
        home: Some(dir.path().join("home").into()),
        xdg_state_home: None,
        ..EnvSnapshot::capture()
    };
    let env = EnvSnapshot {
        workspace: None,
        trash: None,
        dialect: None,
        session: None,
        ..env
    };
    let rows: Vec<Row> = COMMANDS
        .iter()
        .map(|(command, shows)| {
            let report = check(&CheckRequest {
                command: (*command).to_owned(),
                cwd: workspace.clone(),
                env: env.clone(),
                ..CheckRequest::default()
            });
            Row {
                command,
                decision: report.decision.to_string(),
                code: report.code.to_string(),
                shows,
            }
        })
        .collect();
    if args.json {
        printer::json(&rows);
    } else {
        printer::out(&format!(
            "agent-guard demo — workspace {}",
            workspace.display()
        ));
        printer::out("(advisory mode: verdicts only, nothing is moved)\n");
        let width = COMMANDS.iter().map(|(c, _)| c.len()).max().unwrap_or(0);
        for row in &rows {
            printer::out(&format!(
                "{:<width$}  {:<8} {:<28} {}",
                row.command, row.decision, row.code, row.shows
            ));
        }
    }
    if args.keep {
        let kept = dir.keep();
        printer::err(&format!("kept {}", kept.display()));
    }
    Ok(ExitCode::Success)
}
