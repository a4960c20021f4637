//! `explain CODE`: a reason code's section of `docs/reasons.md`.

use crate::args::ExplainArgs;
use crate::exit_code::ExitCode;
use crate::printer;
use crate::style::{self, paint};

/// Runs `explain`.
pub fn run(args: &ExplainArgs) -> anyhow::Result<ExitCode> {
    let Some(text) = &args.code else {
        let codes = agent_guard_engine::all_codes();
        if args.json {
            let list: Vec<_> = codes
                .iter()
                .map(|(code, decision, explanation)| {
                    serde_json::json!({
                        "code": code, "decision": decision, "explanation": explanation
                    })
                })
                .collect();
            printer::json(&serde_json::json!({ "codes": list, "exit": 0 }));
            return Ok(ExitCode::Success);
        }
        for (code, decision, explanation) in codes {
            printer::out(&format!(
                "{}  {}  {explanation}",
                paint(
                    style::decision(decision),
                    &format!("{:<8}", decision.to_string())
                ),
                paint(style::BOLD, &format!("{:<29}", code.as_str()))
            ));
        }
        return Ok(ExitCode::Success);
    };
    let Some(explanation) =
        agent_guard_engine::parse_code(text).and_then(agent_guard_engine::explain)
    else {
        let similar = agent_guard_engine::similar_codes(text);
        let message = format!("unknown reason code `{}`", printer::sanitize(text));
        if args.json {
            printer::json(&serde_json::json!({
                "error": message,
                "similar": similar,
                "exit": ExitCode::Blocked.code(),
            }));
        }
        printer::error(&message, &[]);
        if similar.is_empty() {
            printer::hint("`agent-guard explain` lists every code");
        } else {
            let names: Vec<&str> = similar.iter().map(|c| c.as_str()).collect();
            printer::hint(&format!("did you mean {}?", names.join(", ")));
        }
        return Ok(ExitCode::Blocked);
    };
    if args.json {
        printer::json(&explanation);
        return Ok(ExitCode::Success);
    }
    for line in explanation.markdown.lines() {
        let styled = if let Some(heading) = line.strip_prefix("### ") {
            paint(style::BOLD, heading)
        } else if let Some(heading) = line.strip_prefix("## ") {
            paint(style::decision(explanation.decision), heading)
        } else if line.starts_with("```") {
            continue;
        } else {
            line.to_owned()
        };
        printer::out(&styled);
    }
    if !explanation.hint.is_empty() {
        printer::hint(explanation.hint);
    }
    Ok(ExitCode::Success)
}
