//! Test support for agent-guard: real temporary workspaces from declarative fixtures, and the
//! loader of the command corpus in `tests/corpus/`. A dev-dependency only.

#![warn(missing_docs)]

pub mod corpus;
pub mod fixture;

pub use corpus::{Case, ExpectedOp, LoadedCase, corpus_root, load_cases, load_fixtures};
pub use fixture::{BranchSpec, Fixture, FixtureSpec};
