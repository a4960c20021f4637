//! The `meta` object of a `tx-start` or `snapshot` record, typed: who made the transaction
//! ([`Origin`]), the compensation that made it, and what that compensation recorded of
//! itself ([`SnapshotFacts`] for a git snapshot, [`CheckpointFacts`] for a workspace
//! checkpoint).
//!
//! On disk it is one JSON object. The origin's keys and the snapshot's are flat, as they have
//! always been; a checkpoint's own facts are one nested `checkpoint` object. Records written
//! before that (flat `files`, `bytes`, `new_bytes`, `checkpoint_artifacts`, … beside an
//! edit's `files` list) are still read: [`TxMeta`]'s reader moves those keys into the nested
//! object first. Keys this release does not know are kept in [`TxMeta::other`] and written
//! back as they were.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::stored_path::StoredPath;

/// The `meta` of a transaction's first record.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(from = "Wire")]
pub struct TxMeta {
    /// Who made the transaction.
    #[serde(flatten)]
    pub origin: Origin,
    /// The compensation that made it (`relocate`, `preserve`, `move`, `snapshot`,
    /// `checkpoint`); absent in records of the first releases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<String>,
    /// What a git snapshot recorded.
    #[serde(flatten)]
    pub snapshot: SnapshotFacts,
    /// What a workspace checkpoint recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<CheckpointFacts>,
    /// What a database dump recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub database: Option<DatabaseFacts>,
    /// Keys this release does not know, kept as they were.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// What a database dump recorded: the database, as the command reached it, and the dump
/// file kept in the transaction's directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DatabaseFacts {
    /// The database and how it was reached (never a password).
    pub database: agent_guard_types::Database,
    /// The dump's file name in the transaction's directory.
    pub file: String,
    /// The dump's size in bytes.
    pub bytes: u64,
}

/// Who made a transaction.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Origin {
    /// `check --enforce`, `safe_delete`, `restore`, or an edit tool's label
    /// (`claude-code Write`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The check that made it (`check --enforce`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check_id: Option<String>,
    /// The command, always redacted (`<redacted>`): the audit log holds it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The reason code (`safe_delete`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// The transaction a restore was putting back when it kept what it would replace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restoring_txid: Option<String>,
    /// The harness of an edit-tool call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub harness: Option<String>,
    /// The harness's name of the edit tool (`Write`, `apply_patch`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edit_tool: Option<String>,
    /// The files of an edit-tool call, with what it does to each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<EditedFile>,
}

impl Origin {
    /// A transaction made by `tool`.
    pub fn tool(tool: &str) -> Origin {
        Origin {
            tool: Some(tool.to_owned()),
            ..Origin::default()
        }
    }

    /// A restore's backup of what it would replace while putting `txid` back.
    pub fn restoring(txid: &str) -> Origin {
        Origin {
            restoring_txid: Some(txid.to_owned()),
            ..Origin::tool(RESTORE_TOOL)
        }
    }

    /// The transaction keeps what a restore replaced.
    pub fn is_restore(&self) -> bool {
        self.tool.as_deref() == Some(RESTORE_TOOL)
    }
}

/// The `tool` of a restore's own backup transaction.
pub const RESTORE_TOOL: &str = "restore";

/// One file of an edit-tool call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EditedFile {
    /// The path as the call named it.
    pub path: String,
    /// What the call does to it (`write`, `edit`, `delete`, `move`).
    pub effect: String,
}

/// What a git snapshot recorded beyond its record's fields.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotFacts {
    /// The revision the destructive command writes into the work tree (`git reset --hard
    /// HEAD~1`'s `HEAD~1`), as the command spelled it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writes_revision: Option<String>,
    /// That revision's commit, resolved before the command ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writes_commit: Option<String>,
}

/// What a workspace checkpoint recorded: how it was taken and what it stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckpointFacts {
    /// The artifact patterns it left out when they were regenerable.
    #[serde(default)]
    pub artifacts: Vec<String>,
    /// Whether regenerable artifacts were left out.
    #[serde(default = "yes")]
    pub skip_regenerable: bool,
    /// Files over this size were not kept.
    #[serde(default = "no_limit")]
    pub max_file_bytes: u64,
    /// Files in the checkpoint.
    #[serde(default)]
    pub files: u64,
    /// Their bytes.
    #[serde(default)]
    pub bytes: u64,
    /// Files it read and hashed (the others were known unchanged).
    #[serde(default)]
    pub hashed: u64,
    /// Objects it added to the checkpoint store.
    #[serde(default)]
    pub new_objects: u64,
    /// Bytes it added to the checkpoint store.
    #[serde(default)]
    pub new_bytes: u64,
    /// Objects of the workspace's git repository it mirrored.
    #[serde(default)]
    pub git_objects_added: u64,
    /// Damaged packs it found and repaired.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repaired: Vec<Repaired>,
    /// What it did not keep, and why.
    #[serde(default)]
    pub not_kept: Vec<NotKeptFile>,
}

impl Default for CheckpointFacts {
    fn default() -> CheckpointFacts {
        CheckpointFacts {
            artifacts: Vec::new(),
            skip_regenerable: true,
            max_file_bytes: u64::MAX,
            files: 0,
            bytes: 0,
            hashed: 0,
            new_objects: 0,
            new_bytes: 0,
            git_objects_added: 0,
            repaired: Vec::new(),
            not_kept: Vec::new(),
        }
    }
}

fn yes() -> bool {
    true
}

fn no_limit() -> u64 {
    u64::MAX
}

/// A damaged pack a checkpoint repaired.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Repaired {
    /// The pack.
    pub pack: String,
    /// What was wrong with it.
    pub problem: String,
}

/// A file a checkpoint did not keep.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotKeptFile {
    /// The file.
    pub path: StoredPath,
    /// Its size.
    pub size: u64,
    /// Why (`too-large`, `unreadable`, …).
    pub reason: String,
}

/// The keys of a checkpoint's facts in records written before they were nested, with the
/// nested key each became.
const FLAT_CHECKPOINT_KEYS: [(&str, &str); 11] = [
    ("checkpoint_artifacts", "artifacts"),
    ("checkpoint_skip_regenerable", "skip_regenerable"),
    ("checkpoint_max_file_bytes", "max_file_bytes"),
    ("files", "files"),
    ("bytes", "bytes"),
    ("hashed", "hashed"),
    ("new_objects", "new_objects"),
    ("new_bytes", "new_bytes"),
    ("git_objects_added", "git_objects_added"),
    ("repaired", "repaired"),
    ("not_kept", "not_kept"),
];

/// The on-disk object, read as written; [`TxMeta`] is made from it.
#[derive(Deserialize)]
struct Wire(Map<String, Value>);

impl From<Wire> for TxMeta {
    fn from(Wire(mut map): Wire) -> TxMeta {
        let flat_checkpoint = map.get("strategy").and_then(Value::as_str) == Some("checkpoint")
            && !map.contains_key("checkpoint");
        if flat_checkpoint {
            let mut nested = Map::new();
            for (flat, key) in FLAT_CHECKPOINT_KEYS {
                // An edit's `files` list is the origin's, not the checkpoint's count.
                if flat == "files" && map.get(flat).is_some_and(Value::is_array) {
                    continue;
                }
                if let Some(value) = map.remove(flat) {
                    nested.insert(key.to_owned(), value);
                }
            }
            map.insert("checkpoint".to_owned(), Value::Object(nested));
        }
        // A meta that does not fit the types (never written so) reads as empty rather than
        // making its record unreadable.
        Strict::deserialize(Value::Object(map))
            .map(Strict::into_meta)
            .unwrap_or_default()
    }
}

/// [`TxMeta`]'s fields as derived, for reading a normalised object.
#[derive(Deserialize)]
struct Strict {
    #[serde(flatten)]
    origin: Origin,
    #[serde(default)]
    strategy: Option<String>,
    #[serde(flatten)]
    snapshot: SnapshotFacts,
    #[serde(default)]
    checkpoint: Option<CheckpointFacts>,
    #[serde(default)]
    database: Option<DatabaseFacts>,
    #[serde(flatten)]
    other: Map<String, Value>,
}

impl Strict {
    fn into_meta(self) -> TxMeta {
        TxMeta {
            origin: self.origin,
            strategy: self.strategy,
            snapshot: self.snapshot,
            checkpoint: self.checkpoint,
            database: self.database,
            other: self.other,
        }
    }
}

impl TxMeta {
    /// The meta of a transaction made by `origin`.
    pub fn of(origin: Origin) -> TxMeta {
        TxMeta {
            origin,
            ..TxMeta::default()
        }
    }

    /// This meta with `strategy` set.
    #[must_use]
    pub fn with_strategy(mut self, strategy: &str) -> TxMeta {
        self.strategy = Some(strategy.to_owned());
        self
    }
}

#[cfg(test)]
#[path = "tx_meta_tests.rs"]
mod tests;
