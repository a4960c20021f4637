//! All terminal output goes through here: data to stdout, everything else to stderr.
//!
//! A closed stdout (`agent-guard list | head -1`) is not an error: output stops quietly.
//! Agent-supplied text is sanitised before it reaches a terminal. Both streams go through
//! `anstream`, which drops colour where it does not belong (see [`crate::style`]).

use std::io::Write;

use serde::Serialize;

use crate::style;

/// Writes a line of data to stdout. A broken pipe is ignored.
pub fn out(line: &str) {
    let mut stdout = anstream::stdout().lock();
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
    let mut stderr = anstream::stderr().lock();
    let _ = writeln!(stderr, "{line}");
}

/// Writes an error and its causes to stderr: `error: …`, then one `  caused by: …` line per
/// source (the one multi-line error formatter of the CLI). A message of several lines (a
/// TOML parse error points at the line with a caret) keeps its lines, each sanitised.
pub fn error(message: &str, causes: &[String]) {
    err(&format!(
        "{} {}",
        style::paint(style::ERROR, "error:"),
        multiline(message)
    ));
    for cause in causes {
        err(&format!("  caused by: {}", multiline(cause)));
    }
}

/// `hint: …` on stderr, after a blank line (uv's style).
pub fn hint(text: &str) {
    err(&format!("\n{} {text}", style::paint(style::HINT, "hint:")));
}

/// `warning: …` on stderr.
pub fn warning(text: &str) {
    err(&format!(
        "{} {}",
        style::paint(style::WARNING, "warning:"),
        multiline(text)
    ));
}

/// Sanitises each line of `text` and keeps the line breaks, indenting continuation lines.
pub fn multiline(text: &str) -> String {
    text.lines()
        .map(sanitize)
        .collect::<Vec<_>>()
        .join("\n    ")
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
