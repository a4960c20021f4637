//! The hash chain over audit records: the fields, the canonical form, and the link a new
//! record takes from the end of the log.
//!
//! A chained record carries:
//!
//! | field | content |
//! |---|---|
//! | `seq` | its position in the chain, from 0 |
//! | `prev_sha256` | SHA-256 (hex) of the bytes of the nearest preceding *intact* line (a line that parses as a JSON object), or 64 zeros for the first line of the file |
//! | `key_id` | the id of the key that made `mac` ([`AuditKey::id`]) |
//! | `torn_sha256`, `torn_length` | only after unreadable bytes (a torn write): SHA-256 and length of the bytes between that intact line and this record |
//! | `mac` | keyed BLAKE3 (hex) of the record's canonical form |
//!
//! The **canonical form** is the record without `mac`, as compact JSON with keys sorted by
//! their UTF-8 bytes (what `serde_json` writes for a `Map`). It is deterministic, and it is
//! not RFC 8785: a float such as `2.0` is written `2.0`, not `2`.
//!
//! `seq` is one more than the linked record's when that record is chained, else 0, so a log
//! that starts unchained (an older version, the reference tool) becomes a chain at its first
//! chained record, which links to the unchained prefix's last record.
//!
//! **Torn writes.** A crash can leave the last line cut short. The next append starts on a
//! new line, links to the last intact record and notes the torn bytes' digest and length;
//! `verify` then reports a repaired tail, not tampering, and the chain goes on.

use std::io::{Read, Seek, SeekFrom};

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::backward::{MAX_LINE, for_each_line_backwards};
use crate::hash::{is_hex, sha256_bytes, to_hex};
use crate::key::AuditKey;

/// The field holding the position in the chain.
pub(crate) const SEQ: &str = "seq";
/// The field holding the previous intact line's digest.
pub(crate) const PREV: &str = "prev_sha256";
/// The field naming the key.
pub(crate) const KEY_ID: &str = "key_id";
/// The field holding the MAC.
pub(crate) const MAC: &str = "mac";
/// The field holding the digest of torn bytes before the record.
pub(crate) const TORN_SHA256: &str = "torn_sha256";
/// The field holding the length of torn bytes before the record.
pub(crate) const TORN_LENGTH: &str = "torn_length";
/// Every chain field; only the log sets them.
pub(crate) const CHAIN_FIELDS: [&str; 6] = [SEQ, PREV, KEY_ID, MAC, TORN_SHA256, TORN_LENGTH];

/// The `prev_sha256` of a record on the first line of a file.
pub(crate) const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// The block size for reading the end of the log: a few records.
const BLOCK: usize = 4 * 1024;

/// Returns `true` if `text` is a key id: `k1-` and 16 lowercase hex digits.
pub(crate) fn is_key_id(text: &str) -> bool {
    text.strip_prefix("k1-")
        .is_some_and(|rest| is_hex(rest, 16))
}

/// The chain fields of a record, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ChainFields {
    pub seq: u64,
    pub prev: String,
    pub key_id: String,
    pub mac: String,
    pub torn: Option<(String, u64)>,
}

/// What a record says about the chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Chaining {
    /// No chain field at all: written by an older version or another tool.
    Unchained,
    /// Every required field, well formed.
    Chained(ChainFields),
    /// Some chain fields, or malformed ones.
    Malformed,
}

/// Reads the chain fields of `record`.
pub(crate) fn chaining(record: &Map<String, Value>) -> Chaining {
    if !CHAIN_FIELDS.iter().any(|field| record.contains_key(*field)) {
        return Chaining::Unchained;
    }
    let text = |field: &str| record.get(field).and_then(Value::as_str);
    let fields = (|| {
        let seq = record.get(SEQ)?.as_u64()?;
        let prev = text(PREV).filter(|t| is_hex(t, 64))?.to_owned();
        let key_id = text(KEY_ID).filter(|t| is_key_id(t))?.to_owned();
        let mac = text(MAC).filter(|t| is_hex(t, 64))?.to_owned();
        let torn = match (record.get(TORN_SHA256), record.get(TORN_LENGTH)) {
            (None, None) => None,
            (Some(digest), Some(length)) => Some((
                digest.as_str().filter(|t| is_hex(t, 64))?.to_owned(),
                length.as_u64().filter(|l| *l > 0)?,
            )),
            _ => return None,
        };
        Some(ChainFields {
            seq,
            prev,
            key_id,
            mac,
            torn,
        })
    })();
    fields.map_or(Chaining::Malformed, Chaining::Chained)
}

/// Returns the canonical form of `record`: compact sorted-key JSON without `mac`.
pub(crate) fn canonical(record: &Map<String, Value>) -> Vec<u8> {
    let mut without = record.clone();
    without.remove(MAC);
    serde_json::to_vec(&without).unwrap_or_default()
}

/// Parses `line` as an intact record: at most [`MAX_LINE`] bytes of one JSON object.
pub(crate) fn parse_intact(line: &[u8]) -> Option<Map<String, Value>> {
    if line.len() > MAX_LINE {
        return None;
    }
    match serde_json::from_slice::<Value>(line) {
        Ok(Value::Object(record)) => Some(record),
        _ => None,
    }
}

/// The chain fields of a line, read without building the rest of the record.
#[derive(Debug, Default, serde::Deserialize)]
struct RawChain {
    seq: Option<Value>,
    prev_sha256: Option<Value>,
    key_id: Option<Value>,
    mac: Option<Value>,
    torn_sha256: Option<Value>,
    torn_length: Option<Value>,
}

/// Reads `line` as an intact record (see [`parse_intact`]) and returns what it says about the
/// chain, or `None` when it is not intact. Faster than [`parse_intact`]: only the chain fields
/// are kept. A chain field given twice makes the line unreadable, for writer and verifier
/// alike.
pub(crate) fn parse_chaining(line: &[u8]) -> Option<Chaining> {
    if line.len() > MAX_LINE || line.trim_ascii_start().first() != Some(&b'{') {
        return None;
    }
    let raw: RawChain = serde_json::from_slice(line).ok()?;
    let mut fields = Map::new();
    for (name, value) in [
        (SEQ, raw.seq),
        (PREV, raw.prev_sha256),
        (KEY_ID, raw.key_id),
        (MAC, raw.mac),
        (TORN_SHA256, raw.torn_sha256),
        (TORN_LENGTH, raw.torn_length),
    ] {
        if let Some(value) = value {
            fields.insert(name.to_owned(), value);
        }
    }
    Some(chaining(&fields))
}

/// Returns `true` if `mac` is `key`'s MAC of `line`'s canonical form.
///
/// A line this tool wrote *is* its canonical form with `"mac":"…"` inserted at its sorted
/// place, so the canonical bytes are the line with that field cut out; only when that fails
/// (a line re-serialised by someone else) is the record parsed and serialised again. Cutting
/// is sound: in JSON the text `"mac":"` can only be a key and its value, and every other byte
/// of the line is covered by the MAC.
pub(crate) fn authentic(key: &AuditKey, line: &[u8], mac: &str) -> bool {
    let field = format!("\"{MAC}\":\"{mac}\"");
    if let Some(at) = line
        .windows(field.len())
        .position(|window| window == field.as_bytes())
    {
        let end = at + field.len();
        let mut cut = Vec::with_capacity(line.len());
        if line.get(end) == Some(&b',') {
            cut.extend_from_slice(&line[..at]);
            cut.extend_from_slice(&line[end + 1..]);
        } else if at > 0 && line[at - 1] == b',' {
            cut.extend_from_slice(&line[..at - 1]);
            cut.extend_from_slice(&line[end..]);
        }
        if !cut.is_empty() && key.verifies(&cut, mac) {
            return true;
        }
    }
    parse_intact(line).is_some_and(|record| key.verifies(&canonical(&record), mac))
}

/// Where a new record joins the chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Link {
    pub seq: u64,
    pub prev: String,
    pub torn: Option<(String, u64)>,
}

/// Computes the link for a record appended to a log of `len` bytes, reading only its end:
/// back to the last intact line, and the bytes after it (usually none).
///
/// Call it under the log's exclusive lock, so that nobody appends between this read and the
/// write.
pub(crate) fn link_at_end(file: &mut (impl Read + Seek), len: u64) -> std::io::Result<Link> {
    if len == 0 {
        return Ok(Link {
            seq: 0,
            prev: GENESIS.to_owned(),
            torn: None,
        });
    }
    let mut last = [0_u8; 1];
    file.seek(SeekFrom::Start(len - 1))?;
    file.read_exact(&mut last)?;
    // The new record starts after a newline at `region_end` (written now if missing).
    let region_end = if last[0] == b'\n' { len - 1 } else { len };
    let mut linked: Option<(u64, Vec<u8>, Chaining)> = None;
    for_each_line_backwards(file, len, BLOCK, |start, line| {
        match line.and_then(|bytes| parse_chaining(bytes).map(|c| (bytes, c))) {
            Some((bytes, chaining)) => {
                linked = Some((start, bytes.to_vec(), chaining));
                false
            }
            None => true,
        }
    })?;
    let (region_start, seq, prev) = match &linked {
        Some((start, bytes, chaining)) => {
            let seq = match chaining {
                Chaining::Chained(fields) => fields.seq.saturating_add(1),
                _ => 0,
            };
            (start + bytes.len() as u64 + 1, seq, sha256_bytes(bytes))
        }
        None => (0, 0, GENESIS.to_owned()),
    };
    let torn = if region_end > region_start {
        let mut hasher = Sha256::new();
        file.seek(SeekFrom::Start(region_start))?;
        std::io::copy(
            &mut std::io::Read::take(&mut *file, region_end - region_start),
            &mut HashWriter(&mut hasher),
        )?;
        Some((
            to_hex(hasher.finalize().as_slice()),
            region_end - region_start,
        ))
    } else {
        None
    };
    Ok(Link { seq, prev, torn })
}

/// Adds the chain fields for `link` to `record` and its MAC under `key`.
pub(crate) fn seal(record: &mut Map<String, Value>, link: Link, key: &AuditKey) {
    for field in CHAIN_FIELDS {
        record.remove(field);
    }
    record.insert(SEQ.into(), Value::from(link.seq));
    record.insert(PREV.into(), Value::from(link.prev));
    record.insert(KEY_ID.into(), Value::from(key.id()));
    if let Some((digest, length)) = link.torn {
        record.insert(TORN_SHA256.into(), Value::from(digest));
        record.insert(TORN_LENGTH.into(), Value::from(length));
    }
    let mac = key.mac(&canonical(record));
    record.insert(MAC.into(), Value::from(mac));
}

struct HashWriter<'a>(&'a mut Sha256);

impl std::io::Write for HashWriter<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use super::*;

    fn link(text: &[u8]) -> Link {
        link_at_end(&mut Cursor::new(text.to_vec()), text.len() as u64).unwrap()
    }

    #[test]
    fn the_first_record_links_to_nothing() {
        assert_eq!(
            link(b""),
            Link {
                seq: 0,
                prev: GENESIS.into(),
                torn: None
            }
        );
    }

    #[test]
    fn an_unchained_log_is_linked_to_its_last_record() {
        let got = link(b"{\"event\":\"check\"}\n{\"event\":\"gc\"}\n");
        assert_eq!(got.seq, 0);
        assert_eq!(got.prev, sha256_bytes(b"{\"event\":\"gc\"}"));
        assert_eq!(got.torn, None);
    }

    #[test]
    fn torn_bytes_are_noted_and_skipped() {
        let got = link(b"{\"event\":\"gc\"}\n{\"event\":\"ch");
        assert_eq!(got.prev, sha256_bytes(b"{\"event\":\"gc\"}"));
        assert_eq!(
            got.torn,
            Some((sha256_bytes(b"{\"event\":\"ch"), 12)),
            "the fragment, without the newline written before the next record"
        );
        let terminated = link(b"{\"event\":\"gc\"}\ngarbage\n\nmore\n");
        assert_eq!(
            terminated.torn,
            Some((sha256_bytes(b"garbage\n\nmore"), 13))
        );
        let only_garbage = link(b"garbage");
        assert_eq!(only_garbage.prev, GENESIS);
        assert_eq!(only_garbage.torn, Some((sha256_bytes(b"garbage"), 7)));
    }

    #[test]
    fn a_chained_record_is_continued() {
        let key = AuditKey::from_bytes([7; 32]);
        let mut record = Map::new();
        record.insert("event".into(), Value::from("check"));
        seal(&mut record, link(b""), &key);
        let line = serde_json::to_vec(&record).unwrap();
        let Chaining::Chained(fields) = chaining(&record) else {
            panic!("{record:?}")
        };
        assert_eq!(fields.seq, 0);
        assert!(key.verifies(&canonical(&record), &fields.mac));
        let mut text = line.clone();
        text.push(b'\n');
        let next = link(&text);
        assert_eq!(next.seq, 1);
        assert_eq!(next.prev, sha256_bytes(&line));
    }

    /// A reader that counts the bytes read from it.
    struct Counting {
        inner: Cursor<Vec<u8>>,
        read: usize,
    }

    impl Read for Counting {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.inner.read(buf)?;
            self.read += n;
            Ok(n)
        }
    }

    impl Seek for Counting {
        fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
            self.inner.seek(to)
        }
    }

    #[test]
    fn linking_reads_the_end_of_the_log_only() {
        let mut text = Vec::new();
        for i in 0..100_000 {
            text.extend_from_slice(format!("{{\"event\":\"check\",\"moved\":{i}}}\n").as_bytes());
        }
        let len = text.len() as u64;
        let mut file = Counting {
            inner: Cursor::new(text),
            read: 0,
        };
        let got = link_at_end(&mut file, len).unwrap();
        assert_eq!(
            got.prev,
            sha256_bytes(b"{\"event\":\"check\",\"moved\":99999}")
        );
        assert!(file.read <= BLOCK + 1, "read {} of {len} bytes", file.read);
    }

    #[test]
    fn partial_or_malformed_chain_fields_are_malformed() {
        let record = |value: Value| match value {
            Value::Object(map) => map,
            _ => unreachable!(),
        };
        assert_eq!(
            chaining(&record(serde_json::json!({"event": "x"}))),
            Chaining::Unchained
        );
        assert_eq!(
            chaining(&record(serde_json::json!({"seq": 1}))),
            Chaining::Malformed
        );
        assert_eq!(
            chaining(&record(serde_json::json!({
                "seq": 1, "prev_sha256": GENESIS, "key_id": "k1-0123456789abcdef",
                "mac": GENESIS, "torn_length": 3,
            }))),
            Chaining::Malformed,
            "torn fields come in pairs"
        );
        assert!(is_key_id("k1-0123456789abcdef"));
        assert!(!is_key_id("k2-0123456789abcdef"));
        assert!(!is_key_id("k1-0123456789ABCDEF"));
    }
}
