//! Tests of the chained log: what verify says about intact, torn, upgraded and tampered logs.

use std::io::Write as _;
use std::sync::Arc;

use chrono::{TimeZone, Utc};
use serde_json::{Map, Value, json};

use crate::{
    AuditKey, AuditLog, ChainReport, ChainState, Clock, Finding, FindingKind, TornStatus,
    verify_bytes,
};

fn map(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

fn key() -> AuditKey {
    AuditKey::from_bytes([42; 32])
}

fn chained_log(dir: &std::path::Path) -> AuditLog {
    AuditLog::new(dir, Some("s"))
        .with_clock(Clock::Fixed(
            Utc.with_ymd_and_hms(2026, 12, 1, 0, 0, 0).unwrap(),
        ))
        .with_key(key())
}

/// A log of five chained records; returns the log and its lines.
fn five(dir: &std::path::Path) -> (AuditLog, Vec<String>) {
    let log = chained_log(dir);
    for (i, decision) in ["BLOCK", "RELOCATE", "ALLOW", "ASK", "SNAPSHOT"]
        .iter()
        .enumerate()
    {
        let record = map(json!({"event": "check", "decision": decision, "target_count": i}));
        if i % 2 == 0 {
            log.append_map(&record).unwrap();
        } else {
            log.append_relaxed(&serde_json::from_value(Value::Object(record)).unwrap())
                .unwrap();
        }
    }
    (log, lines(dir))
}

fn lines(dir: &std::path::Path) -> Vec<String> {
    fs_err::read_to_string(dir.join(crate::AUDIT_FILE_NAME))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn verify(lines: &[String]) -> ChainReport {
    let mut text = lines.join("\n");
    text.push('\n');
    verify_bytes(text.as_bytes(), Some(&key()))
}

fn first_bad(report: &ChainReport) -> &Finding {
    assert_eq!(report.state, ChainState::Tampered, "{report:#?}");
    report.first_bad().expect("a finding")
}

#[test]
fn an_intact_chain_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let (log, lines) = five(dir.path());
    let report = log.verify(Some(&key())).unwrap();
    assert_eq!(report.state, ChainState::Intact, "{report:#?}");
    assert_eq!(
        (
            report.lines,
            report.records,
            report.chained,
            report.unchained_prefix
        ),
        (5, 5, 5, 0)
    );
    assert_eq!(report.last_seq, Some(4));
    assert_eq!(report.key_id.as_deref(), Some(key().id()));
    assert!(report.findings.is_empty() && report.torn.is_empty());

    let first: Map<String, Value> = serde_json::from_str(&lines[0]).unwrap();
    assert_eq!(first["seq"], 0);
    assert_eq!(first["prev_sha256"], crate::chain::GENESIS);
    assert_eq!(first["key_id"], key().id());
    assert!(!lines.join("\n").contains(&crate::hash::to_hex(&[42; 32])));
    // The chain fields survive the projection on read.
    let tail = log.tail(1).unwrap();
    assert_eq!(tail[0]["seq"], 4);
    assert!(tail[0].contains_key("mac"));
}

#[test]
fn an_edited_field_is_found_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let (_, mut lines) = five(dir.path());
    assert!(lines[2].contains(r#""decision":"ALLOW""#));
    lines[2] = lines[2].replace(r#""decision":"ALLOW""#, r#""decision":"BLOCK""#);
    let report = verify(&lines);
    assert_eq!(
        first_bad(&report),
        &Finding {
            line: 3,
            kind: FindingKind::Edited
        }
    );
    assert_eq!(report.finding_count, 1, "the next link is not blamed too");
}

#[test]
fn a_record_serialised_again_still_verifies_but_its_successor_sees_new_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let (_, mut lines) = five(dir.path());
    // Same record, other bytes: the MAC is over the canonical form, the link over the bytes.
    lines[4] = lines[4].replace("\":", "\": ");
    assert_eq!(verify(&lines).state, ChainState::Intact);
    lines[3] = lines[3].replace("\":", "\": ");
    let report = verify(&lines);
    assert_eq!(
        first_bad(&report),
        &Finding {
            line: 5,
            kind: FindingKind::BrokenLink
        }
    );
}

#[test]
fn a_deleted_line_is_a_gap_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let (_, mut lines) = five(dir.path());
    lines.remove(2);
    let report = verify(&lines);
    assert_eq!(
        first_bad(&report),
        &Finding {
            line: 3,
            kind: FindingKind::Gap {
                expected_seq: 2,
                found_seq: 3
            }
        }
    );
    assert_eq!(report.finding_count, 1, "{report:#?}");
}

#[test]
fn swapped_lines_are_a_reordering() {
    let dir = tempfile::tempdir().unwrap();
    let (_, mut lines) = five(dir.path());
    lines.swap(1, 2);
    let report = verify(&lines);
    assert_eq!(
        first_bad(&report),
        &Finding {
            line: 2,
            kind: FindingKind::Reordered {
                expected_seq: 1,
                found_seq: 2
            }
        }
    );
    assert!(report.findings.iter().all(|f| f.line <= 3), "{report:#?}");
}

#[test]
fn a_line_cut_short_inside_the_log_is_tampering() {
    let dir = tempfile::tempdir().unwrap();
    let (_, mut lines) = five(dir.path());
    let half = lines[2].len() / 2;
    lines[2].truncate(half);
    let report = verify(&lines);
    assert_eq!(
        first_bad(&report),
        &Finding {
            line: 3,
            kind: FindingKind::Unreadable
        }
    );
    assert_eq!(report.finding_count, 1, "{report:#?}");
    assert_eq!(report.torn[0].status, TornStatus::Unaccounted);
}

#[test]
fn a_record_made_with_another_key_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let (_, _) = five(dir.path());
    let other = AuditKey::from_bytes([7; 32]);
    AuditLog::new(dir.path(), Some("intruder"))
        .with_key(other.clone())
        .append_map(&map(json!({"event": "check", "decision": "ALLOW"})))
        .unwrap();
    let report = verify(&lines(dir.path()));
    assert_eq!(
        first_bad(&report),
        &Finding {
            line: 6,
            kind: FindingKind::ForeignKey {
                key_id: other.id().to_owned()
            }
        }
    );
    assert_eq!(report.finding_count, 1);

    // Claiming this user's key id does not help without the key.
    let mut forged: Map<String, Value> = serde_json::from_str(&lines(dir.path())[5]).unwrap();
    forged.insert("key_id".into(), Value::from(key().id()));
    let mut all = lines(dir.path());
    all[5] = serde_json::to_string(&forged).unwrap();
    assert_eq!(first_bad(&verify(&all)).kind, FindingKind::Edited);
}

#[test]
fn an_inserted_unchained_record_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let (log, mut lines) = five(dir.path());
    lines.insert(3, r#"{"decision":"ALLOW","event":"check"}"#.to_owned());
    let report = verify(&lines);
    assert_eq!(
        first_bad(&report),
        &Finding {
            line: 4,
            kind: FindingKind::UnchainedRecord
        }
    );
    drop(log);
}

#[test]
fn a_torn_tail_is_reported_then_repaired_by_the_next_append() {
    let dir = tempfile::tempdir().unwrap();
    let (log, lines) = five(dir.path());
    let torn = &lines[4][..lines[4].len() / 2];
    {
        // A crash mid-append: a sixth record's first half, no newline.
        let mut file = fs_err::OpenOptions::new()
            .append(true)
            .open(log.path())
            .unwrap();
        file.write_all(torn.as_bytes()).unwrap();
    }
    let report = log.verify(Some(&key())).unwrap();
    assert_eq!(report.state, ChainState::TornTail, "{report:#?}");
    assert_eq!(report.torn.len(), 1);
    let lost = &report.torn[0];
    assert_eq!(
        (lost.line, lost.length, lost.after_seq, lost.status),
        (6, torn.len() as u64, Some(4), TornStatus::Pending)
    );
    assert_eq!(lost.sha256, crate::hash::sha256_bytes(torn.as_bytes()));

    log.append_map(&map(json!({"event": "restore"}))).unwrap();
    log.append_map(&map(json!({"event": "gc"}))).unwrap();
    let report = log.verify(Some(&key())).unwrap();
    assert_eq!(report.state, ChainState::Repaired, "{report:#?}");
    assert!(report.findings.is_empty());
    assert_eq!(report.torn[0].status, TornStatus::Repaired);
    assert_eq!(report.torn[0].repaired_by, Some(7));
    assert_eq!(
        report.last_seq,
        Some(6),
        "the chain goes on over the torn line"
    );
    let after: Map<String, Value> = serde_json::from_str(&lines_of(&log)[6]).unwrap();
    assert_eq!(after["torn_length"], torn.len());
    assert_eq!(after["seq"], 5);

    // Editing the torn bytes afterwards is tampering.
    let mut edited = lines_of(&log);
    edited[5].push('x');
    assert_eq!(
        first_bad(&verify(&edited)),
        &Finding {
            line: 6,
            kind: FindingKind::TornMismatch
        }
    );
}

fn lines_of(log: &AuditLog) -> Vec<String> {
    lines(log.path().parent().unwrap())
}

#[test]
fn unchained_logs_are_unchained_and_an_upgrade_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let legacy = [
        // The reference tool's and this tool's earlier lines: no chain fields.
        r#"{"code":"RELOCATE_TREE","command":"<redacted>","decision":"RELOCATE","event":"check","schema":1,"ts":"2026-01-01T00:00:00Z"}"#,
        r#"{"event":"decision","phase":"intent","tool":"safe_delete"}"#,
        r#"{"event":"outco"#,
        r#"{"event":"outcome","tool":"safe_delete"}"#,
    ];
    fs_err::write(
        dir.path().join(crate::AUDIT_FILE_NAME),
        format!("{}\n", legacy.join("\n")),
    )
    .unwrap();
    let log = chained_log(dir.path());
    let report = log.verify(Some(&key())).unwrap();
    assert_eq!(report.state, ChainState::Unchained, "{report:#?}");
    assert_eq!((report.records, report.unchained_prefix), (3, 3));
    assert_eq!(report.torn[0].status, TornStatus::UnchainedPrefix);
    assert!(report.findings.is_empty());

    for event in ["check", "gc"] {
        log.append_map(&map(json!({ "event": event }))).unwrap();
    }
    let report = log.verify(Some(&key())).unwrap();
    assert_eq!(report.state, ChainState::Intact, "{report:#?}");
    assert_eq!(
        (report.unchained_prefix, report.chained, report.last_seq),
        (3, 2, Some(1))
    );
    let genesis: Map<String, Value> = serde_json::from_str(&lines_of(&log)[4]).unwrap();
    assert_eq!(
        genesis["prev_sha256"],
        crate::hash::sha256_bytes(legacy[3].as_bytes()),
        "the chain's first record seals the prefix's last"
    );

    // A missing file is empty.
    let empty = tempfile::tempdir().unwrap();
    let report = chained_log(empty.path()).verify(Some(&key())).unwrap();
    assert_eq!(report.state, ChainState::Empty);
}

#[test]
fn a_torn_tail_in_an_empty_chain_is_continued() {
    let dir = tempfile::tempdir().unwrap();
    let log = chained_log(dir.path());
    fs_err::write(log.path(), b"{\"event\":\"ch").unwrap();
    assert_eq!(
        log.verify(Some(&key())).unwrap().state,
        ChainState::TornTail
    );
    log.append_map(&map(json!({"event": "check"}))).unwrap();
    let report = log.verify(Some(&key())).unwrap();
    assert_eq!(report.state, ChainState::Repaired, "{report:#?}");
}

#[test]
fn without_the_key_nothing_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let (log, _) = five(dir.path());
    let report = log.verify(None).unwrap();
    assert_eq!(report.key_id, None);
    assert!(matches!(
        first_bad(&report).kind,
        FindingKind::ForeignKey { .. }
    ));
    assert_eq!(report.finding_count, 5);
}

#[test]
fn callers_cannot_set_chain_fields() {
    let dir = tempfile::tempdir().unwrap();
    let log = chained_log(dir.path());
    let stored = log
        .append_map(&map(json!({
            "event": "check", "seq": 99, "mac": "a".repeat(64), "key_id": "k1-0000000000000000",
            "torn_sha256": "b".repeat(64), "torn_length": 5,
        })))
        .unwrap();
    assert_eq!(stored["seq"], 0);
    assert_eq!(stored["key_id"], key().id());
    assert!(!stored.contains_key("torn_sha256") && !stored.contains_key("torn_length"));
    assert_eq!(log.verify(Some(&key())).unwrap().state, ChainState::Intact);

    let unchained = AuditLog::new(dir.path(), None)
        .append_map(&map(json!({"event": "gc", "mac": "a".repeat(64)})))
        .unwrap();
    assert!(!unchained.contains_key("mac"), "an unchained log sets none");
}

#[test]
fn concurrent_chained_appends_keep_one_chain() {
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(chained_log(dir.path()));
    let threads: Vec<_> = (0..6_u64)
        .map(|thread| {
            let log = Arc::clone(&log);
            std::thread::spawn(move || {
                for i in 0..50_u64 {
                    log.append_map(&map(json!({
                        "event": "decision", "target_count": thread, "moved_count": i,
                    })))
                    .unwrap();
                }
            })
        })
        .collect();
    for handle in threads {
        handle.join().unwrap();
    }
    let report = log.verify(Some(&key())).unwrap();
    assert_eq!(report.state, ChainState::Intact, "{report:#?}");
    assert_eq!((report.chained, report.last_seq), (300, Some(299)));
}

#[test]
fn a_large_unchained_log_gets_its_chain() {
    let dir = tempfile::tempdir().unwrap();
    let log = chained_log(dir.path());
    {
        let mut file = fs_err::File::create(log.path()).unwrap();
        for i in 0..20_000 {
            writeln!(file, "{{\"event\":\"check\",\"moved\":{i}}}").unwrap();
        }
    }
    log.append_map(&map(json!({"event": "gc"}))).unwrap();
    let report = log.verify(Some(&key())).unwrap();
    assert_eq!(report.state, ChainState::Intact);
    assert_eq!(report.unchained_prefix, 20_000);
}
