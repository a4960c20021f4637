//! Edit tools through the real CLIs (issue 13): the model's file-writing tool calls go
//! through the installed hook, which keeps what they replace; `agent-guard undo` and
//! `restore` bring it back.

use std::fs;

use serde_json::{Value, json};

use crate::cli::Harness;
use crate::scenario::{Run, Scenario, timing};

/// Asserts `cond`, printing the run's full report when it fails.
macro_rules! ensure {
    ($run:expr, $cond:expr, $($msg:tt)+) => {
        if !$cond {
            panic!("{}\n\n{}", format!($($msg)+), $run.report());
        }
    };
}

/// Runs `agent-guard undo` `times` times, then ensures that every file of `before` (a path in
/// the workspace, and its bytes before the run) holds its bytes again.
fn undo_and_compare(run: &Run<'_>, scenario: &Scenario, times: usize, before: &[(&str, &[u8])]) {
    for _ in 0..times {
        let undone = scenario.guard(&["undo"]);
        ensure!(
            run,
            undone.status.success(),
            "agent-guard undo failed: {undone:?}"
        );
    }
    for (path, bytes) in before {
        ensure!(
            run,
            fs::read(scenario.ws().join(path)).unwrap() == *bytes,
            "{path} is not back"
        );
    }
}

/// The transactions `list --json` shows whose `tool` is `tool`.
fn by_tool(scenario: &Scenario, tool: &str) -> Vec<Value> {
    scenario
        .transactions()
        .into_iter()
        .filter(|tx| tx["tool"] == tool)
        .collect()
}

/// Claude Code: the model `Write`s over a tracked, modified file and `Edit`s another (each
/// after a `Read`, as Claude Code requires). The hook keeps both previous versions; two
/// `agent-guard undo` bring them back byte-exact, and `redo` brings the last one's edit back.
#[test]
#[ignore = "needs the pinned harness CLIs (scripts/install-harnesses.sh) and unshare --net"]
fn claude_code_write_and_edit_are_kept_and_undone() {
    let Some(scenario) = Scenario::new(Harness::ClaudeCode) else {
        return;
    };
    scenario.wrap_guard();
    let ws = scenario.ws().to_path_buf();
    let main = ws.join("src/main.rs");
    let notes = ws.join("notes.txt");
    // Tracked and modified: the local change exists nowhere but in the work tree.
    fs::write(
        &main,
        "fn main() { /* a local change, never committed */ }\n",
    )
    .unwrap();
    let (main_before, notes_before) = (fs::read(&main).unwrap(), fs::read(&notes).unwrap());
    let written = "fn main() { println!(\"rewritten by the agent\"); }\n";
    let calls = json!([
        {"name": "Read", "input": {"file_path": main}},
        {"name": "Write", "input": {"file_path": main, "content": written}},
        {"name": "Read", "input": {"file_path": notes}},
        {"name": "Edit", "input": {"file_path": notes, "old_string": "notes", "new_string": "edited notes"}},
    ]);
    let run = scenario.run_script(&calls, &[]);
    timing(&run, "Write + Edit");
    ensure!(run, run.exit == Some(0), "the CLI did not exit 0");
    let results = run.all_tool_results();
    ensure!(
        run,
        results.len() == 4,
        "expected four tool results, got {results:?}"
    );
    ensure!(
        run,
        results.iter().all(|(_, _, is_error)| !is_error),
        "a tool call failed: {results:?}"
    );
    ensure!(
        run,
        fs::read(&main).unwrap() == written.as_bytes(),
        "Write did not run"
    );
    ensure!(
        run,
        fs::read(&notes).unwrap() == b"edited notes\n",
        "Edit did not run"
    );
    let calls = scenario.hook_calls();
    ensure!(
        run,
        calls.len() == 2,
        "the hook runs for Write and Edit only (not Read): {} calls",
        calls.len()
    );
    let (write_tx, edit_tx) = (
        by_tool(&scenario, "claude-code Write"),
        by_tool(&scenario, "claude-code Edit"),
    );
    ensure!(
        run,
        write_tx.len() == 1 && edit_tx.len() == 1,
        "one transaction per edit: {:?}",
        scenario.transactions()
    );
    ensure!(run, write_tx[0]["what"] == "src/main.rs", "{write_tx:?}");
    ensure!(run, edit_tx[0]["what"] == "notes.txt", "{edit_tx:?}");
    let txid = edit_tx[0]["txid"].as_str().unwrap();
    ensure!(
        run,
        run.any_context_mentions(txid),
        "the hook's context naming {txid} did not reach the model"
    );

    let before: [(&str, &[u8]); 2] = [("src/main.rs", &main_before), ("notes.txt", &notes_before)];
    undo_and_compare(&run, &scenario, 2, &before);
    // What the last undo replaced is kept: redo brings the `Write` back.
    let redone = scenario.guard(&["redo"]);
    ensure!(
        run,
        redone.status.success(),
        "agent-guard redo failed: {redone:?}"
    );
    ensure!(
        run,
        fs::read(&main).unwrap() == written.as_bytes(),
        "redo did not bring the write back"
    );
}

/// Codex: one `apply_patch` that updates one file and deletes another is allowed (no longer
/// `ASK_PATCH_DELETE`); `agent-guard restore` brings both back.
#[test]
#[ignore = "needs the pinned harness CLIs (scripts/install-harnesses.sh) and unshare --net"]
fn codex_apply_patch_update_and_delete_are_restorable() {
    let Some(scenario) = Scenario::new(Harness::Codex) else {
        return;
    };
    // A model whose tool set has `apply_patch` (the mock's `mock-model` gets none).
    let config = scenario.dirs().codex_home().join("config.toml");
    let text = fs::read_to_string(&config).unwrap();
    fs::write(
        &config,
        text.replacen("model = \"mock-model\"", "model = \"gpt-5.5\"", 1),
    )
    .unwrap();
    scenario.wrap_guard();
    let ws = scenario.ws().to_path_buf();
    let (main_before, notes_before) = (
        fs::read(ws.join("src/main.rs")).unwrap(),
        fs::read(ws.join("notes.txt")).unwrap(),
    );
    let patch = "*** Begin Patch\n*** Update File: src/main.rs\n@@\n-fn main() {}\n\
                 +fn main() { println!(\"patched\"); }\n*** Delete File: notes.txt\n*** End Patch\n";
    let calls = json!([{"name": "apply_patch", "type": "custom", "input": patch}]);
    let run = scenario.run_script(&calls, &[]);
    timing(&run, "apply_patch");
    ensure!(run, run.exit == Some(0), "the CLI did not exit 0");
    let hook_calls = scenario.hook_calls();
    ensure!(
        run,
        hook_calls.len() == 1,
        "the hook ran {} times",
        hook_calls.len()
    );
    let payload: Value = serde_json::from_str(&hook_calls[0]["stdin"]).unwrap_or(Value::Null);
    ensure!(
        run,
        payload["tool_name"] == "apply_patch",
        "the hook's payload is not an apply_patch call: {payload}"
    );
    ensure!(
        run,
        hook_calls[0].get("rc").map(|rc| rc.trim()) == Some("0"),
        "the hook did not allow the patch"
    );
    ensure!(
        run,
        !ws.join("notes.txt").exists(),
        "the patch did not delete notes.txt"
    );
    ensure!(
        run,
        fs::read_to_string(ws.join("src/main.rs"))
            .unwrap()
            .contains("patched"),
        "the patch did not update src/main.rs"
    );
    let transactions = by_tool(&scenario, "codex apply_patch");
    ensure!(
        run,
        transactions.len() == 1,
        "{:?}",
        scenario.transactions()
    );
    ensure!(run, transactions[0]["items"] == 2, "{transactions:?}");
    let txid = transactions[0]["txid"].as_str().unwrap();
    let restored = scenario.guard(&["restore", txid]);
    ensure!(
        run,
        restored.status.success(),
        "restore {txid}: {restored:?}"
    );
    ensure!(
        run,
        fs::read(ws.join("src/main.rs")).unwrap() == main_before,
        "src/main.rs"
    );
    ensure!(
        run,
        fs::read(ws.join("notes.txt")).unwrap() == notes_before,
        "notes.txt"
    );
}

/// Gemini CLI: the model's `write_file` over one file and `replace` in another go through the
/// installed `BeforeTool` hook (matcher `run_shell_command|write_file|replace`), which keeps
/// both previous versions; two `agent-guard undo` bring them back byte-exact.
#[test]
#[ignore = "needs the pinned harness CLIs (scripts/install-harnesses.sh) and unshare --net"]
fn gemini_write_file_and_replace_are_kept_and_undone() {
    let Some(scenario) = Scenario::new(Harness::Gemini) else {
        return;
    };
    scenario.wrap_guard();
    let ws = scenario.ws().to_path_buf();
    let (main, notes) = (ws.join("src/main.rs"), ws.join("notes.txt"));
    let (main_before, notes_before) = (fs::read(&main).unwrap(), fs::read(&notes).unwrap());
    let replaced = "fn main() { println!(\"replaced by gemini\"); }";
    let calls = json!([
        {"name": "write_file", "input": {"file_path": notes, "content": "written by gemini\n"}},
        {"name": "replace", "input": {"file_path": main, "instruction": "print a line",
                                       "old_string": "fn main() {}", "new_string": replaced}},
    ]);
    let run = scenario.run_script(&calls, &[]);
    timing(&run, "write_file + replace");
    ensure!(run, run.exit == Some(0), "the CLI did not exit 0");
    ensure!(
        run,
        fs::read(&notes).unwrap() == b"written by gemini\n",
        "write_file did not run"
    );
    ensure!(
        run,
        fs::read_to_string(&main).unwrap().contains(replaced),
        "replace did not run"
    );
    let (write_tx, replace_tx) = (
        by_tool(&scenario, "gemini write_file"),
        by_tool(&scenario, "gemini replace"),
    );
    ensure!(
        run,
        write_tx.len() == 1 && replace_tx.len() == 1,
        "one transaction per edit: {:?}",
        scenario.transactions()
    );
    ensure!(run, write_tx[0]["what"] == "notes.txt", "{write_tx:?}");
    ensure!(
        run,
        replace_tx[0]["what"] == "src/main.rs",
        "{replace_tx:?}"
    );
    let before: [(&str, &[u8]); 2] = [("src/main.rs", &main_before), ("notes.txt", &notes_before)];
    undo_and_compare(&run, &scenario, 2, &before);
}

/// Runs `calls` through `harness`'s real CLI, then checks that each `(path, content)` of
/// `after` was written, that each `(tool, what)` of `kept` is exactly one transaction, and that as
/// many `agent-guard undo` bring every file back byte-exact.
fn kept_and_undone(harness: Harness, calls: &Value, after: &[(&str, &str)], kept: &[(&str, &str)]) {
    let Some(scenario) = Scenario::new(harness) else {
        return;
    };
    scenario.wrap_guard();
    let ws = scenario.ws().to_path_buf();
    let before: Vec<(String, Vec<u8>)> = after
        .iter()
        .map(|(path, _)| ((*path).to_owned(), fs::read(ws.join(path)).unwrap()))
        .collect();
    let text = calls.to_string().replace("{ws}", ws.to_str().unwrap());
    let run = scenario.run_script(&serde_json::from_str(&text).unwrap(), &[]);
    timing(&run, "edits");
    ensure!(run, run.exit == Some(0), "the CLI did not exit 0");
    for (path, content) in after {
        ensure!(
            run,
            fs::read_to_string(ws.join(path)).unwrap().contains(content),
            "{path} was not edited"
        );
    }
    for (tool, what) in kept {
        let txs: Vec<Value> = by_tool(&scenario, tool)
            .into_iter()
            .filter(|tx| tx["what"] == *what)
            .collect();
        ensure!(
            run,
            txs.len() == 1,
            "one {tool} transaction holding {what}: {:?}",
            scenario.transactions()
        );
    }
    let before: Vec<(&str, &[u8])> = before
        .iter()
        .map(|(path, bytes)| (path.as_str(), bytes.as_slice()))
        .collect();
    undo_and_compare(&run, &scenario, kept.len(), &before);
}

/// Qwen Code: `write_file` and `edit` (each after a `read_file`, as Qwen Code requires)
/// through the installed `PreToolUse` hook (matcher
/// `run_shell_command|write_file|edit|notebook_edit`).
#[test]
#[ignore = "needs the pinned harness CLIs (scripts/install-harnesses.sh) and unshare --net"]
fn qwen_code_write_file_and_edit_are_kept_and_undone() {
    kept_and_undone(
        Harness::QwenCode,
        &json!([
            {"name": "read_file", "input": {"file_path": "{ws}/notes.txt"}},
            {"name": "write_file", "input": {"file_path": "{ws}/notes.txt", "content": "written by qwen\n"}},
            {"name": "read_file", "input": {"file_path": "{ws}/src/main.rs"}},
            {"name": "edit", "input": {"file_path": "{ws}/src/main.rs", "old_string": "fn main() {}",
                                       "new_string": "fn main() { println!(\"qwen\"); }"}},
        ]),
        &[("notes.txt", "written by qwen"), ("src/main.rs", "qwen")],
        &[
            ("qwen-code write_file", "notes.txt"),
            ("qwen-code edit", "src/main.rs"),
        ],
    );
}

/// `OpenCode`: `write` and `edit` (each after a `read`, as `OpenCode` requires) through the
/// plugin, which hands every tool call to the hook.
#[test]
#[ignore = "needs the pinned harness CLIs (scripts/install-harnesses.sh) and unshare --net"]
fn opencode_write_and_edit_are_kept_and_undone() {
    kept_and_undone(
        Harness::OpenCode,
        &json!([
            {"name": "read", "input": {"filePath": "{ws}/notes.txt"}},
            {"name": "write", "input": {"filePath": "{ws}/notes.txt", "content": "written by opencode\n"}},
            {"name": "read", "input": {"filePath": "{ws}/src/main.rs"}},
            {"name": "edit", "input": {"filePath": "{ws}/src/main.rs", "oldString": "fn main() {}",
                                       "newString": "fn main() { println!(\"opencode\"); }"}},
        ]),
        &[
            ("notes.txt", "written by opencode"),
            ("src/main.rs", "opencode"),
        ],
        &[
            ("opencode write", "notes.txt"),
            ("opencode edit", "src/main.rs"),
        ],
    );
}

/// Copilot CLI: `edit` of two files through the installed `preToolUse` hook, which sees
/// every tool call.
#[test]
#[ignore = "needs the pinned harness CLIs (scripts/install-harnesses.sh) and unshare --net"]
fn copilot_edits_are_kept_and_undone() {
    kept_and_undone(
        Harness::Copilot,
        &json!([
            {"name": "view", "input": {"path": "{ws}/notes.txt"}},
            {"name": "edit", "input": {"path": "{ws}/notes.txt", "old_str": "notes",
                                       "new_str": "edited by copilot"}},
            {"name": "view", "input": {"path": "{ws}/src/main.rs"}},
            {"name": "edit", "input": {"path": "{ws}/src/main.rs", "old_str": "fn main() {}",
                                       "new_str": "fn main() { println!(\"copilot\"); }"}},
        ]),
        &[
            ("notes.txt", "edited by copilot"),
            ("src/main.rs", "copilot"),
        ],
        &[
            ("copilot edit", "notes.txt"),
            ("copilot edit", "src/main.rs"),
        ],
    );
}
