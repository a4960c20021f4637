//! The hook-mode verdict corpus of edit-tool calls (issue 13): every case of
//! `tests/corpus/hooks/edits.toml` is one harness payload, run through the real
//! `agent-guard check --harness …` in a fresh test workspace. Mismatches are collected and
//! reported together, by case name.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::hooks::{blocks, proceeds, reply_text, restore_txid, run_payload};
use crate::support::TestEnv;

/// The corpus file.
fn corpus() -> toml::Table {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/hooks/edits.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    text.parse()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `text` with `{ws}` and `{outside}` replaced.
fn expand(env: &TestEnv, text: &str) -> String {
    text.replace("{ws}", env.ws().to_str().unwrap())
        .replace("{outside}", env.fixture.outside.to_str().unwrap())
        .replace("{store}", env.trash().to_str().unwrap())
}

/// A path of the case's world: workspace-relative unless a placeholder makes it absolute.
fn world_path(env: &TestEnv, path: &str) -> PathBuf {
    env.ws().join(expand(env, path))
}

/// Creates the case's `files` and `symlinks`.
fn build_world(env: &TestEnv, case: &toml::Table) {
    if let Some(files) = case.get("files").and_then(toml::Value::as_table) {
        for (path, content) in files {
            let path = world_path(env, path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, content.as_str().unwrap()).unwrap();
        }
    }
    for pair in case
        .get("symlinks")
        .and_then(toml::Value::as_array)
        .into_iter()
        .flatten()
    {
        let pair = pair.as_array().unwrap();
        let (link, target) = (pair[0].as_str().unwrap(), pair[1].as_str().unwrap());
        std::os::unix::fs::symlink(expand(env, target), world_path(env, link)).unwrap();
    }
}

/// The number of items of transaction `txid` (`list --json`).
fn items_of(env: &TestEnv, txid: &str) -> Option<u64> {
    let output = env.ag(&["list", "--json"]);
    let list: Value = serde_json::from_slice(&output.stdout).ok()?;
    list["transactions"]
        .as_array()?
        .iter()
        .find(|t| t["txid"] == txid)
        .and_then(|t| t["items"].as_u64())
}

/// What went wrong with one case, if anything.
fn run_case(case: &toml::Table) -> Result<(), String> {
    let field = |key: &str| case.get(key).and_then(toml::Value::as_str).unwrap_or("");
    let harness = field("harness");
    let env = TestEnv::new();
    build_world(&env, case);
    let payload: Value = serde_json::from_str(&expand(&env, field("payload")))
        .map_err(|e| format!("the payload is not JSON: {e}"))?;
    let output = run_payload(&env, harness, &payload);
    let said = reply_text(&output);
    let (proceeded, blocked) = (proceeds(harness, &output), blocks(harness, &output));
    match field("expect") {
        "proceeds" if !proceeded || blocked => return Err(format!("did not proceed: {said}")),
        "blocks" if !blocked || proceeded => return Err(format!("did not block: {said}")),
        "proceeds" | "blocks" => {}
        other => return Err(format!("unknown expect {other:?}")),
    }
    match field("code") {
        "" if said.contains("[agent-guard]") => return Err(format!("expected no code: {said}")),
        "" => {}
        code if !said.contains(code) => return Err(format!("expected {code}: {said}")),
        _ => {}
    }
    if let Some(kept) = case.get("kept").and_then(toml::Value::as_integer) {
        let txid = restore_txid(&said);
        let items = txid
            .as_deref()
            .and_then(|txid| items_of(&env, txid))
            .unwrap_or(0);
        if u64::try_from(kept).ok() != Some(items) {
            return Err(format!(
                "expected {kept} kept file(s), found {items}: {said}"
            ));
        }
    }
    Ok(())
}

#[test]
fn every_edit_corpus_case_gets_its_verdict() {
    let corpus = corpus();
    let cases = corpus["case"].as_array().unwrap();
    assert!(cases.len() > 100, "the corpus is read");
    let mut failures = Vec::new();
    let mut names = std::collections::BTreeSet::new();
    for case in cases {
        let case = case.as_table().unwrap();
        let name = case["name"].as_str().unwrap();
        assert!(names.insert(name.to_owned()), "duplicate case name {name}");
        if let Err(why) = run_case(case) {
            failures.push(format!("tests/corpus/hooks/edits.toml: {name}: {why}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} case(s) failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
