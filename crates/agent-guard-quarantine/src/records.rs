//! The manifest's record types (`manifest.jsonl`), one JSON object per line.
//!
//! Type names and the core fields (`txid`, `origin_path`, `trash_path`, `ts`, …) follow the
//! reference tool so its quarantines stay readable. Every record written here also carries
//! `schema` ([`MANIFEST_SCHEMA`]). Readers skip lines they cannot parse, including record
//! types from the future.
//!
//! Write-ahead protocol of a relocation item: `relocate-intent` (durable) → the move →
//! [`copy-verified`](Record::CopyVerified) (cross-device copies only, before the source is
//! removed) → `relocate` or `relocate-failed`. Crash recovery reconciles intents that have
//! no outcome yet (see `reconcile`).

use serde::{Deserialize, Serialize};

use crate::stored_path::StoredPath;
use crate::tx_meta::TxMeta;

/// The schema version stamped on every record this crate writes.
pub const MANIFEST_SCHEMA: u64 = 1;

/// The kind of a relocated item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum ItemKind {
    /// A regular file.
    File,
    /// A directory (with everything below it).
    Dir,
    /// A symbolic link (moved as a link; its target is untouched).
    Symlink,
}

/// How an item reached the quarantine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// One `rename` on the same filesystem (same dev and inode after).
    Rename,
    /// A verified copy, then removal of the source (cross-device).
    Copy,
}

/// One manifest record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Record {
    /// Opens a relocation transaction; written before any of its moves.
    TxStart(TxStart),
    /// Written durably immediately before an item is moved.
    RelocateIntent(Intent),
    /// A cross-device copy was completed and verified; the source is about to be removed.
    CopyVerified(CopyVerified),
    /// An item is in the quarantine.
    Relocate(Relocated),
    /// An item could not be relocated; it is where it was (or both halves are kept).
    RelocateFailed(Failed),
    /// Written durably immediately before the current version of a file is copied into the
    /// quarantine (the file stays where it is).
    PreserveIntent(PreserveIntent),
    /// A file's current version is in the quarantine, verified; the file is untouched.
    Preserve(Preserved),
    /// A file's current version could not be kept; the file is untouched.
    PreserveFailed(Failed),
    /// Where a path a line moves was, before the line runs (durable).
    MoveSource(MoveSource),
    /// What a path a moved source may land on held, before the line runs (durable).
    MoveDestination(MoveDestination),
    /// The git index a line's `git mv` rewrites, kept before it runs.
    MoveIndex(MoveIndex),
    /// A git snapshot (commits under a private ref).
    Snapshot(Snapshot),
    /// A restore attempt.
    Restore(Restored),
    /// The transaction's payload was purged by gc.
    Purged(Purged),
}

impl Record {
    /// The transaction the record belongs to.
    pub fn txid(&self) -> &str {
        match self {
            Record::TxStart(r) => &r.txid,
            Record::RelocateIntent(r) => &r.txid,
            Record::CopyVerified(r) => &r.txid,
            Record::Relocate(r) => &r.txid,
            Record::RelocateFailed(r) | Record::PreserveFailed(r) => &r.txid,
            Record::PreserveIntent(r) => &r.txid,
            Record::Preserve(r) => &r.txid,
            Record::MoveSource(r) => &r.txid,
            Record::MoveDestination(r) => &r.txid,
            Record::MoveIndex(r) => &r.txid,
            Record::Snapshot(r) => &r.txid,
            Record::Restore(r) => &r.txid,
            Record::Purged(r) => &r.txid,
        }
    }
}

/// `tx-start`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TxStart {
    /// The transaction id.
    pub txid: String,
    /// `relocate` (also for clean-enumerate and restore preservation).
    pub strategy: String,
    /// Who created it, and with which compensation.
    #[serde(default)]
    pub meta: TxMeta,
    /// The workspace the transaction belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<StoredPath>,
    /// UTC timestamp `YYYY-MM-DDTHH:MM:SSZ`.
    pub ts: String,
    /// Schema version.
    #[serde(default)]
    pub schema: u64,
}

/// `relocate-intent`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Intent {
    /// The transaction id.
    pub txid: String,
    /// The item's lexical absolute origin.
    pub origin_path: StoredPath,
    /// Where it will be in the quarantine.
    pub trash_path: StoredPath,
    /// The caller's spelling (may be absent in old records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<String>,
    /// The kind of the item when the intent was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ItemKind>,
    /// UTC timestamp.
    pub ts: String,
    /// Schema version.
    #[serde(default)]
    pub schema: u64,
}

/// `copy-verified`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CopyVerified {
    /// The transaction id.
    pub txid: String,
    /// The origin.
    pub origin_path: StoredPath,
    /// The verified copy.
    pub trash_path: StoredPath,
    /// The tree digest both sides share (hex).
    pub digest: String,
    /// UTC timestamp.
    pub ts: String,
    /// Schema version.
    #[serde(default)]
    pub schema: u64,
}

/// `relocate`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Relocated {
    /// The transaction id.
    pub txid: String,
    /// The item's origin.
    pub origin_path: StoredPath,
    /// Where it is now.
    pub trash_path: StoredPath,
    /// The item kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ItemKind>,
    /// Size in bytes (files and symlinks; directories are not walked at relocation time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Permission bits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<u32>,
    /// Modification time, seconds since the epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mtime: Option<i64>,
    /// How it was moved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<Method>,
    /// The content digest, for verified copies (hex).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// Written by crash reconciliation, not by the move itself.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub recovered_from_intent: bool,
    /// A cross-device move whose source removal was interrupted: parts of the origin remain.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub origin_leftovers: bool,
    /// UTC timestamp.
    pub ts: String,
    /// Schema version.
    #[serde(default)]
    pub schema: u64,
}

/// `relocate-failed`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failed {
    /// The transaction id.
    pub txid: String,
    /// The item's origin.
    pub origin_path: StoredPath,
    /// The intended quarantine path.
    pub trash_path: StoredPath,
    /// Why (`storage unavailable`, an OS error, `interrupted before the move`, …).
    pub reason: String,
    /// Written by crash reconciliation.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub recovered_from_intent: bool,
    /// UTC timestamp.
    pub ts: String,
    /// Schema version.
    #[serde(default)]
    pub schema: u64,
}

/// How a preserved copy was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PreserveMethod {
    /// A second name for the file's inode, which the command only unlinked from its name.
    Link,
    /// The filesystem shares the file's extents (`FICLONE`).
    Reflink,
    /// A streamed copy, verified by digest.
    Copy,
    /// A symbolic link, made anew with the same target.
    Symlink,
}

impl PreserveMethod {
    /// Whether the version was kept as the old entry itself (a link or a symlink): it goes
    /// back by name, replacing what the command left there, rather than by writing its
    /// bytes into the file now at that path.
    pub fn restores_by_name(self) -> bool {
        matches!(self, PreserveMethod::Link | PreserveMethod::Symlink)
    }
}

/// `preserve-intent`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PreserveIntent {
    /// The transaction id.
    pub txid: String,
    /// The file (it stays where it is).
    pub origin_path: StoredPath,
    /// Where its current version will be kept.
    pub trash_path: StoredPath,
    /// The caller's spelling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<String>,
    /// Its size when the intent was written.
    #[serde(default)]
    pub size: u64,
    /// UTC timestamp.
    pub ts: String,
    /// Schema version.
    #[serde(default)]
    pub schema: u64,
}

/// `preserve`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Preserved {
    /// The transaction id.
    pub txid: String,
    /// The file whose version is kept.
    pub origin_path: StoredPath,
    /// The kept version.
    pub trash_path: StoredPath,
    /// How the copy was made (`None` when recovered from an intent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<PreserveMethod>,
    /// Size in bytes.
    #[serde(default)]
    pub size: u64,
    /// Permission bits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<u32>,
    /// Device of the file when it was kept: with `ino`, restore puts the old bytes back into
    /// the same inode when it is still there (hard links and open handles keep working).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dev: Option<u64>,
    /// Inode of the file when it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ino: Option<u64>,
    /// The content digest of a streamed copy (hex).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// The command replaces the name: the version goes back by name, however it was kept.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub by_name: bool,
    /// Written by crash reconciliation, not by the copy itself.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub recovered_from_intent: bool,
    /// UTC timestamp.
    pub ts: String,
    /// Schema version.
    #[serde(default)]
    pub schema: u64,
}

/// `move-source`: a path a line moves, as it was before the line ran. A rename keeps the
/// device and inode, which is how undo finds it again wherever the line put it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MoveSource {
    /// The transaction id.
    pub txid: String,
    /// The path it leaves.
    pub origin_path: StoredPath,
    /// File, directory or symlink.
    pub kind: ItemKind,
    /// Its device.
    pub dev: u64,
    /// Its inode.
    pub ino: u64,
    /// Permission bits.
    pub mode: u32,
    /// Size in bytes (a file's length; 0 for the others).
    #[serde(default)]
    pub size: u64,
    /// A copy kept in the transaction, when the source may leave the workspace or its
    /// filesystem (present once complete: it is renamed into place last).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copy_path: Option<StoredPath>,
    /// Where it may land (undo looks there first: two names of one file, moved apart, are
    /// told apart by where each went).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub landings: Vec<StoredPath>,
    /// UTC timestamp.
    pub ts: String,
    /// Schema version.
    #[serde(default)]
    pub schema: u64,
}

impl MoveSource {
    /// Whether the moved path is back at its name: the same device and inode there.
    pub fn at_origin(&self) -> bool {
        use std::os::unix::fs::MetadataExt as _;
        self.origin_path
            .path()
            .symlink_metadata()
            .is_ok_and(|m| m.dev() == self.dev && m.ino() == self.ino)
    }
}

/// What was at a path a moved source may land on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WasThere {
    /// Nothing: undo makes it absent again.
    Absent,
    /// An empty directory (a directory moved with `-T` replaces it): undo makes it again.
    EmptyDir,
    /// A directory with entries: a move puts the source inside it, never over it.
    Dir,
    /// A file or a symlink, whose version a `preserve` record of the same transaction keeps.
    Kept,
}

/// `move-destination`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MoveDestination {
    /// The transaction id.
    pub txid: String,
    /// The path.
    pub path: StoredPath,
    /// What was there.
    pub was: WasThere,
    /// Its permission bits, for a directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<u32>,
    /// Inside the workspace: undo makes it what it was. Outside, it is only where undo looks
    /// for a moved source.
    pub inside: bool,
    /// UTC timestamp.
    pub ts: String,
    /// Schema version.
    #[serde(default)]
    pub schema: u64,
}

/// `move-index`: the git index a line's `git mv` rewrites, kept whole (git renames a new index
/// over it, so a hard link keeps the old one), so that undo puts the moved entries back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MoveIndex {
    /// The transaction id.
    pub txid: String,
    /// The repository's index file.
    pub index_path: StoredPath,
    /// The kept index, in the transaction.
    pub kept_path: StoredPath,
    /// UTC timestamp.
    pub ts: String,
    /// Schema version.
    #[serde(default)]
    pub schema: u64,
}

/// `snapshot`: git state kept under a private ref.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// The transaction id.
    pub txid: String,
    /// The snapshot commit, `None` for a clean tree.
    pub sha: Option<String>,
    /// Whether the ref was stored.
    #[serde(default)]
    pub stored: bool,
    /// The private ref (`refs/agent-guard/…`).
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub refname: Option<String>,
    /// What was kept: `worktree`, `stash`, `branch`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// The name of what was kept (a branch name, a stash position).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The repository's work tree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository: Option<StoredPath>,
    /// A note (`working tree clean; nothing to snapshot`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// An error, if the snapshot failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Who created it, and what the snapshot or checkpoint recorded of itself.
    #[serde(default)]
    pub meta: TxMeta,
    /// UTC timestamp.
    pub ts: String,
    /// Schema version.
    #[serde(default)]
    pub schema: u64,
}

/// `restore`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Restored {
    /// The transaction id.
    pub txid: String,
    /// `--force` was given.
    #[serde(default)]
    pub force: bool,
    /// What was put back (paths, or `stash:<sha>` / `ref:<name>` for git items).
    #[serde(default)]
    pub restored: Vec<StoredPath>,
    /// Origins that were occupied.
    #[serde(default)]
    pub conflicts: Vec<StoredPath>,
    /// Errors, one line each.
    #[serde(default)]
    pub errors: Vec<String>,
    /// Transactions that preserved occupants (`--force`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub backup_txids: Vec<String>,
    /// `--to`: the directory restored into instead of the workspace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<StoredPath>,
    /// `--path`: the workspace-relative subpaths restored.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<StoredPath>,
    /// UTC timestamp.
    pub ts: String,
    /// Schema version.
    #[serde(default)]
    pub schema: u64,
}

/// `purged`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Purged {
    /// The transaction id.
    pub txid: String,
    /// UTC timestamp.
    pub ts: String,
    /// Schema version.
    #[serde(default)]
    pub schema: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_records_parse() {
        let lines = [
            r#"{"meta":{"tool":"safe_delete","code":"RELOCATE_PATHS"},"strategy":"relocate","ts":"2026-01-01T00:00:00Z","txid":"20260101-000000-deadbeef","type":"tx-start"}"#,
            r#"{"origin_path":"/ws/a.txt","raw":"a.txt","trash_path":"/ws/.agent-trash/20260101-000000-deadbeef/a.txt","ts":"2026-01-01T00:00:00Z","txid":"20260101-000000-deadbeef","type":"relocate-intent"}"#,
            r#"{"origin_path":"/ws/a.txt","trash_path":"/ws/.agent-trash/20260101-000000-deadbeef/a.txt","ts":"2026-01-01T00:00:00Z","txid":"20260101-000000-deadbeef","type":"relocate"}"#,
            r#"{"conflicts":[],"errors":[],"force":false,"restored":["/ws/a.txt"],"ts":"2026-01-01T00:00:01Z","txid":"20260101-000000-deadbeef","type":"restore"}"#,
            r#"{"ts":"2026-01-02T00:00:00Z","txid":"20260101-000000-deadbeef","type":"purged"}"#,
            r#"{"meta":{},"sha":null,"stored":false,"note":"working tree clean; nothing to snapshot","ts":"2026-01-01T00:00:00Z","txid":"t2","type":"snapshot"}"#,
        ];
        for line in lines {
            let record: Record =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}"));
            assert!(!record.txid().is_empty());
        }
        assert!(
            serde_json::from_str::<Record>(r#"{"type":"from-the-future","txid":"x"}"#).is_err()
        );
    }

    #[test]
    fn written_records_carry_the_type_tag() {
        let record = Record::Purged(Purged {
            txid: "t".into(),
            ts: "x".into(),
            schema: MANIFEST_SCHEMA,
        });
        let json = serde_json::to_string(&record).unwrap();
        assert!(json.contains("\"type\":\"purged\""), "{json}");
        assert!(json.contains("\"schema\":1"), "{json}");
    }
}
