use serde_json::json;

use super::*;

fn read(value: Value) -> TxMeta {
    serde_json::from_value(value).unwrap()
}

#[test]
fn a_flat_checkpoint_of_the_first_releases_reads_into_its_nested_facts() {
    let meta = read(json!({
        "tool": "check --enforce", "check_id": "c1", "command": "<redacted>",
        "strategy": "checkpoint", "checkpoint_artifacts": ["build"],
        "checkpoint_skip_regenerable": false, "checkpoint_max_file_bytes": 64,
        "files": 3, "bytes": 10, "hashed": 2, "new_objects": 4, "new_bytes": 9,
        "git_objects_added": 1, "repaired": [{"pack": "p1", "problem": "short"}],
        "not_kept": [{"path": "/ws/big", "size": 99, "reason": "too-large"}]
    }));
    assert_eq!(meta.origin.tool.as_deref(), Some("check --enforce"));
    assert_eq!(meta.origin.check_id.as_deref(), Some("c1"));
    assert!(meta.origin.files.is_empty());
    let facts = meta
        .checkpoint
        .expect("the flat keys become the checkpoint's facts");
    assert_eq!(facts.artifacts, ["build"]);
    assert!(!facts.skip_regenerable);
    assert_eq!(
        (facts.max_file_bytes, facts.files, facts.bytes, facts.hashed),
        (64, 3, 10, 2)
    );
    assert_eq!(
        (facts.new_objects, facts.new_bytes, facts.git_objects_added),
        (4, 9, 1)
    );
    assert_eq!(facts.repaired[0].problem, "short");
    assert_eq!(facts.not_kept[0].reason, "too-large");
    assert!(
        meta.other.is_empty(),
        "every key was read: {:?}",
        meta.other
    );
}

#[test]
fn an_edit_checkpoint_keeps_its_files_list_apart_from_the_count() {
    let meta = read(json!({
        "tool": "claude-code Write", "harness": "claude-code", "edit_tool": "Write",
        "files": [{"path": "a.txt", "effect": "write"}],
        "strategy": "checkpoint", "bytes": 5
    }));
    assert_eq!(meta.origin.files[0].path, "a.txt");
    assert_eq!(meta.checkpoint.unwrap().bytes, 5);
    let written = TxMeta {
        checkpoint: Some(CheckpointFacts {
            files: 7,
            ..CheckpointFacts::default()
        }),
        ..read(json!({"files": [{"path": "a.txt", "effect": "write"}]}))
    };
    let value = serde_json::to_value(&written).unwrap();
    assert_eq!(value["files"][0]["effect"], "write");
    assert_eq!(value["checkpoint"]["files"], 7);
    assert_eq!(read(value), written, "what is written reads back the same");
}

#[test]
fn keys_from_a_newer_release_are_written_back_unchanged() {
    let meta = read(json!({"tool": "safe_delete", "code": "RELOCATE_PATHS",
                           "future": {"x": [1, 2]}}));
    assert_eq!(meta.origin.code.as_deref(), Some("RELOCATE_PATHS"));
    assert_eq!(meta.other["future"], json!({"x": [1, 2]}));
    let value = serde_json::to_value(&meta).unwrap();
    assert_eq!(
        value,
        json!({"tool": "safe_delete", "code": "RELOCATE_PATHS", "future": {"x": [1, 2]}})
    );
}

#[test]
fn a_restore_backup_says_what_it_was_restoring() {
    let meta = read(json!({"tool": "restore", "restoring_txid": "t1"}));
    assert!(meta.origin.is_restore());
    assert_eq!(meta.origin, Origin::restoring("t1"));
    assert!(!read(json!({"tool": "safe_delete"})).origin.is_restore());
}

#[test]
fn a_meta_that_fits_no_type_reads_as_empty() {
    assert_eq!(read(json!({"tool": 5})), TxMeta::default());
    assert_eq!(read(json!({})), TxMeta::default());
}
