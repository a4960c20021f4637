//! What the cmd and PowerShell front ends share: arguments split the way the Windows
//! programs split them, target normalisation, the driver loop and the vocabulary floor.

pub(crate) mod later;
pub(crate) mod noop;
mod tok;

use agent_guard_lex::{Script, SimpleCommand};
use agent_guard_types::{Dialect, OpKind, OpSpec, Target, WriteMode};

use crate::args::Arg;
use crate::shapes::Positions;
use crate::smell::smells;
use crate::{Classification, find, git};

pub(crate) use tok::{Piece, Split, Tok, tokens, whole};

/// Per-line state shared by the commands of one script.
pub(crate) struct Line<'a> {
    /// The whole line.
    pub(crate) source: &'a str,
    /// How many interpreter hops led here.
    pub(crate) nesting: u32,
    smells: Option<bool>,
    /// For each command, the innermost command whose text contains it (the command a script
    /// block or substitution is an argument of).
    owners: Vec<Option<usize>>,
    /// Per-owner answers memoised by the front ends (so each owner is inspected once).
    memo: std::collections::HashMap<usize, bool>,
}

impl Line<'_> {
    /// Whether the whole line has destructive vocabulary (computed once).
    pub(crate) fn smells(&mut self) -> bool {
        *self.smells.get_or_insert_with(|| smells(self.source))
    }

    /// The command that `index` is nested in as an argument, if any.
    pub(crate) fn owner(&self, index: usize) -> Option<usize> {
        self.owners.get(index).copied().flatten()
    }

    /// Returns the memoised answer for `index`, computing it once.
    pub(crate) fn memo(&mut self, index: usize, compute: impl FnOnce() -> bool) -> bool {
        *self.memo.entry(index).or_insert_with(compute)
    }

    /// The source text of a command.
    pub(crate) fn text(&self, command: &SimpleCommand) -> &str {
        self.source
            .get(command.span.start..command.span.end)
            .unwrap_or(self.source)
    }
}

/// Classifies one command of a lexed script (by index) into ops.
pub(crate) type CommandFn = fn(&Script, usize, &mut Line<'_>, &mut Positions) -> Vec<OpSpec>;

/// Lexes and classifies `text`: the driver shared by cmd and PowerShell.
pub(crate) fn classify(
    text: &str,
    nesting: u32,
    dialect: Dialect,
    lex: fn(&str) -> Script,
    command: CommandFn,
) -> Classification {
    let script = lex(text);
    if let Some(error) = &script.error {
        return Classification::lex_failed(&script, error, text, dialect);
    }
    let mut ops = Vec::new();
    let mut positions = Positions::default();
    positions.note_source(text, dialect);
    let mut line = Line {
        source: text,
        nesting,
        smells: None,
        owners: owners(&script),
        memo: std::collections::HashMap::new(),
    };
    for (index, cmd) in script.commands.iter().enumerate() {
        positions.note_windows_redirects(cmd, index);
        for mut op in command(&script, index, &mut line, &mut positions) {
            crate::place(&mut op, index, cmd);
            ops.push(op);
        }
    }
    Classification::of_ops(ops, &positions, &script)
}

/// Finds each command's owner with a stack: commands are sorted by where they start, and a
/// nested command's text lies inside its owner's.
fn owners(script: &Script) -> Vec<Option<usize>> {
    let mut stack: Vec<usize> = Vec::new();
    let mut out = Vec::with_capacity(script.commands.len());
    for (index, command) in script.commands.iter().enumerate() {
        while let Some(&top) = stack.last() {
            let outer = &script.commands[top];
            if outer.span.start <= command.span.start
                && command.span.end <= outer.span.end
                && outer.context.depth < command.context.depth
            {
                break;
            }
            stack.pop();
        }
        out.push(stack.last().copied());
        stack.push(index);
    }
    out
}

/// The directories whose programs are Windows' own, lower-cased with `/`: a command word
/// that is a path into one of them is judged by its name.
const SYSTEM_DIRS: &[&str] = &[
    "c:/windows",
    "c:/windows/system32",
    "c:/windows/syswow64",
    "c:/windows/system32/windowspowershell/v1.0",
];

/// Why a path-named program is opaque (issue 35, point 6).
pub(crate) use crate::posix::OWN_PROGRAM;

/// Returns `true` if the command word `text` is a path (`.\tools\git.exe`, `tools/ls`) to
/// a program outside Windows' own directories: it runs that file, whatever its name.
pub(crate) fn names_own_program(text: &str) -> bool {
    let normalised = text.replace('\\', "/").to_ascii_lowercase();
    let Some((dir, _)) = normalised.rsplit_once('/') else {
        return false;
    };
    !SYSTEM_DIRS.contains(&dir.trim_end_matches('/'))
}

/// Returns the normalised program name: the last path component, lower-cased, without
/// `.exe` (`C:\Windows\System32\CMD.EXE` → `cmd`).
pub(crate) fn program_name(text: &str) -> String {
    let base = text.rsplit(['/', '\\']).next().unwrap_or(text);
    let lowered = base.to_ascii_lowercase();
    match lowered.strip_suffix(".exe") {
        Some(stem) if !stem.is_empty() => stem.to_owned(),
        _ => lowered,
    }
}

/// Converts an argument into a delete target, normalised the way Windows reads paths.
///
/// - `\` becomes `/`, so the facts do not depend on the host (`C:\x` → `C:/x`,
///   `\\srv\share` → `//srv/share`); the world judges drive and UNC spellings.
/// - `*` and `?` (and `[` in PowerShell, whose `-Path` takes wildcard ranges) are wildcards,
///   quoted or not: the program expands them, not the shell.
/// - Windows ignores trailing dots and spaces in a name (`"build. "` is `build`); a name made
///   only of them is opaque.
/// - A `:` after the drive names a stream or a provider (`a.txt:s`, `HKLM:\…`): opaque. So
///   is a `"` (escaped with `^` in cmd): no Windows name has one.
/// - In PowerShell a leading `~` is the home directory.
pub(crate) fn target(tok: &Tok, dialect: Dialect) -> Target {
    let mut target = Target {
        text: tok.text.replace('\\', "/"),
        span: Some(tok.span),
        opaque: tok.opaque.clone(),
        ..Target::default()
    };
    if target.opaque.is_some() {
        return target;
    }
    target.glob = target.text.contains(['*', '?'])
        || (dialect == Dialect::PowerShell && target.text.contains('['));
    target.tilde =
        dialect == Dialect::PowerShell && (target.text == "~" || target.text.starts_with("~/"));
    if target.text.contains('"') {
        // No Windows name contains a quote; cmd's builtins would read it as quoting again.
        target.opaque = Some(format!("`{}` contains a quote character", tok.text));
        return target;
    }
    let drive = target.text.as_bytes().get(1) == Some(&b':')
        && target.text.as_bytes()[0].is_ascii_alphabetic();
    let after_drive = if drive {
        &target.text[2..]
    } else {
        &target.text[..]
    };
    if after_drive.contains(':') {
        target.opaque = Some(format!(
            "`{}` names a stream or a provider path, not a file",
            tok.text
        ));
        return target;
    }
    if let Some(alias) = target.text.split('/').find(|c| short_name(c)) {
        // `CLAUDE~1`, `SETTIN~1.JSO` (Wine: `_CLA~CCO`): Windows finds the long name the
        // alias stands for, which the guard cannot tell from here.
        target.opaque = Some(format!(
            "`{alias}` may be an 8.3 short name, which stands for a long name in its directory"
        ));
        return target;
    }
    match trim_components(&target.text) {
        Some(text) => target.text = text,
        None => {
            target.opaque = Some(format!(
                "`{}` has a name made only of dots and spaces",
                tok.text
            ));
        }
    }
    target
}

/// Whether a path component has the form of an 8.3 short name: at most eight characters,
/// a `~` after the first followed by letters or digits, and an extension of at most three
/// (`PROGRA~1`, `SETTIN~1.JSO`, Wine's hashed `_CLA~CCO`).
fn short_name(component: &str) -> bool {
    let (base, extension) = component.split_once('.').unwrap_or((component, ""));
    let Some(tilde) = base.find('~') else {
        return false;
    };
    let tail = &base[tilde + 1..];
    tilde > 0
        && !tail.is_empty()
        && tail.chars().all(|c| c.is_ascii_alphanumeric())
        && base.len() <= 8
        && extension.len() <= 3
        && !extension.contains('.')
}

/// Strips the trailing dots and spaces Windows ignores from each component (`.` and `..`
/// stay). Returns `None` if a component consists only of them.
fn trim_components(text: &str) -> Option<String> {
    if !text.contains(['.', ' ']) {
        return Some(text.to_owned());
    }
    let mut out = Vec::new();
    for component in text.split('/') {
        if component.is_empty() || component == "." || component == ".." {
            out.push(component);
            continue;
        }
        let trimmed = component.trim_end_matches(['.', ' ']);
        if trimmed.is_empty() {
            return None;
        }
        out.push(trimmed);
    }
    Some(out.join("/"))
}

/// Creates an unknown op whose text says why.
pub(crate) fn unknown(op: &str, dialect: Dialect, why: impl Into<String>) -> OpSpec {
    OpSpec::unknown(op, dialect, why)
}

/// An unknown op if the line has destructive vocabulary.
pub(crate) fn opaque_if_line_smells(
    line: &mut Line<'_>,
    dialect: Dialect,
    why: &str,
) -> Vec<OpSpec> {
    if line.smells() {
        vec![unknown("<opaque>", dialect, why)]
    } else {
        Vec::new()
    }
}

/// An unknown op if `text` has destructive vocabulary.
pub(crate) fn opaque_if_smelly(text: &str, dialect: Dialect, why: &str) -> Vec<OpSpec> {
    if smells(text) {
        vec![unknown("<opaque>", dialect, why)]
    } else {
        Vec::new()
    }
}

/// A POSIX shell run from cmd or PowerShell (Git for Windows, WSL): its script is not
/// classified, so it is refused when it has destructive words, and always when the shell
/// reads its program from a pipe or a redirected file.
pub(crate) fn posix_shell(text: &str, stdin_stream: bool, dialect: Dialect) -> Vec<OpSpec> {
    if stdin_stream {
        return vec![unknown(
            "<opaque>",
            dialect,
            "a POSIX shell reads its program from a pipe or a file",
        )];
    }
    opaque_if_smelly(text, dialect, "a POSIX shell runs the script")
}

/// Why a foreign word is refused.
const MISMATCH: &str = "known destructive vocabulary is incompatible with the selected dialect";

/// POSIX deleters that no Windows dialect knows (`rm`, `rmdir` are handled per dialect:
/// `rmdir` is a cmd builtin, both are PowerShell aliases).
const POSIX_DELETERS: &[&str] = &["unlink", "shred", "srm", "wipe", "truncate"];

/// The vocabulary floor (reference 4.1 step 7): a POSIX deleter, a deleting `find` or a
/// destructive `git` form typed into cmd or PowerShell is a target-free unknown op. The
/// dialect cannot classify it, and guessing a POSIX reading could misjudge its targets.
pub(crate) fn floor(name: &str, args: &[Tok], dialect: Dialect) -> Option<OpSpec> {
    let destructive = if POSIX_DELETERS.contains(&name) {
        true
    } else if name == "find" || name == "git" {
        let probe: Vec<Arg> = args.iter().map(Tok::probe_arg).collect();
        if name == "find" {
            find::parse(&probe).is_some_and(|op| !op.dry_run)
        } else {
            // git runs its configured programs (`-c core.pager=…`) with its own `sh`.
            let parsed = git::run(&probe, git::GitContext::default());
            // A command that only writes another commit into the work tree (`git checkout
            // main`) is judged by that commit's hook files, as in POSIX.
            if let Some(op) = &parsed.op
                && op.kind == OpKind::GitMoveWorkTree
                && parsed.programs.is_empty()
            {
                let mut op = op.clone();
                op.dialect = dialect;
                return Some(op);
            }
            parsed
                .op
                .is_some_and(|op| op.kind != OpKind::Other && !op.dry_run)
                || parsed.programs.iter().any(|p| {
                    p.script.as_deref().is_none_or(|script| {
                        crate::classify_nested(script, Dialect::Posix, crate::posix::MAX_NESTING)
                            .ops
                            .iter()
                            // An editor rewriting only the file git hands it (its scratch
                            // copy) destroys nothing.
                            .any(|op| !(p.editor && op.kind == OpKind::Overwrite && op.targets.is_empty()))
                    })
                })
        }
    } else {
        // A POSIX program that writes over files (`sed -i`, `cp`, `gzip`), run from Git for
        // Windows or MSYS2: floored like the deleters.
        let probe: Vec<Arg> = args.iter().map(Tok::probe_arg).collect();
        !crate::writes::posix(name, &probe).is_empty()
    };
    destructive.then(|| unknown(name, dialect, MISMATCH))
}

/// What a cmd or PowerShell command the rules found nothing in comes to: nothing when it is
/// known to change nothing ([`noop::changes_nothing`]), else an opaque program — a script,
/// a build tool, a task runner or an unknown command, checkpointed before it runs.
pub(crate) fn unmodelled(name: &str, args: &[Tok], dialect: Dialect) -> Vec<OpSpec> {
    if let Some(op) = floor(name, args, dialect) {
        return vec![op];
    }
    if schedules(name, args) {
        return vec![unknown(
            name,
            dialect,
            "it schedules a program to run later, which no checkpoint taken now can cover",
        )];
    }
    if noop::changes_nothing(name, args, dialect) {
        return Vec::new();
    }
    vec![crate::noop::opaque(
        name,
        dialect,
        "a program whose effects the guard does not model (a script, a build tool, a task \
         runner, an unknown command)",
    )]
}

/// `schtasks /create` or `/change`, `Register-ScheduledTask`, `Set-ScheduledTask`: a program
/// registered to run later.
fn schedules(name: &str, args: &[Tok]) -> bool {
    match name {
        "schtasks" => args.iter().any(|arg| {
            arg.literal().is_none_or(|text| {
                let text = text.to_ascii_lowercase();
                matches!(text.as_str(), "/create" | "-create" | "/change" | "-change")
            })
        }),
        "register-scheduledtask" | "set-scheduledtask" => true,
        _ => false,
    }
}

/// `ops`, or the opaque-program op of `name` when the rules found nothing (an interpreter
/// running a file or code the guard does not flag, a package runner) — unless it only asks
/// for its version or help.
pub(crate) fn or_opaque(
    ops: Vec<OpSpec>,
    name: &str,
    args: &[Tok],
    dialect: Dialect,
    why: &str,
) -> Vec<OpSpec> {
    let probe: Vec<Arg> = args.iter().map(Tok::probe_arg).collect();
    if !ops.is_empty() || crate::noop::only_queries(name, &probe) {
        return ops;
    }
    vec![crate::noop::opaque(name, dialect, why)]
}

/// A target-free unknown op for vocabulary of the other dialect.
pub(crate) fn mismatch(name: &str, dialect: Dialect) -> OpSpec {
    unknown(name, dialect, MISMATCH)
}

/// `robocopy SRC DST [FILE…] [/switches]`. Files of the source that differ overwrite those
/// of the destination: known for named files (`DST/FILE`), undeterminable for the default
/// `*.*` or with `/S`, `/E`, `/MIR` (trees). `/MOV` deletes the named files from the source
/// after copying them (consumed inputs); `/MIR` (or `/PURGE`) deletes destination files
/// missing from the source and `/MOVE` moves directories too, and `/MOV` of a tree: which
/// files is decided while it runs. `/L` only lists.
pub(crate) fn robocopy(args: &[Tok], dialect: Dialect) -> Vec<OpSpec> {
    let mut positional = Vec::new();
    let mut switches = Vec::new();
    for arg in args {
        if arg.bare_head().starts_with('/') {
            switches.push(arg.text.to_ascii_lowercase());
        } else {
            positional.push(arg);
        }
    }
    if switches.iter().any(|s| s == "/l" || s == "/?") {
        return Vec::new();
    }
    let has = |name: &str| switches.iter().any(|s| s == name);
    let tree = has("/s") || has("/e") || has("/mir");
    let mut ops = Vec::new();
    let [source, dest, files @ ..] = positional.as_slice() else {
        return ops;
    };
    let source = target(source, dialect);
    let dir = target(dest, dialect);
    let named: Vec<Target> = files.iter().map(|f| target(f, dialect)).collect();
    let mut written = crate::writes::overwrite_in("robocopy", WriteMode::InPlace, dialect);
    for name in &named {
        let mut joined = crate::writes::join(&dir, &name.text, name);
        joined.through_symlink = true;
        written.targets.push(joined);
    }
    if named.is_empty() {
        written.mark_undeterminable(
            "robocopy copies every changed file of the source: which ones is only known when it runs",
        );
        // Everything it writes lands below the destination (issue 38).
        confine(&mut written, &dir);
    }
    if tree {
        written.recursive = true;
        written.mark_undeterminable(format!("robocopy {}", crate::writes::RECURSIVE));
    }
    ops.push(written);
    let deleting = ["/mir", "/purge", "/mov", "/move"]
        .into_iter()
        .find(|flag| has(flag));
    match deleting {
        Some("/mov") if !tree && !named.is_empty() => {
            let mut consumed = OpSpec::new("robocopy", OpKind::SideEffectDelete, dialect);
            consumed.write = WriteMode::ReadThenRemove;
            consumed.targets = named
                .iter()
                .map(|name| crate::writes::join(&source, &name.text, name))
                .collect();
            consumed.note("robocopy /MOV deletes the source files it copied");
            ops.push(consumed);
        }
        Some(flag) => {
            let mut op = OpSpec::new("robocopy", OpKind::FsDelete, dialect);
            op.recursive = true;
            let which = if flag.starts_with("/mov") {
                &source
            } else {
                &dir
            };
            op.targets.push(which.clone());
            op.mark_undeterminable(format!(
                "robocopy {flag} decides what it deletes while it runs"
            ));
            // Only below that directory: a checkpoint keeps it.
            confine(&mut op, which);
            ops.insert(0, op);
        }
        None => {}
    }
    ops
}

/// Confines an op of robocopy's to the literal directory `dir`: its one target.
fn confine(op: &mut OpSpec, dir: &Target) {
    if dir.is_concrete() && !dir.tilde {
        op.targets = vec![dir.clone()];
        op.confined = Some(agent_guard_types::Confinement::default());
    }
}

/// Programs Windows ships that write files the POSIX way (`curl.exe`, bsdtar's `tar.exe`):
/// their arguments are read with the POSIX rules, the targets spelled the Windows way.
pub(crate) fn native_writer(name: &str, args: &[Tok], dialect: Dialect) -> Vec<OpSpec> {
    let probe: Vec<Arg> = args.iter().map(Tok::probe_arg).collect();
    let mut ops = crate::writes::posix(name, &probe);
    // `tar -xf a.tar` writes what the archive holds: a program the guard does not model
    // (it was a no-op here, as no modelled write was found).
    if ops.is_empty() && !crate::noop::changes_nothing(name, &probe) {
        ops.push(crate::noop::opaque(
            name,
            dialect,
            "it writes what its input names (an archive's members)",
        ));
    }
    for op in &mut ops {
        op.dialect = dialect;
        for target in &mut op.targets {
            target.text = target.text.replace('\\', "/");
            target.glob |= target.opaque.is_none() && target.text.contains(['*', '?']);
        }
    }
    ops
}

/// Returns `true` if a command's stdin is a stream the guard cannot see: a pipe, or a
/// file or descriptor redirected in.
pub(crate) fn stdin_stream(command: &SimpleCommand) -> bool {
    command.separator == agent_guard_lex::Separator::Pipe
        || command.redirects.iter().any(|r| {
            matches!(
                r.op,
                agent_guard_lex::RedirectOp::In
                    | agent_guard_lex::RedirectOp::DupIn
                    | agent_guard_lex::RedirectOp::ReadWrite
            )
        })
}

/// `python -c …`, `node -e …` and the like, from cmd or PowerShell: see
/// [`crate::inline_code`]. A program read from a piped or redirected stdin is unknown.
pub(crate) fn interpreter(
    lang: crate::inline_code::Lang,
    args: &[Tok],
    stdin_stream: bool,
    dialect: Dialect,
) -> Vec<OpSpec> {
    use crate::inline_code::{Invocation, Stdin, classify};
    let args: Vec<Option<&str>> = args.iter().map(Tok::literal).collect();
    classify(Invocation {
        lang,
        args: &args,
        stdin: if stdin_stream {
            Stdin::Unknown("piped or redirected in")
        } else {
            Stdin::Unseen
        },
        dialect,
    })
}

/// A package runner (`npx`, `uv run`, …) from cmd or PowerShell: what it runs is an unknown op
/// when the command has destructive shell words or names a file-deletion API.
pub(crate) fn runner(text: &str, dialect: Dialect) -> Vec<OpSpec> {
    if smells(text) || crate::inline_code::deletes(text) {
        vec![unknown(
            "<opaque>",
            dialect,
            "a package runner runs the command",
        )]
    } else {
        Vec::new()
    }
}
