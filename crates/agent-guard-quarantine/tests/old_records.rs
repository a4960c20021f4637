//! Stores written by earlier releases read into the typed journal: every line of the
//! committed example quarantine and of a store written by the release before the typed
//! `meta` (`tests/data/manifest-0.1-2026-12-06.jsonl`: safe-delete, relocate, preserve, a git
//! snapshot of `git reset --hard HEAD~1`, a branch kept before `git branch -D`, a move, a
//! workspace checkpoint, an edit tool's preserve, a forced restore and its backup).

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use std::path::Path;

use agent_guard_quarantine::{Record, Transaction, transactions};

fn records(path: &Path) -> Vec<Record> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .enumerate()
        .map(|(n, line)| {
            serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{}:{}: {e}: {line}", path.display(), n + 1))
        })
        .collect()
}

fn data(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(name)
}

fn by_strategy<'a>(txs: &'a [Transaction], strategy: &str) -> Vec<&'a Transaction> {
    txs.iter()
        .filter(|t| t.meta.strategy.as_deref() == Some(strategy))
        .collect()
}

#[test]
fn a_store_of_the_release_before_the_typed_journal_reads_whole() {
    let records = records(&data("tests/data/manifest-0.1-2026-12-06.jsonl"));
    let txs = transactions(&records);
    assert_eq!(txs.len(), 9, "{txs:#?}");
    for tx in &txs {
        assert!(
            tx.meta.other.is_empty(),
            "{}: every key of the old meta has its field: {:?}",
            tx.txid,
            tx.meta.other
        );
    }

    let safe_delete = &txs[0];
    assert_eq!(safe_delete.meta.origin.tool.as_deref(), Some("safe_delete"));
    assert_eq!(
        safe_delete.meta.origin.code.as_deref(),
        Some("RELOCATE_PATHS")
    );

    let enforce = &txs[1];
    assert_eq!(enforce.meta.origin.tool.as_deref(), Some("check --enforce"));
    assert!(enforce.meta.origin.check_id.is_some());
    assert_eq!(enforce.meta.origin.command.as_deref(), Some("<redacted>"));

    let [snapshot] = by_strategy(&txs, "snapshot")[..] else {
        panic!("one git snapshot")
    };
    assert_eq!(
        snapshot.meta.snapshot.writes_revision.as_deref(),
        Some("HEAD~1")
    );
    let writes = snapshot.meta.snapshot.writes_commit.as_deref().unwrap();
    assert_eq!(snapshot.snapshots[0].writes_commit.as_deref(), Some(writes));

    let [checkpoint] = by_strategy(&txs, "checkpoint")[..] else {
        panic!("one checkpoint")
    };
    let facts = checkpoint
        .meta
        .checkpoint
        .as_ref()
        .expect("the flat keys read");
    assert_eq!((facts.files, facts.bytes), (32, 27_738));
    assert_eq!(facts.new_bytes, 27_318);
    assert_eq!(checkpoint.snapshots[0].stored_bytes, 27_318);
    assert!(facts.artifacts.iter().any(|a| a == "node_modules"));
    assert!(facts.skip_regenerable);
    assert_eq!(facts.max_file_bytes, 64 << 20);

    let edit = txs
        .iter()
        .find(|t| t.meta.origin.harness.is_some())
        .expect("the edit tool's transaction");
    assert_eq!(edit.meta.origin.tool.as_deref(), Some("claude-code Write"));
    assert_eq!(edit.meta.origin.edit_tool.as_deref(), Some("Write"));
    assert_eq!(edit.meta.origin.files[0].path, "/ws-fixture/notes.txt");
    assert_eq!(edit.meta.origin.files[0].effect, "write");

    let backup = txs
        .iter()
        .find(|t| t.meta.origin.is_restore())
        .expect("the forced restore's backup");
    assert_eq!(
        backup.meta.origin.restoring_txid.as_deref(),
        Some(safe_delete.txid.as_str())
    );
}

#[test]
fn old_records_written_again_read_back_the_same() {
    for file in [
        "tests/data/manifest-0.1-2026-12-06.jsonl",
        "../../.agent-trash.example/manifest.jsonl",
    ] {
        for record in records(&data(file)) {
            let line = serde_json::to_string(&record).unwrap();
            let again: Record = serde_json::from_str(&line).unwrap();
            assert_eq!(again, record, "{file}: {line}");
        }
    }
}

#[test]
fn the_example_quarantine_reads_into_the_typed_journal() {
    let txs = transactions(&records(&data("../../.agent-trash.example/manifest.jsonl")));
    assert!(!txs.is_empty());
    let tools: Vec<_> = txs
        .iter()
        .map(|t| t.meta.origin.tool.clone().unwrap_or_default())
        .collect();
    assert!(tools.contains(&"safe_delete".to_owned()), "{tools:?}");
    assert!(tools.contains(&"check --enforce".to_owned()), "{tools:?}");
    assert!(txs.iter().all(|t| t.meta.other.is_empty()), "{txs:#?}");
}
