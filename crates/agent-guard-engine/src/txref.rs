//! Transaction references: a full id, a unique prefix or suffix of one (or of its random
//! part), and `@`, `@-`,
//! `@-N` for the newest undoable ones (jj's notation: `@` is the newest, each `-` one step
//! back).
//!
//! Every command that takes a transaction (`restore`, `show`, `gc --txid`, the MCP tools)
//! resolves it here, against this workspace's transactions.

use agent_guard_recovery::{Transaction, TxState};
use agent_guard_types::is_generated_id;

/// The shortest prefix or suffix accepted (a shorter one would match almost anything).
const MIN_PART: usize = 4;
/// How many matches an ambiguity error lists.
const LISTED: usize = 10;

/// Why a reference names no single transaction.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TxRefError {
    /// No transaction of this workspace has that id, prefix or suffix.
    #[error(
        "no transaction of this workspace matches `{0}`; `list` (`agent-guard list --all`) shows them"
    )]
    Unknown(String),
    /// Several transactions match.
    #[error("`{reference}` is ambiguous: it matches {}", .matches.join(", "))]
    Ambiguous {
        /// The reference as given.
        reference: String,
        /// The matching ids (at most ten).
        matches: Vec<String>,
    },
    /// `@-N` goes further back than there are undoable transactions.
    #[error(
        "`{reference}` goes back further than the {available} undoable transaction(s) of this workspace"
    )]
    TooFarBack {
        /// The reference as given.
        reference: String,
        /// How many undoable transactions there are.
        available: usize,
    },
}

/// The transactions `undo` takes, newest first: restorable, not a backup a restore made (those
/// are what `redo` takes), and not parked by a restore that hit conflicts (those need
/// `restore --force` or a decision; `undo` steps past them).
pub fn undoable(txs: &[Transaction]) -> Vec<&Transaction> {
    txs.iter()
        .rev()
        .filter(|t| t.state() == TxState::Restorable && !is_backup(t) && !is_parked(t))
        .collect()
}

/// Whether a restore made `tx` to keep what it replaced.
pub fn is_backup(tx: &Transaction) -> bool {
    tx.meta.origin.is_restore()
}

/// Whether the last restore of `tx` ended with conflicts (and nothing since succeeded).
pub fn is_parked(tx: &Transaction) -> bool {
    tx.last_restore
        .as_ref()
        .is_some_and(|r| !r.conflicts.is_empty())
}

/// Resolves `reference` among this workspace's transactions `txs` (oldest first).
///
/// `Ok(None)` means the text is no transaction reference at all (a path, perhaps): it is
/// neither `@…`, nor id-shaped, nor a prefix or suffix of at least four id characters that
/// matches something.
///
/// # Errors
/// An id-shaped or `@` reference that names nothing, or a prefix or suffix that matches
/// several transactions.
pub fn resolve(reference: &str, txs: &[Transaction]) -> Result<Option<String>, TxRefError> {
    let text = reference.trim();
    if let Some(back) = text.strip_prefix('@') {
        let steps = match back {
            "" => 0,
            "-" => 1,
            _ => back
                .strip_prefix('-')
                .or_else(|| back.strip_prefix('~'))
                .and_then(|n| n.parse::<usize>().ok())
                .ok_or_else(|| TxRefError::Unknown(reference.to_owned()))?,
        };
        let queue = undoable(txs);
        return queue
            .get(steps)
            .map(|tx| Some(tx.txid.clone()))
            .ok_or_else(|| TxRefError::TooFarBack {
                reference: reference.to_owned(),
                available: queue.len(),
            });
    }
    if is_generated_id(text) {
        return if txs.iter().any(|t| t.txid == text) {
            Ok(Some(text.to_owned()))
        } else {
            Err(TxRefError::Unknown(reference.to_owned()))
        };
    }
    let id_like = text.len() >= MIN_PART
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b) || b == b'-');
    if !id_like {
        return Ok(None);
    }
    let matches: Vec<&Transaction> = txs
        .iter()
        .rev()
        .filter(|t| {
            t.txid.starts_with(text)
                || t.txid.ends_with(text)
                // The random part's start, as one abbreviates a git commit.
                || t.txid.rsplit('-').next().is_some_and(|hex| hex.starts_with(text))
        })
        .collect();
    match matches.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some(one.txid.clone())),
        many => Err(TxRefError::Ambiguous {
            reference: reference.to_owned(),
            matches: many.iter().take(LISTED).map(|t| t.txid.clone()).collect(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_guard_recovery::transactions;

    fn txs(ids: &[&str]) -> Vec<Transaction> {
        // Transactions with no items are EMPTY: fine for id matching, not undoable.
        let lines: Vec<agent_guard_recovery::Record> = ids
            .iter()
            .map(|id| {
                serde_json::from_value(serde_json::json!({
                    "type": "tx-start", "txid": id, "strategy": "relocate",
                    "ts": "2026-12-01T00:00:00Z", "schema": 1
                }))
                .unwrap()
            })
            .collect();
        transactions(&lines)
    }

    #[test]
    fn ids_prefixes_and_suffixes() {
        let all = txs(&["20261201-084000-b3dcb9f9", "20261201-090000-0badcafe"]);
        assert_eq!(
            resolve("20261201-084000-b3dcb9f9", &all)
                .unwrap()
                .as_deref(),
            Some("20261201-084000-b3dcb9f9")
        );
        assert_eq!(
            resolve("b3dc", &all).unwrap().as_deref(),
            Some("20261201-084000-b3dcb9f9"),
            "the start of the random part"
        );
        assert_eq!(
            resolve("dcb9f9", &all).unwrap().as_deref(),
            Some("20261201-084000-b3dcb9f9")
        );
        assert_eq!(
            resolve("20261201-09", &all).unwrap().as_deref(),
            Some("20261201-090000-0badcafe")
        );
        assert!(matches!(
            resolve("20261201", &all),
            Err(TxRefError::Ambiguous { matches, .. }) if matches.len() == 2
        ));
        assert_eq!(resolve("src/app.py", &all).unwrap(), None);
        assert_eq!(resolve("abc", &all).unwrap(), None, "too short");
        assert!(matches!(
            resolve("20261201-000000-00000000", &all),
            Err(TxRefError::Unknown(_))
        ));
        assert!(matches!(
            resolve("@", &all),
            Err(TxRefError::TooFarBack { .. })
        ));
        assert!(matches!(resolve("@x", &all), Err(TxRefError::Unknown(_))));
    }
}
