//! A damaged checkpoint store, found before a checkpoint relies on it (issue 34, point 5).
//!
//! A checkpoint is incremental: a file whose stat data did not change is the blob the
//! private index names, which a pack written earlier holds. If that pack was removed or
//! truncated since (a disk error, a person cleaning up), a new checkpoint would name objects
//! the store no longer has, and look complete. So the store keeps a ledger of its packs
//! (`agent-guard-packs`: name and size of every pack it wrote, updated after each write and
//! each prune) and every checkpoint compares the ledger with the disk first — one `readdir`
//! and one `stat` per pack, a few microseconds. A pack that is missing, or whose data or
//! index has another size, is damage: the damaged pack is set aside (`objects/damaged/`,
//! never deleted), the private index and the watcher's token are dropped, and the
//! checkpoint is taken in full, storing every content again.

use std::collections::BTreeMap;
use std::os::unix::ffi::OsStrExt as _;
use std::path::Path;

use super::CheckpointStore;
use agent_guard_fsops as fsops;

/// The ledger's file name inside the store.
const LEDGER: &str = "agent-guard-packs";

/// Where damaged packs are set aside.
const DAMAGED_DIR: &str = "damaged";

/// One pack of the ledger that is not on disk as it was written.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PackDamage {
    /// The pack's file name (`pack-<hex>.pack`).
    pub pack: String,
    /// What is wrong with it: `missing`, `truncated` (another size) or `index` (its index
    /// is missing or has another size).
    pub problem: String,
}

/// `name → (pack size, index size)`.
type Ledger = BTreeMap<Vec<u8>, (u64, u64)>;

impl CheckpointStore {
    /// The packs of the ledger that are missing or changed on disk (empty: the store holds
    /// what it wrote). A store without a ledger (older, or new) has no known damage.
    pub fn damage(&self) -> Vec<PackDamage> {
        let ledger = read_ledger(&self.dir.join(LEDGER));
        let now = on_disk(&self.dir);
        let mut damage = Vec::new();
        for (name, (pack, idx)) in &ledger {
            let shown = String::from_utf8_lossy(name).into_owned();
            let present = || {
                self.dir
                    .join("objects")
                    .join("pack")
                    .join(std::ffi::OsStr::from_bytes(name))
                    .exists()
            };
            let problem = match now.get(name) {
                None => "missing",
                Some((p, _)) if p != pack && !present() => "missing",
                Some((p, _)) if p != pack => "truncated",
                Some((_, i)) if i != idx => "index",
                Some(_) => continue,
            };
            damage.push(PackDamage {
                pack: shown,
                problem: problem.to_owned(),
            });
        }
        damage
    }

    /// Sets the damaged packs aside and drops what names their objects (the private index
    /// and the watcher's token), so that the next checkpoint is taken in full. Returns the
    /// damage found.
    pub(crate) fn repair(&self) -> Vec<PackDamage> {
        let damage = self.damage();
        if damage.is_empty() {
            return damage;
        }
        let packs = self.dir.join("objects").join("pack");
        let aside = self.dir.join("objects").join(DAMAGED_DIR);
        let _ = fs_err::create_dir_all(&aside);
        for found in &damage {
            let pack = packs.join(&found.pack);
            for ext in ["pack", "idx", "rev", "bitmap"] {
                let path = pack.with_extension(ext);
                if let Some(name) = path.file_name() {
                    let _ = fsops::rename(&path, &aside.join(name));
                }
            }
        }
        let _ = fsops::remove_file(&self.index_path());
        let mut delta = self.index_path().into_os_string();
        delta.push(".delta");
        let _ = fsops::remove_file(Path::new(&delta));
        let _ = fsops::remove_file(&self.dir.join(super::watch::TOKEN_FILE));
        // The store as it is now is what the next ledger records.
        record_packs(&self.dir);
        damage
    }

    /// Records the packs on disk now as the ledger of the store.
    pub(crate) fn record_packs(&self) {
        record_packs(&self.dir);
    }
}

/// Records the packs on disk now as the ledger of the store at `dir` (a record of what the
/// store wrote: when it cannot be written, the old one stays and names fewer packs).
pub(crate) fn record_packs(dir: &Path) {
    let now = on_disk(dir);
    if now == read_ledger(&dir.join(LEDGER)) {
        return;
    }
    let mut text = Vec::new();
    for (name, (pack, idx)) in &now {
        text.extend_from_slice(format!("{pack} {idx} ").as_bytes());
        text.extend_from_slice(name);
        text.push(b'\n');
    }
    let _ = fsops::replace_file(&dir.join(LEDGER), &text);
}

/// Every pack on disk with its data and index sizes (an index without its data, or data
/// without its index, counts with a size of 0 for the missing half).
fn on_disk(dir: &Path) -> Ledger {
    let mut ledger = Ledger::new();
    let Ok(entries) = std::fs::read_dir(dir.join("objects").join("pack")) else {
        return ledger;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let path = Path::new(&name);
        let is_pack = path.extension().is_some_and(|e| e == "pack");
        let is_idx = path.extension().is_some_and(|e| e == "idx");
        if !(is_pack || is_idx) || !name.as_bytes().starts_with(b"pack-") {
            continue;
        }
        let size = entry.metadata().map_or(0, |m| m.len());
        let key = path.with_extension("pack").into_os_string();
        let slot = ledger.entry(key.as_bytes().to_vec()).or_insert((0, 0));
        if is_pack {
            slot.0 = size;
        } else {
            slot.1 = size;
        }
    }
    ledger
}

fn read_ledger(path: &Path) -> Ledger {
    let Ok(text) = std::fs::read(path) else {
        return Ledger::new();
    };
    text.split(|b| *b == b'\n')
        .filter_map(|line| {
            let mut parts = line.splitn(3, |b| *b == b' ');
            let pack: u64 = super::git_objects::number(parts.next())?;
            let idx: u64 = super::git_objects::number(parts.next())?;
            let name = parts.next()?;
            (!name.is_empty()).then(|| (name.to_vec(), (pack, idx)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_removed_or_truncated_pack_is_damage_and_is_set_aside() {
        let dir = tempfile::tempdir().unwrap();
        let store = CheckpointStore::open(dir.path()).unwrap();
        let packs = dir.path().join("objects/pack");
        fs_err::create_dir_all(&packs).unwrap();
        for name in ["pack-aa", "pack-bb", "pack-cc"] {
            fs_err::write(packs.join(format!("{name}.pack")), "PACK data").unwrap();
            fs_err::write(packs.join(format!("{name}.idx")), "index").unwrap();
        }
        assert!(store.damage().is_empty(), "no ledger yet: no known damage");
        store.record_packs();
        assert!(store.damage().is_empty());
        fsops::remove_file(&packs.join("pack-aa.pack")).unwrap();
        fs_err::write(packs.join("pack-bb.pack"), "PA").unwrap();
        let damage = store.repair();
        let found: Vec<(&str, &str)> = damage
            .iter()
            .map(|d| (d.pack.as_str(), d.problem.as_str()))
            .collect();
        assert_eq!(
            found,
            [("pack-aa.pack", "missing"), ("pack-bb.pack", "truncated")]
        );
        assert!(dir.path().join("objects/damaged/pack-bb.pack").exists());
        assert!(!packs.join("pack-bb.idx").exists());
        assert!(packs.join("pack-cc.pack").exists());
        assert!(
            store.damage().is_empty(),
            "repaired: the ledger is the disk now"
        );
    }
}
