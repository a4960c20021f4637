//! The append-only audit log file.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use crate::{AuditError, AuditRecord, default_session, project};

/// The audit log's file name inside the quarantine root.
pub const AUDIT_FILE_NAME: &str = "audit.jsonl";

/// The schema version stamped on every record written by this crate.
pub const SCHEMA_VERSION: u64 = 1;

/// The block size used when reading the log backwards.
const TAIL_BLOCK: usize = 64 * 1024;

/// Lines longer than this are skipped unread by [`AuditLog::tail`]; no valid record is this
/// large, and skipping keeps a corrupt file from costing memory.
const MAX_LINE: usize = 1024 * 1024;

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

/// Whether an append waits for the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Durability {
    Synced,
    Relaxed,
}

/// The JSONL audit log at `<trash>/audit.jsonl`.
///
/// Each record is one line of sorted-key JSON holding only the projection ([`project()`]) of
/// what the caller passed, plus `ts`, `schema` and `session` when absent. Appends are
/// serialised across processes by an exclusive lock on the file and are durable
/// (`fdatasync`) when [`AuditLog::append`] returns.
#[derive(Debug, Clone)]
pub struct AuditLog {
    path: PathBuf,
    session: String,
    clock: Clock,
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
        }
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
    /// is written first so the new record stays parseable.
    pub fn append(&self, record: &AuditRecord) -> Result<Map<String, Value>, AuditError> {
        self.write_record(&record.to_map(), Durability::Synced)
    }

    /// Like [`AuditLog::append`], but without waiting for the disk: for best-effort records
    /// (an advisory `check`) on the hot path, where an fsync would dominate the cost. The
    /// line is still written whole, under the lock.
    pub fn append_relaxed(&self, record: &AuditRecord) -> Result<Map<String, Value>, AuditError> {
        self.write_record(&record.to_map(), Durability::Relaxed)
    }

    /// Appends the projection of a record that is not an [`AuditRecord`] (one written by
    /// another tool sharing the log, such as the exfil guard), durably. Keys and labels
    /// outside the projection's closed sets are dropped.
    pub fn append_map(
        &self,
        record: &Map<String, Value>,
    ) -> Result<Map<String, Value>, AuditError> {
        self.write_record(record, Durability::Synced)
    }

    fn write_record(
        &self,
        record: &Map<String, Value>,
        durability: Durability,
    ) -> Result<Map<String, Value>, AuditError> {
        let mut stored = project(record);
        stored
            .entry("ts")
            .or_insert_with(|| Value::from(format_timestamp(self.clock.now())));
        stored
            .entry("schema")
            .or_insert_with(|| Value::from(SCHEMA_VERSION));
        stored
            .entry("session")
            .or_insert_with(|| Value::from(self.session.clone()));

        let mut line =
            serde_json::to_vec(&stored).map_err(|source| AuditError::Serialize { source })?;
        line.push(b'\n');

        let path = &self.path;
        let mut file = fs_err::OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .map_err(|source| self.open_error(source))?;
        file.file().lock().map_err(|source| AuditError::Lock {
            path: path.clone(),
            source,
        })?;
        let append_error = |source| AuditError::Append {
            path: path.clone(),
            source,
        };
        if ends_torn(&mut file).map_err(append_error)? {
            line.insert(0, b'\n');
        }
        file.write_all(&line).map_err(append_error)?;
        if durability == Durability::Synced {
            file.sync_data().map_err(append_error)?;
        }
        file.file().unlock().map_err(append_error)?;
        Ok(stored)
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
        let mut file = match fs_err::File::open(&self.path) {
            Ok(file) => file,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(error) => return Err(read_error(error)),
        };
        let mut position = file.metadata().map_err(read_error)?.len();
        let mut newest_first = Vec::new();
        // The bytes after `position` up to the next unprocessed newline: the end of a line
        // whose start has not been read yet.
        let mut pending: Vec<u8> = Vec::new();
        let mut pending_oversized = false;
        let mut chunk = vec![0_u8; block.max(1)];
        while position > 0 && newest_first.len() < n {
            let start = position.saturating_sub(chunk.len() as u64);
            let size = usize::try_from(position - start).unwrap_or(chunk.len());
            file.seek(SeekFrom::Start(start)).map_err(read_error)?;
            file.read_exact(&mut chunk[..size]).map_err(read_error)?;
            position = start;

            let mut buffer = &chunk[..size];
            // Complete lines in this block, from the newest: everything after each newline.
            while let Some(newline) = buffer.iter().rposition(|b| *b == b'\n') {
                let mut line = buffer[newline + 1..].to_vec();
                if !pending_oversized {
                    line.extend_from_slice(&pending);
                    push_record(&line, &mut newest_first);
                }
                pending.clear();
                pending_oversized = false;
                buffer = &buffer[..newline];
                if newest_first.len() >= n {
                    break;
                }
            }
            if newest_first.len() >= n {
                break;
            }
            // What is left is the end of a line that started in an earlier block.
            if !pending_oversized {
                if buffer.len() + pending.len() > MAX_LINE {
                    pending_oversized = true;
                    pending.clear();
                } else {
                    let mut joined = buffer.to_vec();
                    joined.extend_from_slice(&pending);
                    pending = joined;
                }
            }
        }
        if position == 0 && newest_first.len() < n && !pending_oversized {
            push_record(&pending, &mut newest_first);
        }
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

/// Returns `true` if the file is non-empty and its last byte is not a newline.
fn ends_torn(file: &mut fs_err::File) -> std::io::Result<bool> {
    let len = file.metadata()?.len();
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
