//! The tools' output schemas, generated from the engine's own report types.
//!
//! The engine derives `schemars::JsonSchema` for its public reports behind its `schema`
//! feature, which only this crate enables; the output schema of each tool is the schema of
//! exactly the type it serializes, doc comments included, so the two cannot drift. The
//! objects are left open (no `additionalProperties: false`) so that a field the engine adds
//! later does not make clients reject a result.

use agent_guard_engine::{ListReport, Reported, RestoreOutcome, SafeDeleteReport, StatusReport};

/// The result of `safe_delete`: the engine's report and its exit code (0 done, 2 refused;
/// then `isError` is true).
pub type SafeDeleteOutput = Reported<'static, SafeDeleteReport>;

/// The result of `restore` and `undo`: the engine's report and its exit code (0 done,
/// 1 errors, 3 conflicts; then `isError` is true).
pub type RestoreOutput = Reported<'static, RestoreOutcome>;

/// The result of `list`.
pub type ListOutput = ListReport;

/// The result of `status`.
pub type StatusOutput = StatusReport;
