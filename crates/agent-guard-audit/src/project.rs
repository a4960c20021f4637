//! The closed projection of audit records.
//!
//! Only a fixed set of keys survives, each with validated content; everything else (unknown
//! keys, nested payloads, free text under an allowed name) is dropped. Raw commands, paths and
//! reasons never reach the audit log. Projecting a projected record changes nothing, so old
//! lines can be re-projected on read.

use agent_guard_types::{
    CompensationStatus, Decision, Dialect, DialectOutcome, ReasonCode, SafeDeleteOutcome,
    SessionMode, Strategy, is_generated_id,
};
use serde_json::{Map, Value};

use crate::chain::is_key_id;
use crate::hash::{is_hex, is_sha256_label, sha256_label};
use crate::record::{Action, ErrorLabel, Event, Phase, Tool};

use crate::record::REDACTED;

const PLAN_REASONS: &[&str] = &["age", "capacity"];
/// Exfil-guard codes, shared with the sibling tool's audit projection.
const EXFIL_CODES: &[&str] = &[
    "SANITIZE_SECRET_REDACT",
    "SANITIZE_PATH_REWRITE",
    "BLOCK_SECRET_EMISSION",
    "BLOCK_PATH_EMISSION",
    "BLOCK_SECRET_SOURCE_DUMP",
    "BLOCK_OUTPUT_UNSCANNABLE",
    "ASK_SECRET_EMISSION",
    "ASK_PATH_EMISSION",
    "ALLOW_SECRET_PLACEHOLDER",
    "ALLOW_PATH_IN_WORKSPACE",
];
const COUNTS: &[&str] = &[
    "target_count",
    "moved_count",
    "skipped_count",
    "restored_count",
    "conflict_count",
    "error_count",
    "missing_count",
    "reconciled_count",
    "moved",
    "skipped",
    "enumerated",
    "start",
    "end",
    "length",
    "schema",
    "seq",
    "torn_length",
];
/// The keys a `compensations` item keeps.
const COMPENSATION_KEYS: &[&str] = &[
    "strategy",
    "txid",
    "status",
    "moved",
    "skipped",
    "enumerated",
    "sha",
];

/// Returns the closed projection of an audit record.
///
/// See the crate documentation for the rules. The result never contains a key outside the
/// allowed set, and `project(&project(r)) == project(r)`.
pub fn project(record: &Map<String, Value>) -> Map<String, Value> {
    record
        .iter()
        .filter_map(|(key, value)| project_field(key, value).map(|kept| (key.clone(), kept)))
        .collect()
}

fn project_field(key: &str, value: &Value) -> Option<Value> {
    match key {
        "event" => label(value, is_event),
        "decision" => label(value, |text| Decision::parse(text).is_some()),
        "action" => label(value, |text| {
            Action::parse(text).is_some() || Decision::parse(text).is_some()
        }),
        "code" => label(value, is_code),
        "tool" => label(value, |text| Tool::parse(text).is_some()),
        "phase" => label(value, |text| Phase::parse(text).is_some()),
        "outcome" => label(value, |text| SafeDeleteOutcome::parse(text).is_some()),
        "dialect" => label(value, |text| {
            [Dialect::Posix, Dialect::Cmd, Dialect::PowerShell]
                .iter()
                .any(|d| d.as_str() == text)
        }),
        "dialect_requested" => dialect_requested(value),
        "dialect_outcome" => label(value, |text| {
            DialectOutcome::ALL.iter().any(|o| o.as_str() == text)
        }),
        "strategy" => label(value, |text| Strategy::parse(text).is_some()),
        "status" => label(value, |text| {
            CompensationStatus::ALL.iter().any(|s| s.as_str() == text)
        }),
        "mode" => label(value, |text| {
            [SessionMode::Normal, SessionMode::Restricted]
                .iter()
                .any(|m| m.as_str() == text)
        }),
        "rule_id" | "family" | "confidence" | "channel" => label(value, is_exfil_label),
        "context" => context(value),
        "harness" => label(value, is_harness),
        "version" => label(value, is_semver),
        "command" => Some(Value::from(REDACTED)),
        "error" => label(value, |text| ErrorLabel::parse(text).is_some()),
        "force" | "ok" | "exempted" => value.is_boolean().then(|| value.clone()),
        "guard_latency_ms" => latency(value),
        "ts" => label(value, is_timestamp),
        "sha" => sha(value),
        "span" => span(value),
        "reasons" => (value.as_array().is_some_and(Vec::is_empty)).then(|| Value::Array(vec![])),
        "txid" | "check_id" | "plan_id" | "approval_id" => {
            value.as_str().map(|text| Value::from(project_id(text)))
        }
        "txids" | "backup_txids" | "purged" | "missing" => id_list(value),
        "txid_sha256" | "prev_sha256" | "torn_sha256" | "mac" => {
            label(value, |text| is_hex(text, 64))
        }
        "key_id" => label(value, is_key_id),
        "missing_txid_sha256" => digest_list(value),
        "session" => value
            .as_str()
            .map(|text| Value::from(crate::session_hash(text))),
        "compensations" => compensations(value),
        "plan_reasons" => plan_reasons(value),
        key if COUNTS.contains(&key) => count(value),
        _ => None,
    }
}

/// Projects an identifier: generated-shape ids are kept verbatim, already projected ids are
/// kept, anything else becomes `sha256:<hex>` so that records still correlate.
pub fn project_id(id: &str) -> String {
    if is_generated_id(id) || is_sha256_label(id) {
        id.to_owned()
    } else {
        sha256_label(id)
    }
}

fn label(value: &Value, allowed: impl Fn(&str) -> bool) -> Option<Value> {
    value.as_str().filter(|text| allowed(text)).map(Value::from)
}

fn is_event(text: &str) -> bool {
    Event::parse(text).is_some()
        || text.strip_prefix("exfil-").is_some_and(|rest| {
            Decision::parse(&rest.to_ascii_uppercase()).is_some()
                && rest.chars().all(|c| c.is_ascii_lowercase())
        })
}

fn is_code(text: &str) -> bool {
    ReasonCode::parse(text).is_some() || EXFIL_CODES.contains(&text)
}

fn is_exfil_label(text: &str) -> bool {
    (1..=64).contains(&text.len())
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

fn is_harness(text: &str) -> bool {
    (1..=32).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_lowercase() || b == b'-')
}

/// Accepts `MAJOR.MINOR.PATCH` with an optional `-pre` and `+build` of `[0-9A-Za-z.-]`.
fn is_semver(text: &str) -> bool {
    if text.len() > 64 {
        return false;
    }
    let (rest, build) = text
        .split_once('+')
        .map_or((text, None), |(r, b)| (r, Some(b)));
    let (core, pre) = rest
        .split_once('-')
        .map_or((rest, None), |(c, p)| (c, Some(p)));
    let suffix_ok = |part: Option<&str>| {
        part.is_none_or(|p| {
            !p.is_empty()
                && p.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
        })
    };
    let numbers: Vec<&str> = core.split('.').collect();
    numbers.len() == 3
        && numbers
            .iter()
            .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        && suffix_ok(pre)
        && suffix_ok(build)
}

/// Accepts the UTC shape `YYYY-MM-DDTHH:MM:SSZ`.
pub(crate) fn is_timestamp(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 20
        && bytes.iter().enumerate().all(|(i, b)| match i {
            4 | 7 => *b == b'-',
            10 => *b == b'T',
            13 | 16 => *b == b':',
            19 => *b == b'Z',
            _ => b.is_ascii_digit(),
        })
}

fn dialect_requested(value: &Value) -> Option<Value> {
    // A requested selector is an alias or the placeholder; anything else was typed by someone
    // and is masked rather than dropped, so the record still says that a selector was given.
    let text = value.as_str()?;
    Some(Value::from(if Dialect::from_alias(text).is_some() {
        text
    } else {
        REDACTED
    }))
}

fn context(value: &Value) -> Option<Value> {
    let text = value.as_str()?;
    let key = text.split_once('=').map_or(text, |(key, _)| key);
    is_exfil_label(key).then(|| Value::from(key))
}

fn count(value: &Value) -> Option<Value> {
    value.as_u64().map(Value::from)
}

fn latency(value: &Value) -> Option<Value> {
    let number = value.as_number()?;
    let ok =
        number.as_u64().is_some() || number.as_f64().is_some_and(|f| f.is_finite() && f >= 0.0);
    ok.then(|| value.clone())
}

fn sha(value: &Value) -> Option<Value> {
    match value {
        Value::Null => Some(Value::Null),
        Value::String(text) if is_hex(text, 40) || is_hex(text, 64) => Some(value.clone()),
        _ => None,
    }
}

fn span(value: &Value) -> Option<Value> {
    match value.as_array()?.as_slice() {
        [start, end] => {
            let (start, end) = (start.as_u64()?, end.as_u64()?);
            Some(Value::from(vec![start, end]))
        }
        _ => None,
    }
}

fn id_list(value: &Value) -> Option<Value> {
    let items = value.as_array()?;
    Some(
        items
            .iter()
            .filter_map(Value::as_str)
            .map(|id| Value::from(project_id(id)))
            .collect(),
    )
}

fn digest_list(value: &Value) -> Option<Value> {
    match value {
        Value::String(text) => is_hex(text, 64).then(|| value.clone()),
        Value::Array(items) => Some(
            items
                .iter()
                .filter_map(Value::as_str)
                .filter(|text| is_hex(text, 64))
                .map(Value::from)
                .collect(),
        ),
        _ => None,
    }
}

fn compensations(value: &Value) -> Option<Value> {
    let items = value.as_array()?;
    let projected = items
        .iter()
        .filter_map(Value::as_object)
        .map(|item| {
            item.iter()
                .filter(|(key, _)| COMPENSATION_KEYS.contains(&key.as_str()))
                .filter_map(|(key, value)| {
                    project_field(key, value).map(|kept| (key.clone(), kept))
                })
                .collect::<Map<String, Value>>()
        })
        .map(Value::Object)
        .collect();
    Some(projected)
}

fn plan_reasons(value: &Value) -> Option<Value> {
    let reasons = value.as_object()?;
    let projected = reasons
        .iter()
        .filter_map(|(id, reason)| {
            label(reason, |text| PLAN_REASONS.contains(&text)).map(|kept| (project_id(id), kept))
        })
        .collect();
    Some(Value::Object(projected))
}
