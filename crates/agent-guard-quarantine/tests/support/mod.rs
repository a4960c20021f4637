//! Test environments for the restore and gc tests: a physical temporary workspace with its
//! quarantine, hand-built transactions and filesystem snapshots.

#![allow(dead_code, reason = "each test binary uses a different subset")]

use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

use agent_guard_audit::Clock;
use agent_guard_quarantine::{
    FilesOnly, ItemKind, MANIFEST_SCHEMA, NoProgress, Quarantine, Record, RelocateItem, Relocated,
    RestoreOptions, RestoreReport, StoredPath, TxStart, ensure_layout,
};
use agent_guard_types::TxId;
use chrono::{DateTime, TimeDelta, TimeZone as _, Utc};

/// The fixed "now" of every test.
pub(crate) fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 30, 12, 0, 0).unwrap()
}

/// A generated id with a fixed stamp.
pub(crate) fn txid(n: u32) -> TxId {
    TxId::generated("20261130-120000", n).unwrap()
}

/// `store`, with the caller's intent (the audit log's, synced in flight) failed to become
/// durable: nothing may take effect.
pub(crate) fn undurable(store: &Quarantine) -> Quarantine {
    let failed = agent_guard_fsops::SyncInFlight::done(Err("disk gone".to_owned()));
    store.clone().with_before_effect(failed)
}

/// `store`, with the caller's intent synced in flight on a real file, `log`.
pub(crate) fn durable(store: &Quarantine, log: &Path) -> Quarantine {
    let log = std::fs::File::create(log).unwrap();
    store
        .clone()
        .with_before_effect(agent_guard_fsops::SyncInFlight::start(log))
}

/// Whether a skipped item's `reason` is that the caller's intent did not become durable.
pub(crate) fn not_durable(reason: &str) -> bool {
    reason.contains("audit intent is not durable")
}

/// A hand-built `relocate` record: transaction `id` moved `origin` (of `kind`) to `trash`
/// at `ts`.
pub(crate) fn relocated(
    id: &str,
    origin: impl Into<PathBuf>,
    trash: impl Into<PathBuf>,
    kind: Option<ItemKind>,
    ts: String,
) -> Record {
    Record::Relocate(Relocated {
        txid: id.to_owned(),
        origin_path: StoredPath::new(origin),
        trash_path: StoredPath::new(trash),
        kind,
        size: None,
        mode: None,
        mtime: None,
        method: None,
        digest: None,
        recovered_from_intent: false,
        origin_leftovers: false,
        ts,
        schema: MANIFEST_SCHEMA,
    })
}

/// A temporary root holding a workspace `ws/` and its quarantine `ws/.agent-trash`.
pub(crate) struct Env {
    _dir: tempfile::TempDir,
    /// The physical temporary root (holds `ws` and anything "outside").
    pub(crate) root: PathBuf,
    /// The physical workspace.
    pub(crate) ws: PathBuf,
    /// The quarantine root.
    pub(crate) trash: PathBuf,
    /// The store, clock fixed at [`now`].
    pub(crate) store: Quarantine,
    /// The next backup id handed to a forced restore (`txid(0xb0)`, `txid(0xb1)`, …).
    next_backup: std::cell::Cell<u32>,
}

impl Env {
    /// A workspace with the quarantine at its default place.
    pub(crate) fn new() -> Env {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let ws = root.join("ws");
        Env::with_trash(dir, root, ws.join(".agent-trash"))
    }

    /// A workspace whose quarantine lies on the filesystem of `/dev/shm` (another device
    /// than the temporary directory), or `None` where that is not possible.
    pub(crate) fn cross_device() -> Option<(Env, tempfile::TempDir)> {
        let shm = tempfile::tempdir_in("/dev/shm").ok()?;
        let dir = tempfile::tempdir().unwrap();
        let dev = |p: &Path| std::fs::metadata(p).unwrap().dev();
        if dev(shm.path()) == dev(dir.path()) {
            return None;
        }
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let trash = std::fs::canonicalize(shm.path()).unwrap().join("trash");
        Some((Env::with_trash(dir, root, trash), shm))
    }

    /// A workspace and its quarantine inside `parent` (a mounted filesystem under test).
    pub(crate) fn in_dir(parent: &Path) -> Env {
        let dir = tempfile::tempdir_in(parent).unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let ws = root.join("ws");
        Env::with_trash(dir, root, ws.join(".agent-trash"))
    }

    fn with_trash(dir: tempfile::TempDir, root: PathBuf, trash: PathBuf) -> Env {
        let ws = root.join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        ensure_layout(&ws, &trash).unwrap();
        let store = Quarantine::new(&ws, &trash).with_clock(Clock::Fixed(now()));
        Env {
            _dir: dir,
            root,
            ws,
            trash,
            store,
            next_backup: std::cell::Cell::new(0xb0),
        }
    }

    /// The same workspace and quarantine with the clock set `ago` before [`now`].
    pub(crate) fn store_at(&self, ago: TimeDelta) -> Quarantine {
        Quarantine::new(&self.ws, &self.trash).with_clock(Clock::Fixed(now() - ago))
    }

    /// Writes `content` to `ws/rel`, creating parents.
    pub(crate) fn write(&self, rel: &str, content: &str) -> PathBuf {
        let path = self.ws.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content).unwrap();
        path
    }

    /// Relocates `ws/<rel>` for each `rel` into transaction `id` (the real relocation).
    pub(crate) fn relocate(&self, id: &TxId, rels: &[&str]) {
        self.relocate_with(&self.store, id, rels);
    }

    /// Relocates with another store (another clock).
    pub(crate) fn relocate_with(&self, store: &Quarantine, id: &TxId, rels: &[&str]) {
        let items: Vec<RelocateItem> = rels
            .iter()
            .map(|rel| RelocateItem {
                origin: self.ws.join(rel),
                raw: (*rel).to_owned(),
            })
            .collect();
        let report = store
            .relocate(
                &items,
                id,
                agent_guard_quarantine::TxMeta::default(),
                &NoProgress,
            )
            .unwrap();
        assert_eq!(report.moved.len(), rels.len(), "{report:?}");
    }

    /// Appends a hand-built `tx-start` for `id` (recording this workspace).
    pub(crate) fn start(&self, id: &str) {
        self.store
            .append(&[Record::TxStart(TxStart {
                txid: id.to_owned(),
                strategy: "relocate".to_owned(),
                meta: agent_guard_quarantine::TxMeta::default(),
                workspace: Some(StoredPath::new(&self.ws)),
                ts: self.store.now(),
                schema: MANIFEST_SCHEMA,
            })])
            .unwrap();
    }

    /// Appends a hand-built `relocate` record of a file.
    pub(crate) fn record(&self, id: &str, origin: impl Into<PathBuf>, trash: impl Into<PathBuf>) {
        let record = relocated(id, origin, trash, Some(ItemKind::File), self.store.now());
        self.store.append(&[record]).unwrap();
    }

    /// Puts a file into the quarantine by hand: `<trash>/<id>/<rel>` with `content`, and a
    /// `relocate` record whose origin is `ws/<rel>`. Returns (origin, quarantine path).
    pub(crate) fn stash(&self, id: &str, rel: &str, content: &str) -> (PathBuf, PathBuf) {
        let copy = self.trash.join(id).join(rel);
        std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
        std::fs::write(&copy, content).unwrap();
        let origin = self.ws.join(rel);
        self.record(id, &origin, &copy);
        (origin, copy)
    }

    /// Restores, handing out `txid(0xb0)`, `txid(0xb1)`, … as backup ids.
    pub(crate) fn restore(&self, id: &str, options: &RestoreOptions) -> RestoreReport {
        let mut new_txid = || {
            let next = self.next_backup.get();
            self.next_backup.set(next + 1);
            txid(next)
        };
        self.store
            .restore(id, options, &mut new_txid, &NoProgress, &FilesOnly)
    }

    /// The manifest's bytes.
    pub(crate) fn manifest(&self) -> Vec<u8> {
        std::fs::read(self.trash.join("manifest.jsonl")).unwrap_or_default()
    }
}

/// Force options.
pub(crate) fn force() -> RestoreOptions {
    RestoreOptions {
        force: true,
        ..RestoreOptions::default()
    }
}

/// A snapshot of a tree: relative path → (kind, mode, content or link target).
pub(crate) fn tree(root: &Path) -> BTreeMap<PathBuf, (char, u32, Vec<u8>)> {
    let mut out = BTreeMap::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let metadata = path.symlink_metadata().unwrap();
            let mode = metadata.permissions().mode() & 0o7777;
            let rel = path.strip_prefix(root).unwrap().to_path_buf();
            if metadata.file_type().is_symlink() {
                let target = std::fs::read_link(&path)
                    .unwrap()
                    .into_os_string()
                    .into_encoded_bytes();
                out.insert(rel, ('l', 0, target));
            } else if metadata.is_dir() {
                out.insert(rel, ('d', mode, Vec::new()));
                pending.push(path);
            } else {
                out.insert(rel, ('f', mode, std::fs::read(&path).unwrap()));
            }
        }
    }
    out
}

/// Moves a path in a fixture (tests only; the crate itself moves through `fsops`).
#[expect(clippy::disallowed_methods, reason = "test fixture surgery")]
pub(crate) fn mv(from: &Path, to: &Path) {
    std::fs::rename(from, to).unwrap();
}

/// Removes a file, a link or a tree in a fixture.
#[expect(clippy::disallowed_methods, reason = "test fixture surgery")]
pub(crate) fn rm(path: &Path) {
    if path.symlink_metadata().unwrap().is_dir() {
        std::fs::remove_dir_all(path).unwrap();
    } else {
        std::fs::remove_file(path).unwrap();
    }
}
