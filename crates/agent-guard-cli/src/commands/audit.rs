//! `agent-guard audit verify`, and the one-line chain state `status` prints.

use agent_guard_engine::{
    AuditChainStatus, ChainState, EnvSnapshot, Exit as _, Finding, FindingKind, TornRegion,
    TornStatus, verify_audit,
};

use crate::args::{AuditArgs, AuditCommand};
use crate::check::absolute_cwd;
use crate::exit_code::ExitCode;
use crate::printer::{self, sanitize};

/// Runs `audit <command>`.
pub fn run(args: &AuditArgs) -> anyhow::Result<ExitCode> {
    match &args.command {
        AuditCommand::Verify(args) => {
            let report =
                verify_audit(&absolute_cwd(args.cwd.as_deref())?, &EnvSnapshot::capture())?;
            if args.json {
                printer::json(&report.reported());
                return Ok(report.exit_code());
            }
            let chain = &report.chain;
            printer::out(&format!("audit log   {}", sanitize(&report.log)));
            printer::out(&format!(
                "chain       {}",
                summary(
                    chain.state,
                    chain.records,
                    chain.unchained_prefix,
                    chain.chained
                )
            ));
            if let Some(key) = &chain.key_id {
                printer::out(&format!("key         {key}"));
            } else {
                printer::out(
                    "key         none yet (no destructive command has been audited for this user)",
                );
            }
            for torn in &chain.torn {
                printer::out(&format!("torn        {}", torn_line(torn)));
            }
            for finding in &chain.findings {
                printer::out(&format!(
                    "  line {:>6}  {}",
                    finding.line,
                    describe(finding)
                ));
            }
            if chain.finding_count > chain.findings.len() as u64 {
                printer::out(&format!(
                    "  … and {} more bad line(s) (see --json)",
                    chain.finding_count - chain.findings.len() as u64
                ));
            }
            Ok(report.exit_code())
        }
    }
}

/// The chain state in one line, as `status` prints it after `audit chain`.
pub fn status_line(status: Option<&AuditChainStatus>) -> String {
    let Some(status) = status else {
        return "unknown: the log or this user's chain key cannot be read (run `agent-guard audit verify`)".to_owned();
    };
    let line = summary(
        status.state,
        status.records,
        status.unchained_prefix,
        status.chained,
    );
    if let Some(first) = &status.first_bad {
        return format!(
            "{line}; first bad line {}: {} ({} bad line(s); run `agent-guard audit verify`)",
            first.line,
            describe(first),
            status.finding_count
        );
    }
    match status
        .torn
        .as_ref()
        .filter(|t| t.status != TornStatus::UnchainedPrefix)
    {
        Some(torn) => format!("{line}; {}", torn_line(torn)),
        None => line,
    }
}

fn summary(state: ChainState, records: u64, prefix: u64, chained: u64) -> String {
    let prefix_text = if prefix > 0 {
        format!("an unchained prefix of {prefix} record(s), then ")
    } else {
        String::new()
    };
    match state {
        ChainState::Empty => "empty: no audit record yet".to_owned(),
        ChainState::Unchained => format!(
            "unchained: {records} record(s) written before chaining (or by the reference tool); nothing to verify"
        ),
        ChainState::Intact => format!("intact: {prefix_text}{chained} chained record(s)"),
        ChainState::Repaired => format!(
            "intact, torn tail repaired: {prefix_text}{chained} chained record(s); a crash cut a record short and the next record notes the lost bytes"
        ),
        ChainState::TornTail => format!(
            "intact up to a torn tail: {prefix_text}{chained} chained record(s); the last line was cut short by a crash, the next append repairs it"
        ),
        ChainState::Tampered => format!("TAMPERED: {records} record(s), {chained} chained"),
        _ => state.as_str().to_owned(),
    }
}

fn torn_line(torn: &TornRegion) -> String {
    let after = torn
        .after_seq
        .map_or_else(String::new, |seq| format!(" after seq {seq}"));
    let what = format!(
        "line {}: {} byte(s) in {} line(s){after}",
        torn.line, torn.length, torn.lines
    );
    match torn.status {
        TornStatus::Repaired => format!(
            "{what} lost to a torn write, repaired (noted by line {})",
            torn.repaired_by.unwrap_or_default()
        ),
        TornStatus::Pending => format!("{what} cut short at the end of the log (pending repair)"),
        TornStatus::UnchainedPrefix => format!("{what} unreadable in the unchained prefix"),
        _ => format!("{what} unreadable and unaccounted for"),
    }
}

fn describe(finding: &Finding) -> String {
    match &finding.kind {
        FindingKind::Unreadable => {
            "unreadable bytes that no later record accounts for (cut short or overwritten)"
                .to_owned()
        }
        FindingKind::TornMismatch => {
            "torn bytes that differ from what the next record noted".to_owned()
        }
        FindingKind::Edited => "edited: the MAC does not verify with this user's key".to_owned(),
        FindingKind::ForeignKey { key_id } => format!("made with another key ({key_id})"),
        FindingKind::Gap {
            expected_seq,
            found_seq,
        } => format!("gap: seq {expected_seq} expected, {found_seq} found (record(s) removed)"),
        FindingKind::Reordered {
            expected_seq,
            found_seq,
        } => format!(
            "out of order: seq {expected_seq} expected, {found_seq} found (moved, swapped or replayed)"
        ),
        FindingKind::BrokenLink => {
            "does not link to the line before it (that line was replaced)".to_owned()
        }
        FindingKind::UnchainedRecord => {
            "a record without chain fields inside the chain (inserted)".to_owned()
        }
        _ => "bad record".to_owned(),
    }
}
