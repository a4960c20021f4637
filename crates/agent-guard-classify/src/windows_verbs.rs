//! Windows delete verbs (`del`, `erase`, `rd`, `ri`) seen by the POSIX front end.
//!
//! Agents on Git Bash or WSL sometimes type cmd-style deletes into a POSIX shell. The
//! reference tool classifies them there, so we do too: `/s` is recursive, `/q` forced, and
//! `rd`/`ri` always recurse. Switches count wherever they appear.

use agent_guard_types::{Dialect, OpKind, OpSpec};

use crate::args::Arg;

/// The verbs (compared lower-cased).
pub(crate) const VERBS: &[&str] = &["del", "erase", "rd", "ri"];

/// Parses a Windows verb typed into a POSIX shell.
pub(crate) fn parse(name: &str, args: &[Arg]) -> OpSpec {
    let mut op = OpSpec::new(name, OpKind::FsDelete, Dialect::Posix);
    op.recursive = matches!(name, "rd" | "ri");
    let mut options_done = false;
    for arg in args {
        let Some(text) = arg.known() else {
            op.targets.push(arg.target());
            continue;
        };
        if !options_done && text == "--" {
            options_done = true;
            continue;
        }
        if !options_done && is_switch(text) {
            let letter = text[1..2].to_ascii_lowercase();
            match letter.as_str() {
                "s" => op.recursive = true,
                "q" => op.force = true,
                "f" | "p" | "a" => {}
                _ => op.mark_undeterminable(format!("unknown switch {text}")),
            }
            continue;
        }
        if !options_done && text.starts_with('-') && text.len() > 1 {
            for letter in text[1..].chars() {
                match letter {
                    'r' | 'R' => op.recursive = true,
                    'f' => op.force = true,
                    _ => op.mark_undeterminable(format!("unknown flag -{letter}")),
                }
            }
            continue;
        }
        op.targets.push(arg.target());
    }
    op.name_match = op.recursive && matches!(name, "del" | "erase");
    op
}

/// `/x` or `/a:attrs` — a one-letter switch, never a path like `/tmp`.
fn is_switch(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() >= 2
        && bytes[0] == b'/'
        && bytes[1].is_ascii_alphabetic()
        && (bytes.len() == 2 || (bytes[2] == b':' && bytes[1].eq_ignore_ascii_case(&b'a')))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(line: &str) -> OpSpec {
        let mut words = line.split_whitespace();
        let name = words.next().unwrap();
        parse(name, &words.map(Arg::literal).collect::<Vec<_>>())
    }

    #[test]
    fn switches_anywhere() {
        let o = op("del /s /q build");
        assert!(o.recursive && o.force);
        assert_eq!(o.targets[0].text, "build");
        let o = op("del a.txt /Q");
        assert!(o.force);
        assert_eq!(o.targets.len(), 1);
        assert!(op("rd build").recursive);
        assert!(op("del /z a").undeterminable);
        assert!(op("ri build -r -fo").undeterminable);
        assert_eq!(op("del /tmp").targets[0].text, "/tmp");
    }
}
