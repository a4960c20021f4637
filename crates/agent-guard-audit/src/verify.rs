//! Verifying an audit log's chain: walk every line once and say what is wrong, where.
//!
//! The rules mirror the writer's ([`crate::chain`]): a line is *intact* when it parses as a
//! JSON object of at most 1 MiB; every chained record must carry this user's key id and MAC,
//! link to the nearest preceding intact line, continue the sequence, and account for any
//! unreadable bytes in between (a repaired torn write).

use std::io::BufRead as _;
use std::path::Path;

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::chain::{self, ChainFields, Chaining, GENESIS};
use crate::hash::{sha256_bytes, to_hex};
use crate::{AuditError, AuditKey};

/// At most this many findings are listed (all are counted).
const MAX_FINDINGS: usize = 100;

/// The overall state of a log's chain, from best to worst.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub enum ChainState {
    /// No log, or no record in it.
    Empty,
    /// Records, none of them chained: written before chaining existed, or by the reference
    /// tool. Nothing can be verified; nothing is wrong either.
    Unchained,
    /// Every chained record verifies (after an unchained prefix, if any).
    Intact,
    /// Intact, and a torn write (a crash mid-append) was repaired: later records account for
    /// the lost bytes.
    Repaired,
    /// Intact up to a torn last line that no record accounts for yet; the next append
    /// repairs it.
    TornTail,
    /// A record was edited, removed, reordered, inserted or made with another key.
    Tampered,
}

impl ChainState {
    /// The stable name (`intact`, `torn-tail`, …).
    pub const fn as_str(self) -> &'static str {
        match self {
            ChainState::Empty => "empty",
            ChainState::Unchained => "unchained",
            ChainState::Intact => "intact",
            ChainState::Repaired => "repaired",
            ChainState::TornTail => "torn-tail",
            ChainState::Tampered => "tampered",
        }
    }
}

/// What is wrong with one line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub enum FindingKind {
    /// Unreadable bytes inside the chain that no later record accounts for (a line cut short
    /// or overwritten; a crash can only tear the last line).
    Unreadable,
    /// A record's note about torn bytes does not match the bytes before it.
    TornMismatch,
    /// The record's MAC does not verify with this user's key, or its chain fields are
    /// malformed: it was edited.
    Edited,
    /// The record was made with another key (or this user has no key).
    ForeignKey {
        /// The key the record names.
        key_id: String,
    },
    /// Records are missing before this one.
    Gap {
        /// The sequence number due here.
        expected_seq: u64,
        /// The one found.
        found_seq: u64,
    },
    /// The record is out of order (moved, swapped or replayed).
    Reordered {
        /// The sequence number due here.
        expected_seq: u64,
        /// The one found.
        found_seq: u64,
    },
    /// The record does not link to the line before it: that line was replaced.
    BrokenLink,
    /// A record without chain fields after the chain began (inserted, or written by a tool
    /// that does not chain).
    UnchainedRecord,
}

/// One bad line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Finding {
    /// The 1-based line number.
    pub line: u64,
    /// What is wrong with it.
    #[serde(flatten)]
    pub kind: FindingKind,
}

/// What became of unreadable lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub enum TornStatus {
    /// A later record notes their digest: a repaired torn write.
    Repaired,
    /// They end the log; the next append will note them.
    Pending,
    /// They sit in the unchained prefix, where nothing can tell a torn write from damage.
    UnchainedPrefix,
    /// Nothing accounts for them (also a [`FindingKind::Unreadable`] finding).
    Unaccounted,
}

/// A run of unreadable lines: what was lost.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TornRegion {
    /// The first unreadable line (1-based).
    pub line: u64,
    /// How many lines.
    pub lines: u64,
    /// How many bytes (the newlines between them included).
    pub length: u64,
    /// Their SHA-256 (hex).
    pub sha256: String,
    /// The sequence number of the last chained record before them, if any: the lost record
    /// would have been the next one.
    pub after_seq: Option<u64>,
    /// What became of them.
    pub status: TornStatus,
    /// The record that notes them, when repaired.
    pub repaired_by: Option<u64>,
}

/// The result of verifying a log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ChainReport {
    /// The overall state.
    pub state: ChainState,
    /// Lines in the file.
    pub lines: u64,
    /// Intact records.
    pub records: u64,
    /// Records before the first chained one.
    pub unchained_prefix: u64,
    /// Chained records.
    pub chained: u64,
    /// The id of the key records were checked with (`None`: this user has no key yet).
    pub key_id: Option<String>,
    /// The sequence number of the last chained record.
    pub last_seq: Option<u64>,
    /// Runs of unreadable lines.
    pub torn: Vec<TornRegion>,
    /// Bad lines, in file order (at most 100; see `finding_count`).
    pub findings: Vec<Finding>,
    /// How many bad lines there are.
    pub finding_count: u64,
}

impl ChainReport {
    /// The first bad line, if any.
    pub fn first_bad(&self) -> Option<&Finding> {
        self.findings.first()
    }
}

/// Verifies the log at `path` with `key` (this user's, if it exists).
///
/// Reads the file once, under a shared lock so that no append is seen half written. A
/// missing file is [`ChainState::Empty`].
pub fn verify_log(path: &Path, key: Option<&AuditKey>) -> Result<ChainReport, AuditError> {
    let read_error = |source| AuditError::Read {
        path: path.to_owned(),
        source,
    };
    let file = match fs_err::File::open(path) {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Walker::new(key).finish());
        }
        Err(error) => return Err(read_error(error)),
    };
    file.file()
        .lock_shared()
        .map_err(|source| AuditError::Lock {
            path: path.to_owned(),
            source,
        })?;
    let mut reader = std::io::BufReader::with_capacity(64 * 1024, file);
    let mut walker = Walker::new(key);
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = reader.read_until(b'\n', &mut line).map_err(read_error)?;
        if read == 0 {
            break;
        }
        if line.last() == Some(&b'\n') {
            line.pop();
        }
        walker.line(&line);
    }
    Ok(walker.finish())
}

/// Verifies log bytes already in memory (tests, and callers holding the file).
pub fn verify_bytes(bytes: &[u8], key: Option<&AuditKey>) -> ChainReport {
    let mut walker = Walker::new(key);
    let mut rest = bytes;
    while !rest.is_empty() {
        let (line, next) = match rest.iter().position(|b| *b == b'\n') {
            Some(newline) => (&rest[..newline], &rest[newline + 1..]),
            None => (rest, &rest[rest.len()..]),
        };
        walker.line(line);
        rest = next;
    }
    walker.finish()
}

/// The nearest preceding intact line.
struct Prev {
    digest: String,
    /// Whether it had a finding: the link after it is not checked again.
    flagged: bool,
}

/// Unreadable lines since the last intact one.
#[derive(Default)]
struct Region {
    first_line: u64,
    lines: u64,
    length: u64,
    hasher: Sha256,
}

struct Walker<'k> {
    key: Option<&'k AuditKey>,
    line_no: u64,
    prev: Option<Prev>,
    region: Option<Region>,
    in_chain: bool,
    /// The highest sequence number since the chain (re)started.
    max_seq: Option<u64>,
    /// (seq, line) of chained records, to tell a gap from a reordering.
    seen: Vec<(u64, u64)>,
    report: ChainReport,
    findings: Vec<Finding>,
}

impl<'k> Walker<'k> {
    fn new(key: Option<&'k AuditKey>) -> Walker<'k> {
        Walker {
            key,
            line_no: 0,
            prev: None,
            region: None,
            in_chain: false,
            max_seq: None,
            seen: Vec::new(),
            report: ChainReport {
                state: ChainState::Empty,
                lines: 0,
                records: 0,
                unchained_prefix: 0,
                chained: 0,
                key_id: key.map(|k| k.id().to_owned()),
                last_seq: None,
                torn: Vec::new(),
                findings: Vec::new(),
                finding_count: 0,
            },
            findings: Vec::new(),
        }
    }

    fn line(&mut self, bytes: &[u8]) {
        self.line_no += 1;
        self.report.lines += 1;
        let Some(chaining) = chain::parse_chaining(bytes) else {
            let region = self.region.get_or_insert_with(|| Region {
                first_line: self.line_no,
                ..Region::default()
            });
            if region.lines > 0 {
                region.hasher.update(b"\n");
                region.length += 1;
            }
            region.hasher.update(bytes);
            region.length += bytes.len() as u64;
            region.lines += 1;
            return;
        };
        self.report.records += 1;
        let digest = sha256_bytes(bytes);
        let flagged = match chaining {
            Chaining::Unchained => self.unchained(),
            Chaining::Malformed => {
                self.in_chain = true;
                self.close_region(None);
                self.flag(self.line_no, FindingKind::Edited);
                true
            }
            Chaining::Chained(fields) => self.chained(bytes, &fields),
        };
        self.prev = Some(Prev { digest, flagged });
    }

    fn unchained(&mut self) -> bool {
        if self.in_chain {
            if let Some((region, _)) = self.close_region(None) {
                self.flag(region, FindingKind::Unreadable);
            }
            self.flag(self.line_no, FindingKind::UnchainedRecord);
            self.max_seq = None;
            true
        } else {
            self.report.unchained_prefix += 1;
            self.close_region(None);
            false
        }
    }

    fn chained(&mut self, bytes: &[u8], fields: &ChainFields) -> bool {
        self.in_chain = true;
        self.report.chained += 1;
        let line = self.line_no;
        let authentic = match self.key {
            Some(key) if key.id() == fields.key_id => {
                if chain::authentic(key, bytes, &fields.mac) {
                    None
                } else {
                    Some(FindingKind::Edited)
                }
            }
            _ => Some(FindingKind::ForeignKey {
                key_id: fields.key_id.clone(),
            }),
        };
        // Unaccounted unreadable lines may have held records: as many missing sequence
        // numbers as there were lines are explained by them, not a further gap.
        let (region_flagged, slack) = match self.close_region(Some((line, fields.torn.as_ref()))) {
            Some((region_line, lines)) => {
                self.flag(region_line, region_kind(fields.torn.as_ref()));
                (true, lines)
            }
            None => (false, 0),
        };
        let mut bad = authentic;
        if bad.is_none() && fields.torn.is_some() && !region_flagged && !self.region_noted() {
            bad = Some(FindingKind::TornMismatch);
        }
        let expected = self.max_seq.map_or(0, |max| max.saturating_add(1));
        if bad.is_none() {
            let link_checked = !region_flagged && !self.prev.as_ref().is_some_and(|p| p.flagged);
            let expected_prev = self.prev.as_ref().map_or(GENESIS, |p| p.digest.as_str());
            if fields.seq > expected.saturating_add(slack) {
                bad = Some(FindingKind::Gap {
                    expected_seq: expected,
                    found_seq: fields.seq,
                });
            } else if fields.seq < expected {
                bad = Some(FindingKind::Reordered {
                    expected_seq: expected,
                    found_seq: fields.seq,
                });
            } else if link_checked && fields.prev != expected_prev {
                bad = Some(FindingKind::BrokenLink);
            }
        }
        // Every chained record moves the sequence on, even a bad one: a record edited or
        // made with another key is one finding, not one more for each record after it.
        self.max_seq = Some(self.max_seq.map_or(fields.seq, |max| max.max(fields.seq)));
        self.seen.push((fields.seq, line));
        self.report.last_seq = Some(fields.seq);
        match bad {
            Some(kind) => {
                self.flag(line, kind);
                true
            }
            None => false,
        }
    }

    /// Whether the last closed region was repaired by the current record.
    fn region_noted(&self) -> bool {
        self.report
            .torn
            .last()
            .is_some_and(|t| t.repaired_by == Some(self.line_no))
    }

    /// Closes the current run of unreadable lines at an intact record. `note` is the
    /// chained record's line and torn note; `None` for an unchained record. Returns the
    /// region's first line and line count when it is unaccounted for inside the chain.
    fn close_region(&mut self, note: Option<(u64, Option<&(String, u64)>)>) -> Option<(u64, u64)> {
        let region = self.region.take()?;
        if region.length == 0 {
            // Blank lines only: nothing was lost, and the writer notes nothing.
            return None;
        }
        let sha256 = to_hex(region.hasher.finalize().as_slice());
        let (status, repaired_by, bad) = match note {
            None if !self.in_chain => (TornStatus::UnchainedPrefix, None, false),
            Some((line, Some((digest, length))))
                if *digest == sha256 && *length == region.length =>
            {
                (TornStatus::Repaired, Some(line), false)
            }
            _ => (TornStatus::Unaccounted, None, true),
        };
        self.report.torn.push(TornRegion {
            line: region.first_line,
            lines: region.lines,
            length: region.length,
            sha256,
            after_seq: self.report.last_seq,
            status,
            repaired_by,
        });
        bad.then_some((region.first_line, region.lines))
    }

    fn flag(&mut self, line: u64, kind: FindingKind) {
        self.findings.push(Finding { line, kind });
    }

    fn finish(mut self) -> ChainReport {
        if let Some(region) = self.region.take().filter(|r| r.length > 0) {
            self.report.torn.push(TornRegion {
                line: region.first_line,
                lines: region.lines,
                length: region.length,
                sha256: to_hex(region.hasher.finalize().as_slice()),
                after_seq: self.report.last_seq,
                status: TornStatus::Pending,
                repaired_by: None,
            });
        }
        // A gap whose missing records turn up later is a reordering.
        self.seen.sort_unstable();
        for finding in &mut self.findings {
            if let FindingKind::Gap {
                expected_seq,
                found_seq,
            } = finding.kind
            {
                let start = self.seen.partition_point(|(seq, _)| *seq < expected_seq);
                let later = self.seen[start..]
                    .iter()
                    .take_while(|(seq, _)| *seq < found_seq)
                    .any(|(_, line)| *line > finding.line);
                if later {
                    finding.kind = FindingKind::Reordered {
                        expected_seq,
                        found_seq,
                    };
                }
            }
        }
        self.findings.sort_by_key(|f| f.line);
        let report = &mut self.report;
        report.finding_count = self.findings.len() as u64;
        self.findings.truncate(MAX_FINDINGS);
        report.findings = self.findings;
        report.state = if report.finding_count > 0 {
            ChainState::Tampered
        } else if report.torn.iter().any(|t| t.status == TornStatus::Pending) {
            ChainState::TornTail
        } else if report.torn.iter().any(|t| t.status == TornStatus::Repaired) {
            ChainState::Repaired
        } else if report.chained > 0 {
            ChainState::Intact
        } else if report.records > 0 {
            ChainState::Unchained
        } else {
            ChainState::Empty
        };
        self.report
    }
}

/// The finding for an unaccounted region closed by a chained record.
fn region_kind(torn: Option<&(String, u64)>) -> FindingKind {
    if torn.is_some() {
        FindingKind::TornMismatch
    } else {
        FindingKind::Unreadable
    }
}
