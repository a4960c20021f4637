//! The append-only audit log file.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use agent_guard_fsops::{self as fsops, SyncInFlight};

use crate::backward::for_each_line_backwards;
use crate::chain::{self, CHAIN_FIELDS};
use crate::verify::{ChainReport, verify_log};
use crate::{AuditError, AuditKey, AuditRecord, default_session, project};

/// The audit log's file name inside the quarantine root.
pub const AUDIT_FILE_NAME: &str = "audit.jsonl";

/// The schema version stamped on every record written by this crate.
pub const SCHEMA_VERSION: u64 = 1;

/// The block size used when reading the log backwards.
const TAIL_BLOCK: usize = 64 * 1024;

/// Where record timestamps come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Clock {
    /// The system clock.
    #[default]
    System,
    /// A fixed instant (tests, or the engine's `AGENT_GUARD_NOW` override).
    Fixed(DateTime<Utc>),
}

impl Clock {
    /// Returns the current instant of this clock.
    pub fn now(self) -> DateTime<Utc> {
        match self {
            Clock::System => Utc::now(),
            Clock::Fixed(instant) => instant,
        }
    }
}

/// Formats an instant as the audit and manifest timestamp, `YYYY-MM-DDTHH:MM:SSZ` (UTC).
///
/// ```
/// use chrono::{TimeZone, Utc};
///
/// let instant = Utc.with_ymd_and_hms(2026, 11, 30, 4, 51, 30).unwrap();
/// assert_eq!(agent_guard_audit::format_timestamp(instant), "2026-11-30T04:51:30Z");
/// ```
pub fn format_timestamp(instant: DateTime<Utc>) -> String {
    instant.format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// A test-only crash point inside an append (`AGENT_GUARD_FAULT`, unstable).
///
/// When armed, the append writes the first half of its line, syncs it and aborts the process
/// on the spot, which is what a power cut or `kill -9` in the middle of `write` leaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuditFault {
    /// Abort halfway through writing the record.
    TornAppend,
}

impl AuditFault {
    /// The name used in `AGENT_GUARD_FAULT`.
    pub const fn as_str(self) -> &'static str {
        match self {
            AuditFault::TornAppend => "audit-torn-append",
        }
    }

    /// Parses a name.
    pub fn parse(text: &str) -> Option<AuditFault> {
        (text.trim() == AuditFault::TornAppend.as_str()).then_some(AuditFault::TornAppend)
    }
}

/// Whether an append waits for the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Durability {
    Synced,
    Relaxed,
    /// Written now, synced on a helper thread: the caller waits for it before its effect.
    InFlight,
}

/// The JSONL audit log at `<trash>/audit.jsonl`.
///
/// Each record is one line of sorted-key JSON holding only the projection ([`project()`]) of
/// what the caller passed, plus `ts`, `schema` and `session` when absent. With a key
/// ([`AuditLog::with_key`]) every new record is also chained to the one before it and
/// `MACed` (see [`crate::chain`] for the fields); without one, records are written unchained,
/// as before. Appends are serialised across processes by an exclusive lock on the file, which
/// also covers reading the previous record's digest, and are durable (`fdatasync`) when
/// [`AuditLog::append`] returns.
#[derive(Debug, Clone)]
pub struct AuditLog {
    path: PathBuf,
    session: String,
    clock: Clock,
    key: Option<AuditKey>,
    fault: Option<AuditFault>,
}

impl AuditLog {
    /// Creates a handle on `<trash>/audit.jsonl`; nothing is opened or created.
    ///
    /// `session` is the raw `AGENT_GUARD_SESSION` value, if any; see [`default_session`].
    pub fn new(trash: &Path, session: Option<&str>) -> AuditLog {
        AuditLog {
            path: trash.join(AUDIT_FILE_NAME),
            session: default_session(session),
            clock: Clock::System,
            key: None,
            fault: None,
        }
    }

    /// Returns the same log, chaining every new record with `key`.
    #[must_use]
    pub fn with_key(mut self, key: AuditKey) -> AuditLog {
        self.key = Some(key);
        self
    }

    /// Returns the same log with a test-only crash point armed (see [`AuditFault`]).
    #[must_use]
    pub fn with_fault(mut self, fault: Option<AuditFault>) -> AuditLog {
        self.fault = fault;
        self
    }

    /// Returns the key new records are chained with, if any.
    pub fn key(&self) -> Option<&AuditKey> {
        self.key.as_ref()
    }

    /// Verifies the whole log with `key` (this user's, when it exists); see
    /// [`verify_log`].
    pub fn verify(&self, key: Option<&AuditKey>) -> Result<ChainReport, AuditError> {
        verify_log(&self.path, key)
    }

    /// Returns the same log with timestamps taken from `clock`.
    #[must_use]
    pub fn with_clock(mut self, clock: Clock) -> AuditLog {
        self.clock = clock;
        self
    }

    /// Returns the log file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Returns the hashed session stamped on records that carry none.
    pub fn session(&self) -> &str {
        &self.session
    }

    /// Appends `record` durably and returns exactly what was stored.
    ///
    /// The quarantine directory must already exist (the layout creates it); this never
    /// creates it. If the file does not end with a newline (a torn earlier write), a newline
    /// is written first so the new record stays parseable; a chained record then links to
    /// the last intact record and notes the torn bytes. Chain fields the caller passes are
    /// dropped: only the log sets them.
    pub fn append(&self, record: &AuditRecord) -> Result<Map<String, Value>, AuditError> {
        self.write_record(&record.to_map(), Durability::Synced)
            .map(|(stored, _)| stored)
    }

    /// Like [`AuditLog::append`], but the `fdatasync` runs on a helper thread: the record is
    /// durable once the returned [`SyncInFlight`] has been waited for. An intent that must
    /// be on disk before an effect is written this way, so that its flush overlaps the
    /// quarantine's own (the quarantine waits for it before the effect).
    pub fn append_in_flight(
        &self,
        record: &AuditRecord,
    ) -> Result<(Map<String, Value>, SyncInFlight), AuditError> {
        let (stored, sync) = self.write_record(&record.to_map(), Durability::InFlight)?;
        Ok((stored, sync.unwrap_or_else(|| SyncInFlight::done(Ok(())))))
    }

    /// Like [`AuditLog::append`], but without waiting for the disk: for best-effort records
    /// (an advisory `check`) on the hot path, where an fsync would dominate the cost. The
    /// line is still written whole, under the lock.
    pub fn append_relaxed(&self, record: &AuditRecord) -> Result<Map<String, Value>, AuditError> {
        self.write_record(&record.to_map(), Durability::Relaxed)
            .map(|(stored, _)| stored)
    }

    /// Appends the projection of a record that is not an [`AuditRecord`] (one written by
    /// another tool sharing the log, such as the exfil guard), durably. Keys and labels
    /// outside the projection's closed sets are dropped.
    pub fn append_map(
        &self,
        record: &Map<String, Value>,
    ) -> Result<Map<String, Value>, AuditError> {
        self.write_record(record, Durability::Synced)
            .map(|(stored, _)| stored)
    }

    fn write_record(
        &self,
        record: &Map<String, Value>,
        durability: Durability,
    ) -> Result<(Map<String, Value>, Option<SyncInFlight>), AuditError> {
        let mut stored = project(record);
        for field in CHAIN_FIELDS {
            stored.remove(field);
        }
        stored
            .entry("ts")
            .or_insert_with(|| Value::from(format_timestamp(self.clock.now())));
        stored
            .entry("schema")
            .or_insert_with(|| Value::from(SCHEMA_VERSION));
        stored
            .entry("session")
            .or_insert_with(|| Value::from(self.session.clone()));

        let path = &self.path;
        if let Some(dir) = path.parent() {
            fsops::state::check_dir(dir).map_err(|source| self.open_error(source))?;
        }
        let mut file = fs_err::File::from_parts(
            fsops::state::open_file(path, fsops::state::Access::Append)
                .map_err(|source| self.open_error(source))?,
            path,
        );
        file.file().lock().map_err(|source| AuditError::Lock {
            path: path.clone(),
            source,
        })?;
        let append_error = |source| AuditError::Append {
            path: path.clone(),
            source,
        };
        let len = file.metadata().map_err(append_error)?.len();
        // Under the lock: nobody appends between reading the end and writing after it.
        if let Some(key) = &self.key {
            let link = chain::link_at_end(&mut file, len).map_err(append_error)?;
            chain::seal(&mut stored, link, key);
        }
        let mut line =
            serde_json::to_vec(&stored).map_err(|source| AuditError::Serialize { source })?;
        line.push(b'\n');
        if ends_torn(&mut file, len).map_err(append_error)? {
            line.insert(0, b'\n');
        }
        if self.fault == Some(AuditFault::TornAppend) {
            let _ = file.write_all(&line[..line.len() / 2]);
            let _ = file.sync_data();
            std::process::abort();
        }
        file.write_all(&line).map_err(append_error)?;
        let mut in_flight = None;
        match durability {
            Durability::Synced => file.sync_data().map_err(append_error)?,
            Durability::InFlight => {
                let handle = file.file().try_clone().map_err(append_error)?;
                in_flight = Some(SyncInFlight::start(handle));
            }
            Durability::Relaxed => {}
        }
        file.file().unlock().map_err(append_error)?;
        Ok((stored, in_flight))
    }

    /// Returns the last `n` records, oldest first, each projected.
    ///
    /// Blank, torn and non-object lines are skipped. `n == 0` returns nothing without opening
    /// the file; a missing file holds no records. The file is read backwards in blocks, so the
    /// cost depends on `n`, not on the size of the log.
    pub fn tail(&self, n: usize) -> Result<Vec<Map<String, Value>>, AuditError> {
        self.tail_in_blocks(n, TAIL_BLOCK)
    }

    pub(crate) fn tail_in_blocks(
        &self,
        n: usize,
        block: usize,
    ) -> Result<Vec<Map<String, Value>>, AuditError> {
        if n == 0 {
            return Ok(Vec::new());
        }
        let read_error = |source| AuditError::Read {
            path: self.path.clone(),
            source,
        };
        let mut file = match fsops::state::open_file(&self.path, fsops::state::Access::Read) {
            Ok(file) => fs_err::File::from_parts(file, &self.path),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(error) => return Err(read_error(error)),
        };
        let len = file.metadata().map_err(read_error)?.len();
        let mut newest_first = Vec::new();
        for_each_line_backwards(&mut file, len, block, |_, line| {
            if let Some(line) = line {
                push_record(line, &mut newest_first);
            }
            newest_first.len() < n
        })
        .map_err(read_error)?;
        newest_first.truncate(n);
        newest_first.reverse();
        Ok(newest_first)
    }

    fn open_error(&self, source: std::io::Error) -> AuditError {
        match self.path.parent() {
            Some(dir) if source.kind() == std::io::ErrorKind::NotFound && !dir.is_dir() => {
                AuditError::MissingDirectory {
                    dir: dir.to_path_buf(),
                    source,
                }
            }
            _ => AuditError::Open {
                path: self.path.clone(),
                source,
            },
        }
    }
}

/// Returns `true` if the file (of `len` bytes) is non-empty and its last byte is not a
/// newline.
fn ends_torn(file: &mut fs_err::File, len: u64) -> std::io::Result<bool> {
    if len == 0 {
        return Ok(false);
    }
    let mut last = [0_u8; 1];
    file.seek(SeekFrom::Start(len - 1))?;
    file.read_exact(&mut last)?;
    Ok(last[0] != b'\n')
}

fn push_record(line: &[u8], records: &mut Vec<Map<String, Value>>) {
    if line.iter().all(u8::is_ascii_whitespace) {
        return;
    }
    if let Ok(Value::Object(record)) = serde_json::from_slice::<Value>(line) {
        records.push(project(&record));
    }
}
