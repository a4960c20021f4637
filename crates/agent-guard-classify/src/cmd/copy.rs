//! cmd's copying commands: `copy`, `move`, `xcopy`, `replace`, and `sort /o`, `format`,
//! `fsutil file seteof|setzerodata`.
//!
//! `copy` and `move` prompt before overwriting when typed at a prompt (`/-y`) and not with
//! `/y`; an agent answering the prompt is overwriting all the same, so both are overwrites.
//! `copy` opens the destination and truncates it (in place, through a symlink); `move`
//! renames over it (replaced, the link itself). `copy a+b c` concatenates into `c`, and
//! without a destination into the first source (`copy /b a+,,` rewrites `a`). `ren`
//! refuses an existing name: nothing. The destination rules are `cp`'s.

use agent_guard_types::{Dialect, OpKind, OpSpec, Target, WriteMode};

use crate::windows::{self, Piece, Tok};
use crate::writes::{Placement, RECURSIVE, basename, overwrite_in};

/// Splits arguments into switches (lower-cased, without the `/`) and operands.
fn split(args: &[Tok], op: &mut OpSpec) -> (Vec<String>, Vec<Tok>) {
    let mut switches = Vec::new();
    let mut operands = Vec::new();
    for arg in args {
        if arg.bare_head().starts_with('/') {
            match arg.literal() {
                Some(text) => switches.push(text[1..].to_ascii_lowercase()),
                None => op.mark_undeterminable(format!("switch `{}` is not literal", arg.text)),
            }
        } else {
            operands.push(arg.clone());
        }
    }
    (switches, operands)
}

/// Marks `op` undeterminable for every switch not in `known` (compared lower-cased; a
/// `:` value is allowed after the name).
fn check_switches(op: &mut OpSpec, switches: &[String], known: &[&str]) {
    for switch in switches {
        let name = switch.split(':').next().unwrap_or(switch);
        if !known.contains(&name) {
            op.mark_undeterminable(format!("unknown switch /{switch}"));
        }
    }
}

/// The targets of `SOURCE… DEST` (one operand: the source's name here). A device source
/// (`copy nul f`) writes the destination file itself.
fn placed(operands: &[Tok], through: bool) -> Vec<Target> {
    let mut targets: Vec<Target> = operands
        .iter()
        .map(|t| windows::target(t, Dialect::Cmd))
        .collect();
    if targets.len() == 1 {
        targets.push(Target::literal("."));
    }
    let devices = targets.len() > 1
        && targets[..targets.len() - 1]
            .iter()
            .all(|t| t.opaque.is_none() && crate::writes::redirect::windows_device(&t.text));
    let mut placement = Placement::of_operands(targets, None);
    placement.exact = devices;
    let mut targets = placement.targets();
    for target in &mut targets {
        target.through_symlink = through;
    }
    targets
}

/// `copy [/a|/b] [/v] [/n] [/y|/-y] [/z] [/l] [/d] SOURCE[+SOURCE…] [DEST]`.
pub(super) fn copy(args: &[Tok]) -> Option<OpSpec> {
    let mut op = overwrite_in("copy", WriteMode::InPlace, Dialect::Cmd);
    let (switches, operands) = split(args, &mut op);
    if switches.iter().any(|s| s == "?") {
        return None;
    }
    check_switches(
        &mut op,
        &switches,
        &["a", "b", "v", "n", "y", "-y", "z", "l", "d"],
    );
    // Concatenation: `a+b c`, `a + b c`, `a+b`, `a+,,`.
    let concatenates = operands.iter().any(|t| {
        t.pieces
            .iter()
            .any(|p| matches!(p, Piece::Lit { text, quoted: false } if text.contains('+')))
    });
    if !concatenates {
        op.targets = placed(&operands, true);
        return Some(op);
    }
    let mut parts: Vec<(Tok, bool)> = Vec::new();
    let mut joined = false;
    for tok in &operands {
        let text = tok.literal().unwrap_or(&tok.text);
        if tok.quoted || tok.opaque.is_some() || !text.contains('+') {
            parts.push((tok.clone(), joined));
            joined = false;
            continue;
        }
        for (at, piece) in text.split('+').enumerate() {
            let after_plus = joined || at > 0;
            joined = false;
            if !piece.is_empty() {
                let lit = vec![Piece::Lit {
                    text: piece.to_owned(),
                    quoted: false,
                }];
                parts.push((Tok::with_pieces(lit, tok.span), after_plus));
            }
        }
        joined = text.ends_with('+');
    }
    let dest_given =
        parts.len() > 1 && parts.last().is_some_and(|(_, after_plus)| !after_plus) && !joined;
    let written = if dest_given {
        parts.last()
    } else {
        parts.first()
    };
    if let Some((tok, _)) = written {
        let mut target = windows::target(tok, Dialect::Cmd);
        target.through_symlink = true;
        op.targets.push(target);
    }
    op.note("copy with + concatenates into the destination (or the first source)");
    Some(op)
}

/// `move [/y|/-y] SOURCE[,SOURCE…] DEST`.
pub(super) fn move_(args: &[Tok]) -> Option<OpSpec> {
    let mut op = overwrite_in("move", WriteMode::Replace, Dialect::Cmd);
    let (switches, operands) = split(args, &mut op);
    if switches.iter().any(|s| s == "?") {
        return None;
    }
    check_switches(&mut op, &switches, &["y", "-y"]);
    op.targets = placed(&operands, false);
    op.kind = OpKind::Move;
    // `move` takes one source (a wildcard is one operand).
    op.landing_of = op.targets.iter().map(|_| Some(0)).collect();
    op.sources = operands
        .iter()
        .take(operands.len().saturating_sub(1).max(1))
        .map(|t| windows::target(t, Dialect::Cmd))
        .collect();
    Some(op)
}

/// `ren SOURCE NEWNAME` (`rename`): the source moves to `NEWNAME` in its own directory; an
/// existing name is refused, and a wildcard renames every match (undeterminable).
pub(super) fn ren(args: &[Tok]) -> Option<OpSpec> {
    let mut op = OpSpec::new("ren", OpKind::Move, Dialect::Cmd);
    op.write = WriteMode::Replace;
    let (switches, operands) = split(args, &mut op);
    if switches.iter().any(|s| s == "?") {
        return None;
    }
    check_switches(&mut op, &switches, &[]);
    // Windows names ignore case and trailing dots: `.GIT.` is `.git`.
    if operands
        .iter()
        .filter_map(Tok::literal)
        .any(crate::writes::names_protected)
    {
        return Some(windows::unknown(
            "ren",
            Dialect::Cmd,
            "it renames git metadata or the quarantine, taking it from the workspace",
        ));
    }
    let [source, name] = operands.as_slice() else {
        op.mark_undeterminable("ren takes a source and a new name");
        return Some(op);
    };
    let source = windows::target(source, Dialect::Cmd);
    let name = windows::target(name, Dialect::Cmd);
    if name.text.contains('/') && name.opaque.is_none() {
        op.mark_undeterminable("the new name of ren is a name, not a path");
    }
    op.targets = vec![crate::writes::sibling(&source, &name)];
    op.landing_of = vec![Some(0)];
    op.sources = vec![source];
    Some(op)
}

/// `xcopy SOURCE [DEST] [/switches]`: a directory source copies the files in it, so what
/// it overwrites is only known when it runs (`/l` only lists).
pub(super) fn xcopy(args: &[Tok]) -> Option<OpSpec> {
    let mut op = overwrite_in("xcopy", WriteMode::InPlace, Dialect::Cmd);
    let (switches, operands) = split(args, &mut op);
    if switches.iter().any(|s| s == "l" || s == "?") {
        return None;
    }
    op.targets = placed(&operands, true);
    if switches
        .iter()
        .any(|s| matches!(s.as_str(), "s" | "e" | "t"))
    {
        op.recursive = true;
        let sole = !op.undeterminable;
        op.mark_undeterminable(format!("xcopy /s {RECURSIVE}"));
        let landing = match operands.as_slice() {
            _ if !sole => None,
            [_] => Some(Target::literal(".")),
            [_, dest] => Some(windows::target(dest, Dialect::Cmd)),
            _ => None,
        };
        crate::writes::confine_recursive_copy(&mut op, landing);
    } else {
        op.mark_undeterminable("xcopy copies every file of a directory source: which files it overwrites is only known when it runs");
    }
    Some(op)
}

/// `replace SOURCE [DESTDIR] [/a] [/p] [/r] [/w] [/s] [/u]`: replaces `DESTDIR\name` by the
/// source (`/a` only adds new files; `/s` searches every subdirectory).
pub(super) fn replace(args: &[Tok]) -> Option<OpSpec> {
    let mut op = overwrite_in("replace", WriteMode::InPlace, Dialect::Cmd);
    let (switches, operands) = split(args, &mut op);
    if switches.iter().any(|s| s == "a" || s == "?") {
        return None;
    }
    check_switches(&mut op, &switches, &["p", "r", "w", "s", "u"]);
    let Some(source) = operands.first() else {
        return Some(op);
    };
    let source = windows::target(source, Dialect::Cmd);
    let dir = operands.get(1).map_or_else(
        || Target::literal("."),
        |t| windows::target(t, Dialect::Cmd),
    );
    let mut target = crate::writes::join(&dir, basename(&source.text), &source);
    target.through_symlink = true;
    op.targets.push(target);
    if switches.iter().any(|s| s == "s") {
        op.recursive = true;
        op.mark_undeterminable("replace /s replaces same-named files in every subdirectory");
    }
    Some(op)
}

/// `sort [/o FILE | /output FILE] …` (sort.exe): the output file is truncated.
pub(super) fn sort(args: &[Tok]) -> Option<OpSpec> {
    let mut op = overwrite_in("sort", WriteMode::InPlace, Dialect::Cmd);
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        index += 1;
        let lowered = arg.text.to_ascii_lowercase();
        if lowered == "/o" || lowered == "/output" {
            if let Some(file) = args.get(index) {
                let mut target = windows::target(file, Dialect::Cmd);
                target.through_symlink = true;
                op.targets.push(target);
            }
            index += 1;
        }
    }
    (!op.targets.is_empty()).then_some(op)
}

/// `format VOLUME [/switches]`: the drive is written over (the policy refuses drive roots).
pub(super) fn format(args: &[Tok]) -> Option<OpSpec> {
    let mut op = overwrite_in("format", WriteMode::InPlace, Dialect::Cmd);
    for arg in args.iter().filter(|a| !a.bare_head().starts_with('/')) {
        let mut target = windows::target(arg, Dialect::Cmd);
        if target.opaque.is_none() && target.text.len() == 2 && target.text.ends_with(':') {
            target.text.push('/');
        }
        target.through_symlink = true;
        op.targets.push(target);
    }
    (!op.targets.is_empty()).then_some(op)
}

/// `fsutil file seteof FILE SIZE`, `fsutil file setvaliddata FILE SIZE`, `fsutil file
/// setzerodata offset=N length=N FILE`: the file is cut or zeroed in place.
pub(super) fn fsutil(args: &[Tok]) -> Option<OpSpec> {
    let texts: Vec<String> = args.iter().map(|a| a.text.to_ascii_lowercase()).collect();
    if texts.first().map(String::as_str) != Some("file") {
        return None;
    }
    let verb = texts.get(1)?.as_str();
    let file = match verb {
        "seteof" | "setvaliddata" => args.get(2),
        "setzerodata" => args.iter().skip(2).find(|a| !a.text.contains('=')),
        _ => return None,
    };
    let mut op = overwrite_in("fsutil", WriteMode::InPlace, Dialect::Cmd);
    if let Some(file) = file {
        let mut target = windows::target(file, Dialect::Cmd);
        target.through_symlink = true;
        op.targets.push(target);
    }
    Some(op)
}

#[cfg(test)]
mod tests {
    use agent_guard_types::{OpKind, WriteMode};

    crate::test_support::line_helpers!(crate::cmd::classify);

    #[test]
    fn copy_forms() {
        assert_eq!(targets("copy /y a.txt b.txt"), ["b.txt", "b.txt/a.txt"]);
        assert_eq!(targets("copy a.txt build\\"), ["build/a.txt"]);
        assert_eq!(targets("copy nul notes.txt"), ["notes.txt"]);
        assert_eq!(targets("copy /b a.txt+b.txt c.txt"), ["c.txt"]);
        assert_eq!(targets("copy a.txt + b.txt c.txt"), ["c.txt"]);
        assert_eq!(targets("copy /b a.txt+b.txt"), ["a.txt"]);
        assert_eq!(targets("copy /b notes.txt+,,"), ["notes.txt"]);
        assert_eq!(targets("copy x\\a.txt"), ["./a.txt"]);
        let o = ops("copy /y a b");
        assert_eq!(
            (o[0].kind, o[0].write),
            (OpKind::Overwrite, WriteMode::InPlace)
        );
        assert!(o[0].targets.iter().all(|t| t.through_symlink));
        assert!(ops("copy /q a b")[0].undeterminable);
        assert!(ops("copy /?").is_empty());
    }

    #[test]
    fn move_xcopy_replace_and_friends() {
        let o = ops("move /y a.txt b.txt");
        assert_eq!((o[0].kind, o[0].write), (OpKind::Move, WriteMode::Replace));
        assert_eq!(o[0].sources[0].text, "a.txt");
        assert_eq!(targets("move /y a.txt b.txt"), ["b.txt", "b.txt/a.txt"]);
        assert!(o[0].targets.iter().all(|t| !t.through_symlink));
        assert!(ops("xcopy a b /y")[0].undeterminable);
        assert!(ops("xcopy a b /l").is_empty());
        assert_eq!(targets("replace new\\a.txt dest"), ["dest/a.txt"]);
        assert!(ops("replace a.txt dest /a").is_empty());
        assert_eq!(targets("sort /o out.txt in.txt"), ["out.txt"]);
        assert_eq!(targets("format d: /q"), ["d:/"]);
        assert_eq!(targets("fsutil file seteof big.bin 0"), ["big.bin"]);
        let o = ops("ren sub\\a.txt b.txt");
        assert_eq!(o[0].kind, OpKind::Move);
        assert_eq!(
            (o[0].sources[0].text.as_str(), o[0].targets[0].text.as_str()),
            ("sub/a.txt", "sub/b.txt")
        );
    }
}
