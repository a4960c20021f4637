//! From the engine's report to the hook's [`Outcome`], and the announcing rewrite of a fully
//! quarantined single `rm`.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use agent_guard_engine::{CheckReport, Exit as _};
use agent_guard_hook::{Harness, Outcome, ShellCall};
use agent_guard_types::{CompensationStatus, Decision, Dialect, Strategy};

use crate::printer;

/// The hook outcome of an enforced check of a shell command.
pub(super) fn outcome(harness: Harness, report: &CheckReport, call: &ShellCall) -> Outcome {
    let mut outcome = report_outcome(harness, report);
    if report.decision == Decision::Allow
        && report.dialect == Dialect::Posix
        && let Some(command) = announce(report, call)
    {
        outcome = outcome.with_rewrite(call, command);
    }
    outcome
}

/// The hook outcome of an enforced report: decision, code, hint, what was kept (txids and a
/// printable message) and, for `generic`, the report itself.
pub(super) fn report_outcome(harness: Harness, report: &CheckReport) -> Outcome {
    let compensations = report.compensations.as_deref().unwrap_or_default();
    // Only compensations that kept something are worth reporting (a snapshot of a clean tree
    // has a txid but nothing to restore).
    let txids = compensations
        .iter()
        .filter(|c| c.moved > 0 || c.sha.as_ref().is_some_and(Option::is_some))
        .map(|c| c.txid.clone())
        .collect();
    // The message names moved paths, which come from the agent: keep them printable.
    let message = report.message.as_deref().map(|text| {
        text.lines()
            .map(printer::sanitize)
            .collect::<Vec<_>>()
            .join("\n")
    });
    let mut outcome = Outcome::verdict(report.decision, report.code, report.explanation)
        .with_hint(agent_guard_engine::hint(report.code))
        .with_message(message)
        .with_if_approved(report.if_approved.as_deref().map(printer::sanitize))
        .with_txids(txids);
    if harness == Harness::Generic
        && let Ok(mut value) = serde_json::to_value(report.reported())
    {
        // The reply goes to the harness, which may log it: the command text is not echoed
        // back (the person who runs `check` sees it; a hook reply does not need it).
        value["command"] = serde_json::Value::from("<redacted>");
        outcome = outcome.with_report(value);
    }
    outcome
}

/// The command that replaces a fully quarantined single `rm`: an `echo` of what moved, the
/// txid and the restore command. The original would now fail with "No such file" (its
/// targets are gone) or succeed silently; the echo succeeds and tells the agent what
/// happened.
///
/// Only a line that is exactly one `rm` (options `-r -R -f -d -v` and their long forms, then
/// plain relative operands, nothing a shell would expand) qualifies, and only when every
/// operand was moved by complete relocations and nothing else was.
fn announce(report: &CheckReport, call: &ShellCall) -> Option<String> {
    let operands = simple_rm_operands(&call.command)?;
    let compensations = report.compensations.as_deref()?;
    let complete = !compensations.is_empty()
        && compensations.iter().all(|c| {
            c.strategy == Strategy::Relocate
                && c.status == CompensationStatus::Complete
                && c.skipped == 0
        });
    if !complete {
        return None;
    }
    let moved: BTreeSet<PathBuf> = compensations
        .iter()
        .flat_map(|c| c.paths.iter().map(PathBuf::from))
        .collect();
    // The workspace the engine judged against (settings are resolved once: no second
    // discovery here).
    let root = PathBuf::from(report.workspace.as_deref()?);
    let cwd = call.cwd.canonicalize().ok()?;
    let base = cwd.strip_prefix(&root).ok()?;
    let expected = operands
        .iter()
        .map(|operand| normalize(&base.join(operand)))
        .collect::<Option<BTreeSet<PathBuf>>>()?;
    if expected != moved {
        return None;
    }
    let mut text = format!(
        "agent-guard: moved {} to the quarantine",
        operands.join(" ")
    );
    for compensation in compensations {
        let txid = &compensation.txid;
        if txid.is_empty()
            || !txid
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return None;
        }
        text.push_str("; txid ");
        text.push_str(txid);
        text.push_str(", undo with: agent-guard restore ");
        text.push_str(txid);
    }
    // Every character is from the safe sets checked above: no quote can end the string.
    Some(format!("echo '{text}'"))
}

/// The operands of a line that is exactly one plain `rm`, or `None`.
fn simple_rm_operands(command: &str) -> Option<Vec<&str>> {
    let safe = |c: char| c.is_ascii_alphanumeric() || " \t-_./@%+=:,".contains(c);
    if !command.chars().all(safe) {
        return None;
    }
    let mut words = command.split_ascii_whitespace();
    if words.next()? != "rm" {
        return None;
    }
    let mut operands = Vec::new();
    let mut options_done = false;
    for word in words {
        if !options_done && word.starts_with('-') {
            let known = match word {
                "--" => {
                    options_done = true;
                    true
                }
                "--recursive" | "--force" | "--dir" | "--verbose" => true,
                short => short[1..].chars().all(|c| "rRfdv".contains(c)) && short.len() > 1,
            };
            // Options after an operand are operands on BSD rm: not a plain line.
            if !known || !operands.is_empty() {
                return None;
            }
            continue;
        }
        if word.starts_with('-') || Path::new(word).is_absolute() {
            return None;
        }
        operands.push(word);
    }
    (!operands.is_empty()).then_some(operands)
}

/// `path` without `.` components; `None` if it has `..` (or is absolute).
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::Normal(part) => out.push(part),
            _ => return None,
        }
    }
    (!out.as_os_str().is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_plain_single_rm_qualifies() {
        assert_eq!(simple_rm_operands("rm -r build"), Some(vec!["build"]));
        assert_eq!(
            simple_rm_operands("rm -rf -- ./build dist/"),
            Some(vec!["./build", "dist/"])
        );
        for line in [
            "rm -r build && make",
            "rm -r build; ls",
            "rm -r $DIR",
            "rm -r 'build'",
            "rm -r build*",
            "rm -r ~/build",
            "rm -i build",
            "rm build -r",
            "rm -r /tmp/x",
            "rm -r",
            "rmdir build",
            "X=1 rm -r build",
            "rm -r build\nrm -r src",
            "rm -r -- -x",
        ] {
            assert_eq!(simple_rm_operands(line), None, "{line}");
        }
    }

    #[test]
    fn normalize_drops_dots_and_refuses_parents() {
        assert_eq!(
            normalize(Path::new("sub/./build/")),
            Some(PathBuf::from("sub/build"))
        );
        assert_eq!(normalize(Path::new("sub/../x")), None);
        assert_eq!(normalize(Path::new(".")), None);
    }
}
