//! End-to-end test of the real `agent-guard-mcp` binary over stdio.
//!
//! Speaks newline-delimited JSON-RPC 2.0 with plain std: a reader thread forwards stdout lines
//! through a channel, and every read is bounded by a timeout, so a broken server fails the test
//! instead of hanging it.

use std::collections::BTreeMap;
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long one response may take (debug builds on a busy machine included).
const TIMEOUT: Duration = Duration::from_mins(1);

/// The five tools.
const TOOLS: [&str; 5] = ["list", "restore", "safe_delete", "status", "undo"];

/// A running server.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Option<JoinHandle<String>>,
    next_id: u64,
}

impl Server {
    /// Starts the binary in `ws` with a hermetic environment.
    #[expect(
        clippy::disallowed_methods,
        reason = "test configuration from the environment"
    )]
    fn start(ws: &Path, home: &Path) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_agent-guard-mcp"))
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", home)
            .env("TMPDIR", std::env::temp_dir())
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("AGENT_GUARD_SESSION", "mcp-test")
            .current_dir(ws)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the server starts");
        let stdout = child.stdout.take().expect("stdout is piped");
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let mut stderr = child.stderr.take().expect("stderr is piped");
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        Server {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr: Some(stderr),
            next_id: 1,
        }
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        writeln!(stdin, "{message}").expect("the server reads its stdin");
        stdin.flush().expect("flush");
    }

    /// The next stdout line, which must be one JSON-RPC 2.0 message.
    fn read(&self, deadline: Instant) -> Value {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = match self.lines.recv_timeout(left) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => {
                panic!("no answer from the server within {TIMEOUT:?}")
            }
            Err(RecvTimeoutError::Disconnected) => panic!("the server closed its stdout"),
        };
        let message: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout carries only JSON-RPC messages; got {line:?}: {e}"));
        assert_eq!(message["jsonrpc"], "2.0", "not JSON-RPC 2.0: {line}");
        message
    }

    /// Sends a request and returns its response (notifications in between are skipped).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        message["params"] = params;
        self.send(&message);
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let message = self.read(deadline);
            if message.get("id") == Some(&json!(id)) {
                return message;
            }
            assert!(
                message.get("id").is_none(),
                "a response to another id: {message}"
            );
        }
    }

    fn notify(&mut self, method: &str) {
        self.send(&json!({"jsonrpc": "2.0", "method": method}));
    }

    /// `tools/call` that must answer with a result (not a JSON-RPC error).
    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let mut params = json!({"name": tool});
        params["arguments"] = arguments;
        let response = self.request("tools/call", params);
        response
            .get("result")
            .unwrap_or_else(|| panic!("{tool}: expected a result, got {response}"))
            .clone()
    }

    /// Closes stdin and waits for a clean exit; returns what the server logged.
    fn shut_down(mut self) -> String {
        drop(self.stdin.take());
        let deadline = Instant::now() + TIMEOUT;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                break status;
            }
            assert!(
                Instant::now() < deadline,
                "the server did not exit after stdin closed"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        let stderr = self
            .stderr
            .take()
            .expect("once")
            .join()
            .expect("stderr reader");
        assert!(status.success(), "the server failed: {status}\n{stderr}");
        stderr
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Runs git in `dir` with no user or system configuration.
fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "test")
        .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
        .env("GIT_COMMITTER_NAME", "test")
        .env("GIT_COMMITTER_EMAIL", "test@example.invalid")
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?} failed");
}

fn write(path: &Path, data: &[u8]) {
    std::fs::create_dir_all(path.parent().expect("has a parent")).expect("mkdir");
    std::fs::write(path, data).expect("write");
}

/// Every entry under `root` (relative path → `None` for a directory, the bytes for a file).
fn snapshot(root: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read_dir") {
            let path = entry.expect("entry").path();
            let rel = path.strip_prefix(root).expect("below root").to_owned();
            if path.is_dir() {
                out.insert(rel, None);
                stack.push(path);
            } else {
                out.insert(rel, Some(std::fs::read(&path).expect("read")));
            }
        }
    }
    out
}

/// Checks `value` against `schema` strictly: an object field the schema does not name is an
/// error even where the schema leaves objects open, so that engine/schema drift shows here.
fn check_schema(value: &Value, schema: &Value, root: &Value, at: &str, errors: &mut Vec<String>) {
    if schema == &Value::Bool(true) {
        return;
    }
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        let name = reference.strip_prefix("#/$defs/").expect("local $ref");
        check_schema(value, &root["$defs"][name], root, at, errors);
        return;
    }
    // `Option<T>` is `anyOf: [T, null]`: the value must match one of the variants.
    if let Some(variants) = schema
        .get("anyOf")
        .or_else(|| schema.get("oneOf"))
        .and_then(Value::as_array)
    {
        let mut best: Option<Vec<String>> = None;
        for variant in variants {
            let mut found = Vec::new();
            check_schema(value, variant, root, at, &mut found);
            if found.is_empty() {
                return;
            }
            if best.as_ref().is_none_or(|b| found.len() < b.len()) {
                best = Some(found);
            }
        }
        errors.extend(best.unwrap_or_default());
        return;
    }
    if let Some(types) = schema.get("type") {
        let types: Vec<&str> = match types {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
            other => panic!("odd type {other}"),
        };
        let ok = types.iter().any(|t| match *t {
            "object" => value.is_object(),
            "array" => value.is_array(),
            "string" => value.is_string(),
            "integer" => value.is_i64() || value.is_u64(),
            "number" => value.is_number(),
            "boolean" => value.is_boolean(),
            "null" => value.is_null(),
            other => panic!("unknown type {other}"),
        });
        if !ok {
            errors.push(format!("{at}: {value} is not {types:?}"));
            return;
        }
    }
    if let Some(object) = value.as_object() {
        let properties = schema.get("properties").and_then(Value::as_object);
        for required in schema["required"].as_array().into_iter().flatten() {
            let name = required.as_str().expect("names");
            if !object.contains_key(name) {
                errors.push(format!("{at}: missing required `{name}`"));
            }
        }
        for (key, field) in object {
            match (
                properties.and_then(|p| p.get(key)),
                schema.get("additionalProperties"),
            ) {
                (Some(sub), _) => check_schema(field, sub, root, &format!("{at}.{key}"), errors),
                (None, Some(extra)) if extra.is_object() || extra == &Value::Bool(true) => {
                    check_schema(field, extra, root, &format!("{at}.{key}"), errors);
                }
                _ => errors.push(format!("{at}: `{key}` is not in the output schema")),
            }
        }
    }
    if let (Some(items), Some(schema_items)) = (value.as_array(), schema.get("items")) {
        for (i, item) in items.iter().enumerate() {
            check_schema(item, schema_items, root, &format!("{at}[{i}]"), errors);
        }
    }
}

/// Asserts that a tool result's structured content matches the tool's output schema.
fn assert_conforms(result: &Value, output_schema: &Value) {
    let content = result
        .get("structuredContent")
        .unwrap_or_else(|| panic!("structuredContent missing: {result}"));
    let mut errors = Vec::new();
    check_schema(content, output_schema, output_schema, "$", &mut errors);
    assert!(
        errors.is_empty(),
        "structured content drifts from the schema: {errors:#?}"
    );
}

fn text_of(result: &Value) -> String {
    result["content"]
        .as_array()
        .expect("content")
        .iter()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Initializes the session and checks what the server says about itself.
fn handshake(server: &mut Server) {
    // Handshake.
    let init = server.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "stdio-test", "version": "0"}}),
    );
    let init = &init["result"];
    assert_eq!(init["protocolVersion"], "2025-11-25", "{init}");
    assert_eq!(init["serverInfo"]["name"], "agent-guard-mcp");
    assert!(init["serverInfo"]["version"].is_string());
    assert!(init["capabilities"]["tools"].is_object(), "{init}");
    server.notify("notifications/initialized");
}

/// Lists the tools and checks their schemas and annotations; returns them by name.
fn check_tools(server: &mut Server) -> BTreeMap<String, Value> {
    // Tools, schemas and annotations.
    let listed = server.request("tools/list", json!({}));
    let tools: BTreeMap<String, Value> = listed["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| (t["name"].as_str().expect("name").to_owned(), t.clone()))
        .collect();
    assert_eq!(tools.keys().map(String::as_str).collect::<Vec<_>>(), TOOLS);
    for (name, tool) in &tools {
        let input = &tool["inputSchema"];
        assert_eq!(input["type"], "object", "{name}");
        assert_eq!(input["additionalProperties"], false, "{name}");
        assert_eq!(tool["outputSchema"]["type"], "object", "{name}");
        assert!(
            tool["description"].as_str().is_some_and(|d| d.len() > 80),
            "{name}"
        );
        assert_eq!(tool["annotations"]["openWorldHint"], false, "{name}");
    }
    let hints = |name: &str| {
        let a = &tools[name]["annotations"];
        (
            a["readOnlyHint"].clone(),
            a["destructiveHint"].clone(),
            a["idempotentHint"].clone(),
        )
    };
    assert_eq!(
        hints("safe_delete"),
        (json!(false), json!(true), json!(true))
    );
    assert_eq!(hints("restore"), (json!(false), json!(false), json!(true)));
    assert_eq!(hints("undo"), (json!(false), json!(false), json!(false)));
    assert_eq!(hints("list"), (json!(true), json!(false), json!(true)));
    assert_eq!(hints("status"), (json!(false), json!(false), json!(true)));
    let delete_input = &tools["safe_delete"]["inputSchema"];
    assert_eq!(delete_input["required"], json!(["paths"]));
    assert_eq!(delete_input["properties"]["paths"]["minItems"], 1);
    let restore_input = &tools["restore"]["inputSchema"];
    assert_eq!(restore_input["required"], json!(["txid"]));
    assert!(
        restore_input["properties"].get("force").is_none(),
        "no force for models"
    );
    tools
}

/// Deletes `data` in `ws`, lists and restores it (twice), and checks every answer against
/// the tools' output schemas; `data_before` is the directory's content before.
fn delete_restore_a_directory(
    server: &mut Server,
    ws: &Path,
    tools: &BTreeMap<String, Value>,
    data_before: &BTreeMap<PathBuf, Option<Vec<u8>>>,
) {
    let schema = |name: &str| tools[name]["outputSchema"].clone();

    // safe_delete a directory: gone, with a txid.
    let deleted = server.call("safe_delete", json!({"paths": ["data"]}));
    assert_eq!(deleted["isError"], false, "{deleted}");
    assert_conforms(&deleted, &schema("safe_delete"));
    let txid = deleted["structuredContent"]["txid"]
        .as_str()
        .expect("txid")
        .to_owned();
    assert!(!ws.join("data").exists(), "the directory is gone");
    assert!(text_of(&deleted).contains(&txid), "the text names the txid");

    // list shows it.
    let listed = server.call("list", json!({}));
    assert_eq!(listed["isError"], false, "{listed}");
    assert_conforms(&listed, &schema("list"));
    let first = &listed["structuredContent"]["transactions"][0];
    assert_eq!(first["txid"], txid.as_str());
    assert_eq!(first["state"], "RESTORABLE");

    let status = server.call("status", json!({"tail": 3}));
    assert_eq!(status["isError"], false, "{status}");
    assert_conforms(&status, &schema("status"));

    // A restore that tries `force` is refused before anything happens.
    let forced = server.call("restore", json!({"txid": txid, "force": true}));
    assert_eq!(forced["isError"], true, "{forced}");
    assert!(
        !ws.join("data").exists(),
        "nothing restored by a rejected call"
    );

    // restore puts it back byte-identical; a second restore changes nothing.
    let restored = server.call("restore", json!({"txid": txid}));
    assert_eq!(restored["isError"], false, "{restored}");
    assert_conforms(&restored, &schema("restore"));
    assert_eq!(
        snapshot(&ws.join("data")),
        *data_before,
        "restored byte-identical"
    );
    let again = server.call("restore", json!({"txid": txid}));
    assert_eq!(again["isError"], false, "{again}");
    assert_eq!(
        again["structuredContent"]["already_restored"], true,
        "{again}"
    );
    assert_conforms(&again, &schema("restore"));

    // An unknown txid is a tool error the model can read.
    let unknown = server.call("restore", json!({"txid": "20000101-000000-00000000"}));
    assert_eq!(unknown["isError"], true, "{unknown}");
    assert!(text_of(&unknown).contains("`list`"), "{unknown}");
}

#[test]
fn stdio_round_trip() {
    let temp = tempfile::tempdir().expect("tempdir");
    let parent = temp.path().join("parent");
    let ws = parent.join("ws");
    let home = temp.path().join("home");
    std::fs::create_dir_all(&home).expect("home");
    write(&parent.join("sibling.txt"), b"next to the workspace\n");
    write(&ws.join("src/main.rs"), b"fn main() {}\n");
    write(&ws.join("notes.txt"), b"notes\n");
    write(&ws.join("data/report.txt"), b"report\n");
    write(
        &ws.join("data/deep/blob.bin"),
        &[0, 159, 146, 150, 255, 10, 13],
    );
    git(&ws, &["init", "-q", "."]);
    git(&ws, &["add", "src/main.rs"]);
    git(&ws, &["commit", "-q", "-m", "init"]);
    let data_before = snapshot(&ws.join("data"));
    let parent_before: Vec<_> = std::fs::read_dir(&parent)
        .expect("ls")
        .map(|e| e.expect("entry").file_name())
        .collect();

    let mut server = Server::start(&ws, &home);

    handshake(&mut server);

    let tools = check_tools(&mut server);
    let schema = |name: &str| tools[name]["outputSchema"].clone();

    delete_restore_a_directory(&mut server, &ws, &tools, &data_before);

    // dry_run changes nothing; a real delete of a file is undone by `undo`.
    let dry = server.call(
        "safe_delete",
        json!({"paths": ["notes.txt"], "dry_run": true}),
    );
    assert_eq!(dry["isError"], false, "{dry}");
    assert_conforms(&dry, &schema("safe_delete"));
    assert!(ws.join("notes.txt").is_file(), "dry run leaves the file");
    let gone = server.call("safe_delete", json!({"paths": ["notes.txt"]}));
    assert_eq!(gone["isError"], false, "{gone}");
    assert!(!ws.join("notes.txt").exists());
    let repeat = server.call("safe_delete", json!({"paths": ["notes.txt"]}));
    assert_eq!(repeat["isError"], false, "a repeat is idempotent: {repeat}");
    assert!(
        repeat["structuredContent"]["outcome"]
            .as_str()
            .is_some_and(|o| o.contains("absent"))
    );
    let undone = server.call("undo", json!({}));
    assert_eq!(undone["isError"], false, "{undone}");
    assert_conforms(&undone, &schema("undo"));
    assert_eq!(
        std::fs::read(ws.join("notes.txt")).expect("back"),
        b"notes\n"
    );

    // A refusal: `..` is the workspace's parent. isError, and nothing there changes.
    let refused = server.call("safe_delete", json!({"paths": [".."]}));
    assert_eq!(refused["isError"], true, "{refused}");
    assert_conforms(&refused, &schema("safe_delete"));
    assert_eq!(refused["structuredContent"]["verdict"]["decision"], "BLOCK");
    assert!(text_of(&refused).contains("refused"), "{refused}");
    let parent_after: Vec<_> = std::fs::read_dir(&parent)
        .expect("ls")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(parent_after, parent_before, "the parent is untouched");
    assert_eq!(
        std::fs::read(parent.join("sibling.txt")).expect("sibling"),
        b"next to the workspace\n"
    );
    assert!(ws.join("src/main.rs").is_file());

    // Out-of-range arguments are tool errors too.
    let empty = server.call("safe_delete", json!({"paths": []}));
    assert_eq!(empty["isError"], true, "{empty}");

    // Protocol faults are JSON-RPC errors.
    let unknown_tool = server.request("tools/call", json!({"name": "rm_rf", "arguments": {}}));
    assert!(unknown_tool.get("result").is_none(), "{unknown_tool}");
    assert!(unknown_tool["error"]["code"].is_i64(), "{unknown_tool}");
    let no_method = server.request("tools/frobnicate", json!({}));
    assert!(no_method["error"]["code"].is_i64(), "{no_method}");

    let stderr = server.shut_down();
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// An edit-tool call that hook mode judged (issue 13) is listed beside the shell's
/// transactions, by harness and tool, and `undo` puts the previous version back.
#[test]
#[expect(
    clippy::disallowed_methods,
    reason = "the test performs the patch's delete itself, as the harness would"
)]
fn edit_tool_transactions_are_listed_and_undone() {
    use agent_guard_engine::{EditRequest, EnvSnapshot, check_edit};
    use agent_guard_types::{EditEffect, EditFile};

    let temp = tempfile::tempdir().expect("tempdir");
    let ws = temp.path().join("ws");
    let home = temp.path().join("home");
    std::fs::create_dir_all(&home).expect("home");
    write(&ws.join("notes.txt"), b"notes\n");
    write(&ws.join("src/main.rs"), b"fn main() {}\n");
    git(&ws, &["init", "-q", "."]);
    let env = EnvSnapshot {
        home: Some(home.clone().into_os_string()),
        session: Some("mcp-test".to_owned()),
        ..EnvSnapshot::default()
    };
    let request = EditRequest {
        harness: "codex".to_owned(),
        tool: "apply_patch".to_owned(),
        cwd: ws.clone(),
        files: vec![
            EditFile::new("notes.txt", EditEffect::Edit),
            EditFile::new("src/main.rs", EditEffect::Delete),
            EditFile::new("new.txt", EditEffect::Write),
        ],
        enforce: true,
        env,
    };
    let report = check_edit(&request, &|_| {});
    assert_eq!(report.code.as_str(), "SNAPSHOT_EDIT_TOOL", "{report:?}");
    // The patch runs.
    write(&ws.join("notes.txt"), b"edited\n");
    std::fs::remove_file(ws.join("src/main.rs")).expect("delete");
    write(&ws.join("new.txt"), b"new\n");

    let mut server = Server::start(&ws, &home);
    let init = server.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "stdio-test", "version": "0"}}),
    );
    assert!(init["result"].is_object(), "{init}");
    server.notify("notifications/initialized");
    let listed = server.call("list", json!({}));
    assert_eq!(listed["isError"], false, "{listed}");
    let first = &listed["structuredContent"]["transactions"][0];
    assert_eq!(first["tool"], "codex apply_patch", "{listed}");
    assert_eq!(first["items"], 2, "the two existing files: {listed}");
    assert!(
        text_of(&listed).contains("by codex apply_patch: notes.txt and 1 more"),
        "{listed}"
    );
    let undone = server.call("undo", json!({}));
    assert_eq!(undone["isError"], false, "{undone}");
    assert_eq!(
        std::fs::read(ws.join("notes.txt")).expect("notes"),
        b"notes\n"
    );
    assert_eq!(
        std::fs::read(ws.join("src/main.rs")).expect("main"),
        b"fn main() {}\n"
    );
    assert_eq!(std::fs::read(ws.join("new.txt")).expect("new"), b"new\n");
    let stderr = server.shut_down();
    assert!(!stderr.contains("panicked"), "{stderr}");
}
