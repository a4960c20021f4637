//! Parsing the index file as it is read (see [`IndexFile::read`](super::IndexFile::read)).

use std::io::Read;

use super::{ENTRY_FIXED, Entry, FLAG_EXTENDED, FLAG_NAME, FLAG_STAGE, IndexFile, OID_SIZE};

/// Why parsing stopped.
pub(super) enum Stop {
    /// A format this parser leaves to libgit2 (which then reports the details).
    Unsupported,
    /// The file could not be read.
    Io(std::io::Error),
}

/// The size of the read buffer: the index is parsed as it is read, so a 100,000-entry index
/// (9 MB) costs no 9 MB allocation (and its page faults and `munmap`), only this.
pub(super) const BUFFER: usize = 128 * 1024;
/// The longest name accepted (git's own limit is far below).
const MAX_NAME: usize = 1 << 20;

/// Parses `total` bytes of index from `source`.
pub(super) fn parse(source: impl Read, total: usize) -> Result<IndexFile, Stop> {
    let mut reader = Reader {
        source,
        buffer: vec![0; BUFFER.min(total.max(64))],
        start: 0,
        end: 0,
        at: 0,
    };
    if reader.take(4)? != b"DIRC" {
        return Err(Stop::Unsupported);
    }
    let version = reader.u32()?;
    if !(2..=4).contains(&version) {
        return Err(Stop::Unsupported);
    }
    let count = reader.u32()? as usize;
    // Every entry takes at least its fixed part and a NUL: a bogus count cannot make us
    // reserve more than the file could hold.
    if count > total / (ENTRY_FIXED + 1) {
        return Err(Stop::Unsupported);
    }
    let mut index = IndexFile {
        paths: Vec::with_capacity(total / 3),
        entries: Vec::with_capacity(count),
    };
    let mut previous: (usize, usize) = (0, 0);
    for _ in 0..count {
        let entry_start = reader.at;
        let mut fixed = [0; ENTRY_FIXED];
        fixed.copy_from_slice(reader.take(ENTRY_FIXED)?);
        let mode = u32::from_be_bytes([fixed[24], fixed[25], fixed[26], fixed[27]]);
        let flags = u16::from_be_bytes([fixed[ENTRY_FIXED - 2], fixed[ENTRY_FIXED - 1]]);
        if flags & FLAG_EXTENDED != 0 {
            if version < 3 {
                return Err(Stop::Unsupported);
            }
            reader.take(2)?;
        }
        let start = index.paths.len();
        if version == 4 {
            let strip = reader.varint()?;
            let (previous_start, previous_len) = previous;
            if strip > previous_len {
                return Err(Stop::Unsupported);
            }
            index
                .paths
                .extend_from_within(previous_start..previous_start + previous_len - strip);
            let suffix = reader.until_nul()?;
            index.paths.extend_from_slice(suffix);
        } else {
            let name = reader.until_nul()?;
            if usize::from(flags & FLAG_NAME) != name.len().min(usize::from(FLAG_NAME)) {
                return Err(Stop::Unsupported);
            }
            index.paths.extend_from_slice(name);
            // Entries are padded with NULs to a multiple of 8 bytes (the name's NUL counts).
            let used = reader.at - entry_start;
            let padded = (used + 7) & !7;
            reader.take(padded - used)?;
        }
        let len = index.paths.len() - start;
        previous = (start, len);
        index.entries.push(Entry {
            start: u32::try_from(start).map_err(|_| Stop::Unsupported)?,
            len: u32::try_from(len).map_err(|_| Stop::Unsupported)?,
            mode,
            stage: u8::try_from((flags & FLAG_STAGE) >> 12).map_err(|_| Stop::Unsupported)?,
        });
    }
    // Extensions, then the checksum.
    let left = |reader: &Reader<_>| total.checked_sub(reader.at).ok_or(Stop::Unsupported);
    while left(&reader)? > OID_SIZE {
        let signature = reader.take(4)?[0];
        let size = reader.u32()? as usize;
        reader.skip(size)?;
        // Lower-case extensions must be understood (git's rule); `link` and `sdir` are
        // the split and sparse index, which change what the entries mean.
        if !signature.is_ascii_uppercase() {
            return Err(Stop::Unsupported);
        }
    }
    if left(&reader)? != OID_SIZE {
        return Err(Stop::Unsupported);
    }
    Ok(index)
}

/// A cursor over the file's bytes, read a buffer at a time.
struct Reader<R> {
    source: R,
    buffer: Vec<u8>,
    /// The unconsumed bytes are `buffer[start..end]`.
    start: usize,
    end: usize,
    /// Bytes consumed from the start of the file.
    at: usize,
}

impl<R: Read> Reader<R> {
    /// Makes at least `n` unconsumed bytes available; the end of the file is malformed.
    fn fill(&mut self, n: usize) -> Result<(), Stop> {
        if self.end - self.start >= n {
            return Ok(());
        }
        self.buffer.copy_within(self.start..self.end, 0);
        self.end -= self.start;
        self.start = 0;
        if self.buffer.len() < n {
            self.buffer.resize(n.max(self.buffer.len() * 2), 0);
        }
        while self.end < n {
            let read = match self.source.read(&mut self.buffer[self.end..]) {
                Ok(0) => return Err(Stop::Unsupported),
                Ok(read) => read,
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(Stop::Io(error)),
            };
            self.end += read;
        }
        Ok(())
    }

    fn take(&mut self, n: usize) -> Result<&[u8], Stop> {
        self.fill(n)?;
        let start = self.start;
        self.start += n;
        self.at += n;
        Ok(&self.buffer[start..start + n])
    }

    /// Consumes `n` bytes without keeping them.
    fn skip(&mut self, mut n: usize) -> Result<(), Stop> {
        while n > 0 {
            let part = n.min(BUFFER);
            self.take(part)?;
            n -= part;
        }
        Ok(())
    }

    fn u32(&mut self) -> Result<u32, Stop> {
        let bytes = self.take(4)?;
        Ok(u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }

    /// The NUL-terminated bytes at the cursor (the NUL consumed).
    fn until_nul(&mut self) -> Result<&[u8], Stop> {
        let mut searched = 0;
        let len = loop {
            let unconsumed = &self.buffer[self.start + searched..self.end];
            if let Some(at) = memchr::memchr(0, unconsumed) {
                break searched + at;
            }
            searched = self.end - self.start;
            if searched > MAX_NAME {
                return Err(Stop::Unsupported);
            }
            self.fill(searched + 1)?;
        };
        let start = self.start;
        self.start += len + 1;
        self.at += len + 1;
        Ok(&self.buffer[start..start + len])
    }

    /// Git's offset varint (`decode_varint`).
    fn varint(&mut self) -> Result<usize, Stop> {
        let mut byte = self.take(1)?[0];
        let mut value = usize::from(byte & 0x7f);
        while byte & 0x80 != 0 {
            byte = self.take(1)?[0];
            value = value
                .checked_add(1)
                .and_then(|v| v.checked_mul(128))
                .and_then(|v| v.checked_add(usize::from(byte & 0x7f)))
                .ok_or(Stop::Unsupported)?;
        }
        Ok(value)
    }
}
