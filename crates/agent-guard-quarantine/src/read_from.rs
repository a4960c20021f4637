//! Where crash reconciliation may start reading the manifest: an offset kept in the file
//! `manifest.checkpoint` (its historical name, kept so that existing stores are read; in the
//! code "checkpoint" means a workspace checkpoint only, so this is the read-from mark).
//!
//! Reconciliation looks for `relocate-intent` records without an outcome. Reading the whole
//! manifest for that on every relocation makes `check --enforce` and `safe-delete` slower
//! with every transaction ever made (about 30 ms at 10,000 transactions). The checkpoint
//! records a manifest offset before which no intent is open, so only the records after it
//! are read.
//!
//! The claim is written only when it is durable and true:
//! - it is taken under the writers' lock right after reconciliation, when every intent in
//!   the bytes read is closed, and intents are only ever written under that lock;
//! - it is stored only after a durable (`fdatasync`) manifest append that followed it, so
//!   the outcome records it relies on cannot be lost in a crash;
//! - the manifest is append-only, so the prefix it covers never changes.
//!
//! The file itself is a cache: it is written without `fsync`, and a missing, torn, stale or
//! foreign checkpoint (its offset past the end of the manifest, not at a line start, or the
//! bytes before it different from the ones recorded) is ignored and the whole manifest is
//! read, as before.

use std::io::{Read, Seek as _, SeekFrom};
use std::path::{Path, PathBuf};

use agent_guard_fsops::state::Access;
use serde::{Deserialize, Serialize};

/// The read-from mark's file name under the quarantine root (historical).
pub(crate) const READ_FROM_FILE_NAME: &str = "manifest.checkpoint";

/// How many manifest bytes before the offset the checkpoint records, to recognise them.
const TAIL_LEN: u64 = 64;

/// The stored form.
#[derive(Debug, Serialize, Deserialize)]
struct Stored {
    schema: u32,
    offset: u64,
    /// Hex of the (up to) [`TAIL_LEN`] manifest bytes that end at `offset`.
    tail: String,
}

/// A manifest offset before which every intent is closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Closed(pub(crate) u64);

/// The unread part of the manifest: the bytes from a trusted offset on.
#[derive(Debug)]
pub(crate) struct Unread {
    /// Where `bytes` start in the manifest (0 without a valid checkpoint).
    pub(crate) start: u64,
    /// The manifest's bytes from `start` on.
    pub(crate) bytes: Vec<u8>,
}

impl Unread {
    /// The offset just past the last complete line read: every intent before it is closed
    /// once reconciliation has resolved the open ones.
    pub(crate) fn closed_after_reconcile(&self) -> Closed {
        let complete = self
            .bytes
            .iter()
            .rposition(|b| *b == b'\n')
            .map_or(0, |i| i + 1);
        Closed(self.start + complete as u64)
    }
}

fn path(trash: &Path) -> PathBuf {
    trash.join(READ_FROM_FILE_NAME)
}

/// Reads `manifest` from the checkpoint of `trash` on, or whole when the checkpoint is
/// missing or does not match the manifest. A missing manifest reads as empty.
pub(crate) fn read_unread(trash: &Path, manifest: &Path) -> std::io::Result<Unread> {
    let mut file = match agent_guard_fsops::state::open_file(manifest, Access::Read) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Unread {
                start: 0,
                bytes: Vec::new(),
            });
        }
        Err(e) => return Err(e),
    };
    if let Some(unread) = stored(trash).and_then(|s| read_after(&mut file, &s).ok().flatten()) {
        return Ok(unread);
    }
    let mut bytes = Vec::new();
    file.seek(SeekFrom::Start(0))?;
    file.read_to_end(&mut bytes)?;
    Ok(Unread { start: 0, bytes })
}

fn stored(trash: &Path) -> Option<Stored> {
    let mut text = Vec::new();
    agent_guard_fsops::state::open_file(&path(trash), Access::Read)
        .ok()?
        .take(4096)
        .read_to_end(&mut text)
        .ok()?;
    let stored: Stored = serde_json::from_slice(&text).ok()?;
    (stored.schema == 1 && stored.offset > 0).then_some(stored)
}

/// The bytes after `stored.offset`, or `None` when the bytes before it are not the ones
/// the checkpoint recorded.
fn read_after(file: &mut std::fs::File, stored: &Stored) -> std::io::Result<Option<Unread>> {
    if stored.offset > file.metadata()?.len() {
        return Ok(None);
    }
    let (mut bytes, split) = read_around(file, stored.offset)?;
    if bytes.len() < split || bytes[split - 1] != b'\n' || hex(&bytes[..split]) != stored.tail {
        return Ok(None);
    }
    Ok(Some(Unread {
        start: stored.offset,
        bytes: bytes.split_off(split),
    }))
}

/// The manifest's bytes from [`TAIL_LEN`] before `offset` (> 0) to its end, and where
/// `offset` falls in them.
fn read_around(file: &mut std::fs::File, offset: u64) -> std::io::Result<(Vec<u8>, usize)> {
    let tail_start = offset.saturating_sub(TAIL_LEN);
    file.seek(SeekFrom::Start(tail_start))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    let split = usize::try_from(offset - tail_start).map_err(std::io::Error::other)?;
    Ok((bytes, split))
}

/// Records `closed` for `manifest`. Best effort: a checkpoint that cannot be written only
/// means the next reconciliation reads more. Call only after a durable manifest append
/// that followed the reconciliation `closed` came from.
pub(crate) fn store(trash: &Path, manifest: &Path, closed: Closed) {
    let Closed(offset) = closed;
    if offset == 0 {
        return;
    }
    let Ok((bytes, split)) = agent_guard_fsops::state::open_file(manifest, Access::Read)
        .and_then(|mut file| read_around(&mut file, offset))
    else {
        return;
    };
    let Some(tail) = bytes.get(..split) else {
        return;
    };
    let stored = Stored {
        schema: 1,
        offset,
        tail: hex(tail),
    };
    if let Ok(text) = serde_json::to_vec(&stored) {
        let _ = overwrite(&path(trash), &text);
    }
}

/// Writes `text` over the file at `path` in place: truncating a file to zero first costs a
/// block release and, on ext4, a forced flush of the rewrite; a torn result is only an
/// ignored checkpoint.
fn overwrite(path: &Path, text: &[u8]) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt as _;
    // Not through a link, a FIFO or another user's file planted at its name.
    let file = agent_guard_fsops::state::open_file(path, Access::Update)?;
    file.write_all_at(text, 0)?;
    let len = text.len() as u64;
    if file.metadata()?.len() != len {
        file.set_len(len)?;
    }
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(n: usize, tag: &str) -> Vec<u8> {
        (0..n)
            .flat_map(|i| {
                format!("{{\"type\":\"purged\",\"txid\":\"{tag}-{i:04}\"}}\n").into_bytes()
            })
            .collect()
    }

    fn setup(prefix: &[u8]) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join("manifest.jsonl");
        std::fs::write(&manifest, prefix).unwrap();
        (dir, manifest)
    }

    fn append(manifest: &Path, bytes: &[u8]) {
        use std::io::Write as _;
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(manifest)
            .unwrap();
        file.write_all(bytes).unwrap();
    }

    #[test]
    fn a_shorter_checkpoint_replaces_a_longer_one_whole() {
        let dir = tempfile::tempdir().unwrap();
        let at = dir.path().join(READ_FROM_FILE_NAME);
        overwrite(&at, b"{\"schema\":1,\"offset\":123456}").unwrap();
        overwrite(&at, b"{\"offset\":7}").unwrap();
        assert_eq!(std::fs::read(&at).unwrap(), b"{\"offset\":7}");
        overwrite(&at, b"{\"offset\":700}").unwrap();
        assert_eq!(std::fs::read(&at).unwrap(), b"{\"offset\":700}");
    }

    #[test]
    fn reading_starts_after_a_matching_checkpoint() {
        let prefix = lines(50, "old");
        let (dir, manifest) = setup(&prefix);
        store(dir.path(), &manifest, Closed(prefix.len() as u64));
        let rest = lines(3, "new");
        append(&manifest, &rest);
        let unread = read_unread(dir.path(), &manifest).unwrap();
        assert_eq!(unread.start, prefix.len() as u64);
        assert_eq!(unread.bytes, rest);
        assert_eq!(
            unread.closed_after_reconcile(),
            Closed((prefix.len() + rest.len()) as u64)
        );
    }

    #[test]
    fn a_checkpoint_that_does_not_match_the_manifest_is_ignored() {
        let prefix = lines(50, "old");
        let (dir, manifest) = setup(&prefix);
        store(dir.path(), &manifest, Closed(prefix.len() as u64));
        let whole = |manifest: &Path| {
            let unread = read_unread(dir.path(), manifest).unwrap();
            assert_eq!(unread.start, 0);
            assert_eq!(unread.bytes, std::fs::read(manifest).unwrap());
        };
        // A manifest replaced by another one, longer, with other bytes before the offset.
        std::fs::write(&manifest, lines(80, "other")).unwrap();
        whole(&manifest);
        // Shorter than the offset (truncated, or lost in a crash).
        std::fs::write(&manifest, &prefix[..prefix.len() - 10]).unwrap();
        whole(&manifest);
        // The offset no longer at a line start (bytes inserted before it).
        let mut shifted = b"{}".to_vec();
        shifted.extend_from_slice(&prefix);
        std::fs::write(&manifest, &shifted).unwrap();
        whole(&manifest);
        // A torn or foreign checkpoint file.
        std::fs::write(&manifest, &prefix).unwrap();
        for text in [
            "{\"schema\":1,\"offs",
            "[]",
            "",
            "{\"schema\":2,\"offset\":10,\"tail\":\"\"}",
        ] {
            std::fs::write(path(dir.path()), text).unwrap();
            whole(&manifest);
        }
    }

    #[test]
    fn a_torn_last_line_is_not_counted_as_closed() {
        let (dir, manifest) = setup(b"");
        let mut bytes = lines(2, "a");
        let complete = bytes.len();
        bytes.extend_from_slice(b"{\"type\":\"relocate-int");
        std::fs::write(&manifest, &bytes).unwrap();
        let unread = read_unread(dir.path(), &manifest).unwrap();
        assert_eq!(unread.closed_after_reconcile(), Closed(complete as u64));
    }

    #[test]
    fn a_missing_manifest_reads_empty_and_offset_zero_is_never_stored() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join("manifest.jsonl");
        let unread = read_unread(dir.path(), &manifest).unwrap();
        assert!(unread.bytes.is_empty());
        store(dir.path(), &manifest, Closed(0));
        assert!(!path(dir.path()).exists());
    }
}
