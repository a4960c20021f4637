//! What the CLI hands to [`render`](crate::render): a decision summary, never a raw command.

use serde_json::{Map, Value};

use agent_guard_types::{Decision, ReasonCode};

use crate::ShellCall;
use crate::payload::Malformed;

/// Why the hook refused on its own account, before or instead of a verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal {
    /// The payload is malformed.
    Malformed(Malformed),
    /// An internal error.
    Internal,
    /// A panic was caught.
    Panic,
    /// The internal deadline passed.
    Deadline {
        /// The deadline, in milliseconds.
        ms: u64,
    },
    /// The hook's own arguments could not be parsed.
    Usage,
}

impl Refusal {
    /// The stable code of this refusal (a registered [`ReasonCode`]).
    pub const fn code(&self) -> ReasonCode {
        match self {
            Refusal::Malformed(_) => ReasonCode::HookMalformedPayload,
            Refusal::Internal | Refusal::Panic => ReasonCode::HookInternalError,
            Refusal::Deadline { .. } => ReasonCode::HookDeadlineExceeded,
            Refusal::Usage => ReasonCode::HookUsageError,
        }
    }

    /// A human explanation; never contains payload values.
    pub fn explanation(&self) -> String {
        match self {
            Refusal::Malformed(why) => {
                format!("The hook payload could not be read: {why}.")
            }
            Refusal::Internal => "agent-guard failed internally while judging the command.".into(),
            Refusal::Panic => "agent-guard hit an internal panic while judging the command.".into(),
            Refusal::Deadline { ms } => format!(
                "agent-guard did not reach a verdict within its {ms} ms deadline; anything \
                 already moved is restorable (`agent-guard status`, `agent-guard undo`)."
            ),
            Refusal::Usage => "The hook's command line is invalid (check the hook \
                               configuration: `agent-guard check --harness NAME`)."
                .into(),
        }
    }
}

/// A decision summary for one tool call: what [`render`](crate::render) turns into a reply.
///
/// Only [`Decision::Allow`] without a refusal lets the call proceed; every other decision
/// (including a RELOCATE or SNAPSHOT that was not confirmed as compensated) is rendered as a
/// deny.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Outcome {
    /// The decision class.
    pub decision: Decision,
    /// The stable reason code.
    pub code: ReasonCode,
    /// A static human explanation of `code`.
    pub explanation: String,
    /// What to tell the agent after a compensation (moved paths, txids, restore commands).
    pub message: Option<String>,
    /// The next thing to do after a refusal (the reason code's hint from the registry).
    pub hint: Option<String>,
    /// The transactions made for this call.
    pub txids: Vec<String>,
    /// Set when the hook refused on its own account.
    pub refusal: Option<Refusal>,
    /// The engine's report as JSON, for the `generic` harness.
    pub report: Option<Value>,
    /// The tool input to run instead, for harnesses that accept a rewrite (see
    /// [`Outcome::with_rewrite`]).
    pub rewrite: Option<Map<String, Value>>,
    /// What the call is: a shell command or a file-writing tool call.
    pub subject: Subject,
    /// For an ASK: what approving means (what was kept first, with txids, and what cannot
    /// be restored), carried in the question.
    pub if_approved: Option<String>,
}

/// What kind of tool call an [`Outcome`] is about; it changes the texts, and whether an allow
/// after compensation overrides the harness's own permission flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Subject {
    /// A shell command.
    #[default]
    Shell,
    /// A file-writing tool call (`Write`, `Edit`, `apply_patch`, …).
    Edit,
}

impl Outcome {
    /// A verdict of the engine.
    pub fn verdict(decision: Decision, code: ReasonCode, explanation: &str) -> Outcome {
        Outcome {
            decision,
            code,
            explanation: explanation.to_owned(),
            message: None,
            hint: None,
            txids: Vec::new(),
            refusal: None,
            report: None,
            rewrite: None,
            subject: Subject::Shell,
            if_approved: None,
        }
    }

    /// Marks the outcome as being about a file-writing tool call.
    #[must_use]
    pub fn for_edit(mut self) -> Outcome {
        self.subject = Subject::Edit;
        self
    }

    /// Whether an allow after compensation is rendered as an explicit allow, which skips the
    /// harness's own permission prompt where it has one. A shell delete that is already
    /// undoable is; an edit is not: the guard made it undoable, but whether the agent may edit
    /// at all stays the harness's (and its user's) decision.
    pub(crate) fn grants(&self) -> bool {
        self.subject == Subject::Shell
    }

    /// A tool call with nothing to judge (not a shell command): proceed silently.
    pub fn pass() -> Outcome {
        Outcome::verdict(
            Decision::Allow,
            ReasonCode::AllowNoop,
            ReasonCode::AllowNoop.explanation(),
        )
    }

    /// A refusal of the hook itself.
    pub fn refused(refusal: Refusal) -> Outcome {
        let mut outcome = Outcome::verdict(Decision::Block, refusal.code(), "");
        outcome.explanation = refusal.explanation();
        outcome.refusal = Some(refusal);
        outcome
    }

    /// Adds the message for the agent.
    #[must_use]
    pub fn with_message(mut self, message: Option<String>) -> Outcome {
        self.message = message;
        self
    }

    /// Adds what to do next after a refusal; empty hints are ignored.
    #[must_use]
    pub fn with_hint(mut self, hint: &str) -> Outcome {
        self.hint = (!hint.trim().is_empty()).then(|| hint.to_owned());
        self
    }

    /// Adds what approving an ASK means; empty texts are ignored.
    #[must_use]
    pub fn with_if_approved(mut self, text: Option<String>) -> Outcome {
        self.if_approved = text.filter(|t| !t.trim().is_empty());
        self
    }

    /// Adds the transaction ids.
    #[must_use]
    pub fn with_txids(mut self, txids: Vec<String>) -> Outcome {
        self.txids = txids;
        self
    }

    /// Adds the engine's JSON report (used by the `generic` harness).
    #[must_use]
    pub fn with_report(mut self, report: Value) -> Outcome {
        self.report = Some(report);
        self
    }

    /// Replaces `call`'s command with `command` for the harnesses that accept a rewritten
    /// input (Claude Code and Codex `updatedInput`, Gemini `tool_input`, Copilot
    /// `modifiedArgs`, `OpenCode` `args`); the others ignore it. Only meaningful on a compensated allow: the CLI
    /// uses it to turn a fully quarantined single delete into a command that announces the
    /// txid, so the agent sees success and the undo command instead of "No such file".
    #[must_use]
    pub fn with_rewrite(mut self, call: &ShellCall, command: String) -> Outcome {
        let mut input = call.input.clone();
        input.insert("command".into(), Value::String(command));
        self.rewrite = Some(input);
        self
    }

    /// The rewritten input, only on a compensated allow.
    pub(crate) fn rewrite(&self) -> Option<&Map<String, Value>> {
        self.rewrite
            .as_ref()
            .filter(|_| self.kind() == Kind::Compensated)
    }

    /// How the outcome is rendered.
    pub(crate) fn kind(&self) -> Kind {
        if self.refusal.is_some() {
            return Kind::Deny;
        }
        match self.decision {
            Decision::Allow if self.message.is_some() || !self.txids.is_empty() => {
                Kind::Compensated
            }
            Decision::Allow => Kind::Allow,
            Decision::Ask => Kind::Ask,
            _ => Kind::Deny,
        }
    }

    /// The deny reason, in the reference's teaching style.
    pub(crate) fn deny_reason(&self) -> String {
        let tail = if self.refusal.is_some() {
            "The command was not run (fail-closed). Retry, or ask the user to check the \
             agent-guard hook. Do NOT circumvent the guard."
                .to_owned()
        } else {
            let next = self.hint.as_deref().unwrap_or(
                "Restate with explicit workspace-relative paths, or use `agent-guard \
                 safe-delete <paths>`.",
            );
            format!("{next} Do NOT circumvent the guard.")
        };
        let mut reason = format!(
            "[agent-guard] BLOCKED [{}] {} | {tail}",
            self.code, self.explanation
        );
        // A failed compensation can leave items already moved: say how to get them back.
        if let Some(undo) = self.undo_text() {
            reason.push_str(" | ");
            reason.push_str(&undo);
        }
        reason
    }

    /// The ask reason for harnesses that prompt the user themselves.
    pub(crate) fn ask_reason(&self) -> String {
        let mut reason = format!(
            "[agent-guard] NEEDS APPROVAL [{}] {}",
            self.code, self.explanation
        );
        if let Some(text) = &self.if_approved {
            reason.push_str(" | ");
            reason.push_str(text);
        }
        reason
    }

    /// The context for the agent beside a native ask, when something was kept before asking:
    /// the txids and what approving means.
    pub(crate) fn ask_context(&self) -> Option<String> {
        let text = self
            .if_approved
            .as_ref()
            .filter(|_| !self.txids.is_empty())?;
        Some(format!(
            "[agent-guard] {}: kept before asking (txids {}). {text}",
            self.code,
            self.txids.join(", ")
        ))
    }

    /// The ask reason for harnesses that cannot prompt: a deny that tells the agent to ask,
    /// with the way its user approves this one command (`agent-guard approve ID`) when the
    /// guard stored the request.
    pub(crate) fn ask_as_deny_reason(&self) -> String {
        let next = self
            .hint
            .as_deref()
            .filter(|h| !h.is_empty())
            .unwrap_or("Split the command as the explanation says.");
        let approve = self.message.as_deref().map_or_else(
            || " Or ask the user to confirm.".to_owned(),
            |m| format!(" Or: {}", m.trim_start_matches("agent-guard: ")),
        );
        let stakes = self
            .if_approved
            .as_ref()
            .map_or_else(String::new, |text| format!(" | {text}."));
        format!(
            "[agent-guard] NEEDS APPROVAL [{}] {} | {next}{approve}{stakes} Do NOT circumvent \
             the guard.",
            self.code, self.explanation
        )
    }

    /// The reason given with an allow after compensation.
    pub(crate) fn allow_reason(&self) -> String {
        let what = match self.subject {
            Subject::Shell => "compensated before the command runs",
            Subject::Edit => "the previous version is kept",
        };
        format!(
            "[agent-guard] ALLOWED [{}] {}",
            self.code,
            match self.txids.as_slice() {
                [] => what.to_owned(),
                [one] => format!("{what}; txid {one}"),
                many => format!("{what}; txids {}", many.join(", ")),
            }
        )
    }

    /// The reason of a deny that stands in for a rewrite, where a harness has neither a
    /// rewrite nor context for the model (Qwen Code): the compensation already did all the
    /// command would do, so it is not run, and the reason tells the agent so.
    pub(crate) fn done_reason(&self) -> String {
        let mut reason = format!("[agent-guard] DONE [{}] {}", self.code, self.explanation);
        if let Some(undo) = self.undo_text() {
            reason.push_str(" | ");
            reason.push_str(&undo.replace('\n', " "));
        }
        reason.push_str(
            " | The command itself was not run: everything it would delete is already in the \
             quarantine. Do not run it again.",
        );
        reason
    }

    /// The context for the agent after a compensation: what moved, txids, restore commands.
    pub(crate) fn context(&self) -> String {
        let mut text = format!("[agent-guard] {}: {}", self.code, self.explanation);
        if let Some(undo) = self.undo_text() {
            text.push('\n');
            text.push_str(&undo);
        }
        text.push_str(if self.subject == Subject::Edit {
            "\nThe edit now runs; `agent-guard undo` puts the previous version back (and keeps \
             the edited one)."
        } else if self.rewrite.is_some() {
            "\nThe delete itself was replaced by an `echo` of this note: its targets are already \
             in the quarantine."
        } else {
            "\nThe command now runs on what is left: a \"No such file\" error for a moved path \
             is expected and harmless."
        });
        text
    }

    /// The message, or restore commands built from the txids when there is no message.
    fn undo_text(&self) -> Option<String> {
        if let Some(message) = &self.message {
            let mut text = message.clone();
            for txid in &self.txids {
                if !message.contains(txid.as_str()) {
                    text.push_str("\nUndo with: agent-guard restore ");
                    text.push_str(txid);
                }
            }
            return Some(text);
        }
        (!self.txids.is_empty()).then(|| {
            self.txids
                .iter()
                .map(|txid| format!("txid {txid}. Undo with: agent-guard restore {txid}"))
                .collect::<Vec<_>>()
                .join("\n")
        })
    }
}

/// How an [`Outcome`] is rendered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Proceed; nothing to report.
    Allow,
    /// Proceed; compensations to report.
    Compensated,
    /// A human must approve.
    Ask,
    /// Refuse.
    Deny,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        assert_eq!(Outcome::pass().kind(), Kind::Allow);
        let compensated = Outcome::verdict(Decision::Allow, ReasonCode::RelocateTree, "moved")
            .with_txids(vec!["t1".into()]);
        assert_eq!(compensated.kind(), Kind::Compensated);
        assert_eq!(
            Outcome::verdict(Decision::Ask, ReasonCode::CompoundCwdDelete, "x").kind(),
            Kind::Ask
        );
        // An unconfirmed compensation is not an allow.
        for decision in [Decision::Relocate, Decision::Snapshot, Decision::Sanitize] {
            assert_eq!(
                Outcome::verdict(decision, ReasonCode::AllowNoop, "x").kind(),
                Kind::Deny
            );
        }
        let refused = Outcome::refused(Refusal::Panic);
        assert_eq!(refused.kind(), Kind::Deny);
        assert_eq!(refused.code, ReasonCode::HookInternalError);
    }

    #[test]
    fn reasons_teach_and_carry_the_undo_command() {
        let blocked = Outcome::verdict(Decision::Block, ReasonCode::BlockWildcard, "Wildcards.");
        let reason = blocked.deny_reason();
        assert!(reason.starts_with("[agent-guard] BLOCKED [BLOCK_WILDCARD] Wildcards. | "));
        assert!(reason.contains("agent-guard safe-delete"));
        assert!(reason.contains("Do NOT circumvent the guard."));

        let partial = Outcome::verdict(Decision::Block, ReasonCode::CompensationFailed, "Failed.")
            .with_txids(vec!["tx1".into()]);
        assert!(
            partial
                .deny_reason()
                .contains("Undo with: agent-guard restore tx1")
        );

        let ask = Outcome::verdict(Decision::Ask, ReasonCode::CompoundCwdDelete, "Split it.");
        assert!(ask.ask_as_deny_reason().contains("ask the user to confirm"));
        let stored = ask.clone().with_message(Some(
            "agent-guard: ask the user to run `agent-guard approve 20261201-000000-0000abcd`"
                .into(),
        ));
        assert!(
            stored
                .ask_as_deny_reason()
                .contains("Or: ask the user to run `agent-guard approve 20261201-000000-0000abcd`")
        );
        assert_eq!(
            ask.ask_reason(),
            "[agent-guard] NEEDS APPROVAL [COMPOUND_CWD_DELETE] Split it."
        );

        let done = Outcome::verdict(Decision::Allow, ReasonCode::RelocateTree, "Moved.")
            .with_message(Some(
                "moved build; txid t9. Undo with: agent-guard restore t9".into(),
            ))
            .with_txids(vec!["t9".into()]);
        let context = done.context();
        assert_eq!(context.matches("agent-guard restore t9").count(), 1);
        assert!(done.allow_reason().contains("txid t9"));
        let reason = done.done_reason();
        assert!(reason.starts_with("[agent-guard] DONE [RELOCATE_TREE] Moved. | moved build"));
        assert!(reason.contains("agent-guard restore t9") && !reason.contains('\n'));
    }

    #[test]
    fn refusal_explanations_are_static() {
        let malformed = Refusal::Malformed(Malformed::Missing("tool_input.command"));
        assert_eq!(
            Outcome::refused(malformed).explanation,
            "The hook payload could not be read: `tool_input.command` is missing."
        );
        assert!(
            Refusal::Deadline { ms: 200 }
                .explanation()
                .contains("200 ms")
        );
    }
}
