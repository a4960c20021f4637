//! All terminal output goes through here: data to stdout, everything else to stderr.
//!
//! A closed stdout (`agent-guard list | head -1`) is not an error: output stops quietly.
//! Agent-supplied text is sanitised before it reaches a terminal.

use std::io::{self, Write};

use serde::Serialize;

/// Writes a line of data to stdout. A broken pipe is ignored.
pub fn out(line: &str) {
    let mut stdout = io::stdout().lock();
    let _ = writeln!(stdout, "{line}");
}

/// Writes pretty JSON to stdout as one document.
pub fn json<T: Serialize>(value: &T) {
    match serde_json::to_string_pretty(value) {
        Ok(text) => out(&text),
        Err(error) => err(&format!("error: could not render JSON: {error}")),
    }
}

/// Writes a line to stderr.
pub fn err(line: &str) {
    let mut stderr = io::stderr().lock();
    let _ = writeln!(stderr, "{line}");
}

/// Writes an error and its causes to stderr: `error: …`, then one `  caused by: …` line per
/// source (the one multi-line error formatter of the CLI).
pub fn error(message: &str, causes: &[String]) {
    err(&format!("error: {}", sanitize(message)));
    for cause in causes {
        err(&format!("  caused by: {}", sanitize(cause)));
    }
}

/// Replaces control, bidi-override and zero-width characters, so that a path or command
/// supplied by an agent cannot rewrite the terminal or disguise itself.
pub fn sanitize(text: &str) -> String {
    text.chars()
        .map(|c| {
            let invisible = matches!(c as u32,
                0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x2064 | 0x2066..=0x2069 | 0xFEFF);
            if (c.is_control() && c != '\t') || invisible {
                '\u{FFFD}'
            } else {
                c
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::sanitize;

    #[test]
    fn hostile_characters_are_replaced() {
        assert_eq!(sanitize("a\u{1b}[31mb"), "a\u{FFFD}[31mb");
        assert_eq!(sanitize("x\u{202E}y\u{200B}z"), "x\u{FFFD}y\u{FFFD}z");
        assert_eq!(sanitize("plain path/with space"), "plain path/with space");
    }
}
