//! Edit tools in hook mode (issue 13): every harness's file-writing tool calls — a write over
//! an existing file, an edit, a multi-file patch, a new file, a patch that adds, updates,
//! deletes and moves, paths outside or protected, malformed payloads — each followed by
//! performing the edit for real, then `agent-guard undo` (and `redo`), byte-exact.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

use crate::hooks::{blocks, context, hook, proceeds, reply_text, restore_txid, run_payload};
use crate::support::{TestEnv, pty, snapshot, tree};

/// One file-writing call, independent of the harness.
#[derive(Debug, Clone, Copy)]
enum Call<'a> {
    /// Replace the whole content of `path`.
    Write(&'a str, &'a str),
    /// Replace `old` with `new` in `path`.
    Edit(&'a str, &'a str, &'a str),
    /// A patch in Codex's format.
    Patch(&'a str),
}

/// The harnesses with a patch tool (and `generic`, whose file list can say the same).
fn has_patch_tool(harness: &str) -> bool {
    matches!(harness, "codex" | "copilot" | "opencode" | "generic")
}

/// An absolute spelling of `path` (below `ws` unless already absolute), for the tools that
/// require one.
fn absolute(ws: &Path, path: &str) -> String {
    let path = Path::new(path);
    if path.is_absolute() {
        path.display().to_string()
    } else {
        ws.join(path).display().to_string()
    }
}

/// `harness`'s payload for `call` in `ws`, or `None` when the harness has no such tool.
fn payload(harness: &str, call: Call<'_>, ws: &Path) -> Option<Value> {
    let cwd = ws.to_str().unwrap();
    let abs = |p: &str| absolute(ws, p);
    let tool_use = |tool: &str, input: Value, id: &str| {
        json!({"session_id": "s-edit", "transcript_path": "/t.jsonl", "cwd": cwd,
               "permission_mode": "default", "hook_event_name": "PreToolUse",
               "tool_name": tool, "tool_input": input, "tool_use_id": id})
    };
    Some(match (harness, call) {
        ("claude-code", Call::Write(p, c)) => tool_use(
            "Write",
            json!({"file_path": abs(p), "content": c}),
            "toolu_01",
        ),
        ("claude-code", Call::Edit(p, o, n)) => tool_use(
            "Edit",
            json!({"file_path": abs(p), "old_string": o, "new_string": n}),
            "toolu_01",
        ),
        ("codex", call) => {
            let mut value = tool_use(
                "apply_patch",
                json!({"command": codex_patch(call)}),
                "call_1",
            );
            value["turn_id"] = json!("t-1");
            value["model"] = json!("gpt-5.5");
            value
        }
        ("gemini", Call::Write(p, c)) => json!({"session_id": "s", "cwd": cwd,
            "hook_event_name": "BeforeTool", "timestamp": "t", "tool_name": "write_file",
            "tool_input": {"file_path": p, "content": c}}),
        ("gemini", Call::Edit(p, o, n)) => json!({"session_id": "s", "cwd": cwd,
            "hook_event_name": "BeforeTool", "timestamp": "t", "tool_name": "replace",
            "tool_input": {"file_path": p, "instruction": "i", "old_string": o, "new_string": n}}),
        ("qwen-code", Call::Write(p, c)) => {
            let mut value = tool_use(
                "write_file",
                json!({"file_path": abs(p), "content": c}),
                "toolu_1",
            );
            value["tool_call_id"] = json!("call_1");
            value
        }
        ("qwen-code", Call::Edit(p, o, n)) => {
            let mut value = tool_use(
                "edit",
                json!({"file_path": abs(p), "old_string": o, "new_string": n}),
                "toolu_1",
            );
            value["tool_call_id"] = json!("call_1");
            value
        }
        ("copilot", call) => copilot_payload(call, ws),
        ("cursor", Call::Write(p, c) | Call::Edit(p, c, _)) => {
            let tool = if matches!(call, Call::Write(..)) {
                "Write"
            } else {
                "Edit"
            };
            json!({"conversation_id": "c", "generation_id": "g", "hook_event_name": "preToolUse",
                   "workspace_roots": [cwd], "cwd": cwd, "tool_name": tool,
                   "tool_input": {"file_path": abs(p), "content": c}})
        }
        ("cline", Call::Write(p, c) | Call::Edit(p, c, _)) => {
            let tool = if matches!(call, Call::Write(..)) {
                "write_to_file"
            } else {
                "replace_in_file"
            };
            json!({"clineVersion": "3.x", "hookName": "PreToolUse", "timestamp": "t",
                   "taskId": "t1", "workspaceRoots": [cwd], "userId": "u",
                   "preToolUse": {"toolName": tool, "parameters": {"path": p, "content": c}}})
        }
        ("windsurf", Call::Write(p, c) | Call::Edit(p, c, _)) => json!({
            "agent_action_name": "pre_write_code", "trajectory_id": "tr-1",
            "execution_id": "ex-1", "timestamp": "t",
            "tool_info": {"file_path": abs(p), "edits": [{"old_string": "", "new_string": c}]}}),
        ("opencode", call) => opencode_payload(call, ws),
        ("generic", call) => generic_payload(call, ws),
        _ => return None,
    })
}

/// Copilot CLI's payload for `call` in `ws`.
fn copilot_payload(call: Call<'_>, ws: &Path) -> Value {
    let cwd = ws.to_str().unwrap();
    let abs = |p: &str| absolute(ws, p);
    let (tool, args) = match call {
        Call::Write(p, c) => (
            "create",
            json!({"path": abs(p), "file_text": c}).to_string(),
        ),
        Call::Edit(p, o, n) => (
            "edit",
            json!({"path": abs(p), "old_str": o, "new_str": n}).to_string(),
        ),
        // Copilot CLI sends a freeform patch as the bare string.
        Call::Patch(patch) => ("apply_patch", patch.to_owned()),
    };
    json!({"sessionId": "s", "timestamp": 1_764_496_800_000_u64, "cwd": cwd,
           "toolName": tool, "toolArgs": args})
}

/// `OpenCode`'s payload for `call` in `ws`.
fn opencode_payload(call: Call<'_>, ws: &Path) -> Value {
    let cwd = ws.to_str().unwrap();
    let abs = |p: &str| absolute(ws, p);
    let (tool, args) = match call {
        Call::Write(p, c) => ("write", json!({"filePath": abs(p), "content": c})),
        Call::Edit(p, o, n) => (
            "edit",
            json!({"filePath": abs(p), "oldString": o, "newString": n}),
        ),
        Call::Patch(patch) => ("apply_patch", json!({"patchText": patch})),
    };
    json!({"hook_event_name": "tool.execute.before", "tool": tool, "sessionID": "ses",
           "callID": "c", "args": args, "directory": cwd, "worktree": cwd})
}

/// The generic harness's payload for `call` in `ws`: the files it names, and their effects.
fn generic_payload(call: Call<'_>, ws: &Path) -> Value {
    let cwd = ws.to_str().unwrap();
    let files: Vec<Value> = match call {
        Call::Write(p, _) => vec![json!({"path": p, "effect": "write"})],
        Call::Edit(p, _, _) => vec![json!({"path": p, "effect": "edit"})],
        Call::Patch(patch) => hunks(patch)
            .iter()
            .flat_map(|h| {
                let mut files = vec![json!({"path": h.path, "effect": h.effect()})];
                if let Some(to) = &h.move_to {
                    files.push(json!({"path": to, "effect": "move-to"}));
                }
                files
            })
            .collect(),
    };
    json!({"cwd": cwd, "tool": "my_editor", "files": files})
}

/// `call` as a Codex patch.
fn codex_patch(call: Call<'_>) -> String {
    match call {
        Call::Write(p, c) => {
            let body = c.lines().fold(String::new(), |mut body, line| {
                body.push('+');
                body.push_str(line);
                body.push('\n');
                body
            });
            format!("*** Begin Patch\n*** Add File: {p}\n{body}*** End Patch\n")
        }
        Call::Edit(p, o, n) => {
            format!("*** Begin Patch\n*** Update File: {p}\n@@\n-{o}\n+{n}\n*** End Patch\n")
        }
        Call::Patch(patch) => patch.to_owned(),
    }
}

/// One hunk of a test patch.
struct Hunk {
    kind: &'static str,
    path: String,
    move_to: Option<String>,
    lines: Vec<String>,
}

impl Hunk {
    fn effect(&self) -> &'static str {
        match (self.kind, &self.move_to) {
            ("add", _) => "write",
            ("delete", _) => "delete",
            (_, Some(_)) => "move-from",
            _ => "edit",
        }
    }
}

/// The hunks of a test patch (the small subset of Codex's format the tests write).
fn hunks(patch: &str) -> Vec<Hunk> {
    let mut out: Vec<Hunk> = Vec::new();
    for line in patch.lines() {
        let marker = |m: &str| line.strip_prefix(m).map(|p| p.trim().to_owned());
        if let Some(path) = marker("*** Add File: ") {
            out.push(Hunk {
                kind: "add",
                path,
                move_to: None,
                lines: Vec::new(),
            });
        } else if let Some(path) = marker("*** Delete File: ") {
            out.push(Hunk {
                kind: "delete",
                path,
                move_to: None,
                lines: Vec::new(),
            });
        } else if let Some(path) = marker("*** Update File: ") {
            out.push(Hunk {
                kind: "update",
                path,
                move_to: None,
                lines: Vec::new(),
            });
        } else if let Some(to) = marker("*** Move to: ") {
            out.last_mut().unwrap().move_to = Some(to);
        } else if line.starts_with(['+', '-']) {
            out.last_mut().unwrap().lines.push(line.to_owned());
        }
    }
    out
}

/// Does what the harness's tool does once the hook let it through.
fn perform(ws: &Path, call: Call<'_>) {
    let at = |p: &str| -> PathBuf { ws.join(p) };
    match call {
        Call::Write(p, c) => std::fs::write(at(p), c).unwrap(),
        Call::Edit(p, o, n) => {
            let text = std::fs::read_to_string(at(p)).unwrap();
            assert!(text.contains(o), "{p} holds {o:?}");
            std::fs::write(at(p), text.replacen(o, n, 1)).unwrap();
        }
        Call::Patch(patch) => {
            for hunk in hunks(patch) {
                let file = at(&hunk.path);
                match hunk.kind {
                    "add" => {
                        let body = hunk.lines.iter().fold(String::new(), |mut body, line| {
                            body.push_str(&line[1..]);
                            body.push('\n');
                            body
                        });
                        std::fs::write(file, body).unwrap();
                    }
                    "delete" => std::fs::remove_file(file).unwrap(),
                    _ => {
                        let mut text = std::fs::read_to_string(&file).unwrap();
                        for pair in hunk.lines.chunks(2) {
                            text = text.replacen(&pair[0][1..], &pair[1][1..], 1);
                        }
                        let dest = hunk.move_to.as_deref().map_or(file.clone(), at);
                        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
                        std::fs::write(&dest, text).unwrap();
                        if dest != file {
                            std::fs::remove_file(file).unwrap();
                        }
                    }
                }
            }
        }
    }
}

/// Runs the hook on `call`; `None` when the harness has no such tool.
fn judge(env: &TestEnv, harness: &str, call: Call<'_>) -> Option<Output> {
    payload(harness, call, env.ws()).map(|p| run_payload(env, harness, &p))
}

/// The txid the reply names (the harness's context channel; Windsurf's stdout).
fn txid_of(harness: &str, output: &Output) -> String {
    let told = format!("{}\n{}", context(harness, output), reply_text(output));
    restore_txid(&told).unwrap_or_else(|| panic!("{harness}: no txid in {told:?}"))
}

fn guard_json(env: &TestEnv, args: &[&str]) -> Value {
    let output = env.cmd("agent-guard").args(args).output().unwrap();
    assert!(output.status.success(), "{args:?}: {output:?}");
    serde_json::from_slice(&output.stdout).unwrap()
}

/// The transaction `txid` as `list --json` shows it.
fn listed(env: &TestEnv, txid: &str) -> Value {
    let list = guard_json(env, &["list", "--json"]);
    list["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["txid"] == txid)
        .cloned()
        .unwrap_or_else(|| panic!("{txid} is not listed: {list}"))
}

fn read(env: &TestEnv, path: &str) -> Vec<u8> {
    std::fs::read(env.ws().join(path)).unwrap()
}

/// A write over an existing file: kept first, allowed; after the write, `undo` brings the old
/// bytes back and `redo` the written ones.
fn write_over_existing(harness: &str) {
    let env = TestEnv::new();
    let before = read(&env, "notes.txt");
    let call = Call::Write("notes.txt", "rewritten by the agent\n");
    let output = judge(&env, harness, call).unwrap();
    assert!(proceeds(harness, &output), "{harness}: {output:?}");
    let txid = txid_of(harness, &output);
    assert!(
        reply_text(&output).contains("SNAPSHOT_EDIT_TOOL"),
        "{output:?}"
    );
    assert_eq!(read(&env, "notes.txt"), before, "the hook changes nothing");
    let tx = listed(&env, &txid);
    let tool = tx["tool"].as_str().unwrap();
    assert!(tool.starts_with(&format!("{harness} ")), "{tx}");
    assert_eq!(tx["what"], "notes.txt");
    perform(env.ws(), call);
    assert_eq!(read(&env, "notes.txt"), b"rewritten by the agent\n");
    undo_and_redo(
        &env,
        &[("notes.txt", &before)],
        &[("notes.txt", b"rewritten by the agent\n")],
    );
}

/// `agent-guard undo` restores `old` byte-exact; `agent-guard redo` brings `new` back.
fn undo_and_redo(env: &TestEnv, old: &[(&str, &[u8])], new: &[(&str, &[u8])]) {
    let undone = env.cmd("agent-guard").arg("undo").output().unwrap();
    assert!(undone.status.success(), "{undone:?}");
    for (path, bytes) in old {
        assert_eq!(read(env, path), *bytes, "undo restored {path}");
    }
    let redone = env.cmd("agent-guard").arg("redo").output().unwrap();
    assert!(redone.status.success(), "{redone:?}");
    for (path, bytes) in new {
        assert_eq!(read(env, path), *bytes, "redo brought back {path}");
    }
}

fn edit(harness: &str) {
    let env = TestEnv::new();
    let before = read(&env, "src/main.rs");
    let call = Call::Edit(
        "src/main.rs",
        "fn main() {}",
        "fn main() { println!(\"hi\"); }",
    );
    let output = judge(&env, harness, call).unwrap();
    assert!(proceeds(harness, &output), "{harness}: {output:?}");
    let txid = txid_of(harness, &output);
    assert_eq!(listed(&env, &txid)["what"], "src/main.rs");
    perform(env.ws(), call);
    let after = read(&env, "src/main.rs");
    assert_ne!(after, before);
    undo_and_redo(
        &env,
        &[("src/main.rs", &before)],
        &[("src/main.rs", &after)],
    );
}

/// Two files in one call: one transaction holding both.
fn multi_file(harness: &str) {
    if !has_patch_tool(harness) {
        return;
    }
    let env = TestEnv::new();
    let (notes, main) = (read(&env, "notes.txt"), read(&env, "src/main.rs"));
    let patch = "*** Begin Patch\n*** Update File: notes.txt\n@@\n-notes\n+NOTES\n\
                 *** Update File: src/main.rs\n@@\n-fn main() {}\n+fn main() { todo!() }\n*** End Patch\n";
    let output = judge(&env, harness, Call::Patch(patch)).unwrap();
    assert!(proceeds(harness, &output), "{harness}: {output:?}");
    let txid = txid_of(harness, &output);
    let tx = listed(&env, &txid);
    assert_eq!(tx["items"], 2, "{tx}");
    assert_eq!(
        guard_json(&env, &["list", "--json"])["total"],
        1,
        "one transaction"
    );
    perform(env.ws(), Call::Patch(patch));
    let (notes_after, main_after) = (read(&env, "notes.txt"), read(&env, "src/main.rs"));
    undo_and_redo(
        &env,
        &[("notes.txt", &notes), ("src/main.rs", &main)],
        &[("notes.txt", &notes_after), ("src/main.rs", &main_after)],
    );
}

/// A new file: allowed, nothing kept, nothing written.
fn new_file(harness: &str) {
    let env = TestEnv::new();
    let before = tree(env.ws());
    let output = judge(&env, harness, Call::Write("fresh.txt", "new\n")).unwrap();
    assert!(proceeds(harness, &output), "{harness}: {output:?}");
    assert!(restore_txid(&reply_text(&output)).is_none(), "{output:?}");
    assert_eq!(
        tree(env.ws()),
        before,
        "nothing kept, no quarantine created"
    );
}

/// A patch with add, update, delete and move hunks: every existing file it touches comes
/// back with `undo`; what it created stays.
fn patch_hunks(harness: &str) {
    if !has_patch_tool(harness) {
        return;
    }
    let env = TestEnv::new();
    std::fs::write(env.ws().join("existing.txt"), "overwritten by an add\n").unwrap();
    let originals: Vec<(&str, Vec<u8>)> = [
        "notes.txt",
        "src/main.rs",
        "build/report.txt",
        "existing.txt",
    ]
    .into_iter()
    .map(|p| (p, read(&env, p)))
    .collect();
    let patch = "*** Begin Patch\n*** Add File: added.txt\n+added\n*** Add File: existing.txt\n+replaced\n\
                 *** Update File: src/main.rs\n@@\n-fn main() {}\n+fn main() { loop {} }\n\
                 *** Delete File: notes.txt\n*** Update File: build/report.txt\n*** Move to: docs/report.md\n\
                 @@\n-report\n+moved report\n*** End Patch\n";
    let output = judge(&env, harness, Call::Patch(patch)).unwrap();
    assert!(proceeds(harness, &output), "{harness}: {output:?}");
    let txid = txid_of(harness, &output);
    assert_eq!(listed(&env, &txid)["items"], 4, "the four existing files");
    perform(env.ws(), Call::Patch(patch));
    assert!(!env.ws().join("notes.txt").exists() && !env.ws().join("build/report.txt").exists());
    let undone = env.cmd("agent-guard").arg("undo").output().unwrap();
    assert!(undone.status.success(), "{undone:?}");
    for (path, bytes) in &originals {
        assert_eq!(&read(&env, path), bytes, "{harness}: {path} is back");
    }
    assert_eq!(
        read(&env, "added.txt"),
        b"added\n",
        "a created file has nothing to undo"
    );
    assert_eq!(read(&env, "docs/report.md"), b"moved report\n");
}

/// Outside the workspace, through a symlink that leads outside, and protected paths: the
/// verdicts of shell writes, in the harness's deny form; a new file outside destroys nothing.
fn boundaries(harness: &str) {
    let env = TestEnv::new();
    let outside = env.fixture.outside.join("keep.txt");
    std::fs::write(&outside, "keep\n").unwrap();
    std::os::unix::fs::symlink(&outside, env.ws().join("link.txt")).unwrap();
    let before = (snapshot(env.ws(), &["*"]), std::fs::read(&outside).unwrap());
    let out = outside.display().to_string();
    for (path, code) in [
        (out.as_str(), "BLOCK_OUT_OF_WORKSPACE"),
        ("link.txt", "BLOCK_OUT_OF_WORKSPACE"),
        (".git/config", "BLOCK_PROTECTED_PATH"),
        (".git/HEAD", "BLOCK_PROTECTED_PATH"),
    ] {
        for call in [Call::Write(path, "x\n"), Call::Edit(path, "keep", "lost")] {
            let Some(output) = judge(&env, harness, call) else {
                continue;
            };
            assert!(blocks(harness, &output), "{harness} {call:?}: {output:?}");
            assert!(
                !proceeds(harness, &output),
                "{harness} {call:?}: {output:?}"
            );
            let said = reply_text(&output);
            assert!(said.contains(code), "{harness} {call:?}: {said}");
        }
    }
    assert_eq!(
        (snapshot(env.ws(), &["*"]), std::fs::read(&outside).unwrap()),
        before,
        "nothing changed or kept"
    );
    let fresh = env.fixture.outside.join("fresh.txt").display().to_string();
    let output = judge(&env, harness, Call::Write(&fresh, "x")).unwrap();
    assert!(proceeds(harness, &output), "{harness}: {output:?}");
}

/// A known edit tool whose path cannot be read is a deny.
fn malformed(harness: &str) {
    let env = TestEnv::new();
    let before = tree(env.ws());
    let good = payload(harness, Call::Write("notes.txt", "x"), env.ws()).unwrap();
    let mut bad: Vec<Value> = Vec::new();
    for value in [json!(null), json!(7), json!(""), json!(["notes.txt"])] {
        let mut payload = good.clone();
        if let Some(slot) = path_slot(harness, &mut payload) {
            *slot = value;
            bad.push(payload);
        }
    }
    for payload in bad {
        let output = run_payload(&env, harness, &payload);
        assert!(blocks(harness, &output), "{harness} {payload}: {output:?}");
        assert!(
            reply_text(&output).contains("HOOK_MALFORMED_PAYLOAD"),
            "{harness}: {output:?}"
        );
    }
    let output = hook(&env, harness, b"{\"tool_name\": \"Write\", ", &[]);
    assert!(blocks(harness, &output), "{output:?}");
    assert_eq!(tree(env.ws()), before, "nothing kept");
}

/// Where `harness`'s write payload holds the path (or the patch).
fn path_slot<'a>(harness: &str, payload: &'a mut Value) -> Option<&'a mut Value> {
    Some(match harness {
        "claude-code" | "gemini" | "qwen-code" | "cursor" => {
            &mut payload["tool_input"]["file_path"]
        }
        "codex" => &mut payload["tool_input"]["command"],
        "cline" => &mut payload["preToolUse"]["parameters"]["path"],
        "windsurf" => &mut payload["tool_info"]["file_path"],
        "opencode" => &mut payload["args"]["filePath"],
        "generic" => &mut payload["files"][0]["path"],
        // `toolArgs` is a JSON string: rebuilt whole below.
        "copilot" => {
            payload["toolArgs"] = json!({"file_text": "x"});
            &mut payload["toolArgs"]["path"]
        }
        _ => return None,
    })
}

macro_rules! per_harness {
    ($($module:ident => $name:literal),* $(,)?) => {$(
        mod $module {
            #[test]
            fn write_over_an_existing_file() {
                super::write_over_existing($name);
            }
            #[test]
            fn an_edit() {
                super::edit($name);
            }
            #[test]
            fn a_multi_file_edit_is_one_transaction() {
                super::multi_file($name);
            }
            #[test]
            fn a_new_file() {
                super::new_file($name);
            }
            #[test]
            fn a_patch_with_add_update_delete_and_move_hunks() {
                super::patch_hunks($name);
            }
            #[test]
            fn outside_symlinked_out_and_protected_are_refused() {
                super::boundaries($name);
            }
            #[test]
            fn a_malformed_edit_payload_is_a_deny() {
                super::malformed($name);
            }
        }
    )*};
}

per_harness! {
    claude_code => "claude-code",
    codex => "codex",
    gemini => "gemini",
    copilot => "copilot",
    cursor => "cursor",
    cline => "cline",
    windsurf => "windsurf",
    qwen_code => "qwen-code",
    opencode => "opencode",
    generic => "generic",
}

/// `ASK_PATCH_DELETE` is no longer produced: the file a patch deletes is copied first.
#[test]
fn a_patch_delete_is_preserved_not_asked() {
    let env = TestEnv::new();
    let before = read(&env, "notes.txt");
    let patch = "*** Begin Patch\n*** Delete File: notes.txt\n*** End Patch\n";
    let output = judge(&env, "codex", Call::Patch(patch)).unwrap();
    assert!(proceeds("codex", &output), "{output:?}");
    assert!(!reply_text(&output).contains("ASK_PATCH_DELETE"));
    assert!(
        env.ws().join("notes.txt").exists(),
        "the patch still needs it"
    );
    perform(env.ws(), Call::Patch(patch));
    let txid = txid_of("codex", &output);
    let restored = env
        .cmd("agent-guard")
        .args(["restore", &txid])
        .output()
        .unwrap();
    assert!(restored.status.success(), "{restored:?}");
    assert_eq!(read(&env, "notes.txt"), before);
}

/// `[preserve] edit_tools = false` lets edit tools through unjudged; `max_bytes` caps what
/// is kept (a larger file asks).
#[test]
fn edit_tools_are_configurable() {
    let env = TestEnv::new();
    std::fs::write(
        env.ws().join(".agent-guard.toml"),
        "[preserve]\nmax_bytes = 3\n",
    )
    .unwrap();
    let output = judge(&env, "claude-code", Call::Write("notes.txt", "x")).unwrap();
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        json["hookSpecificOutput"]["permissionDecision"], "ask",
        "{output:?}"
    );
    assert!(reply_text(&output).contains("ASK_PRESERVE_TOO_LARGE"));
    assert!(!env.trash().join("manifest.jsonl").exists(), "nothing kept");

    std::fs::write(
        env.ws().join(".agent-guard.toml"),
        "[preserve]\nedit_tools = false\n",
    )
    .unwrap();
    env.trust_config();
    let before = tree(env.ws());
    let output = judge(&env, "claude-code", Call::Write("notes.txt", "x")).unwrap();
    assert!(proceeds("claude-code", &output), "{output:?}");
    assert!(output.stdout.is_empty(), "a plain allow: {output:?}");
    assert_eq!(tree(env.ws()), before, "nothing kept or written");
}

/// `show` names the harness, the tool and every file of the call; `list` shows the tool.
#[test]
fn show_names_the_tool_and_the_files() {
    let env = TestEnv::new();
    let patch = "*** Begin Patch\n*** Add File: new.txt\n+x\n*** Update File: notes.txt\n@@\n-notes\n+n\n*** End Patch\n";
    let output = judge(&env, "codex", Call::Patch(patch)).unwrap();
    let txid = txid_of("codex", &output);
    let shown = guard_json(&env, &["show", &txid, "--json"]);
    assert_eq!(shown["meta"]["tool"], "codex apply_patch", "{shown}");
    assert_eq!(shown["meta"]["harness"], "codex");
    assert_eq!(shown["meta"]["edit_tool"], "apply_patch");
    assert_eq!(
        shown["meta"]["files"],
        json!([{"path": "new.txt", "effect": "write"}, {"path": "notes.txt", "effect": "edit"}])
    );
    assert_eq!(
        shown["items"].as_array().unwrap().len(),
        1,
        "only the existing file is kept"
    );
    let shown = env
        .cmd("agent-guard")
        .args(["show", &txid])
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&shown.stdout).into_owned();
    assert!(shown.contains("by    codex apply_patch"), "{shown}");
    assert!(
        shown.contains("call  write new.txt; edit notes.txt"),
        "{shown}"
    );
    let human = env.cmd("agent-guard").args(["list"]).output().unwrap();
    assert!(
        String::from_utf8_lossy(&human.stdout).contains("codex apply_patch"),
        "{human:?}"
    );
}

/// A patch that deletes a symlink keeps the link itself (its target text, never followed):
/// the patch runs, and undo makes the link again.
#[test]
fn a_patch_deleting_a_symlink_keeps_the_link() {
    let env = TestEnv::new();
    std::os::unix::fs::symlink("notes.txt", env.ws().join("alias.txt")).unwrap();
    let before = snapshot(env.ws(), &["*"]);
    let patch = "*** Begin Patch\n*** Delete File: alias.txt\n*** End Patch\n";
    let output = judge(&env, "codex", Call::Patch(patch)).unwrap();
    assert!(proceeds("codex", &output), "{output:?}");
    perform(env.ws(), Call::Patch(patch));
    assert!(!env.ws().join("alias.txt").exists());
    let undone = env.cmd("agent-guard").arg("undo").output().unwrap();
    assert!(undone.status.success(), "{undone:?}");
    assert_eq!(snapshot(env.ws(), &["*"]), before);
    assert_eq!(
        std::fs::read_link(env.ws().join("alias.txt")).unwrap(),
        std::path::Path::new("notes.txt")
    );
}

/// An edit through a symlink that stays inside the workspace keeps the file it leads to.
#[test]
fn an_edit_through_an_inside_symlink_keeps_its_target() {
    let env = TestEnv::new();
    std::os::unix::fs::symlink("notes.txt", env.ws().join("alias.txt")).unwrap();
    let before = read(&env, "notes.txt");
    let output = judge(&env, "claude-code", Call::Write("alias.txt", "through\n")).unwrap();
    assert!(proceeds("claude-code", &output), "{output:?}");
    let txid = txid_of("claude-code", &output);
    assert_eq!(listed(&env, &txid)["what"], "notes.txt");
    perform(env.ws(), Call::Write("alias.txt", "through\n"));
    assert_eq!(read(&env, "notes.txt"), b"through\n");
    let undone = env.cmd("agent-guard").arg("undo").output().unwrap();
    assert!(undone.status.success(), "{undone:?}");
    assert_eq!(read(&env, "notes.txt"), before);
    assert!(env.ws().join("alias.txt").is_symlink());
}

/// An edit of a file over `[preserve] max_bytes` asks; where the harness cannot ask (Cline),
/// the deny teaches `agent-guard approve`, and once a person approves at a terminal, the same
/// call proceeds once (`ALLOW_APPROVED`, Cline's plain allow), then asks again.
#[test]
fn an_edit_over_the_cap_runs_once_a_person_approves_it() {
    let env = TestEnv::new();
    std::fs::write(
        env.ws().join(".agent-guard.toml"),
        "[preserve]\nmax_bytes = 3\n",
    )
    .unwrap();
    let payload = payload("cline", Call::Write("notes.txt", "x\n"), env.ws()).unwrap();
    let asked = run_payload(&env, "cline", &payload);
    assert!(blocks("cline", &asked), "{asked:?}");
    let said = reply_text(&asked);
    assert!(said.contains("ASK_PRESERVE_TOO_LARGE"), "{said}");
    let waiting = guard_json(&env, &["approve", "--json"]);
    let request = &waiting["waiting"][0];
    assert_eq!(
        request["command"], "cline write_to_file notes.txt",
        "{waiting}"
    );
    let id = request["id"].as_str().unwrap().to_owned();
    assert!(
        said.contains(&format!("agent-guard approve {id}")),
        "{said}"
    );
    let approved = pty(&env, &["approve", &id], "y\n", &[]);
    assert_eq!(approved.code, 0, "{}", approved.text);
    let allowed = run_payload(&env, "cline", &payload);
    assert!(proceeds("cline", &allowed), "{allowed:?}");
    let again = run_payload(&env, "cline", &payload);
    assert!(
        blocks("cline", &again),
        "the approval is used up: {again:?}"
    );
}
