//! Commands that destroy content without deleting a path: they replace or truncate existing
//! files (`OpKind::Overwrite`), or read their inputs and then delete them
//! (`OpKind::SideEffectDelete`).
//!
//! The facts are which paths a command writes and how it treats one that exists
//! ([`WriteMode`]); whether a path exists is the world's business, so a command that may only
//! create a file still names it (a new file is `ALLOW_NOOP` in the policy). A path the
//! command only appends to is named in an append op ([`OpKind::Append`]), which the policy
//! judges against the protected paths only. Every rule comes from the tool's manual:
//!
//! - redirections ([`redirect`]): `>`, `>|`, `&>`, `>&file`, `n>`, `<>` on any command;
//! - programs that truncate or write named outputs ([`outputs`]): `truncate`, `dd of=`,
//!   `tee`, `sort -o`, `uniq IN OUT`, `fallocate --punch-hole`, `sponge`, `iconv -o`,
//!   `curl -o`, `wget -O`, and the block-device tools ([`devices`]);
//! - programs that copy, move or link onto a destination ([`copy`], [`rsync`]);
//! - in-place editors ([`editors`], [`sed`]): `sed -i`, `perl -i`, `ruby -i`,
//!   `gawk -i inplace`, `ed`, `ex`, `vim`, `dos2unix`, `yq -i`, `clang-format -i`;
//! - programs that consume their inputs ([`archives`]): `gzip` and kin, `zip -m`,
//!   `tar --remove-files`, `7z -sdel`.
//!
//! A tool that recurses into directory operands rewrites or consumes files the guard cannot
//! list before it runs, and the policy keeps only files: such an op is undeterminable
//! ([`RECURSIVE`]).

mod archives;
mod backups;
mod copy;
pub(crate) use copy::{Assigned, backup_suffix_assigned};
mod devices;
mod editors;
mod outputs;
pub(crate) mod redirect;
mod rsync;
mod sed;

use agent_guard_types::{Dialect, OpKind, OpSpec, Target, WriteMode};

use crate::args::Arg;
use crate::getopt::Item;

/// Why a write that recurses into directories is undeterminable.
pub(crate) const RECURSIVE: &str = "it recurses into directory operands: which files it rewrites or removes is only known \
     when it runs";

/// Creates an overwrite op of the POSIX program `name`.
pub(crate) fn overwrite(name: &str, mode: WriteMode) -> OpSpec {
    overwrite_in(name, mode, Dialect::Posix)
}

/// Creates an overwrite op of `name` in `dialect`.
pub(crate) fn overwrite_in(name: &str, mode: WriteMode, dialect: Dialect) -> OpSpec {
    let mut op = OpSpec::new(name, OpKind::Overwrite, dialect);
    op.write = mode;
    op
}

/// Turns a writer's op into an append op: the same targets, nothing in them overwritten.
pub(crate) fn append_of(mut op: OpSpec) -> OpSpec {
    op.kind = OpKind::Append;
    op.write = WriteMode::default();
    unresolved_protected_append(op)
}

/// An append whose path the guard cannot resolve is harmless (`>> "$LOG"`) unless its
/// spelling names git metadata or the quarantine (`>> "$PWD/.git/config"`,
/// `>> "$(git rev-parse --git-dir)/config"`, `>> "$GIT_DIR/hooks/x"`): then it is an unknown
/// op, refused as undeterminable, since the same line with the path spelled out would be
/// refused as protected.
pub(crate) fn unresolved_protected_append(mut op: OpSpec) -> OpSpec {
    let names_protected = op
        .targets
        .iter()
        .any(|t| (t.opaque.is_some() || t.glob) && names_protected(&t.text));
    if op.kind == OpKind::Append && names_protected {
        op.kind = OpKind::Unknown;
        op.mark_undeterminable(
            "it appends to a path the guard cannot resolve that names git metadata or the quarantine",
        );
    }
    op
}

/// An append or a metadata change whose path is not fully known where it lands — a target
/// the guard cannot resolve, no target at all (the path binds from the pipeline, or from a
/// file: `setfacl --restore`), or a relative one after a `cd` in the line — becomes an
/// unknown op when the line names git metadata or the quarantine anywhere
/// (`X=.git; echo x >> $X/config`, `cd .git && chmod +x hooks/x`,
/// `Get-Item .git\config | Add-Content -Value x`). Both are judged against the protected
/// paths only, which an unresolved path could be.
pub(crate) fn unresolved_appends_in_line(ops: &mut [OpSpec], line: &str) {
    let mut names = None;
    for op in ops
        .iter_mut()
        .filter(|op| matches!(op.kind, OpKind::Append | OpKind::Metadata))
    {
        let unresolved = op.targets.is_empty()
            || op.shape.is_some()
            || !op.cd.is_empty()
            || op.undeterminable
            || op.targets.iter().any(|t| t.opaque.is_some());
        if unresolved && *names.get_or_insert_with(|| line_names_protected(line)) {
            let what = if op.kind == OpKind::Append {
                "it appends to a path"
            } else {
                "it changes the metadata of a path"
            };
            op.kind = OpKind::Unknown;
            op.mark_undeterminable(format!(
                "{what} the guard cannot place, on a line that names git metadata, the \
                 quarantine or a file that keeps the guard on"
            ));
        }
    }
}

/// A program the guard does not see into, on a line that names the quarantine or its
/// journals (`python fix.py .agent-trash/manifest.jsonl`, `pip list --log
/// .agent-trash/audit.jsonl`), becomes an unknown op: a checkpoint never covers the
/// quarantine, so what the program does there could not be undone.
pub(crate) fn opaque_programs_at_the_quarantine(ops: &mut [OpSpec], line: &str) {
    let mut names = None;
    for op in ops.iter_mut().filter(|op| op.kind == OpKind::OpaqueProgram) {
        if *names.get_or_insert_with(|| line_names_quarantine(line)) {
            op.kind = OpKind::Unknown;
            op.mark_undeterminable(
                "a program the guard does not see into is handed the quarantine or a file that \
                 keeps the guard on, which no checkpoint protects in time",
            );
        }
    }
}

/// Returns `true` if a word-like token of `line` names the quarantine or its journals, or
/// a file that keeps the guard on: a harness's configuration directory (`.claude`,
/// `.codex`…), the guard's project file, a harness's folder-trust file, or the guard's own
/// directories (`…/agent-guard/…`: its state, where trust is recorded, and its
/// configuration). A program the guard does not see into, handed one of these, could
/// switch the guard off before any checkpoint could put it back.
fn line_names_quarantine(line: &str) -> bool {
    let lowered = line.to_ascii_lowercase().replace('\\', "/");
    lowered.contains("agent-guard/")
        || line_tokens(line).any(|token| {
            names_quarantine(&token)
                || token == "trustedfolders.json"
                || (token != "hooks" && token.starts_with('.') && names_guard_file(&token))
        })
}

/// `.agent-trash` or one of its journals.
fn names_quarantine(token: &str) -> bool {
    matches!(token, ".agent-trash" | "audit.jsonl" | "manifest.jsonl")
}

/// The word-like tokens of `line`, lower-cased. PowerShell's escape character joins nothing
/// (`` .`git `` is `.git`), so it is dropped rather than read as a break; Windows drops
/// trailing dots from a name (`.git.` is `.git`), so they are trimmed.
fn line_tokens(line: &str) -> impl Iterator<Item = String> {
    let lowered = line.to_ascii_lowercase().replace('`', "");
    lowered
        .split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
        .map(|token| token.trim_end_matches('.').to_owned())
        .collect::<Vec<_>>()
        .into_iter()
}

/// Returns `true` if any word-like token of `line` names git metadata or the quarantine: a
/// `.git` (or `NAME.git`) token, `.agent-trash`, the quarantine's journals, or git's own way
/// of naming its directory.
#[allow(
    clippy::case_sensitive_file_extension_comparisons,
    reason = "the line is lower-cased first"
)]
fn line_names_protected(line: &str) -> bool {
    if names_git_dir(&line.to_ascii_lowercase().replace('`', "")) {
        return true;
    }
    line_tokens(line).any(|token| {
        token.ends_with(".git") || names_quarantine(&token) || names_guard_file(&token)
    })
}

/// Returns `true` if a lower-cased token names a file that keeps the guard on, or where one
/// lives (`agent_guard_types::guard_files`): a harness's directory (`.claude`, `.codex`…),
/// a hook file's name (`settings.local.json`, `hooks.json`), the guard's configuration, or
/// a variable that moves a harness's user directory (`$CLAUDE_CONFIG_DIR`).
fn names_guard_file(token: &str) -> bool {
    const NAMES: &[&str] = &[
        "settings.json",
        "settings.local.json",
        "hooks.json",
        "config.toml",
        "hooks",
        ".copilot",
        ".codeium",
        "agent-guard",
        "claude_config_dir",
        "codex_home",
        "gemini_cli_home",
        "qwen_home",
        "copilot_home",
        "xdg_config_home",
        "xdg_state_home",
    ];
    // `.github` holds far more than hooks: its `hooks` directory's name is on the list.
    NAMES.contains(&token)
        || agent_guard_types::guard_files::PROJECT.iter().any(|entry| {
            entry
                .split('/')
                .next()
                .is_some_and(|first| first != ".github" && first.eq_ignore_ascii_case(token))
        })
}

/// Returns `true` if lower-cased text uses git's own ways of naming its directory
/// (`$GIT_DIR`, `git rev-parse --git-dir` and kin).
fn names_git_dir(lowered: &str) -> bool {
    [
        "git_dir",
        "--git-dir",
        "--absolute-git-dir",
        "--git-common-dir",
        "--git-path",
    ]
    .iter()
    .any(|needle| lowered.contains(needle))
}

/// Returns `true` if a spelled path names git metadata or the quarantine: a `.git` or
/// `.agent-trash` component, the quarantine's journals, or git's own way of naming its
/// directory (`$GIT_DIR`, `git rev-parse --git-dir` and kin).
pub(crate) fn names_protected(text: &str) -> bool {
    let lowered = text.to_ascii_lowercase();
    if names_git_dir(&lowered) {
        return true;
    }
    let components: Vec<&str> = lowered
        .split(['/', '\\'])
        .map(|c| c.trim_matches(|ch| matches!(ch, '"' | '\'' | '`' | '(' | ')' | '{' | '}')))
        .collect();
    components
        .iter()
        .any(|c| *c == ".git" || *c == ".agent-trash")
        || components
            .last()
            .is_some_and(|c| *c == "audit.jsonl" || *c == "manifest.jsonl")
}

/// Creates an op of the POSIX program `name` that reads its inputs, then deletes them.
pub(crate) fn consume(name: &str) -> OpSpec {
    let mut op = OpSpec::new(name, OpKind::SideEffectDelete, Dialect::Posix);
    op.write = WriteMode::ReadThenRemove;
    op
}

/// The target a program writes for the argument `arg`; `through` when it opens the path
/// and so writes where a final symlink leads.
pub(crate) fn file(arg: &Arg, through: bool) -> Target {
    Target {
        through_symlink: through,
        ..arg.target()
    }
}

/// Records the generic getopt problems on `op`: an unknown or ambiguous option might take
/// a value or change what is written, a missing value is a malformed line.
pub(crate) fn getopt_problem(op: &mut OpSpec, item: &Item<'_>) {
    match item {
        Item::Unknown(flag) | Item::Ambiguous(flag) => {
            op.mark_undeterminable(format!("unknown flag {flag}"));
        }
        Item::MissingValue(flag) => op.mark_undeterminable(format!("--{flag} needs a value")),
        Item::Opt { .. } | Item::Operand(_) => {}
    }
}

/// The value of an option item: attached (`-ofile`, `--output=file`) or the next argument.
/// An attached value is a plain literal (the option word it came from was literal).
pub(crate) fn value_arg(item: &Item<'_>) -> Option<Arg> {
    match item {
        Item::Opt {
            value: Some(value), ..
        } => Some((*value).clone()),
        Item::Opt {
            attached: Some(text),
            ..
        } => Some(Arg {
            text: text.clone(),
            home: false,
            glob: false,
            opaque: None,
            quoted: false,
            span: agent_guard_types::Span::default(),
        }),
        _ => None,
    }
}

/// Returns `true` for the device tools [`posix`] models (`wipefs`, `fdisk`, `mkfs.*`, …).
pub(crate) fn is_device_tool(name: &str) -> bool {
    devices::is_device_tool(name)
}

/// The files `script` writes itself (its typescript and logs), whatever it runs.
pub(crate) fn script_logs(args: &[Arg]) -> Vec<OpSpec> {
    outputs::script_logs(args)
}

/// Programs whose writes, when run as `xargs NAME …` with no file operand of their own,
/// are only the files handed to them, rewritten in place (`sed -i`, `perl -pi`,
/// `dos2unix`, `truncate -s 0`). `cp -t DIR`, `ln -t DIR`, `install -t DIR` and `tee FILE`
/// write elsewhere and are not among them.
pub(crate) const IN_PLACE: &[&str] = &[
    "sed",
    "gsed",
    "perl",
    "ruby",
    "awk",
    "gawk",
    "dos2unix",
    "unix2dos",
    "mac2unix",
    "unix2mac",
    "yq",
    "clang-format",
    "truncate",
];

/// The writing ops of the POSIX program `name` (lower-cased basename) run with `rest`.
/// Empty when it writes nothing the guard judges.
pub(crate) fn posix(name: &str, rest: &[Arg]) -> Vec<OpSpec> {
    let ops: Option<Vec<OpSpec>> = match name {
        "cp" | "gcp" => copy::cp(rest).map(|op| vec![op]),
        "mv" | "gmv" => copy::mv(rest).map(|op| vec![op]),
        "install" | "ginstall" => copy::install(rest).map(|op| vec![op]),
        "ln" | "gln" => copy::ln(rest).map(|op| vec![op]),
        "rsync" => Some(rsync::parse(rest)),
        "truncate" => outputs::truncate(rest).map(|op| vec![op]),
        "dd" => outputs::dd(rest).map(|op| vec![op]),
        "tee" => outputs::tee(rest).map(|op| vec![op]),
        "history" => outputs::history(rest).map(|op| vec![op]),
        "sort" => outputs::sort(rest).map(|op| vec![op]),
        "uniq" => outputs::uniq(rest).map(|op| vec![op]),
        "fallocate" => outputs::fallocate(rest).map(|op| vec![op]),
        "sponge" => outputs::sponge(rest).map(|op| vec![op]),
        "iconv" => outputs::iconv(rest).map(|op| vec![op]),
        "curl" => outputs::curl(rest).map(|op| vec![op]),
        "wget" => outputs::wget(rest).map(|op| vec![op]),
        "sed" | "gsed" => Some(sed::parse(rest)),
        "perl" | "ruby" => Some(editors::script_in_place(name, rest)).filter(|ops| !ops.is_empty()),
        "awk" | "gawk" => editors::gawk(rest).map(|op| vec![op]),
        "ed" | "red" => editors::ed(rest).map(|op| vec![op]),
        "ex" | "vi" | "vim" | "nvim" | "gvim" | "view" => editors::vim(name, rest),
        "dos2unix" | "unix2dos" | "mac2unix" | "unix2mac" => {
            editors::dos2unix(name, rest).map(|op| vec![op])
        }
        "yq" => editors::yq(rest).map(|op| vec![op]),
        "clang-format" => editors::clang_format(rest).map(|op| vec![op]),
        "gzip" | "gunzip" | "bzip2" | "bunzip2" | "xz" | "unxz" | "lzma" | "unlzma" | "zstd"
        | "unzstd" | "lz4" | "lzip" | "compress" | "uncompress" | "pigz" | "unpigz" | "pbzip2"
        | "lbzip2" | "plzip" => archives::compressor(name, rest),
        "zip" => archives::zip(rest).map(|op| vec![op]),
        "tar" | "gtar" | "bsdtar" => Some(archives::tar(name, rest)),
        "7z" | "7za" | "7zz" | "7zr" => archives::seven_zip(name, rest).map(|op| vec![op]),
        _ => devices::parse(name, rest).map(|op| vec![op]),
    };
    let mut ops = ops.unwrap_or_default();
    // Writing the null device, the terminal or a descriptor destroys nothing
    // (`… | tee /dev/null`, `dd of=/dev/null`, `curl -o /dev/null`).
    for op in &mut ops {
        op.targets
            .retain(|t| t.opaque.is_some() || !redirect::is_sink(&t.text));
    }
    ops
}

/// The last component of a source path, as a copying program names it inside a directory
/// (`a/b/` → `b`).
pub(crate) fn basename(text: &str) -> &str {
    let trimmed = text.trim_end_matches('/');
    trimmed.rsplit('/').next().unwrap_or(trimmed)
}

/// The path `dir/name`: a destination directory and a source's name inside it. It is glob,
/// opaque or home-relative when either part is.
pub(crate) fn join(dir: &Target, name: &str, name_from: &Target) -> Target {
    let text = if dir.text.ends_with('/') {
        format!("{}{name}", dir.text)
    } else {
        format!("{}/{name}", dir.text)
    };
    Target {
        text,
        tilde: dir.tilde,
        glob: dir.glob || (name_from.glob && name.contains(['*', '?', '['])),
        opaque: dir.opaque.clone().or_else(|| name_from.opaque.clone()),
        span: dir.span,
        through_symlink: dir.through_symlink,
        exact: None,
    }
}

/// The path `name` gets beside `path`: in the same directory (a rename's destination).
pub(crate) fn sibling(path: &Target, name: &Target) -> Target {
    let trimmed = path.text.trim_end_matches('/');
    let text = match trimmed.rfind('/') {
        Some(at) => format!("{}/{}", &trimmed[..at], name.text),
        None => name.text.clone(),
    };
    Target {
        text,
        tilde: path.tilde && trimmed.contains('/'),
        glob: path.glob || name.glob,
        opaque: path.opaque.clone().or_else(|| name.opaque.clone()),
        span: name.span,
        through_symlink: false,
        exact: None,
    }
}

/// Returns `true` for a destination whose spelling can only name a directory: a trailing
/// `/`, a last component `.` or `..`, the home directory `~`, the root. Naming it as a file
/// target too would only make the policy judge the directory itself (the workspace root,
/// an ancestor) as if it were overwritten.
fn spelled_as_directory(dest: &Target) -> bool {
    let text = dest.text.as_str();
    dest.opaque.is_none()
        && (text.ends_with('/')
            || text == "."
            || text == ".."
            || text.ends_with("/.")
            || text.ends_with("/..")
            || (dest.tilde && text == "~"))
}

/// A recursive copy (`cp -r`, `xcopy /e`, `Copy-Item -Recurse`) writes only below the
/// directory it lands in (issue 38): when that directory is literal, it is the op's one
/// target and confines it, so a checkpoint keeps what the copy overwrites there
/// (`SNAPSHOT_CHECKPOINT_WRITE`) instead of a refusal. Callers confine only an op whose
/// recursion is the one thing the guard cannot tell (an unknown option stays refused).
pub(crate) fn confine_recursive_copy(op: &mut OpSpec, landing: Option<Target>) {
    if let Some(dir) = landing.filter(|dir| dir.is_concrete() && !dir.tilde)
        && op.kind == OpKind::Overwrite
        && op.recursive
    {
        op.targets = vec![dir];
        op.confined = Some(agent_guard_types::Confinement::default());
    }
}

/// Where a copying program writes: the destination rules shared by `cp`, `mv`, `install`,
/// `ln` and `rsync`.
#[derive(Debug, Default)]
pub(crate) struct Placement {
    /// The sources, in order.
    pub(crate) sources: Vec<Target>,
    /// The last operand, when it is the destination.
    pub(crate) dest: Option<Target>,
    /// `-t DIR`: every source goes into this directory.
    pub(crate) into: Option<Target>,
    /// `-T`: the destination is the path itself, never a directory to put the source in.
    pub(crate) exact: bool,
    /// `--parents`: the source's whole path is appended below the directory.
    pub(crate) parents: bool,
}

impl Placement {
    /// The operands as given: with `-t`, all are sources; otherwise the last is the
    /// destination.
    pub(crate) fn of_operands(mut operands: Vec<Target>, into: Option<Target>) -> Placement {
        let dest = if into.is_some() { None } else { operands.pop() };
        Placement {
            sources: operands,
            dest,
            into,
            ..Placement::default()
        }
    }

    /// [`Placement::targets`], each with the index of the source that may land there.
    pub(crate) fn landings(&self) -> Vec<(Target, usize)> {
        let targets = self.targets();
        let sources = self.sources.len();
        if sources == 1 {
            return targets.into_iter().map(|t| (t, 0)).collect();
        }
        // Several sources: `dir/<name of each>`, in order.
        targets.into_iter().zip(0..sources).collect()
    }

    /// The paths written. Several sources, `-t` or a destination ending in `/` mean a
    /// directory: `dir/<name of each source>`. One source and a destination that may be
    /// either: both `dest` and `dest/<name>` (the world probes both; a directory `dest` is
    /// not a file the policy keeps, an absent one is only created). `-T`: `dest` alone.
    pub(crate) fn targets(&self) -> Vec<Target> {
        let name = |source: &Target| -> String {
            if self.parents {
                source.text.trim_start_matches('/').to_owned()
            } else {
                basename(&source.text).to_owned()
            }
        };
        if let Some(dir) = &self.into {
            return self
                .sources
                .iter()
                .map(|s| join(dir, &name(s), s))
                .collect();
        }
        let Some(dest) = &self.dest else {
            return Vec::new();
        };
        if self.sources.is_empty() {
            return Vec::new();
        }
        if self.exact {
            return vec![dest.clone()];
        }
        let inside: Vec<Target> = self
            .sources
            .iter()
            .map(|s| join(dest, &name(s), s))
            .collect();
        if self.sources.len() > 1 || spelled_as_directory(dest) || self.parents {
            return inside;
        }
        let mut targets = vec![dest.clone()];
        targets.extend(inside);
        targets
    }
}

#[cfg(test)]
mod tests;
