//! The vocabulary of agent-guard.
//!
//! Every stage of the pipeline speaks these types:
//!
//! ```text
//! lex → classify → [OpSpec] → world → [PathSpec] → policy → Verdict → recovery → audit
//! ```
//!
//! This crate holds data and the [`World`] facts trait only. It does no I/O, reads no clock and
//! no environment. Its stable strings — [`Decision`] classes, [`ReasonCode`]s, [`OpKind`] names
//! — are a public contract shared with the reference tool.
//!
//! ```
//! use agent_guard_types::{Decision, ReasonCode, Verdict};
//!
//! let verdicts = [Verdict::of(ReasonCode::RelocateTree), Verdict::of(ReasonCode::BlockWildcard)];
//! let worst = Verdict::worst(&verdicts).unwrap();
//! assert_eq!(worst.decision, Decision::Block);
//! assert_eq!(worst.code.as_str(), "BLOCK_WILDCARD");
//! ```

#![warn(missing_docs)]

mod decision;
mod dialect;
mod edit;
mod error_chain;
pub mod guard_files;
mod harness;
mod listed;
mod mode;
mod op;
mod outcome;
mod outside;
mod path;
mod reason;
mod strategy;
mod tree_source;
mod txid;
mod unkept;
mod verdict;
mod world;

pub use decision::Decision;
pub use dialect::{Dialect, DialectResolution, DialectSource};
pub use edit::{EditEffect, EditFile};
pub use error_chain::{error_causes, error_chain};
pub use harness::Harness;
pub use listed::{ListFormat, ListedWrites};
pub use mode::{CheckpointMode, SessionMode};
pub use op::{Confinement, OpKind, OpSpec, Shape, Span, Target, WriteMode, xargs_splits};
pub use outcome::{DialectOutcome, ExitCode, SafeDeleteOutcome};
pub use outside::{Connection, Database, Engine, Outside, Place};
pub use path::{EntryKind, PathSpec, Protected, logical_join};
pub use reason::ReasonCode;
pub use strategy::{CompensationStatus, Strategy};
pub use tree_source::{TreePart, TreeSource};
pub use txid::{InvalidTxId, TxId, is_generated_id};
pub use unkept::{Unkept, UnkeptWhy, human_bytes};
pub use verdict::{CheckpointPlan, MovePlan, MovedSource, Plan, Preserved, Verdict};
pub use world::{GuardFileState, GuardTreeChanges, Reach, ResetPreflight, World};
