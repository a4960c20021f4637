//! cmd's delete builtins: `del`/`erase` and `rd`/`rmdir`.
//!
//! cmd reads switches anywhere on the line (`del a.txt /q` is quiet, not a target `/q`),
//! case-insensitively. A switch we do not know might change what is deleted: the op is
//! undeterminable.

use agent_guard_types::{Dialect, OpKind, OpSpec};

use crate::windows::{self, Tok};

/// Attribute letters of `del /a:…`.
const ATTRIBUTES: &str = "rhsaiol-";

/// Parses `del`, `erase`, `rd` or `rmdir` (`name` normalised) with its split arguments.
/// Returns `None` for `/?` (help: nothing is deleted).
pub(crate) fn parse(name: &str, args: &[Tok]) -> Option<OpSpec> {
    let rd = matches!(name, "rd" | "rmdir");
    let mut op = OpSpec::new(name, OpKind::FsDelete, Dialect::Cmd);
    // `rd` without `/s` removes an empty directory only.
    op.dir_only = rd;
    for arg in args {
        if !arg.bare_head().starts_with('/') {
            op.targets.push(windows::target(arg, Dialect::Cmd));
            continue;
        }
        let Some(text) = arg.literal() else {
            op.mark_undeterminable(format!("switch `{}` is not literal", arg.text));
            continue;
        };
        let switch = text[1..].to_ascii_lowercase();
        match (switch.as_str(), rd) {
            ("?", _) => return None,
            ("s", _) => {
                op.recursive = true;
                op.dir_only = false;
            }
            ("q", _) | ("f", false) => op.force = true,
            ("p", false) => {}
            (attributes, false) if is_attribute_switch(attributes) => {}
            _ => op.mark_undeterminable(format!("unknown switch {text}")),
        }
    }
    if op.targets.is_empty() {
        op.mark_undeterminable("no target");
    }
    if !rd && op.recursive {
        // `del /s a.txt` deletes every `a.txt` below the working directory: known only when
        // the target is a directory (its tree); the policy refuses anything else.
        op.name_match = true;
        op.note("del /s also deletes same-named files in every subdirectory");
    }
    Some(op)
}

/// `a`, `a:h`, `ahr`, `a-r`: the attribute filter of `del`.
fn is_attribute_switch(switch: &str) -> bool {
    let Some(letters) = switch.strip_prefix('a') else {
        return false;
    };
    let letters = letters.strip_prefix(':').unwrap_or(letters);
    letters.chars().all(|c| ATTRIBUTES.contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(line: &str) -> Option<OpSpec> {
        let script = agent_guard_lex::cmd::lex(line);
        let words = &script.commands[0].words;
        let name = words[0].literal_text().unwrap();
        let args: Vec<Tok> = words[1..]
            .iter()
            .flat_map(|w| windows::tokens(w, super::super::BUILTIN))
            .collect();
        parse(&name, &args)
    }

    fn targets(op: &OpSpec) -> Vec<&str> {
        op.targets.iter().map(|t| t.text.as_str()).collect()
    }

    #[test]
    fn switches_anywhere_case_insensitive() {
        let o = op("rd /S /Q build").unwrap();
        assert!(o.recursive && o.force && !o.undeterminable && !o.dir_only);
        assert_eq!(targets(&o), ["build"]);
        let o = op("del a.txt /q").unwrap();
        assert!(o.force && !o.undeterminable);
        assert_eq!(targets(&o), ["a.txt"]);
        let o = op("del /F /A:H /p a.txt").unwrap();
        assert!(o.force && !o.undeterminable);
    }

    #[test]
    fn rd_without_s_removes_an_empty_directory() {
        let o = op("rd build").unwrap();
        assert!(!o.recursive && o.dir_only && !o.undeterminable);
    }

    #[test]
    fn undeterminable_forms() {
        assert!(op("del /z a.txt").unwrap().undeterminable);
        assert!(op("del /s /q").unwrap().undeterminable);
        assert!(op("rd /f build").unwrap().undeterminable);
        assert!(op("del /a:x a").unwrap().undeterminable);
        let o = op("del /s /q build").unwrap();
        assert!(o.name_match && o.recursive && !o.undeterminable);
        assert!(!op("del /s *.log").unwrap().undeterminable);
        assert!(op("del build/o.js").unwrap().undeterminable);
        assert!(op("del /?").is_none());
    }

    #[test]
    fn targets_are_normalised() {
        let o = op("del build\\nested\\a.o").unwrap();
        assert_eq!(targets(&o), ["build/nested/a.o"]);
        let o = op("rmdir /s /q \"C:\\proj\\build\\\"").unwrap();
        assert_eq!(targets(&o), ["C:/proj/build/"]);
        let o = op("del a.txt,b.txt").unwrap();
        assert_eq!(targets(&o), ["a.txt", "b.txt"]);
        let o = op("rd /s /q %BUILD%").unwrap();
        assert!(o.targets[0].opaque.is_some());
        let o = op("del \"build. \"").unwrap();
        assert_eq!(targets(&o), ["build"]);
        let o = op("del a.txt:stream").unwrap();
        assert!(o.targets[0].opaque.is_some());
        let o = op("del *.log").unwrap();
        assert!(o.targets[0].glob);
        let o = op("del [x].log").unwrap();
        assert!(!o.targets[0].glob);
    }
}
