//! The policy: [`OpSpec`] facts plus world facts → [`Verdict`]s.
//!
//! Fourth stage of the pipeline (`lex → classify → world → policy → recovery`). The policy
//! is an ordered set of rules, one file per reason code under [`reasons`]. It is pure: it
//! never parses command text and performs no I/O itself; facts about the filesystem and git
//! arrive through the [`World`] trait, asked lazily so that a git repository is opened only
//! when a rule needs it.
//!
//! ```
//! use std::path::Path;
//! use agent_guard_policy::{PolicyContext, decide};
//! use agent_guard_types::*;
//!
//! struct Empty;
//! impl World for Empty {
//!     fn workspace(&self) -> &Path { Path::new("/ws") }
//!     fn trash(&self) -> &Path { Path::new("/ws/.agent-trash") }
//!     fn path(&self, t: &Target, _: &Path) -> PathSpec {
//!         PathSpec { raw: t.text.clone(), inside_workspace: true, ..PathSpec::default() }
//!     }
//!     fn regenerable(&self, _: &[&Path]) -> bool { false }
//!     fn reset_preflight(&self, _: &Path, _: Option<&str>) -> ResetPreflight { ResetPreflight::Safe }
//! }
//!
//! let mut op = OpSpec::new("rm", OpKind::FsDelete, Dialect::Posix);
//! op.targets.push(Target::literal("absent.txt"));
//! let decided = decide(&[op], &PolicyContext::new("/ws"), &Empty);
//! assert_eq!(decided.aggregate.code, ReasonCode::AllowNoop);
//! ```

#![warn(missing_docs)]

mod ask;
mod batch;
mod context;
mod followed_cd;
mod guard_tree;
mod machine;
mod moves;
pub mod reasons;
mod stash_line;
#[cfg(test)]
mod testing;
mod writes;

pub use ask::{AskPlan, before_asking};
pub use batch::{DeleteMode, decide_paths};
pub use context::PolicyContext;
pub use machine::{Decided, decide, decide_op, delete_mode};
pub use reasons::block_dialect_unknown::dialect_verdict;
pub use reasons::{
    Coverage, Enforcement, REGISTRY, Reason, ReasonDoc, lookup, render_markdown, render_section,
};

#[cfg(doc)]
use agent_guard_types::{OpSpec, Verdict, World};
