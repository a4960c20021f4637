//! Tests of the projection and the log file.

use std::io::Write as _;
use std::sync::Arc;

use chrono::{TimeZone, Utc};
use serde_json::{Map, Value, json};

use crate::{AuditError, AuditLog, Clock, format_timestamp, project, session_hash, sha256_hex};

fn map(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

fn fixed() -> Clock {
    Clock::Fixed(Utc.with_ymd_and_hms(2026, 11, 30, 4, 51, 30).unwrap())
}

const GENERATED: &str = "20261130-045130-deadbeef";

#[test]
fn unknown_keys_and_nested_payloads_are_dropped() {
    let projected = project(&map(json!({
        "event": "check",
        "target": "/etc/passwd",
        "cwd": "/home/me",
        "meta": {"raw": "rm -rf /"},
        "argv": ["rm", "-rf"],
    })));
    assert_eq!(Value::Object(projected), json!({"event": "check"}));
}

#[test]
fn raw_command_is_replaced() {
    for command in [
        json!("rm -rf ~/secret"),
        json!(["rm"]),
        json!(null),
        json!("<redacted>"),
    ] {
        let projected = project(&map(json!({"command": command})));
        assert_eq!(projected["command"], "<redacted>");
    }
}

#[test]
fn enumerated_labels_are_validated() {
    let table: &[(&str, Value, bool)] = &[
        ("event", json!("enforce-proceed"), true),
        ("event", json!("reconcile"), true),
        ("event", json!("undo"), true),
        ("event", json!("exfil-block"), true),
        ("event", json!("exfil-BLOCK"), false),
        ("event", json!("exfil-nope"), false),
        ("event", json!("rm -rf /"), false),
        ("decision", json!("RELOCATE"), true),
        ("decision", json!("relocate"), false),
        ("action", json!("PURGED"), true),
        ("action", json!("DELETE"), false),
        ("code", json!("BLOCK_WILDCARD"), true),
        ("code", json!("COMPOUND_CWD_DELETE"), true),
        ("code", json!("BLOCK_SECRET_EMISSION"), true),
        ("code", json!("BLOCK_EVERYTHING"), false),
        ("code", json!(3), false),
        ("tool", json!("undo"), true),
        ("tool", json!("check --enforce"), false),
        ("phase", json!("complete"), true),
        ("phase", json!("done"), false),
        ("outcome", json!("relocated to quarantine"), true),
        ("outcome", json!("moved /home/x"), false),
        ("dialect", json!("powershell"), true),
        ("dialect", json!("pwsh"), false),
        ("dialect_outcome", json!("unusable"), true),
        ("dialect_outcome", json!("maybe"), false),
        ("strategy", json!("clean-enumerate"), true),
        ("strategy", json!("teleport"), false),
        ("status", json!("storage-failed"), true),
        ("status", json!("fine"), false),
        ("mode", json!("RESTRICTED"), true),
        ("mode", json!("restricted"), false),
        ("error", json!("compensation failed"), true),
        ("error", json!("ENOENT: /home/me/x"), false),
        ("harness", json!("claude-code"), true),
        ("harness", json!("Claude"), false),
        ("harness", json!("a".repeat(33)), false),
        ("version", json!("0.1.0"), true),
        ("version", json!("1.2.3-rc.1+build.5"), true),
        ("version", json!("1.2"), false),
        ("version", json!("1.2.3 beta"), false),
        ("rule_id", json!("aws.key-1"), true),
        ("rule_id", json!("free text"), false),
        ("ts", json!("2026-11-30T04:51:30Z"), true),
        ("ts", json!("2026-11-30 04:51:30"), false),
        ("force", json!(true), true),
        ("force", json!("yes"), false),
        ("sha", json!(null), true),
        ("sha", json!("a".repeat(40)), true),
        ("sha", json!("a".repeat(64)), true),
        ("sha", json!("a".repeat(41)), false),
        ("sha", json!("G".repeat(40)), false),
        ("txid_sha256", json!(sha256_hex("x")), true),
        ("txid_sha256", json!("abc"), false),
        ("reasons", json!([]), true),
        ("reasons", json!(["/home/me/secret"]), false),
        ("guard_latency_ms", json!(12), true),
        ("guard_latency_ms", json!(1.5), true),
        ("guard_latency_ms", json!(-1), false),
        ("guard_latency_ms", json!("3"), false),
        ("span", json!([1, 4]), true),
        ("span", json!([1, -4]), false),
        ("span", json!([1, 2, 3]), false),
    ];
    for (key, value, kept) in table {
        let projected = project(&map(json!({ *key: value.clone() })));
        let expected = kept.then(|| value.clone());
        assert_eq!(projected.get(*key).cloned(), expected, "{key} = {value}");
    }
}

#[test]
fn dialect_requested_is_an_alias_or_redacted() {
    assert_eq!(
        project(&map(json!({"dialect_requested": "pwsh"})))["dialect_requested"],
        "pwsh"
    );
    assert_eq!(
        project(&map(json!({"dialect_requested": "/bin/evil"})))["dialect_requested"],
        "<redacted>"
    );
    assert!(project(&map(json!({"dialect_requested": 1}))).is_empty());
}

#[test]
fn counts_are_non_negative_integers() {
    for key in ["target_count", "moved", "reconciled_count", "schema"] {
        assert_eq!(project(&map(json!({ key: 3 })))[key], 3);
        for bad in [json!(-1), json!(true), json!(2.0), json!("3")] {
            assert!(project(&map(json!({ key: bad }))).is_empty(), "{key} {bad}");
        }
    }
}

#[test]
fn ids_are_kept_when_generated_and_hashed_otherwise() {
    let projected = project(&map(json!({
        "txid": GENERATED,
        "check_id": "my-id",
        "plan_id": "../../etc",
        "txids": [GENERATED, "legacy_1", 7],
        "backup_txids": "not-a-list",
    })));
    assert_eq!(projected["txid"], GENERATED);
    assert_eq!(
        projected["check_id"],
        format!("sha256:{}", sha256_hex("my-id"))
    );
    assert_eq!(
        projected["plan_id"],
        format!("sha256:{}", sha256_hex("../../etc"))
    );
    assert_eq!(
        projected["txids"],
        json!([GENERATED, format!("sha256:{}", sha256_hex("legacy_1"))])
    );
    assert!(!projected.contains_key("backup_txids"));
}

#[test]
fn session_is_always_hashed() {
    let projected = project(&map(json!({"session": "alice@laptop"})));
    assert_eq!(projected["session"], session_hash("alice@laptop"));
    assert_ne!(projected["session"], "alice@laptop");
    assert!(project(&map(json!({"session": 1}))).is_empty());
}

#[test]
fn compensations_and_plan_reasons_are_projected_recursively() {
    let projected = project(&map(json!({
        "compensations": [
            {"strategy": "relocate", "txid": GENERATED, "status": "complete", "moved": 2,
             "skipped": 0, "sha": null, "origin": "/home/me/x", "event": "check"},
            {"strategy": "magic", "txid": "legacy"},
            "not an object",
        ],
        "plan_reasons": {GENERATED: "age", "legacy": "capacity", "other": "because"},
        "missing_txid_sha256": [sha256_hex("a"), "zz"],
    })));
    assert_eq!(
        projected["compensations"],
        json!([
            {"strategy": "relocate", "txid": GENERATED, "status": "complete", "moved": 2,
             "skipped": 0, "sha": null},
            {"txid": format!("sha256:{}", sha256_hex("legacy"))},
        ])
    );
    let legacy = format!("sha256:{}", sha256_hex("legacy"));
    assert_eq!(
        projected["plan_reasons"],
        json!({GENERATED: "age", legacy: "capacity"})
    );
    assert_eq!(projected["missing_txid_sha256"], json!([sha256_hex("a")]));
}

#[test]
fn projection_is_idempotent() {
    let record = map(json!({
        "event": "enforce-proceed", "check_id": "x", "session": "s", "command": "rm a",
        "compensations": [{"txid": "y", "status": "partial"}], "plan_reasons": {"z": "age"},
        "txids": ["legacy"], "dialect_requested": "fish", "context": "api_key=abcd",
    }));
    let once = project(&record);
    assert_eq!(once["context"], "api_key");
    assert_eq!(project(&once), once);
}

#[test]
fn append_and_tail_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let log = AuditLog::new(dir.path(), Some("agent-7")).with_clock(fixed());
    let stored = log
        .append_map(&map(
            json!({"event": "check", "decision": "ALLOW", "code": "ALLOW_NOOP",
            "command": "ls", "cwd": "/secret"}),
        ))
        .unwrap();
    assert_eq!(
        Value::Object(stored.clone()),
        json!({"event": "check", "decision": "ALLOW", "code": "ALLOW_NOOP",
               "command": "<redacted>", "ts": "2026-11-30T04:51:30Z", "schema": 1,
               "session": session_hash("agent-7")})
    );
    let explicit = log
        .append_map(&map(
            json!({"event": "gc", "ts": "2020-01-01T00:00:00Z", "session": "other"}),
        ))
        .unwrap();
    assert_eq!(explicit["ts"], "2020-01-01T00:00:00Z");
    assert_eq!(explicit["session"], session_hash("other"));

    let text = fs_err::read_to_string(log.path()).unwrap();
    let first_line = text.lines().next().unwrap();
    assert_eq!(first_line, serde_json::to_string(&stored).unwrap());
    assert!(
        first_line.starts_with(r#"{"code":"#),
        "keys sorted: {first_line}"
    );
    assert_eq!(text.lines().count(), 2);

    assert_eq!(
        log.tail(10).unwrap(),
        vec![stored.clone(), explicit.clone()]
    );
    assert_eq!(log.tail(1).unwrap(), vec![explicit]);
    assert!(log.tail(0).unwrap().is_empty());
}

#[test]
fn missing_file_tails_empty_and_missing_directory_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let log = AuditLog::new(dir.path(), None);
    assert!(log.tail(5).unwrap().is_empty());
    let absent = dir.path().join("absent");
    let log = AuditLog::new(&absent, None);
    let error = log.append_map(&map(json!({"event": "check"}))).unwrap_err();
    assert!(
        matches!(error, AuditError::MissingDirectory { .. }),
        "{error:?}"
    );
    assert!(
        !absent.exists(),
        "the directory must never be created implicitly"
    );
}

#[test]
fn torn_blank_and_non_object_lines_are_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let log = AuditLog::new(dir.path(), None).with_clock(fixed());
    log.append_map(&map(json!({"event": "check"}))).unwrap();
    {
        let mut file = fs_err::OpenOptions::new()
            .append(true)
            .open(log.path())
            .unwrap();
        file.write_all(b"\n   \n[1,2]\n\"text\"\nnot json\n{\"event\":\"gc\",\"cwd\":\"/x\"}\n")
            .unwrap();
        file.write_all(b"{\"event\":\"ask\",\"comm").unwrap();
    }
    let records = log.tail(10).unwrap();
    let events: Vec<&str> = records
        .iter()
        .map(|r| r["event"].as_str().unwrap())
        .collect();
    assert_eq!(events, ["check", "gc"]);
    assert!(
        !records[1].contains_key("cwd"),
        "old lines are projected on read"
    );

    // The next append starts on a fresh line, so the torn record does not swallow it.
    log.append_map(&map(json!({"event": "restore"}))).unwrap();
    let events: Vec<String> = log
        .tail(10)
        .unwrap()
        .iter()
        .map(|r| r["event"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(events, ["check", "gc", "restore"]);
}

#[test]
fn backward_reading_handles_lines_across_block_boundaries() {
    let dir = tempfile::tempdir().unwrap();
    let log = AuditLog::new(dir.path(), None).with_clock(fixed());
    let mut all = Vec::new();
    for i in 0..50_u64 {
        all.push(
            log.append_map(&map(json!({"event": "decision", "target_count": i})))
                .unwrap(),
        );
    }
    for block in [1, 2, 7, 64, 100, 4096] {
        for n in [1, 3, 49, 50, 80] {
            let got = log.tail_in_blocks(n, block).unwrap();
            let expected = &all[all.len().saturating_sub(n)..];
            assert_eq!(got, expected, "block {block} n {n}");
        }
    }
}

#[test]
fn tail_of_a_large_file_reads_only_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let log = AuditLog::new(dir.path(), None).with_clock(fixed());
    {
        // An oversized garbage line followed by records: the garbage is skipped.
        let mut file = fs_err::File::create(log.path()).unwrap();
        file.write_all(&vec![b'x'; 3 * 1024 * 1024]).unwrap();
        file.write_all(b"\n").unwrap();
        for i in 0..2000 {
            file.write_all(format!("{{\"event\":\"check\",\"moved\":{i}}}\n").as_bytes())
                .unwrap();
        }
    }
    let last = log.tail(3).unwrap();
    let moved: Vec<u64> = last.iter().map(|r| r["moved"].as_u64().unwrap()).collect();
    assert_eq!(moved, [1997, 1998, 1999]);
    assert_eq!(log.tail(5000).unwrap().len(), 2000);
}

#[test]
fn concurrent_appends_do_not_interleave() {
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(AuditLog::new(dir.path(), Some("s")));
    let threads: Vec<_> = (0..8_u64)
        .map(|thread| {
            let log = Arc::clone(&log);
            std::thread::spawn(move || {
                for i in 0..200_u64 {
                    log.append_map(&map(json!({
                        "event": "decision", "target_count": thread, "moved_count": i,
                        "command": "x".repeat(512),
                    })))
                    .unwrap();
                }
            })
        })
        .collect();
    for handle in threads {
        handle.join().unwrap();
    }
    let text = fs_err::read_to_string(log.path()).unwrap();
    let mut seen = std::collections::HashSet::new();
    for line in text.lines() {
        let record: Map<String, Value> = serde_json::from_str(line).unwrap();
        let key = (
            record["target_count"].as_u64().unwrap(),
            record["moved_count"].as_u64().unwrap(),
        );
        assert!(seen.insert(key), "duplicate {key:?}");
    }
    assert_eq!(seen.len(), 1600);
    assert_eq!(text.lines().count(), 1600);
}

#[test]
fn timestamps_use_the_utc_shape() {
    let instant = Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap();
    assert_eq!(format_timestamp(instant), "2026-01-02T03:04:05Z");
    assert!(crate::project::is_timestamp(&format_timestamp(
        Clock::System.now()
    )));
}
