//! Packs: the objects an incremental checkpoint adds (the changed files' blobs, the trees
//! above them, the commit) are gathered in memory ([`NewObjects`]) and written as one pack
//! file with its index, rather than one loose file each: two files created instead of
//! hundreds, which is what a checkpoint of a hundred changed files spent most of its time
//! on. The pack is written plainly (no deltas, zlib's stored blocks), streamed to its file,
//! renamed into place, and flushed before the guard answers ([`PackFlushing`]). A checkpoint
//! that adds more than
//! [`PACK_BYTES`] (the first one of a large workspace) writes a pack each time its hashing
//! threads have staged that much, so its memory stays bounded.
//!
//! Packs accumulate one per changed checkpoint; [`consolidate`] merges the small ones when
//! there are more than [`MAX_PACKS`] (copying their entries as they are), and a prune rewrites every pack holding an object no
//! live checkpoint reaches ([`rewrite`]), both with libgit2's pack builder (deltas, full
//! compression). A new pack is always complete (written, then renamed into place) before
//! an old one is deleted, so every object stays readable at every step; a crash leaves at
//! worst an object in two packs.

use std::collections::HashSet;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use flate2::{Compress, Compression, FlushCompress, Status};
use git2::{Buf, ObjectType, Odb, Oid, Repository};
use sha1::Digest as _;

use super::object_id::{Vetting, fast_id};

use agent_guard_fsops as fsops;

/// Creates a new pack or index file readable by its owner only: it holds the contents of
/// files that may be private (a `0600` file's bytes are never more readable in the store).
fn private_file(path: &Path) -> std::io::Result<fs_err::File> {
    use fs_err::os::unix::fs::OpenOptionsExt as _;
    fs_err::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
}

/// Staged content is written as a pack once it exceeds this size.
pub(crate) const PACK_BYTES: u64 = 16 << 20;

/// More packs than this are merged ([`consolidate`]).
pub(crate) const MAX_PACKS: usize = 32;

/// One pack of the store.
#[derive(Debug)]
pub(crate) struct Pack {
    /// The pack's index file (`pack-<sha>.idx`).
    pub(crate) idx: PathBuf,
    /// The objects it holds.
    pub(crate) ids: Vec<Oid>,
}

impl Pack {
    /// The pack file and every companion of its index (`.pack`, `.idx`, `.rev`, `.keep`…).
    fn files(&self) -> Vec<PathBuf> {
        ["pack", "idx", "rev", "keep", "bitmap", "promisor", "mtimes"]
            .iter()
            .map(|extension| self.idx.with_extension(extension))
            .collect()
    }

    /// The pack's size on disk.
    pub(crate) fn bytes(&self) -> u64 {
        self.files()
            .iter()
            .filter_map(|file| fs_err::metadata(file).ok())
            .map(|m| m.len())
            .sum()
    }

    fn remove(&self) {
        // The index last: a pack file without an index is ignored, the reverse is not.
        for file in self.files().iter().rev() {
            let _ = fsops::remove_file(file);
        }
    }
}

/// The objects one checkpoint adds, in memory until they are written as a pack
/// ([`NewObjects::flush_over`], [`NewObjects::write`]).
#[derive(Debug, Default)]
pub(crate) struct NewObjects {
    ids: HashSet<Oid>,
    objects: Vec<(Oid, Staged)>,
    /// The content of the small objects staged ([`Staged::Small`]), one after the other.
    small: Vec<u8>,
    /// Bytes staged in `objects`.
    staged: u64,
    /// Objects already written in packs of their own.
    written: usize,
    /// The flushes of the packs written so far.
    flushing: PackFlushing,
    /// The collision checks of the ids [`NewObjects::add_unchecked`] computed.
    vetting: Vetting,
}

/// The flushes of a checkpoint's new packs, in progress: every pack, its index and their
/// directory; and the collision checks of the ids computed without one. A checkpoint is
/// only durable and sound once [`PackFlushing::wait`] returns, which its caller does after
/// starting its own journal record's flush, so that both share the file system's commit.
#[derive(Debug, Default)]
#[must_use = "a checkpoint is not durable until its packs are flushed"]
pub(crate) struct PackFlushing {
    syncs: Vec<agent_guard_fsops::SyncInFlight>,
    vetting: Vec<Vetting>,
}

impl PackFlushing {
    /// Waits until every new pack is on disk and every id is checked; `Err` says why one
    /// may not be on disk, or what the check found.
    ///
    /// # Errors
    /// A flush failed (the checkpoint may not survive a crash), or an object carries a
    /// SHA-1 collision attack (the checkpoint must not be relied on).
    pub(crate) fn wait(self) -> Result<(), String> {
        let synced = self
            .syncs
            .iter()
            .try_for_each(agent_guard_fsops::SyncInFlight::wait);
        let vetted = self.vetting.into_iter().try_for_each(Vetting::finish);
        synced.and(vetted)
    }

    fn extend(&mut self, other: PackFlushing) {
        self.syncs.extend(other.syncs);
        self.vetting.extend(other.vetting);
    }
}

/// Objects up to this size are staged in [`NewObjects`]' shared buffer rather than in an
/// allocation each: a first checkpoint of 100,000 small files stages 100,000 of them
/// (issue 38: its peak memory).
const SMALL_BYTES: usize = 4096;

/// The most of an entry held at once while it is written to its pack.
const STREAM_CHUNK: usize = 64 << 10;

/// One object of a pack being written.
#[derive(Debug)]
enum Staged {
    /// Its content, to be stored.
    Content(ObjectType, Vec<u8>),
    /// A small object's content: where it starts in the shared buffer, and its length.
    Small(ObjectType, u32, u32),
    /// A whole entry copied from another pack (header and zlib stream) and its CRC-32.
    Entry(Vec<u8>, u32),
}

impl Staged {
    fn len(&self) -> usize {
        match self {
            Staged::Content(_, bytes) | Staged::Entry(bytes, _) => bytes.len(),
            Staged::Small(_, _, len) => *len as usize,
        }
    }
}

impl NewObjects {
    /// Adds an object unless the store or this pack already has it; returns its id.
    #[cfg(test)]
    pub(crate) fn add(
        &mut self,
        odb: &Odb<'_>,
        kind: ObjectType,
        content: Vec<u8>,
    ) -> Result<Oid, git2::Error> {
        let id = super::object_id::object_id(kind, &content)?;
        // No refresh: a miss would re-read the pack directory (libgit2 refreshes on a
        // failed lookup); at worst an object packed meanwhile is stored again.
        if !self.ids.contains(&id) && !odb.exists_ext(id, git2::OdbLookupFlags::NO_REFRESH) {
            self.stage_content(id, kind, content);
        }
        Ok(id)
    }

    /// Adds an object without asking the store whether it has it; returns its id. For the
    /// trees a checkpoint rebuilds: a directory rebuilt because its content changed is
    /// almost always new, and looking a missing object up searches every pack. At worst a
    /// tree the store has (a directory changed back) is stored once more, in another pack,
    /// which git and libgit2 read the same; merging packs keeps one copy.
    ///
    /// The id is computed without collision detection, which runs in the background
    /// ([`Vetting`]) and is waited for with the flushes.
    pub(crate) fn add_unchecked(&mut self, kind: ObjectType, content: Vec<u8>) -> Oid {
        let id = fast_id(kind, &content);
        if !self.ids.contains(&id) {
            self.vetting.vet(kind, content.clone());
            self.add_new(id, kind, content);
        }
        id
    }

    /// Adds an object the caller has hashed (`id`) and found missing from the store; `false`
    /// when this checkpoint has it already.
    pub(crate) fn add_new(&mut self, id: Oid, kind: ObjectType, content: Vec<u8>) -> bool {
        if self.ids.contains(&id) {
            return false;
        }
        self.stage_content(id, kind, content);
        true
    }

    /// Stages an object's content: a small one copied into the shared buffer.
    fn stage_content(&mut self, id: Oid, kind: ObjectType, content: Vec<u8>) {
        let start = u32::try_from(self.small.len()).ok();
        let len = u32::try_from(content.len()).ok();
        match (start, len) {
            (Some(start), Some(len))
                if content.len() <= SMALL_BYTES && start.checked_add(len).is_some() =>
            {
                self.small.extend_from_slice(&content);
                self.stage(id, Staged::Small(kind, start, len));
            }
            _ => self.stage(id, Staged::Content(kind, content)),
        }
    }

    fn stage(&mut self, id: Oid, staged: Staged) {
        self.ids.insert(id);
        self.staged += staged.len() as u64;
        self.objects.push((id, staged));
    }

    /// Takes over what `other` (a hashing thread's objects) has staged and written.
    pub(crate) fn absorb(&mut self, other: NewObjects) {
        self.written += other.written;
        self.flushing.extend(other.flushing);
        self.flushing.vetting.push(other.vetting);
        for (id, staged) in other.objects {
            if self.ids.contains(&id) {
                continue;
            }
            match staged {
                Staged::Small(kind, start, len) => {
                    let (start, len) = (start as usize, len as usize);
                    let content = other.small.get(start..start + len).unwrap_or_default();
                    self.stage_content(id, kind, content.to_vec());
                }
                staged => self.stage(id, staged),
            }
        }
    }

    /// Writes what is staged as a pack once it holds more than `limit` bytes, so that a
    /// checkpoint's memory stays bounded whatever it adds.
    pub(crate) fn flush_over(
        &mut self,
        limit: u64,
        dir: &Path,
        odb: Option<&Odb<'_>>,
    ) -> Result<(), git2::Error> {
        if self.staged > limit {
            self.write_staged(dir, odb)?;
        }
        Ok(())
    }

    /// Writes what is staged as one pack and keeps its flushes.
    fn write_staged(&mut self, dir: &Path, odb: Option<&Odb<'_>>) -> Result<(), git2::Error> {
        let objects = std::mem::take(&mut self.objects);
        let small = std::mem::take(&mut self.small);
        self.staged = 0;
        if !objects.is_empty() {
            let (count, flushing) = write_pack(&objects, &small, dir, odb)?;
            self.written += count;
            self.flushing.extend(flushing);
        }
        Ok(())
    }

    /// Writes the objects still staged as one pack (and its index) into the store at
    /// `dir`, whose object database is `odb` when one is open (it is refreshed, so that it
    /// sees the new pack); returns how many objects this checkpoint wrote in all, and the
    /// flushes of its packs.
    pub(crate) fn write(
        mut self,
        dir: &Path,
        odb: Option<&Odb<'_>>,
    ) -> Result<(usize, PackFlushing), git2::Error> {
        self.write_staged(dir, odb)?;
        self.flushing.vetting.push(self.vetting);
        Ok((self.written, self.flushing))
    }
}

/// Writes `objects` as one pack and its index: both are streamed to temporary files and
/// renamed into place (the pack first, its index last: a pack is only used once its index is
/// there), and their flushes (the pack, the index, the directory) are started side by side.
/// Returns how many objects, and the flushes.
///
/// Until the flushes are done a crash may leave the new pack empty or cut short under its
/// name; libgit2 (and git) skip such a pack when looking objects up, so only the checkpoint
/// being taken is lost, and its command has not run: the guard answers only after the
/// flushes. What merges or rewrites packs waits for them before it deletes anything.
fn write_pack(
    objects: &[(Oid, Staged)],
    small: &[u8],
    dir: &Path,
    odb: Option<&Odb<'_>>,
) -> Result<(usize, PackFlushing), git2::Error> {
    // Hashing threads write packs side by side: each temporary name is its own.
    static WRITTEN: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let count = objects.len();
    let io = |e: std::io::Error| failed(&e.to_string());
    let packs = dir.join("objects").join("pack");
    fs_err::create_dir_all(&packs).map_err(io)?;
    let serial = WRITTEN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let temporary = |extension: &str| {
        packs.join(format!(
            "tmp_pack-{}-{serial}.{extension}",
            std::process::id()
        ))
    };
    let tmp_pack = temporary("pack");
    let mut out = Hashing::new(private_file(&tmp_pack).map_err(io)?.into());
    let mut header = Vec::with_capacity(12);
    header.extend_from_slice(b"PACK");
    header.extend_from_slice(&2u32.to_be_bytes());
    header.extend_from_slice(
        &u32::try_from(count)
            .map_err(|_| failed("too many objects"))?
            .to_be_bytes(),
    );
    out.put(&header).map_err(io)?;
    // (id, offset, crc32 of the entry as stored)
    let mut index: Vec<(Oid, u64, u32)> = Vec::with_capacity(count);
    // Stored, not compressed: building Huffman tables for hundreds of small objects cost
    // more than the checkpoint's walk. Merging packs keeps the entries as they are.
    let mut zlib = Compress::new(Compression::none(), true);
    // The entry is streamed to the pack a chunk at a time, its CRC-32 computed as it goes:
    // a large object (a repository's index of several MiB) is never held a second time.
    let mut chunk = Vec::with_capacity(STREAM_CHUNK);
    for (id, staged) in objects {
        let (kind, content) = match staged {
            Staged::Content(kind, content) => (kind, content.as_slice()),
            Staged::Small(kind, start, len) => {
                let (start, len) = (*start as usize, *len as usize);
                (kind, small.get(start..start + len).unwrap_or_default())
            }
            Staged::Entry(bytes, crc) => {
                index.push((*id, out.offset, *crc));
                out.put(bytes).map_err(io)?;
                continue;
            }
        };
        let offset = out.offset;
        let mut crc = crc32fast::Hasher::new();
        chunk.clear();
        put_header(&mut chunk, *kind, content.len());
        zlib.reset();
        loop {
            let read = usize::try_from(zlib.total_in()).unwrap_or(usize::MAX);
            let status = zlib
                .compress_vec(
                    &content[read.min(content.len())..],
                    &mut chunk,
                    FlushCompress::Finish,
                )
                .map_err(|e| failed(&e.to_string()))?;
            crc.update(&chunk);
            out.put(&chunk).map_err(io)?;
            chunk.clear();
            if status == Status::StreamEnd {
                break;
            }
        }
        index.push((*id, offset, crc.finalize()));
    }
    let (pack_file, sum) = out.finish().map_err(io)?;
    index.sort_unstable_by_key(|(id, _, _)| *id);
    let idx = pack_index(&index, &sum);
    drop(index);
    let tmp_idx = temporary("idx");
    let mut idx_file = private_file(&tmp_idx).map_err(io)?;
    idx_file.write_all(&idx).map_err(io)?;
    let name = format!("pack-{}", Oid::from_bytes(&sum)?);
    agent_guard_fsops::rename(&tmp_pack, &packs.join(format!("{name}.pack"))).map_err(io)?;
    agent_guard_fsops::rename(&tmp_idx, &packs.join(format!("{name}.idx"))).map_err(io)?;
    let directory = fs_err::File::open(&packs).map_err(io)?;
    let flushing = PackFlushing {
        syncs: vec![
            agent_guard_fsops::SyncInFlight::start_all(vec![pack_file]),
            agent_guard_fsops::SyncInFlight::start_all(vec![idx_file.into(), directory.into()]),
        ],
        vetting: Vec::new(),
    };
    // Lookups that skip the refresh must see the new pack.
    if let Some(odb) = odb {
        odb.refresh()?;
    }
    Ok((count, flushing))
}

/// A pack file being written: buffered, its SHA-1 kept as it goes. That is the pack's
/// trailing checksum, which names the file and guards it against damage, not an object id:
/// it is computed with the CPU's SHA instructions where there are some (the `sha1` crate),
/// without the collision detection object ids get from libgit2, as git itself does for its
/// trailing checksums.
struct Hashing {
    out: std::io::BufWriter<std::fs::File>,
    sha: sha1::Sha1,
    offset: u64,
}

impl Hashing {
    fn new(file: std::fs::File) -> Hashing {
        Hashing {
            out: std::io::BufWriter::with_capacity(256 << 10, file),
            sha: sha1::Sha1::new(),
            offset: 0,
        }
    }

    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.sha.update(bytes);
        self.offset += bytes.len() as u64;
        self.out.write_all(bytes)
    }

    /// Appends the checksum; returns the file and the checksum.
    fn finish(mut self) -> std::io::Result<(std::fs::File, [u8; 20])> {
        let sum: [u8; 20] = self.sha.finalize().into();
        self.out.write_all(&sum)?;
        let file = self
            .out
            .into_inner()
            .map_err(std::io::IntoInnerError::into_error)?;
        Ok((file, sum))
    }
}

fn failed(what: &str) -> git2::Error {
    git2::Error::from_str(&format!("write a checkpoint pack: {what}"))
}

/// A pack index (version 2) of `entries` (sorted by id): the fan-out table, the ids, their
/// CRC-32s, their offsets (31 bits, or an index into the table of 64-bit offsets), the
/// pack's checksum and the index's own.
fn pack_index(entries: &[(Oid, u64, u32)], pack_sum: &[u8; 20]) -> Vec<u8> {
    let mut out = Vec::with_capacity(8 + 1024 + entries.len() * 28 + 40);
    out.extend_from_slice(b"\xfftOc");
    out.extend_from_slice(&2u32.to_be_bytes());
    let mut fanout = [0u32; 256];
    for (id, _, _) in entries {
        fanout[usize::from(id.as_bytes()[0])] += 1;
    }
    let mut total = 0u32;
    for slot in fanout {
        total += slot;
        out.extend_from_slice(&total.to_be_bytes());
    }
    for (id, _, _) in entries {
        out.extend_from_slice(id.as_bytes());
    }
    for (_, _, crc) in entries {
        out.extend_from_slice(&crc.to_be_bytes());
    }
    let mut large = Vec::new();
    for (_, offset, _) in entries {
        match u32::try_from(*offset) {
            Ok(small) if small < 0x8000_0000 => out.extend_from_slice(&small.to_be_bytes()),
            _ => {
                let at = u32::try_from(large.len()).unwrap_or(u32::MAX) | 0x8000_0000;
                out.extend_from_slice(&at.to_be_bytes());
                large.push(*offset);
            }
        }
    }
    for offset in large {
        out.extend_from_slice(&offset.to_be_bytes());
    }
    out.extend_from_slice(pack_sum);
    let sum: [u8; 20] = sha1::Sha1::digest(&out).into();
    out.extend_from_slice(&sum);
    out
}

/// A pack entry's header: the type in bits 4–6 of the first byte, the size in its low four
/// bits and seven bits per following byte, each byte but the last with its top bit set.
fn put_header(out: &mut Vec<u8>, kind: ObjectType, size: usize) {
    let code: u8 = match kind {
        ObjectType::Commit => 1,
        ObjectType::Tree => 2,
        ObjectType::Tag => 4,
        _ => 3,
    };
    #[expect(clippy::cast_possible_truncation, reason = "masked to four bits")]
    let mut byte = (code << 4) | (size & 0x0f) as u8;
    let mut rest = size >> 4;
    while rest > 0 {
        out.push(byte | 0x80);
        #[expect(clippy::cast_possible_truncation, reason = "masked to seven bits")]
        {
            byte = (rest & 0x7f) as u8;
        }
        rest >>= 7;
    }
    out.push(byte);
}

/// Stores pack bytes (from libgit2's pack builder) through libgit2's indexer, which checks
/// them and writes the index.
fn write(odb: &Odb<'_>, pack: &[u8]) -> Result<(), git2::Error> {
    let mut writer = odb.packwriter()?;
    writer
        .write_all(pack)
        .map_err(|error| git2::Error::from_str(&format!("write a checkpoint pack: {error}")))?;
    writer.commit()?;
    // Lookups that skip the refresh must see the new pack.
    odb.refresh()
}

/// The packs of the store at `dir`, with the objects each holds (read from its index).
pub(crate) fn packs(dir: &Path) -> Vec<Pack> {
    let Ok(entries) = fs_err::read_dir(dir.join("objects").join("pack")) else {
        return Vec::new();
    };
    let mut packs: Vec<Pack> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "idx"))
        .filter(|path| path.with_extension("pack").exists())
        .filter_map(|idx| {
            let ids = fs_err::read(&idx)
                .ok()
                .and_then(|bytes| index_ids(&bytes))?;
            Some(Pack { idx, ids })
        })
        .collect();
    packs.sort_by(|a, b| a.idx.cmp(&b.idx));
    packs
}

/// Whether the store at `dir` holds more than [`MAX_PACKS`] packs, counted by name:
/// reading every index on every checkpoint cost more than the checkpoint's own pack.
pub(crate) fn too_many(dir: &Path) -> bool {
    let indexes = fs_err::read_dir(dir.join("objects").join("pack")).map_or(0, |entries| {
        entries
            .filter_map(Result::ok)
            .filter(|e| {
                Path::new(&e.file_name())
                    .extension()
                    .is_some_and(|x| x == "idx")
            })
            .count()
    });
    indexes > MAX_PACKS
}

/// Deletes what an interrupted pack write left (`tmp_…` files in `objects/pack`). Only
/// under the writers' lock, when no pack is being written.
pub(crate) fn remove_leftovers(dir: &Path) {
    let Ok(entries) = fs_err::read_dir(dir.join("objects").join("pack")) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        if entry.file_name().as_encoded_bytes().starts_with(b"tmp_") {
            let _ = fsops::remove_file(&entry.path());
        }
    }
}

/// How many objects the pack index at `idx` lists (0 when it cannot be read).
pub(crate) fn count(idx: &Path) -> u64 {
    fs_err::read(idx)
        .ok()
        .and_then(|bytes| index_ids(&bytes))
        .map_or(0, |ids| ids.len() as u64)
}

/// Copies every entry of `pack` (whose index lists `entries`: id, CRC-32, offset) into
/// `new` as it is stored. `false`, with nothing copied, when the pack holds a delta (whose
/// base offsets would not survive the copy) or does not match its index.
fn copy_entries(pack: &[u8], mut entries: Vec<(Oid, u32, u64)>, new: &mut NewObjects) -> bool {
    entries.sort_unstable_by_key(|(_, _, offset)| *offset);
    let end = pack.len().saturating_sub(20);
    let mut spans = Vec::with_capacity(entries.len());
    for (at, (id, crc, offset)) in entries.iter().enumerate() {
        let next = entries
            .get(at + 1)
            .map_or(Some(end), |(_, _, o)| usize::try_from(*o).ok());
        let (Ok(start), Some(next)) = (usize::try_from(*offset), next) else {
            return false;
        };
        let Some(entry) = pack.get(start..next) else {
            return false;
        };
        let kind = entry.first().map_or(0, |byte| (byte >> 4) & 7);
        if !(1..=4).contains(&kind) || crc32fast::hash(entry) != *crc {
            return false;
        }
        spans.push((*id, entry, *crc));
    }
    for (id, entry, crc) in spans {
        if !new.ids.contains(&id) {
            new.stage(id, Staged::Entry(entry.to_vec(), crc));
        }
    }
    true
}

/// The entries a pack index (version 2) lists: id, CRC-32 and offset in the pack.
fn index_entries(bytes: &[u8]) -> Option<Vec<(Oid, u32, u64)>> {
    let ids = index_ids(bytes)?;
    let n = ids.len();
    let crcs = 8 + 256 * 4 + n * 20;
    let offsets = crcs + n * 4;
    let large = offsets + n * 4;
    let word = |at: usize| -> Option<u32> {
        Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
    };
    ids.into_iter()
        .enumerate()
        .map(|(i, id)| {
            let crc = word(crcs + i * 4)?;
            let small = word(offsets + i * 4)?;
            let offset = if small & 0x8000_0000 == 0 {
                u64::from(small)
            } else {
                let at = large + usize::try_from(small & 0x7fff_ffff).ok()? * 8;
                u64::from_be_bytes(bytes.get(at..at + 8)?.try_into().ok()?)
            };
            Some((id, crc, offset))
        })
        .collect()
}

/// The object ids a pack index (version 2) lists.
fn index_ids(bytes: &[u8]) -> Option<Vec<Oid>> {
    if bytes.get(..8)? != b"\xfftOc\x00\x00\x00\x02" {
        return None;
    }
    let count = u32::from_be_bytes(bytes.get(8 + 255 * 4..8 + 256 * 4)?.try_into().ok()?);
    let start: usize = 8 + 256 * 4;
    let count = usize::try_from(count).ok()?;
    let ids = bytes.get(start..start.checked_add(count.checked_mul(20)?)?)?;
    ids.chunks_exact(20)
        .map(|id| Oid::from_bytes(id).ok())
        .collect()
}

/// Rewrites `packs` as one pack of the objects `keep` accepts, then deletes them.
/// Returns the objects left out.
pub(crate) fn rewrite(
    repo: &Repository,
    packs: &[&Pack],
    keep: impl Fn(&Oid) -> bool,
) -> Result<u64, git2::Error> {
    let mut builder = repo.packbuilder()?;
    let mut seen = HashSet::new();
    let mut dropped = 0;
    for id in packs.iter().flat_map(|pack| &pack.ids) {
        if !seen.insert(*id) {
            continue;
        }
        if keep(id) {
            builder.insert_object(*id, None)?;
        } else {
            dropped += 1;
        }
    }
    if builder.object_count() > 0 {
        let dir = repo.path().join("objects").join("pack");
        let io = |e: std::io::Error| failed(&e.to_string());
        let listed = || -> Result<HashSet<PathBuf>, git2::Error> {
            Ok(fs_err::read_dir(&dir)
                .map_err(io)?
                .filter_map(Result::ok)
                .map(|entry| entry.path())
                .collect())
        };
        let before = listed()?;
        let mut buf = Buf::new();
        builder.write_buf(&mut buf)?;
        write(&repo.odb()?, &buf)?;
        // libgit2 does not flush what it writes: the new pack must be on disk before the old
        // ones go.
        for path in listed()?.difference(&before) {
            fs_err::File::open(path)
                .and_then(|file| file.sync_all())
                .map_err(io)?;
        }
        fs_err::File::open(&dir)
            .and_then(|d| d.sync_all())
            .map_err(io)?;
    }
    for pack in packs {
        pack.remove();
    }
    Ok(dropped)
}

/// Merges packs when the store holds more than [`MAX_PACKS`], so that an object lookup
/// does not search hundreds of pack indexes: the smallest half are rewritten as one (as
/// they were written: stored, no deltas), so that each merge costs about what the recent
/// checkpoints added, and big packs are left alone.
pub(crate) fn consolidate(dir: &Path, odb: &Odb<'_>) -> Result<(), git2::Error> {
    if !too_many(dir) {
        return Ok(());
    }
    let mut all = packs(dir);
    if all.len() <= MAX_PACKS {
        return Ok(());
    }
    all.sort_by_key(|pack| pack.ids.len());
    let merged = &all[..=all.len() - MAX_PACKS / 2];
    let mut new = NewObjects::default();
    for pack in merged {
        let entries = fs_err::read(pack.idx.with_extension("pack")).ok().zip(
            fs_err::read(&pack.idx)
                .ok()
                .and_then(|idx| index_entries(&idx)),
        );
        let copied = entries.map(|(bytes, entries)| copy_entries(&bytes, entries, &mut new));
        if copied != Some(true) {
            // Deltas or an unreadable pack: through libgit2, which resolves them.
            for id in &pack.ids {
                if !new.ids.contains(id) {
                    let object = odb.read(*id)?;
                    new.stage(*id, Staged::Content(object.kind(), object.data().to_vec()));
                }
            }
        }
    }
    // `write` refreshes the object database, so the new pack is seen before the old go;
    // and the new pack is on disk before they go.
    let (_, flushing) = new.write(dir, Some(odb))?;
    flushing
        .wait()
        .map_err(|e| failed(&format!("flush the merged pack: {e}")))?;
    for pack in merged {
        pack.remove();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How many objects a write wrote, once they are on disk.
    fn written(write: Result<(usize, PackFlushing), git2::Error>) -> usize {
        let (count, flushing) = write.unwrap();
        flushing.wait().unwrap();
        count
    }

    /// A new bare store.
    fn store() -> (tempfile::TempDir, Repository) {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init_bare(dir.path()).unwrap();
        (dir, repo)
    }

    /// The `git` CLI (the oracle) on the store at `dir`.
    fn git(dir: &Path, args: &[&str]) -> std::process::Output {
        std::process::Command::new("git")
            .arg("--git-dir")
            .arg(dir)
            .args(args)
            .output()
            .unwrap()
    }

    #[test]
    fn new_objects_land_in_one_pack_that_git_reads() {
        let (dir, repo) = store();
        let odb = repo.odb().unwrap();
        let mut new = NewObjects::default();
        let mut ids: Vec<Oid> = (0..50)
            .map(|i| {
                new.add(
                    &odb,
                    ObjectType::Blob,
                    format!("blob {i}").repeat(i * 7).into_bytes(),
                )
            })
            .collect::<Result<_, _>>()
            .unwrap();
        let again = new.add(&odb, ObjectType::Blob, Vec::new()).unwrap();
        assert_eq!(again, ids[0], "the same content once");
        let tree = {
            let mut entries = [(&b"f"[..], 0o100_644, ids[1])];
            new.add(
                &odb,
                ObjectType::Tree,
                super::super::tree::serialize(&mut entries),
            )
            .unwrap()
        };
        ids.push(tree);
        assert_eq!(written(new.write(dir.path(), Some(&odb))), 51);
        let mut again = NewObjects::default();
        again
            .add(&odb, ObjectType::Blob, b"blob 1".repeat(7))
            .unwrap();
        assert_eq!(
            written(again.write(dir.path(), Some(&odb))),
            0,
            "nothing the store has"
        );
        let packs = packs(dir.path());
        assert_eq!(packs.len(), 1);
        let mut listed = packs[0].ids.clone();
        listed.sort();
        let mut expected = ids.clone();
        expected.sort();
        assert_eq!(listed, expected);
        // No loose object, and git itself reads every one back.
        let fanout = std::fs::read_dir(dir.path().join("objects")).unwrap();
        let loose = fanout
            .filter_map(Result::ok)
            .filter(|e| e.file_name().len() == 2)
            .count();
        assert_eq!(loose, 0);
        let git = |args: &[&str]| git(dir.path(), args);
        for (i, id) in ids.iter().take(50).enumerate() {
            let out = git(&["cat-file", "-p", &id.to_string()]);
            assert_eq!(out.stdout, format!("blob {i}").repeat(i * 7).as_bytes());
        }
        assert_eq!(
            git(&["cat-file", "-t", &tree.to_string()]).stdout,
            b"tree\n"
        );
        let idx = packs[0].idx.to_str().unwrap().to_owned();
        assert!(git(&["verify-pack", &idx]).status.success());
    }

    #[test]
    fn small_staged_and_streamed_large_objects_round_trip_through_git() {
        let (dir, repo) = store();
        let odb = repo.odb().unwrap();
        let mut new = NewObjects::default();
        // Around the shared buffer's limit and the stream's chunk, and several chunks long.
        let sizes = [
            1,
            SMALL_BYTES,
            SMALL_BYTES + 1,
            STREAM_CHUNK,
            STREAM_CHUNK + 7,
            300_000,
        ];
        let contents: Vec<Vec<u8>> = sizes
            .iter()
            .enumerate()
            .map(|(n, size)| {
                (0..*size)
                    .map(|i| u8::try_from((i * 31 + n * 7) % 251).unwrap())
                    .collect()
            })
            .collect();
        let ids: Vec<Oid> = contents
            .iter()
            .map(|c| new.add(&odb, ObjectType::Blob, c.clone()).unwrap())
            .collect();
        assert_eq!(written(new.write(dir.path(), Some(&odb))), sizes.len());
        let packs = packs(dir.path());
        let idx = packs[0].idx.to_str().unwrap().to_owned();
        assert!(git(dir.path(), &["verify-pack", &idx]).status.success());
        for (id, content) in ids.iter().zip(&contents) {
            let out = git(dir.path(), &["cat-file", "blob", &id.to_string()]);
            assert_eq!(&out.stdout, content, "{} bytes", content.len());
        }
    }

    #[test]
    fn a_rewrite_keeps_what_it_is_told_and_drops_the_rest() {
        let (dir, repo) = store();
        let odb = repo.odb().unwrap();
        let mut ids = Vec::new();
        for round in 0..3 {
            let mut new = NewObjects::default();
            for i in 0..4 {
                let text = format!("round {round} blob {i}");
                ids.push(new.add(&odb, ObjectType::Blob, text.into_bytes()).unwrap());
            }
            written(new.write(dir.path(), Some(&odb)));
        }
        let before = packs(dir.path());
        assert_eq!(before.len(), 3);
        let keep: HashSet<Oid> = ids.iter().step_by(2).copied().collect();
        let all: Vec<&Pack> = before.iter().collect();
        assert_eq!(rewrite(&repo, &all, |id| keep.contains(id)).unwrap(), 6);
        let after = packs(dir.path());
        assert_eq!(after.len(), 1);
        assert_eq!(after[0].ids.iter().copied().collect::<HashSet<_>>(), keep);
        let fresh = Repository::open_bare(dir.path()).unwrap();
        for id in &ids {
            assert_eq!(fresh.odb().unwrap().exists(*id), keep.contains(id));
        }
    }

    #[test]
    fn many_small_packs_are_merged_into_one() {
        let (dir, repo) = store();
        let odb = repo.odb().unwrap();
        let mut ids = Vec::new();
        for round in 0..=MAX_PACKS {
            let mut new = NewObjects::default();
            let text = format!("pack {round}");
            ids.push(new.add(&odb, ObjectType::Blob, text.into_bytes()).unwrap());
            written(new.write(dir.path(), Some(&odb)));
        }
        assert_eq!(packs(dir.path()).len(), MAX_PACKS + 1);
        consolidate(dir.path(), &odb).unwrap();
        let after = packs(dir.path());
        assert_eq!(after.len(), MAX_PACKS / 2);
        assert_eq!(after.iter().map(|p| p.ids.len()).sum::<usize>(), ids.len());
        assert_eq!(
            after.iter().map(|p| p.ids.len()).max(),
            Some(MAX_PACKS / 2 + 2)
        );
        consolidate(dir.path(), &odb).unwrap();
        assert_eq!(
            packs(dir.path()).len(),
            MAX_PACKS / 2,
            "a few packs are left alone"
        );
        let fresh = Repository::open_bare(dir.path()).unwrap();
        for (round, id) in ids.iter().enumerate() {
            let blob = fresh.find_blob(*id).unwrap();
            assert_eq!(blob.content(), format!("pack {round}").as_bytes());
        }
        for pack in packs(dir.path()) {
            let verified = git(dir.path(), &["verify-pack", pack.idx.to_str().unwrap()]);
            assert!(verified.status.success(), "{}", pack.idx.display());
        }
    }
}
