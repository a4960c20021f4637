//! The one error-chain formatter.

use std::error::Error;

/// Renders an error and its sources on one line, `outer: cause: root cause`.
///
/// Every crate that puts an error into a report or a journal line uses this, so a chain reads
/// the same everywhere.
///
/// ```
/// use std::io;
///
/// #[derive(Debug)]
/// struct Outer(io::Error);
/// impl std::fmt::Display for Outer {
///     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
///         f.write_str("cannot open the manifest")
///     }
/// }
/// impl std::error::Error for Outer {
///     fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
///         Some(&self.0)
///     }
/// }
///
/// let error = Outer(io::Error::other("disk on fire"));
/// assert_eq!(
///     agent_guard_types::error_chain(&error),
///     "cannot open the manifest: disk on fire"
/// );
/// ```
pub fn error_chain(error: &dyn Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The sources of an error, outermost first, each rendered alone (for multi-line output).
pub fn error_causes(error: &dyn Error) -> Vec<String> {
    let mut causes = Vec::new();
    let mut source = error.source();
    while let Some(cause) = source {
        causes.push(cause.to_string());
        source = cause.source();
    }
    causes
}
