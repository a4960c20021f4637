//! The `check` report: the JSON contract of reference §1.3.

use serde::Serialize;

use agent_guard_types::{
    Decision, Dialect, DialectOutcome, OpKind, OpSpec, ReasonCode, SessionMode, Unkept, Verdict,
};

/// Op names that may be echoed; anything else is reported as `<opaque>`.
const SAFE_OP_NAMES: &[&str] = &[
    "rm",
    "rmdir",
    "unlink",
    "shred",
    "find",
    "git",
    "del",
    "erase",
    "rd",
    "ri",
    "remove-item",
];

/// One op, as `check --json` reports it (never raw targets).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OpReport {
    /// The program, from a fixed safe set, else `<opaque>`.
    pub op: String,
    /// The op kind (`fs-delete`, `git-clean`, …).
    pub kind: OpKind,
    /// The dialect that classified it.
    pub dialect: Dialect,
    /// Whether its effect is undeterminable.
    pub undeterminable: bool,
    /// Its targets as written (paths, pathspecs, a revision, branch names).
    pub targets: Vec<String>,
}

impl OpReport {
    /// Projects an op onto the reportable fields.
    pub fn of(op: &OpSpec) -> OpReport {
        let name = op.op.to_ascii_lowercase();
        OpReport {
            op: if SAFE_OP_NAMES.contains(&name.as_str()) {
                name
            } else {
                "<opaque>".to_owned()
            },
            kind: op.kind,
            dialect: op.dialect,
            undeterminable: op.undeterminable,
            targets: op.targets.iter().map(|t| t.text.clone()).collect(),
        }
    }
}

/// One compensation performed under `--enforce`: the recovery layer's typed outcome.
pub use agent_guard_recovery::Applied as Compensation;

/// The result of `check`, serialised as the `--json` output.
#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    /// The command judged, as the person (or agent) who ran `check` gave it (argv words are
    /// shown quoted). The audit log never holds it: there it is `<redacted>`.
    pub command: String,
    /// The workspace the command was judged against, once it was needed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// The next thing to type instead, when there is a ready one (`BLOCK_WILDCARD`: the
    /// `safe-delete` command that expands the glob itself).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<String>,
    /// A fresh id correlating the audit record and any transactions.
    pub check_id: String,
    /// Under `--enforce`: for an ASK, the id a person approves it with (`agent-guard approve
    /// ID`); for `ALLOW_APPROVED`, the approval it used up.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval_id: Option<String>,
    /// The session mode.
    pub mode: SessionMode,
    /// The effective dialect (`posix` when the selector is unusable).
    pub dialect: Dialect,
    /// The requested selector: `null`, its trimmed lower-cased form, or `<redacted>`.
    pub dialect_requested: Option<String>,
    /// `ok` or `unusable`.
    pub dialect_outcome: DialectOutcome,
    /// Why the selector is unusable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dialect_error: Option<&'static str>,
    /// The decision class (rewritten to `ALLOW` after a successful enforced compensation).
    pub decision: Decision,
    /// The reason code of the aggregate verdict.
    pub code: ReasonCode,
    /// A static human explanation of `code`.
    pub explanation: &'static str,
    /// Static reasons on refusal arms; otherwise empty (policy notes may hold raw text).
    pub reasons: Vec<String>,
    /// Wall time of resolve, classify and decide, in milliseconds (0.1 ms resolution).
    pub guard_latency_ms: f64,
    /// The classified ops.
    pub ops: Vec<OpReport>,
    /// Whether this was an enforced run.
    pub enforced: bool,
    /// Compensations performed (enforced runs only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compensations: Option<Vec<Compensation>>,
    /// Non-fatal problems, e.g. an audit record that could not be stored.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// What to tell the agent after a compensated line (txids, restore command).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// For an ASK under `--enforce`: what approving means, in the words the question shows
    /// the person: what was kept before asking (txids), and what cannot be restored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub if_approved: Option<String>,
    /// What the line would destroy that could not be kept first (an ASK, or an approved
    /// one): a file over the preservation cap, what a line changes outside the workspace.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_kept: Vec<Unkept>,
    /// The internal verdicts (not serialised).
    #[serde(skip)]
    pub verdicts: Vec<Verdict>,
    /// For an ASK: the policy's plan of what is kept before asking (not serialised).
    #[serde(skip)]
    pub ask: Option<agent_guard_policy::AskPlan>,
    /// A checkpoint found no watcher of its store: the binary starts one once it has
    /// answered ([`crate::WatcherStart::start`]; not serialised).
    #[serde(skip)]
    pub watcher: Option<crate::WatcherStart>,
}

impl CheckReport {
    /// Sets the decision and code, re-deriving the explanation from the code.
    pub fn set_verdict(&mut self, decision: Decision, code: ReasonCode) {
        self.decision = decision;
        self.code = code;
        self.explanation = code.explanation();
    }

    /// The single-line text form: `DECISION [CODE]`.
    pub fn headline(&self) -> String {
        format!("{} [{}]", self.decision, self.code)
    }
}
