//! `manifest.jsonl`: the recovery journal. Append-only and durable.

use std::fs::File;
use std::io::{Read as _, Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};

use crate::error::QuarantineError;
use crate::read_from::{self, Closed, Unread};
use crate::records::Record;
use agent_guard_fsops as fsops;

/// The manifest's file name under the quarantine root.
pub const MANIFEST_FILE_NAME: &str = "manifest.jsonl";

/// The recovery journal at `<trash>/manifest.jsonl`.
#[derive(Debug, Clone)]
pub struct Manifest {
    path: PathBuf,
}

impl Manifest {
    /// A handle on `<trash>/manifest.jsonl`; nothing is opened.
    pub fn new(trash: &Path) -> Manifest {
        Manifest {
            path: trash.join(MANIFEST_FILE_NAME),
        }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `records` as one write and makes them durable (`fdatasync`, and a directory
    /// `fsync` when the file is new) before returning. Serialised across processes by an
    /// exclusive lock on the file. A torn last line from an earlier crash is terminated
    /// first, so it stays a single unreadable line instead of corrupting this one.
    pub fn append(&self, records: &[Record]) -> Result<(), QuarantineError> {
        self.write(records, true).map(drop)
    }

    /// Appends `records` as one write, without waiting for the disk. Only for records whose
    /// loss crash reconciliation repairs (a `relocate` outcome after its durable intent).
    pub fn append_relaxed(&self, records: &[Record]) -> Result<(), QuarantineError> {
        self.write(records, false).map(drop)
    }

    /// Appends `records` as one write and returns the file, whose `fdatasync` the caller
    /// runs beside other flushes (one durability epoch) before anything relies on them. A new
    /// file's directory entry is synced here.
    pub fn append_deferred(&self, records: &[Record]) -> Result<File, QuarantineError> {
        self.write(records, false)?
            .ok_or_else(|| self.error(std::io::Error::other("nothing to append")))
    }

    fn write(&self, records: &[Record], durable: bool) -> Result<Option<File>, QuarantineError> {
        if records.is_empty() {
            return Ok(None);
        }
        let mut bytes = Vec::new();
        for record in records {
            serde_json::to_writer(&mut bytes, record)
                .map_err(|e| self.error(std::io::Error::other(e)))?;
            bytes.push(b'\n');
        }
        let created = !self.path.exists();
        let mut file = fsops::state::open_file(&self.path, fsops::state::Access::Append)
            .map_err(|e| self.error(e))?;
        file.lock().map_err(|e| self.error(e))?;
        let result = (|| {
            if ends_torn(&mut file)? {
                bytes.insert(0, b'\n');
            }
            file.write_all(&bytes)?;
            if durable { file.sync_data() } else { Ok(()) }
        })();
        let _ = file.unlock();
        result.map_err(|e| self.error(e))?;
        if let Some(dir) = self.path.parent().filter(|_| created) {
            fsops::sync_dir(dir).map_err(|e| self.error(e))?;
        }
        Ok(Some(file))
    }

    /// Reads every record, oldest first. A missing file holds none; blank, torn and
    /// unknown lines are skipped.
    pub fn read(&self) -> Result<Vec<Record>, QuarantineError> {
        let read = || -> std::io::Result<Vec<u8>> {
            let mut bytes = Vec::new();
            fsops::state::open_file(&self.path, fsops::state::Access::Read)?
                .read_to_end(&mut bytes)?;
            Ok(bytes)
        };
        let text = match read() {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(self.error(e)),
        };
        Ok(parse(&text))
    }

    /// Reads the part of the manifest after its checkpoint (all of it without a valid one):
    /// the only part that can hold an open intent.
    pub(crate) fn read_unread(&self) -> Result<Unread, QuarantineError> {
        let trash = self.path.parent().unwrap_or(Path::new("."));
        read_from::read_unread(trash, &self.path).map_err(|e| self.error(e))
    }

    /// Records that every intent before `closed` is resolved (see [`read_from`]). Call only
    /// after a durable append that followed the reconciliation `closed` came from.
    pub(crate) fn store_checkpoint(&self, closed: Closed) {
        let trash = self.path.parent().unwrap_or(Path::new("."));
        read_from::store(trash, &self.path, closed);
    }

    fn error(&self, source: std::io::Error) -> QuarantineError {
        QuarantineError::Manifest {
            path: self.path.clone(),
            source,
        }
    }
}

/// Parses manifest bytes; blank, torn and unknown lines are skipped.
pub(crate) fn parse(bytes: &[u8]) -> Vec<Record> {
    bytes
        .split(|b| *b == b'\n')
        .filter(|line| !line.iter().all(u8::is_ascii_whitespace))
        .filter_map(|line| serde_json::from_slice::<Record>(line).ok())
        .collect()
}

/// Returns `true` if the file is non-empty and does not end with a newline.
fn ends_torn(file: &mut std::fs::File) -> std::io::Result<bool> {
    let length = file.seek(SeekFrom::End(0))?;
    if length == 0 {
        return Ok(false);
    }
    file.seek(SeekFrom::End(-1))?;
    let mut last = [0u8; 1];
    file.read_exact(&mut last)?;
    Ok(last[0] != b'\n')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::{MANIFEST_SCHEMA, Purged};

    fn purged(txid: &str) -> Record {
        Record::Purged(Purged {
            txid: txid.into(),
            ts: "2026-01-01T00:00:00Z".into(),
            schema: MANIFEST_SCHEMA,
        })
    }

    #[test]
    fn append_and_read_round_trip_and_skip_torn_lines() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = Manifest::new(dir.path());
        assert!(manifest.read().unwrap().is_empty());
        manifest.append(&[purged("a"), purged("b")]).unwrap();
        // A crash mid-write leaves a torn line.
        std::fs::OpenOptions::new()
            .append(true)
            .open(manifest.path())
            .unwrap()
            .write_all(b"{\"type\":\"pur")
            .unwrap();
        manifest.append(&[purged("c")]).unwrap();
        let ids: Vec<String> = manifest
            .read()
            .unwrap()
            .iter()
            .map(|r| r.txid().to_owned())
            .collect();
        assert_eq!(ids, ["a", "b", "c"]);
    }
}
