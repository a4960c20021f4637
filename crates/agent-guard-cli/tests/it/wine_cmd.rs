//! cmd lines run for real (issue 34): `check --enforce --dialect cmd`, then the line in
//! Wine's `cmd.exe` (Debian's `wine64`; its `del`, `rd`, `move`, `ren`, `copy`, `type` and
//! redirections act on the Linux workspace through drive `Z:`), then one `undo`: the
//! workspace comes back byte for byte. The rows are `tests/real/cmd.toml`.
//!
//! Without Wine the test says so and passes, except where `AGENT_GUARD_REQUIRE_WINE` is set
//! (`.ci/run` installs Wine and sets it, so that CI never passes by skipping).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde::Deserialize;

use crate::support::{TestEnv, snapshot, txids};

#[derive(Debug, Deserialize)]
struct Row {
    line: String,
    code: String,
}

#[derive(Debug, Deserialize)]
struct Rows {
    line: Vec<Row>,
}

/// Wine's loader, and one prefix kept under Cargo's target tmpdir (made once: about 8 s,
/// 700 MB). A statically held tempdir is never dropped, so a prefix per run would leak.
fn wine() -> Option<&'static (PathBuf, PathBuf)> {
    static WINE: OnceLock<Option<(PathBuf, PathBuf)>> = OnceLock::new();
    WINE.get_or_init(|| {
        let loader = ["/usr/lib/wine/wine64", "/usr/bin/wine64", "/usr/bin/wine"]
            .into_iter()
            .map(PathBuf::from)
            .find(|p| p.exists())?;
        let prefix = Path::new(env!("CARGO_TARGET_TMPDIR")).join("wine-prefix");
        std::fs::create_dir_all(&prefix).ok()?;
        let ready = Command::new(&loader)
            .args(["cmd", "/c", "echo ready"])
            .env("WINEPREFIX", &prefix)
            .env("WINEDEBUG", "-all")
            .output()
            .ok()?;
        String::from_utf8_lossy(&ready.stdout)
            .contains("ready")
            .then_some((loader, prefix))
    })
    .as_ref()
}

/// Whether Wine's cmd.exe runs here; without it the test says so and passes, unless
/// `AGENT_GUARD_REQUIRE_WINE` is set (then it fails).
#[expect(clippy::print_stderr, reason = "a skipped test says why")]
fn wine_runs() -> bool {
    if wine().is_some() {
        return true;
    }
    assert!(
        std::env::var_os("AGENT_GUARD_REQUIRE_WINE").is_none(),
        "AGENT_GUARD_REQUIRE_WINE is set and Wine's cmd.exe does not run"
    );
    eprintln!("skipping: Wine (Debian's wine64) is not installed");
    false
}

/// Runs `line` in Wine's `cmd.exe` in `dir`.
fn run_cmd(dir: &Path, line: &str) {
    run_cmd_with(dir, line, &[]);
}

/// [`run_cmd`] with environment variables for cmd to expand.
fn run_cmd_with(dir: &Path, line: &str, vars: &[(&str, &str)]) {
    let (loader, prefix) = wine().expect("wine is there");
    let output = Command::new(loader)
        .args(["cmd", "/c", line])
        .current_dir(dir)
        .env("WINEPREFIX", prefix)
        .env("WINEDEBUG", "-all")
        .envs(vars.iter().copied())
        .output()
        .unwrap();
    assert!(output.status.success(), "cmd /c {line}: {output:?}");
}

/// `line` is checkpointed; Wine's cmd.exe runs it (with `vars`) and the batch file at
/// `bat` (which deletes `src`) runs; one `undo` brings the workspace back byte for byte.
fn batch_file_run_undone(line: &str, bat: &str, vars: &[(&str, &str)]) {
    let env = TestEnv::new();
    let ws = env.ws();
    std::fs::create_dir_all(ws.join(bat).parent().unwrap()).unwrap();
    let up = "..\\".repeat(bat.matches('/').count());
    std::fs::write(ws.join(bat), format!("@rd /s /q {up}src\r\n")).unwrap();
    let before = snapshot(ws, &["**"]);
    let (exit, report) = crate::support::enforce_in(&env, "cmd", line);
    assert_eq!(exit, 0, "{line}: {report}");
    assert_eq!(report["code"], "SNAPSHOT_CHECKPOINT", "{line}: {report}");
    run_cmd_with(ws, line, vars);
    assert!(!ws.join("src").exists(), "{line}: cmd.exe ran {bat}");
    assert!(env.ag(&["undo", "--json"]).status.success());
    assert_eq!(snapshot(ws, &["**"]), before, "{line}");
}

#[test]
fn cmd_lines_run_by_cmd_exe_are_undone_byte_for_byte() {
    if !wine_runs() {
        return;
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/real/cmd.toml");
    let rows: Rows = toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert!(rows.line.len() >= 10, "the rows are loaded");
    let mut failures = Vec::new();
    for row in &rows.line {
        if let Err(why) = round_trip(row) {
            failures.push(format!("`{}`: {why}", row.line));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn round_trip(row: &Row) -> Result<(), String> {
    let env = TestEnv::new();
    let ws = env.ws();
    // Directory times change with their entries; files keep theirs through a restore, but
    // for a checkpoint's (content and mode, as git).
    let times: &[&str] = if row.code.starts_with("SNAPSHOT_CHECKPOINT") {
        &["**"]
    } else {
        &["*"]
    };
    let before = snapshot(ws, times);
    let output = env
        .cmd("agent-guard")
        .args(["check", "--enforce", "--json", "--dialect", "cmd", "--"])
        .arg(&row.line)
        .output()
        .unwrap();
    let report: serde_json::Value =
        serde_json::from_slice(&output.stdout).map_err(|e| format!("{e}: {output:?}"))?;
    if output.status.code() != Some(0) || report["code"] != row.code.as_str() {
        return Err(format!("expected {} and exit 0: {report}", row.code));
    }
    // Only a relocation takes its targets away first (the command deletes them anyway).
    if !row.code.starts_with("RELOCATE_") && snapshot(ws, times) != before {
        return Err("the compensation changed what the command sees".to_owned());
    }
    if txids(&report).is_empty() {
        return Err(format!("nothing was kept first: {report}"));
    }
    run_cmd(ws, &row.line);
    if snapshot(ws, times) == before {
        return Err("cmd.exe changed nothing".to_owned());
    }
    let undo = env.ag(&["undo", "--json"]);
    if !undo.status.success() {
        return Err(format!("undo: {undo:?}"));
    }
    let after = snapshot(ws, times);
    if after != before {
        let changed: Vec<String> = before
            .keys()
            .chain(after.keys())
            .filter(|k| before.get(*k) != after.get(*k))
            .map(|k| String::from_utf8_lossy(k).into_owned())
            .collect();
        return Err(format!("not restored byte for byte: {changed:?}"));
    }
    Ok(())
}

/// cmd looks a command up in the working directory before `PATH` (issue 35, point 6): with
/// a `git.bat` in the workspace, `git status` runs it. `check` checkpoints the line, Wine's
/// cmd.exe runs the batch file (which deletes `src`), and one undo puts everything back. A
/// built-in (`dir`) is never looked up, so a `dir.bat` beside it changes nothing.
#[test]
fn a_batch_file_in_the_working_directory_is_the_program_cmd_runs() {
    if !wine_runs() {
        return;
    }
    let env = TestEnv::new();
    let ws = env.ws();
    std::fs::write(ws.join("git.bat"), "@rd /s /q src\r\n").unwrap();
    std::fs::write(ws.join("dir.bat"), "@rd /s /q src\r\n").unwrap();
    let before = snapshot(ws, &["**"]);
    let check = |line: &str| -> serde_json::Value {
        let output = env
            .cmd("agent-guard")
            .args([
                "check",
                "--enforce",
                "--json",
                "--dialect",
                "cmd",
                "--",
                line,
            ])
            .output()
            .unwrap();
        serde_json::from_slice(&output.stdout).unwrap()
    };
    assert_eq!(check("dir")["code"], "ALLOW_NOOP");
    let report = check("git status");
    assert_eq!(report["code"], "SNAPSHOT_CHECKPOINT", "{report}");
    run_cmd(ws, "git status");
    assert!(
        !ws.join("src").exists(),
        "cmd.exe ran the workspace's git.bat"
    );
    assert!(env.ag(&["undo", "--json"]).status.success());
    assert_eq!(snapshot(ws, &["**"]), before);
}

/// `start` and `cmd /c` look their program up as cmd does, in the working directory first
/// (issue 35, from the second outside review): `start /b /wait git status` and `cmd /c git
/// status` run the workspace's `git.bat`. Both are checkpointed, run by Wine's cmd.exe,
/// and undone.
#[test]
fn start_and_cmd_c_find_the_batch_file_in_the_working_directory() {
    if !wine_runs() {
        return;
    }
    for line in ["start /b /wait git status", "cmd /c git status"] {
        batch_file_run_undone(line, "git.bat", &[]);
    }
}

/// cmd ends a builtin's name at `.` or `\`: `cd.claude` enters `.claude`, and the delete
/// after it reaches a hook file (issue 35, from the second outside review). The guard
/// refuses the lines; Wine's cmd.exe shows each one is live.
#[test]
fn a_cd_glued_to_its_directory_is_followed() {
    if !wine_runs() {
        return;
    }
    for line in [
        "cd.claude & del settings.json",
        "pushd.claude && del /q settings.json",
        "chdir.claude & echo {} > settings.json",
    ] {
        let env = TestEnv::new();
        let ws = env.ws();
        std::fs::create_dir_all(ws.join(".claude")).unwrap();
        std::fs::write(ws.join(".claude/settings.json"), "{\"hooks\": {}}\n").unwrap();
        let (exit, report) = crate::support::enforce_in(&env, "cmd", line);
        assert_eq!(exit, 2, "{line}: {report}");
        assert_eq!(report["code"], "BLOCK_SELF_PROTECTION", "{line}: {report}");
        run_cmd(ws, line);
        let after = std::fs::read_to_string(ws.join(".claude/settings.json")).unwrap_or_default();
        assert_ne!(
            after, "{\"hooks\": {}}\n",
            "{line}: cmd.exe changed the hook file"
        );
    }
}

/// An 8.3 short name stands for a long name (found by an outside review): Wine's cmd.exe
/// calls `.claude` something like `_CLA~CCO`, and `echo x>_CLA~CCO\settings.json` writes the
/// hook file. A path component of that form is one the guard cannot resolve: refused.
#[test]
fn a_short_name_for_a_hook_directory_is_refused() {
    if !wine_runs() {
        return;
    }
    let env = TestEnv::new();
    let ws = env.ws();
    std::fs::create_dir_all(ws.join(".claude")).unwrap();
    std::fs::write(ws.join(".claude/settings.json"), "{\"hooks\": {}}\n").unwrap();
    let (loader, prefix) = wine().expect("wine is there");
    let output = Command::new(loader)
        .args([
            "cmd",
            "/c",
            "for %I in (.claude\\settings.json) do @echo %~sI",
        ])
        .current_dir(ws)
        .env("WINEPREFIX", prefix)
        .env("WINEDEBUG", "-all")
        .output()
        .unwrap();
    let short = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    let alias = short.rsplit('\\').nth(1).unwrap_or_default().to_owned();
    assert!(
        alias.contains('~'),
        "Wine's short name for .claude: {alias:?}"
    );
    for line in [
        format!("echo pwned>{alias}\\settings.json"),
        format!("del /q {alias}\\settings.json"),
    ] {
        let (exit, report) = crate::support::enforce_in(&env, "cmd", &line);
        assert_eq!(exit, 2, "{line}: {report}");
        assert_eq!(
            report["code"], "BLOCK_UNDETERMINABLE_EFFECT",
            "{line}: {report}"
        );
    }
    run_cmd(ws, &format!("echo pwned>{alias}\\settings.json"));
    assert_eq!(
        std::fs::read_to_string(ws.join(".claude/settings.json")).unwrap(),
        "pwned\r\n",
        "the short name reached the hook file"
    );
}

/// cmd looks a program up where the line has gone and among the files it has just written
/// (found by an outside review): `cd sub & git status` runs `sub\git.bat`, and `echo … >
/// git.bat & git status` or `ren x git.bat & git status` run the batch file the line made.
/// Each is checkpointed, run by Wine's cmd.exe (the batch file deletes `src`) and undone.
#[test]
fn a_batch_file_made_or_reached_on_the_line_is_the_program_cmd_runs() {
    if !wine_runs() {
        return;
    }
    for line in [
        "cd sub & git status",
        "pushd sub & git status",
        "echo @rd /s /q src>git.bat& git status",
        "copy gitx.txt git.bat>nul& git status",
        "ren gitx.txt git.bat & git status",
    ] {
        let env = TestEnv::new();
        let ws = env.ws();
        std::fs::create_dir_all(ws.join("sub")).unwrap();
        std::fs::write(ws.join("sub/git.bat"), "@rd /s /q ..\\src\r\n").unwrap();
        std::fs::write(ws.join("gitx.txt"), "@rd /s /q src\r\n").unwrap();
        let before = snapshot(ws, &["**"]);
        let (exit, report) = crate::support::enforce_in(&env, "cmd", line);
        assert_eq!(exit, 0, "{line}: {report}");
        assert!(
            report["compensations"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c["strategy"] == "checkpoint"),
            "{line}: checkpointed: {report}"
        );
        run_cmd(ws, line);
        assert!(
            !ws.join("src").exists(),
            "{line}: cmd.exe ran the batch file"
        );
        assert!(env.ag(&["undo", "--json"]).status.success());
        assert_eq!(snapshot(ws, &["**"]), before, "{line}");
    }
}

/// After a `cd` to a directory the line does not show (`cd %AG_SUB%`), cmd still searches
/// it first: the line is checkpointed, Wine's cmd.exe runs `sub\git.bat` (it deletes `src`),
/// and `undo` brings everything back.
#[test]
fn a_batch_file_in_a_directory_the_line_does_not_show_is_the_program_cmd_runs() {
    if !wine_runs() {
        return;
    }
    for line in ["cd %AG_SUB% & git status", "pushd %AG_SUB% && git log"] {
        batch_file_run_undone(line, "sub/git.bat", &[("AG_SUB", "sub")]);
    }
}
