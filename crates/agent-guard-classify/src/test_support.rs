//! Helpers shared by the dialects' unit tests.

/// Defines `ops`, `kinds` and `targets` over a dialect's `classify`: a line's operations,
/// their kinds, and the text of every target, in order.
macro_rules! line_helpers {
    ($classify:path) => {
        fn ops(line: &str) -> Vec<agent_guard_types::OpSpec> {
            $classify(line, 0).ops
        }

        #[allow(dead_code, reason = "not every test module reads the kinds")]
        fn kinds(line: &str) -> Vec<agent_guard_types::OpKind> {
            ops(line).iter().map(|o| o.kind).collect()
        }

        fn targets(line: &str) -> Vec<String> {
            ops(line)
                .iter()
                .flat_map(|o| o.targets.iter().map(|t| t.text.clone()))
                .collect()
        }
    };
}
pub(crate) use line_helpers;
