//! What the CLI hands to [`render`](crate::render): a decision summary, never a raw command.

use serde_json::{Map, Value};

use agent_guard_types::Decision;

use crate::ShellCall;
use crate::payload::Malformed;

/// Reason codes of the hook layer. They sit beside the policy's
/// [`ReasonCode`](agent_guard_types::ReasonCode)s and follow the same `DECISION_WHAT` pattern,
/// but name failures of the hook itself (or a tool the policy does not see), not verdicts on a
/// command line.
pub mod codes {
    /// The payload could not be read (see [`Malformed`](crate::Malformed)).
    pub const MALFORMED_PAYLOAD: &str = "HOOK_MALFORMED_PAYLOAD";
    /// The hook failed internally (an error or a caught panic).
    pub const INTERNAL_ERROR: &str = "HOOK_INTERNAL_ERROR";
    /// The hook's internal deadline passed before a verdict.
    pub const DEADLINE_EXCEEDED: &str = "HOOK_DEADLINE_EXCEEDED";
    /// The hook's command line could not be parsed.
    pub const USAGE_ERROR: &str = "HOOK_USAGE_ERROR";
    /// A Codex `apply_patch` deletes files, which cannot be quarantined ahead of the patch.
    pub const ASK_PATCH_DELETE: &str = "ASK_PATCH_DELETE";
}

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
    /// The stable code of this refusal.
    pub const fn code(&self) -> &'static str {
        match self {
            Refusal::Malformed(_) => codes::MALFORMED_PAYLOAD,
            Refusal::Internal | Refusal::Panic => codes::INTERNAL_ERROR,
            Refusal::Deadline { .. } => codes::DEADLINE_EXCEEDED,
            Refusal::Usage => codes::USAGE_ERROR,
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
    /// The stable reason code (a policy code or one of [`codes`]).
    pub code: String,
    /// A static human explanation of `code`.
    pub explanation: String,
    /// What to tell the agent after a compensation (moved paths, txids, restore commands).
    pub message: Option<String>,
    /// The transactions made for this call.
    pub txids: Vec<String>,
    /// Set when the hook refused on its own account.
    pub refusal: Option<Refusal>,
    /// The engine's report as JSON, for the `generic` harness.
    pub report: Option<Value>,
    /// The tool input to run instead, for harnesses that accept a rewrite (see
    /// [`Outcome::with_rewrite`]).
    pub rewrite: Option<Map<String, Value>>,
}

impl Outcome {
    /// A verdict of the engine.
    pub fn verdict(decision: Decision, code: &str, explanation: &str) -> Outcome {
        Outcome {
            decision,
            code: code.to_owned(),
            explanation: explanation.to_owned(),
            message: None,
            txids: Vec::new(),
            refusal: None,
            report: None,
            rewrite: None,
        }
    }

    /// A tool call with nothing to judge (not a shell command): proceed silently.
    pub fn pass() -> Outcome {
        Outcome::verdict(
            Decision::Allow,
            "ALLOW_NOOP",
            "Nothing would be deleted by this command.",
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
        } else {
            "Restate with explicit workspace-relative paths, or use `agent-guard safe-delete \
             <paths>`. Do NOT circumvent the guard."
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
        format!(
            "[agent-guard] NEEDS APPROVAL [{}] {}",
            self.code, self.explanation
        )
    }

    /// The ask reason for harnesses that cannot prompt: a deny that tells the agent to ask.
    pub(crate) fn ask_as_deny_reason(&self) -> String {
        format!(
            "[agent-guard] NEEDS APPROVAL [{}] {} — ask the user to confirm, then split the \
             command as the explanation says.",
            self.code, self.explanation
        )
    }

    /// The reason given with an allow after compensation.
    pub(crate) fn allow_reason(&self) -> String {
        format!(
            "[agent-guard] ALLOWED [{}] {}",
            self.code,
            match self.txids.as_slice() {
                [] => "compensated before the command runs".to_owned(),
                [one] => format!("compensated before the command runs; txid {one}"),
                many => format!(
                    "compensated before the command runs; txids {}",
                    many.join(", ")
                ),
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
        text.push_str(if self.rewrite.is_some() {
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
        let compensated = Outcome::verdict(Decision::Allow, "RELOCATE_TREE", "moved")
            .with_txids(vec!["t1".into()]);
        assert_eq!(compensated.kind(), Kind::Compensated);
        assert_eq!(
            Outcome::verdict(Decision::Ask, "COMPOUND_CWD_DELETE", "x").kind(),
            Kind::Ask
        );
        // An unconfirmed compensation is not an allow.
        for decision in [Decision::Relocate, Decision::Snapshot, Decision::Sanitize] {
            assert_eq!(Outcome::verdict(decision, "X", "x").kind(), Kind::Deny);
        }
        let refused = Outcome::refused(Refusal::Panic);
        assert_eq!(refused.kind(), Kind::Deny);
        assert_eq!(refused.code, codes::INTERNAL_ERROR);
    }

    #[test]
    fn reasons_teach_and_carry_the_undo_command() {
        let blocked = Outcome::verdict(Decision::Block, "BLOCK_WILDCARD", "Wildcards.");
        let reason = blocked.deny_reason();
        assert!(reason.starts_with("[agent-guard] BLOCKED [BLOCK_WILDCARD] Wildcards. | "));
        assert!(reason.contains("agent-guard safe-delete"));
        assert!(reason.contains("Do NOT circumvent the guard."));

        let partial = Outcome::verdict(Decision::Block, "COMPENSATION_FAILED", "Failed.")
            .with_txids(vec!["tx1".into()]);
        assert!(
            partial
                .deny_reason()
                .contains("Undo with: agent-guard restore tx1")
        );

        let ask = Outcome::verdict(Decision::Ask, "COMPOUND_CWD_DELETE", "Split it.");
        assert!(ask.ask_as_deny_reason().contains("ask the user to confirm"));
        assert_eq!(
            ask.ask_reason(),
            "[agent-guard] NEEDS APPROVAL [COMPOUND_CWD_DELETE] Split it."
        );

        let done = Outcome::verdict(Decision::Allow, "RELOCATE_TREE", "Moved.")
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
