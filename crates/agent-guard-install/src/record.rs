//! Install records: what a config file looked like before agent-guard first wrote it, and
//! what agent-guard wrote, so that uninstall can put it back byte for byte.
//!
//! One directory per config file under the state directory
//! (`$XDG_STATE_HOME/agent-guard/installs/<sha256 of the absolute path>/`):
//!
//! - `record.json`: the [`Record`] (written last: it is the commit point);
//! - `original`: the file's bytes before the first install, when it existed;
//! - `written`: the bytes agent-guard last wrote;
//! - `backups/<time>`: the file's bytes before each write agent-guard made (never pruned).
//!
//! A record without owners is retired: it is kept, but a new install starts afresh.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::fsio;

/// The record format version.
const SCHEMA: u32 = 1;

/// The state of one config file agent-guard has written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Record {
    pub(crate) schema: u32,
    /// The config file.
    pub(crate) path: PathBuf,
    /// The file before agent-guard first wrote it, while it can still be restored exactly;
    /// `None` once the file changed outside agent-guard.
    pub(crate) original: Option<Original>,
    /// Directories install created for the file, outermost first.
    pub(crate) created_dirs: Vec<PathBuf>,
    /// The installs that put something into this file (`<harness>@<hook file>`).
    pub(crate) owners: Vec<String>,
    /// Codex trust keys written into this file, as `(owner, key)`.
    #[serde(default)]
    pub(crate) trust_keys: Vec<(String, String)>,
}

/// What the file was before the first install.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Original {
    /// Whether it existed (its bytes are in `original`).
    pub(crate) existed: bool,
    /// Its permission bits, when it existed.
    pub(crate) mode: Option<u32>,
}

impl Record {
    /// A fresh record for `path`.
    pub(crate) fn new(path: &Path, original: Original, created_dirs: Vec<PathBuf>) -> Record {
        Record {
            schema: SCHEMA,
            path: path.to_path_buf(),
            original: Some(original),
            created_dirs,
            owners: Vec::new(),
            trust_keys: Vec::new(),
        }
    }

    /// The trust keys `owner` wrote.
    pub(crate) fn keys_of(&self, owner: &str) -> Vec<String> {
        self.trust_keys
            .iter()
            .filter(|(o, _)| o == owner)
            .map(|(_, key)| key.clone())
            .collect()
    }

    /// Adds `owner` if missing.
    pub(crate) fn add_owner(&mut self, owner: &str) {
        if !self.owners.iter().any(|o| o == owner) {
            self.owners.push(owner.to_owned());
        }
    }

    /// Removes `owner` and its trust keys.
    pub(crate) fn remove_owner(&mut self, owner: &str) {
        self.owners.retain(|o| o != owner);
        self.trust_keys.retain(|(o, _)| o != owner);
    }
}

/// The install records of one user.
#[derive(Debug, Clone)]
pub(crate) struct Store {
    root: PathBuf,
}

impl Store {
    /// The store under `root` (`…/agent-guard/installs`).
    pub(crate) fn new(root: PathBuf) -> Store {
        Store { root }
    }

    /// The record directory of `path`.
    fn dir(&self, path: &Path) -> PathBuf {
        self.root
            .join(hex(&Sha256::digest(path.as_os_str().as_encoded_bytes())))
    }

    /// The live record of `path`: `None` when there is none or it is retired.
    pub(crate) fn load(&self, path: &Path) -> Result<Option<Record>> {
        let file = self.dir(path).join("record.json");
        let Some(bytes) = fsio::read(&file)? else {
            return Ok(None);
        };
        let record: Record = serde_json::from_slice(&bytes).map_err(|error| Error::Record {
            path: file.clone(),
            message: error.to_string(),
        })?;
        Ok(Some(record).filter(|r| !r.owners.is_empty() && r.path == path))
    }

    /// The bytes of the file before the first install (when it existed).
    pub(crate) fn original(&self, path: &Path) -> Result<Option<Vec<u8>>> {
        fsio::read(&self.dir(path).join("original"))
    }

    /// The bytes agent-guard last wrote to `path`.
    pub(crate) fn written(&self, path: &Path) -> Result<Option<Vec<u8>>> {
        fsio::read(&self.dir(path).join("written"))
    }

    /// Stores the original bytes of a new record.
    pub(crate) fn put_original(&self, path: &Path, bytes: &[u8]) -> Result<()> {
        self.put(path, "original", bytes)
    }

    /// Keeps a copy of `bytes`, the file's content before a write.
    pub(crate) fn backup(&self, path: &Path, bytes: &[u8]) -> Result<()> {
        let stamp = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_nanos());
        self.put(path, &format!("backups/{stamp}"), bytes)
    }

    /// Saves `record` along with the bytes agent-guard wrote (`None`: it removed the file).
    pub(crate) fn save(&self, record: &Record, written: Option<&[u8]>) -> Result<()> {
        if let Some(bytes) = written {
            self.put(&record.path, "written", bytes)?;
        }
        let json = serde_json::to_vec_pretty(record).map_err(|error| Error::Record {
            path: self.dir(&record.path).join("record.json"),
            message: error.to_string(),
        })?;
        self.put(&record.path, "record.json", &json)
    }

    /// Retires the record of `path` (uninstall is complete).
    pub(crate) fn retire(&self, path: &Path) -> Result<()> {
        let mut record = Record::new(
            path,
            Original {
                existed: false,
                mode: None,
            },
            Vec::new(),
        );
        record.original = None;
        self.save(&record, None)
    }

    /// Gives `dirs` (created by install for `from`, still not empty) to the live records of
    /// files inside them, so that the last uninstall removes them.
    pub(crate) fn hand_over_dirs(&self, from: &Path, dirs: &[PathBuf]) -> Result<()> {
        if dirs.is_empty() {
            return Ok(());
        }
        let Ok(entries) = fs_err::read_dir(&self.root) else {
            return Ok(());
        };
        for entry in entries.flatten() {
            let file = entry.path().join("record.json");
            let Some(bytes) = fsio::read(&file)? else {
                continue;
            };
            let Ok(mut record) = serde_json::from_slice::<Record>(&bytes) else {
                continue;
            };
            if record.owners.is_empty() || record.path == from {
                continue;
            }
            let mut adopted: Vec<PathBuf> = dirs
                .iter()
                .filter(|dir| record.path.starts_with(dir) && !record.created_dirs.contains(dir))
                .cloned()
                .collect();
            if adopted.is_empty() {
                continue;
            }
            adopted.append(&mut record.created_dirs);
            adopted.sort_by_key(|dir| dir.components().count());
            record.created_dirs = adopted;
            self.save(&record, None)?;
        }
        Ok(())
    }

    fn put(&self, path: &Path, name: &str, bytes: &[u8]) -> Result<()> {
        let file = self.dir(path).join(name);
        fsio::create_parents(&file)?;
        fsio::write_atomic(&file, bytes, 0o600)
    }
}

/// Lower-case hexadecimal of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut out, byte| {
        let _ = write!(out, "{byte:02x}");
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_retire() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path().join("installs"));
        let path = Path::new("/w/.claude/settings.json");
        assert_eq!(store.load(path).unwrap(), None);
        let mut record = Record::new(
            path,
            Original {
                existed: true,
                mode: Some(0o644),
            },
            Vec::new(),
        );
        record.add_owner("claude-code@/w/.claude/settings.json");
        store.put_original(path, b"{}").unwrap();
        store.save(&record, Some(b"{\"hooks\": {}}")).unwrap();
        assert_eq!(store.load(path).unwrap(), Some(record));
        assert_eq!(store.original(path).unwrap().as_deref(), Some(&b"{}"[..]));
        assert_eq!(
            store.written(path).unwrap().as_deref(),
            Some(&b"{\"hooks\": {}}"[..])
        );
        store.retire(path).unwrap();
        assert_eq!(store.load(path).unwrap(), None);
    }
}
