//! A per-transaction index of the manifest, for the commands that need one transaction.
//!
//! Building every [`Transaction`] means fully deserialising every record, which costs about
//! 40 ms per pass at 10,000 transactions. `restore` and `undo` need one transaction (and,
//! for `--force` backups, the set of ids in use), so they index the lines by their
//! top-level `txid` (a light parse that allocates nothing else) and fully parse only the
//! lines of the transactions they look at. A transaction's state depends only on its own
//! records, so the result is the same as [`transactions()`] gives.

use std::collections::HashMap;
use std::ops::Range;
use std::path::Path;

use serde::Deserialize;

use crate::error::QuarantineError;
use crate::manifest::{Manifest, parse};
use crate::transactions::{Transaction, transactions};

/// Only the top-level `txid` of a record; every other field is skipped unparsed.
#[derive(Deserialize)]
struct TxidOnly<'a> {
    #[serde(borrow)]
    txid: std::borrow::Cow<'a, str>,
}

/// The manifest's lines, grouped by transaction.
#[derive(Debug, Default)]
pub(crate) struct TxLines {
    bytes: Vec<u8>,
    /// Transaction ids in order of first appearance (the order of [`transactions`]).
    order: Vec<String>,
    /// Each transaction's lines, in manifest order.
    lines: HashMap<String, Vec<Range<usize>>>,
}

impl TxLines {
    /// Reads and indexes `manifest`. A missing manifest has no transactions.
    pub(crate) fn load(manifest: &Manifest) -> Result<TxLines, QuarantineError> {
        let bytes = match std::fs::read(manifest.path()) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(source) => {
                return Err(QuarantineError::Manifest {
                    path: manifest.path().to_path_buf(),
                    source,
                });
            }
        };
        Ok(TxLines::new(bytes))
    }

    fn new(bytes: Vec<u8>) -> TxLines {
        let mut order = Vec::new();
        let mut lines: HashMap<String, Vec<Range<usize>>> = HashMap::new();
        let mut start = 0;
        while start < bytes.len() {
            let end = bytes[start..]
                .iter()
                .position(|b| *b == b'\n')
                .map_or(bytes.len(), |i| start + i);
            if let Ok(record) = serde_json::from_slice::<TxidOnly<'_>>(&bytes[start..end]) {
                let txid = record.txid.into_owned();
                let ranges = lines.entry(txid.clone()).or_insert_with(|| {
                    order.push(txid);
                    Vec::new()
                });
                ranges.push(start..end);
            }
            start = end + 1;
        }
        TxLines {
            bytes,
            order,
            lines,
        }
    }

    /// Every transaction id the manifest names.
    pub(crate) fn ids(&self) -> impl Iterator<Item = &str> {
        self.order.iter().map(String::as_str)
    }

    /// The transaction `id`, built from its own records only.
    pub(crate) fn transaction(&self, id: &str) -> Option<Transaction> {
        let mut bytes = Vec::new();
        for range in self.lines.get(id)? {
            bytes.extend_from_slice(&self.bytes[range.clone()]);
            bytes.push(b'\n');
        }
        transactions(&parse(&bytes))
            .into_iter()
            .find(|t| t.txid == id)
    }

    /// The newest transaction (by first appearance) of `workspace` that still has
    /// something to restore.
    pub(crate) fn newest_restorable(&self, workspace: &Path) -> Option<Transaction> {
        self.order
            .iter()
            .rev()
            .filter_map(|id| self.transaction(id))
            .find(|t| t.belongs_to(workspace) && t.restorable_items() > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_transaction_equals_the_full_view() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        let trash = ws.join(".agent-trash");
        let line = |v: serde_json::Value| format!("{v}\n");
        let mut text = String::new();
        for (n, id) in ["a-1", "b-2", "c-3"].iter().enumerate() {
            text += &line(
                serde_json::json!({"type": "tx-start", "txid": id, "strategy": "relocate",
                "meta": {"txid": "not-this-one"}, "workspace": ws, "ts": format!("2026-01-0{}T00:00:00Z", n + 1), "schema": 1}),
            );
        }
        for id in ["a-1", "b-2", "c-3"] {
            text += &line(serde_json::json!({"type": "relocate", "txid": id,
                "origin_path": ws.join(id), "trash_path": trash.join(id).join(id), "kind": "file",
                "ts": "2026-01-01T00:00:00Z", "schema": 1}));
        }
        text += "{\"type\":\"relocate\",\"txid\":\"c-3\",\"torn";
        text += "\n";
        text += &line(
            serde_json::json!({"type": "purged", "txid": "c-3", "ts": "2026-01-02T00:00:00Z", "schema": 1}),
        );
        text += &line(serde_json::json!({"type": "from-the-future", "txid": "d-4", "schema": 9}));
        for id in ["a-1", "b-2", "c-3"] {
            std::fs::create_dir_all(trash.join(id)).unwrap();
            std::fs::write(trash.join(id).join(id), id).unwrap();
        }
        let index = TxLines::new(text.clone().into_bytes());
        let full = transactions(&parse(text.as_bytes()));
        assert_eq!(full.len(), 3);
        for tx in &full {
            assert_eq!(index.transaction(&tx.txid).as_ref(), Some(tx));
        }
        assert_eq!(
            index.ids().collect::<Vec<_>>(),
            ["a-1", "b-2", "c-3", "d-4"]
        );
        assert!(index.ids().any(|i| i == "d-4") && !index.ids().any(|i| i == "not-this-one"));
        assert!(index.transaction("d-4").is_none());
        // c-3 is purged: the newest restorable is b-2.
        assert_eq!(
            index.newest_restorable(&ws).map(|t| t.txid),
            Some("b-2".to_owned())
        );
        assert!(index.newest_restorable(&dir.path().join("other")).is_none());
    }
}
