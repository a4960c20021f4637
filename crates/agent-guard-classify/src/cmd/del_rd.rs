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
        if let [target] = op.targets.as_slice()
            && let Some(confined) = pattern_below(target)
        {
            return Some(confined_to(op.clone(), confined));
        }
        // `del /s a.txt` deletes every `a.txt` below the working directory: known only when
        // the target is a directory (its tree); the policy refuses anything else.
        op.name_match = true;
        op.note("del /s also deletes same-named files in every subdirectory");
    }
    Some(op)
}

/// `del /s DIR\PATTERN` deletes the files matching PATTERN in DIR and every directory
/// below it, as `find DIR -name PATTERN -type f -delete` does: the directory (`.` when none)
/// and the pattern, when the pattern is the last component and the directory is literal.
fn pattern_below(target: &agent_guard_types::Target) -> Option<(String, String)> {
    if target.opaque.is_some() || !target.glob {
        return None;
    }
    let (dir, pattern) = target.text.rsplit_once('/').unwrap_or((".", &target.text));
    // `*` and `*.*` match everything: the directory's own facts decide (`del /s
    // .agent-trash\*` is a delete in the quarantine).
    if dir.contains(['*', '?']) || pattern.is_empty() || matches!(pattern, "*" | "*.*") {
        return None;
    }
    Some((
        if dir.is_empty() { "/" } else { dir }.to_owned(),
        pattern.to_owned(),
    ))
}

/// The op of `del /s DIR\PATTERN`: a delete confined to the names PATTERN matches below
/// DIR, which the policy checkpoints when that cannot reach `.git`, the quarantine or a
/// hook file. Windows matches case-insensitively, lets `*` match a leading dot, and also
/// matches 8.3 short names, whose extension is the first three letters of the long one
/// (`*.jso` deletes `settings.json`): a three-letter extension is widened to match longer
/// ones.
fn confined_to(mut op: OpSpec, (dir, pattern): (String, String)) -> OpSpec {
    let span = op.targets[0].span;
    op.targets = vec![agent_guard_types::Target {
        text: dir,
        span,
        ..agent_guard_types::Target::default()
    }];
    let widened = match pattern.rsplit_once('.') {
        Some((_, extension)) if extension.len() == 3 && !extension.ends_with('*') => {
            format!("{pattern}*")
        }
        _ => pattern,
    };
    op.confined = Some(agent_guard_types::Confinement {
        names: vec![widened],
        ignore_case: true,
        ..agent_guard_types::Confinement::default()
    });
    op.files_only = true;
    op.mark_undeterminable("del /s deletes the matching files at every depth");
    op
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
        // `del /s PATTERN` is a delete confined to the names it matches, at every depth.
        let o = op("del /s build\\*.log").unwrap();
        assert!(o.undeterminable && o.files_only);
        assert_eq!(targets(&o), ["build"]);
        assert_eq!(
            o.confined.unwrap().names,
            ["*.log*"],
            "widened for short names"
        );
        assert_eq!(op("del /s *.py").unwrap().confined.unwrap().names, ["*.py"]);
        assert!(op("del /s *").unwrap().confined.is_none());
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
