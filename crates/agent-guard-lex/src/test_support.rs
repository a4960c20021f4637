//! Helpers shared by the cmd and PowerShell lexers' unit tests.

use crate::ast::Script;

/// Each command's words: literal text, or `<raw>` for a word with opaque parts.
pub(crate) fn words(script: &Script, src: &str) -> Vec<Vec<String>> {
    script
        .commands
        .iter()
        .map(|c| {
            c.words
                .iter()
                .map(|w| {
                    w.literal_text()
                        .unwrap_or_else(|| format!("<{}>", w.raw(src)))
                })
                .collect()
        })
        .collect()
}

/// `script`, lexed from `src`, which must have no error.
pub(crate) fn ok(script: Script, src: &str) -> Script {
    assert_eq!(script.error, None, "{src}");
    script
}
