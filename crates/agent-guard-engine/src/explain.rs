//! `explain`: a reason code's documentation, from the registry that generates
//! `docs/reasons.md`.

use serde::Serialize;

use agent_guard_types::{Decision, ReasonCode};

/// One reason code, explained.
#[derive(Debug, Clone, Serialize)]
pub struct Explanation {
    /// The stable code.
    pub code: ReasonCode,
    /// The decision it produces by default.
    pub decision: Decision,
    /// The one-line explanation (the verdict's `explanation`).
    pub explanation: &'static str,
    /// What shapes of command trigger it.
    pub catches: &'static str,
    /// Why the guard reacts this way.
    pub why: &'static str,
    /// An example command line.
    pub example: &'static str,
    /// The verdict and what configuration can change.
    pub verdict: &'static str,
    /// How to undo the effect, or what to do instead.
    pub recovery: &'static str,
    /// The next thing to type after this verdict (empty when the command simply runs).
    pub hint: &'static str,
    /// The code's section of `docs/reasons.md`, as Markdown.
    pub markdown: String,
}

/// Parses a code as a person may type it: any case, `-` for `_` (`relocate-tree`).
pub fn parse_code(text: &str) -> Option<ReasonCode> {
    ReasonCode::parse(&text.trim().to_ascii_uppercase().replace('-', "_"))
}

/// Explains `code`.
pub fn explain(code: ReasonCode) -> Option<Explanation> {
    let rule = agent_guard_policy::lookup(code)?;
    let doc = rule.doc();
    Some(Explanation {
        code,
        decision: rule.default_action(),
        explanation: code.explanation(),
        catches: doc.catches,
        why: doc.why,
        example: doc.example,
        verdict: doc.verdict,
        recovery: doc.recovery,
        hint: rule.hint(),
        markdown: agent_guard_policy::render_section(rule),
    })
}

/// Every code with its decision and one-line explanation, in registry order.
pub fn all_codes() -> Vec<(ReasonCode, Decision, &'static str)> {
    agent_guard_policy::REGISTRY
        .iter()
        .map(|r| (r.code(), r.default_action(), r.code().explanation()))
        .collect()
}

/// The codes whose name contains `text` (for "did you mean").
pub fn similar_codes(text: &str) -> Vec<ReasonCode> {
    let wanted = text.trim().to_ascii_uppercase().replace('-', "_");
    let parts: Vec<&str> = wanted.split('_').filter(|p| p.len() > 2).collect();
    ReasonCode::ALL
        .iter()
        .copied()
        .filter(|c| {
            c.as_str()
                .split('_')
                .filter(|s| s.len() > 2)
                .any(|segment| {
                    parts
                        .iter()
                        .any(|p| p.starts_with(segment) || segment.starts_with(p))
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_parse_as_people_type_them() {
        assert_eq!(parse_code("relocate-tree"), Some(ReasonCode::RelocateTree));
        assert_eq!(
            parse_code(" BLOCK_WILDCARD "),
            Some(ReasonCode::BlockWildcard)
        );
        assert_eq!(parse_code("nope"), None);
        assert_eq!(similar_codes("wildcards"), vec![ReasonCode::BlockWildcard]);
        assert!(similar_codes("xyzzy").is_empty());
    }

    #[test]
    fn every_code_is_explained_with_its_docs_section() {
        let docs = include_str!("../../../docs/reasons.md");
        for code in ReasonCode::ALL {
            let explanation = explain(*code).expect("every code is registered");
            assert!(
                docs.contains(&explanation.markdown),
                "{code}: explain differs from docs/reasons.md"
            );
        }
    }
}
