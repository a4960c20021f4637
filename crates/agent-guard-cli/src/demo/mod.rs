//! `agent-guard demo`: on a throw-away workspace, four destructive commands run for real
//! after `check --enforce` and undone byte for byte (the `story` module), then the guard's verdicts
//! on a couple of dozen more.

mod story;

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
    ("cd src && rm -rf ../dist", "a literal cd is followed"),
    (
        "cd \"$OUT\" && rm -rf build",
        "a cd the guard cannot follow is asked about",
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

/// The whole demo, as `--json` prints it.
#[derive(Debug, Serialize)]
struct Demo {
    /// The temporary workspace.
    workspace: String,
    /// The four commands run for real, `list`, and the undos.
    story: story::Story,
    /// The verdicts on more commands, judged only.
    verdicts: Vec<Row>,
}

/// Runs the demo.
pub fn run(args: &DemoArgs) -> anyhow::Result<ExitCode> {
    let dir = tempfile::Builder::new()
        .prefix("agent-guard-demo-")
        .tempdir()?;
    let workspace = dir.path().join("project");
    agent_guard_engine::prepare_demo_workspace(&workspace)?;
    // The demo's own home: its store, audit chain key and seals are made there, not in the
    // user's state.
    let env = EnvSnapshot {
        home: Some(dir.path().join("home").into()),
        xdg_state_home: None,
        workspace: None,
        trash: None,
        dialect: None,
        session: None,
        ..EnvSnapshot::capture()
    };
    let story = story::tell(&workspace, &env)?;
    // The table is judged on a fresh copy of the workspace: the story's commands ran.
    let table = dir.path().join("table");
    agent_guard_engine::prepare_demo_workspace(&table)?;
    let verdicts: Vec<Row> = COMMANDS
        .iter()
        .map(|(command, shows)| {
            let report = check(&CheckRequest {
                command: (*command).to_owned(),
                cwd: table.clone(),
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
    let whole = story.runs.iter().all(|r| r.ran) && story.different.is_empty();
    let demo = Demo {
        workspace: workspace.display().to_string(),
        story,
        verdicts,
    };
    if args.json {
        printer::json(&demo);
    } else {
        print(&demo);
    }
    if args.keep {
        let kept = dir.keep();
        printer::err(&format!("kept {}", kept.display()));
    }
    Ok(if whole {
        ExitCode::Success
    } else {
        ExitCode::InternalError
    })
}

/// Prints the demo for a person: the story in under a screen, then the table.
fn print(demo: &Demo) {
    use crate::style::{BOLD, DIM, OK, WARNING, decision, paint};
    let story = &demo.story;
    printer::out(&paint(
        BOLD,
        &format!(
            "agent-guard demo — a throw-away git workspace: {}",
            demo.workspace
        ),
    ));
    printer::out(
        "\nA delete, an overwrite, a git reset and a script the guard cannot see into, each run \
         for real after `agent-guard check --enforce`:",
    );
    let width = story::RUNS.iter().map(|c| c.len()).max().unwrap_or(0);
    for run in &story.runs {
        let damage = damage(run);
        let verdict = paint(
            decision(run.decision),
            &format!("{:<19}", run.code.to_string()),
        );
        printer::out(&format!("  $ {:<width$}  {verdict}  {damage}", run.command));
    }
    printer::out(&format!(
        "\n$ agent-guard list   # what the guard kept ({})",
        story.listed.len()
    ));
    let what = story.listed.iter().map(|k| k.what.len()).max().unwrap_or(0);
    for kept in &story.listed {
        printer::out(&format!(
            "  {}  {:<what$}  {}",
            kept.txid,
            kept.what,
            paint(DIM, &format!("kept by: {}", kept.command))
        ));
    }
    printer::out(&format!(
        "\n$ agent-guard undo   # {} times, newest first: one command, one undo",
        story.undone.len()
    ));
    for command in &story.undone {
        printer::out(&format!("  undid: {command}"));
    }
    if story.different.is_empty() {
        printer::out(&paint(
            OK,
            &format!(
                "Every file is back, byte for byte ({} of {} compared).",
                story.files, story.files
            ),
        ));
    } else {
        printer::out(&paint(
            WARNING,
            &format!("Not back as they were: {}", story.different.join(", ")),
        ));
    }
    printer::out(&paint(
        BOLD,
        "\nThe guard's verdicts on more commands (judged only, nothing run):",
    ));
    let width = COMMANDS.iter().map(|(c, _)| c.len()).max().unwrap_or(0);
    for row in &demo.verdicts {
        printer::out(&format!(
            "{:<width$}  {:<8} {:<28} {}",
            row.command, row.decision, row.code, row.shows
        ));
    }
}

/// What a run of the story destroyed, in words.
fn damage(run: &story::Run) -> String {
    if !run.ran {
        return "not run".to_owned();
    }
    let mut parts = Vec::new();
    if !run.deleted.is_empty() {
        parts.push(format!("deleted {}", run.deleted.join(", ")));
    }
    if !run.changed.is_empty() {
        parts.push(format!("changed {}", run.changed.join(", ")));
    }
    if parts.is_empty() {
        "changed nothing".to_owned()
    } else {
        parts.join("; ")
    }
}
