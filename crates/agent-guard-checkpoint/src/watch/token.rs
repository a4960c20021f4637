//! Tokens: the number a watcher gave a checkpoint, and the small file that keeps the last
//! checkpoint's token with its commit, so that an unchanged workspace is answered without
//! the private index.

use std::hash::{Hash as _, Hasher as _};
use std::path::Path;

use git2::Oid;

use super::super::Selection;

/// A watcher's number for what it had heard when it answered: its instance (new for every
/// watcher process) and the count of events it had numbered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Token {
    /// The watcher process's own id.
    pub instance: [u8; 16],
    /// The number of the last event it had heard.
    pub seq: u64,
}

impl Token {
    /// The token as the request and the reply spell it: `<32 hex digits>:<seq>`.
    pub fn encode(&self) -> String {
        format!("{:032x}:{}", u128::from_be_bytes(self.instance), self.seq)
    }

    /// Parses [`Token::encode`]'s spelling.
    pub fn decode(text: &str) -> Option<Token> {
        let (instance, seq) = text.split_once(':')?;
        if instance.len() != 32 {
            return None;
        }
        let mut bytes = [0u8; 16];
        for (at, byte) in bytes.iter_mut().enumerate() {
            *byte = u8::from_str_radix(instance.get(at * 2..at * 2 + 2)?, 16).ok()?;
        }
        Some(Token {
            instance: bytes,
            seq: seq.parse().ok()?,
        })
    }
}

/// A digest of what a checkpoint keeps (`selection`): the token file's shortcut holds only
/// for the selection it was taken with.
pub fn fingerprint(selection: &Selection) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    filter_digest(selection).hash(&mut hasher);
    selection.max_file_bytes.hash(&mut hasher);
    hasher.finish()
}

/// A digest of what decides what a checkpoint leaves out: the workspace, the directories
/// never entered, the artifact patterns and whether artifacts are left out. A watcher
/// started for another digest does not watch what the checkpoint keeps.
pub fn filter_digest(selection: &Selection) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    selection.workspace.hash(&mut hasher);
    selection.skip.hash(&mut hasher);
    selection.artifacts.hash(&mut hasher);
    selection.skip_regenerable.hash(&mut hasher);
    hasher.finish()
}

/// The token file: the last checkpoint's token, the selection's fingerprint, its commit,
/// and what [`crate::Taken`] reports of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FastToken {
    pub(crate) token: Token,
    pub(crate) fingerprint: u64,
    pub(crate) commit: Oid,
    pub(crate) files: u64,
    pub(crate) bytes: u64,
    pub(crate) meta: Vec<u8>,
    /// It kept a file with more than one name: such a file can change through a name no
    /// watch hears, so the next checkpoint must look at it even when nothing was heard.
    pub(crate) linked: bool,
}

const MAGIC: &[u8; 8] = b"AGWATCH2";

impl FastToken {
    /// The checkpoint it names, as [`crate::CheckpointStore::take`] reports it: nothing
    /// hashed, nothing new.
    pub(crate) fn taken(&self, watcher: crate::WatcherState) -> crate::Taken {
        crate::Taken {
            commit: self.commit.to_string(),
            files: self.files,
            bytes: self.bytes,
            hashed: 0,
            new_objects: 0,
            new_bytes: 0,
            not_kept: crate::meta::Meta::decode(&self.meta).not_kept,
            watcher,
            repaired: Vec::new(),
        }
    }

    /// Reads the token file at `path`; anything missing, torn or damaged is `None`.
    pub(crate) fn read(path: &Path) -> Option<FastToken> {
        let bytes = fs_err::read(path).ok()?;
        crate::stat_cache::verify(&bytes)?;
        let body = bytes.get(..bytes.len() - 8)?;
        let mut cursor = Cursor { bytes: body, at: 0 };
        if cursor.take(8)? != MAGIC {
            return None;
        }
        let instance: [u8; 16] = cursor.take(16)?.try_into().ok()?;
        let seq = cursor.u64()?;
        let fingerprint = cursor.u64()?;
        let commit = Oid::from_bytes(cursor.take(20)?).ok()?;
        let files = cursor.u64()?;
        let bytes_kept = cursor.u64()?;
        let meta_len = usize::try_from(cursor.u64()?).ok()?;
        let meta = cursor.take(meta_len)?.to_vec();
        let linked = cursor.take(1)? == [1];
        Some(FastToken {
            token: Token { instance, seq },
            fingerprint,
            commit,
            files,
            bytes: bytes_kept,
            meta,
            linked,
        })
    }

    /// Writes the token file at `path` (a temporary file renamed over it). It is not
    /// flushed: after a crash it is an older token file or none, and an older token only
    /// asks the watcher for more.
    pub(crate) fn write(&self, path: &Path) -> std::io::Result<()> {
        let mut out = Vec::with_capacity(96 + self.meta.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&self.token.instance);
        out.extend_from_slice(&self.token.seq.to_le_bytes());
        out.extend_from_slice(&self.fingerprint.to_le_bytes());
        out.extend_from_slice(self.commit.as_bytes());
        out.extend_from_slice(&self.files.to_le_bytes());
        out.extend_from_slice(&self.bytes.to_le_bytes());
        out.extend_from_slice(&(self.meta.len() as u64).to_le_bytes());
        out.extend_from_slice(&self.meta);
        out.push(u8::from(self.linked));
        // The index files' writer: the checksum appended, a temporary file renamed over.
        crate::stat_cache::finish(path, out, false)
    }
}

/// Reads a token file's fields in order.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let slice = self.bytes.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(slice)
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_reads_back_as_written_and_a_damaged_one_not_at_all() {
        let token = Token {
            instance: [7; 16],
            seq: 42,
        };
        assert_eq!(Token::decode(&token.encode()), Some(token));
        assert_eq!(Token::decode("07:42"), None);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t");
        let fast = FastToken {
            token,
            fingerprint: 9,
            commit: Oid::from_bytes(&[3; 20]).unwrap(),
            files: 10,
            bytes: 100,
            meta: b"agent-guard-checkpoint 2\0".to_vec(),
            linked: true,
        };
        fast.write(&path).unwrap();
        assert_eq!(FastToken::read(&path), Some(fast));
        let mut bytes = fs_err::read(&path).unwrap();
        bytes[20] ^= 1;
        fs_err::write(&path, &bytes).unwrap();
        assert_eq!(FastToken::read(&path), None);
    }
}
