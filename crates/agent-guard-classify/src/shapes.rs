//! Compound-line shapes (F1, F2) and the compound hard-reset rule.
//!
//! Shapes are about *compensation difficulty*, not effect uncertainty: targets resolved
//! before the line runs may be the wrong ones (F1: the line changes directory first) or may
//! not exist yet (F2: the line creates files first). The policy maps them to ASK unless a
//! hard boundary also fires.

use agent_guard_lex::SimpleCommand;
use agent_guard_types::{OpKind, OpSpec, Shape};

/// Commands that change the working directory.
const CD_HEADS: &[&str] = &["cd", "pushd", "popd", "chdir"];
/// Commands that create files.
const CREATE_HEADS: &[&str] = &[
    "touch", "mkdir", "cp", "mv", "install", "ln", "tee", "rsync", "dd", "mktemp",
];
/// Commands that can leave a link to a file outside the workspace where a later command of
/// the line writes, when one of their operands may lie outside it: `ln`, and copies that
/// carry links over (`cp -a`, `cp -r`). A write after one may go through that link (third
/// outside review). Moves are followed by the policy's move rules.
const LINK_MAKERS: &[&str] = &["ln", "link", "cp", "install", "rsync"];
/// Archive extractions: what links they make is in the archive.
const EXTRACTORS: &[&str] = &["tar", "bsdtar", "unzip", "cpio", "7z"];
/// Redirect targets that create nothing in the workspace.
const NULL_TARGETS: &[&str] = &["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"];
/// Commands that change the working directory in cmd and PowerShell.
const WINDOWS_CD_HEADS: &[&str] = &[
    "cd",
    "chdir",
    "set-location",
    "sl",
    "pushd",
    "popd",
    "push-location",
    "pop-location",
];
/// The cmd and PowerShell directory changes that take a directory operand
/// ([`Positions::note_windows_cd_dir`]).
pub(crate) const WINDOWS_CD_TO: &[&str] = &[
    "cd",
    "chdir",
    "pushd",
    "set-location",
    "sl",
    "push-location",
];
/// Commands that create files in cmd and PowerShell (the POSIX set is included: several are
/// PowerShell aliases, and Git for Windows puts the others on `PATH`).
const WINDOWS_CREATE_HEADS: &[&str] = &[
    "copy",
    "xcopy",
    "robocopy",
    "md",
    "mklink",
    "type",
    "echo",
    "ren",
    "rename",
    "move",
    "new-item",
    "ni",
    "set-content",
    "sc",
    "out-file",
    "add-content",
    "ac",
    "copy-item",
    "cpi",
    "move-item",
    "mi",
    "rename-item",
    "rni",
    "tee-object",
    "expand-archive",
    "write-output",
];
/// Redirect targets that create nothing in cmd and PowerShell (compared lower-cased).
const WINDOWS_NULL_TARGETS: &[&str] = &["nul", "nul:", "con", "con:", "$null"];

/// Where in the line directories change and files get created (command indices).
#[derive(Debug, Default)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "independent facts about one line, each read by its own rule"
)]
pub(crate) struct Positions {
    cd: Vec<usize>,
    /// Commands that can leave a link behind ([`LINK_MAKERS`]).
    links: Vec<usize>,
    /// The directory each POSIX `cd`/`pushd` goes to, when it is literal (`cd` alone goes
    /// home; `cd -`, `popd` and a non-literal directory are unknown: `None`).
    cd_dirs: Vec<(usize, Option<agent_guard_types::Target>)>,
    create: Vec<usize>,
    own_cwd: Vec<usize>,
    /// The line is POSIX and does not redefine what `cd` does: its literal directory changes
    /// may be followed ([`crate::cd_follow`]).
    followable: bool,
    /// The line is POSIX (`pushd` is not in every POSIX shell).
    posix: bool,
    /// A POSIX directory change inside a substitution: it moves what follows it there, which
    /// the line's changes do not list.
    cd_in_substitution: bool,
    /// A POSIX substitution creates, moves or links files: it runs before the command that
    /// holds it, in an order the line's positions do not show (`cat $(ln -s notes.txt l) >
    /// l`), so no op of the line is placed.
    creates_in_substitution: bool,
    /// Directory changes the policy does not follow whatever the world says: a cmd or
    /// PowerShell one to a drive, a root or a provider (`cd D:\x` leaves cmd where it was).
    unfollowable: Vec<usize>,
}

impl Positions {
    /// Records the text of a line: its directory changes may be followed unless it
    /// redefines what they do.
    pub(crate) fn note_source(&mut self, source: &str, dialect: agent_guard_types::Dialect) {
        self.followable = !crate::cd_follow::line_redefines_cd(source, dialect);
        self.posix = dialect == agent_guard_types::Dialect::Posix;
    }

    /// For each command of the line, whether every directory change before it certainly
    /// ran in the line's own shell whenever it runs, each to a literal directory, so the
    /// policy may judge it where they lead (when each leads to a directory that exists: the
    /// world's fact). All false when the line redefines what a change does.
    fn follows(&self, commands: &[SimpleCommand], first_op: usize) -> Vec<bool> {
        if !self.followable {
            return vec![false; commands.len()];
        }
        let literal = |change: usize| {
            self.cd_dirs
                .binary_search_by_key(&change, |(at, _)| *at)
                .is_ok_and(|found| self.cd_dirs[found].1.is_some())
        };
        crate::cd_follow::reached(commands, &self.cd, self.posix, |change| {
            change > first_op
                || self.unfollowable.binary_search(&change).is_ok()
                || !literal(change)
        })
    }

    /// Records a POSIX command named `name` with arguments `rest` that may leave a link to a
    /// file outside the workspace: an extraction, or a link maker with an operand that is
    /// absolute, home-relative, climbs with `..`, is remote or is not literal.
    pub(crate) fn note_link_maker(&mut self, name: &str, rest: &[crate::args::Arg], index: usize) {
        let outward = |arg: &crate::args::Arg| {
            arg.known().is_none_or(|t| {
                !t.starts_with('-')
                    && (t.starts_with('/')
                        || t.contains(':')
                        || t.split('/').any(|part| part == ".."))
            }) || arg.home
        };
        // `tar -c`, `cpio -o`, `7z l`: a read-only form of the table extracts nothing.
        let extracts = EXTRACTORS.contains(&name) && !crate::read_only::reads_only(name, rest);
        if extracts || (LINK_MAKERS.contains(&name) && rest.iter().any(outward)) {
            self.links.push(index);
        }
    }

    /// Records a command that may change the directory in a way the line does not show
    /// (`eval`, `source`, `.`, a `trap … DEBUG`): the commands after it are not placed.
    pub(crate) fn note_hidden_cd(&mut self, index: usize) {
        self.cd.push(index);
    }

    /// Records a command inside a POSIX substitution by its lower-cased name.
    pub(crate) fn note_substituted_command(&mut self, name: &str) {
        self.cd_in_substitution |= CD_HEADS.contains(&name);
        self.creates_in_substitution |= CREATE_HEADS.contains(&name);
    }

    /// Records a command by its lower-cased name.
    pub(crate) fn note_command(&mut self, name: &str, index: usize) {
        if CD_HEADS.contains(&name) {
            self.cd.push(index);
        } else if CREATE_HEADS.contains(&name) {
            self.create.push(index);
        }
    }

    /// Records where a POSIX `cd`/`pushd` with arguments `rest` goes. `plain` says the change
    /// is one every shell reads alike: named by its first word (not through `builtin`,
    /// `command`, `env` or another wrapper), with no option but `-L`, `-P` or `--`, and an
    /// operand spelled without `$` or a backslash (`$'src'` is `src` to bash, `$src` to
    /// dash); another is not followed.
    pub(crate) fn note_cd_dir(
        &mut self,
        name: &str,
        rest: &[crate::args::Arg],
        index: usize,
        plain: bool,
    ) {
        if !matches!(name, "cd" | "pushd" | "chdir") {
            return;
        }
        let options_known = rest
            .iter()
            .take_while(|a| a.known().is_some_and(|t| t.starts_with('-') && t != "-"))
            .all(|a| a.known().is_some_and(|t| matches!(t, "-L" | "-P" | "--")));
        if !plain || !options_known || name == "chdir" {
            self.unfollowable.push(index);
        }
        let operands: Vec<&crate::args::Arg> = rest
            .iter()
            .skip_while(|a| {
                a.known()
                    .is_some_and(|t| matches!(t, "-L" | "-P" | "-e" | "-@" | "-LP" | "-PL"))
            })
            .skip_while(|a| a.known() == Some("--"))
            .collect();
        let dir = match operands.as_slice() {
            // `pushd` alone swaps the top two directories of the stack.
            [] if name == "pushd" => None,
            [] => Some(agent_guard_types::Target {
                tilde: true,
                ..agent_guard_types::Target::literal("~")
            }),
            [only]
                if only
                    .known()
                    .is_some_and(|t| t != "-" && !t.starts_with('-')) =>
            {
                Some(only.target())
            }
            _ => None,
        };
        self.cd_dirs.push((index, dir));
    }

    /// Records where a cmd or PowerShell directory change named `name` (normalised) with
    /// arguments `args` goes: its one literal operand, after cmd's `/d` and PowerShell's
    /// `-Path`/`-LiteralPath`/`-PassThru`; anything else (no operand, `-` and `+` of the
    /// location history, `popd`, several operands) is unknown.
    pub(crate) fn note_windows_cd_dir(
        &mut self,
        name: &str,
        args: &[crate::windows::Tok],
        dialect: agent_guard_types::Dialect,
        index: usize,
    ) {
        if !WINDOWS_CD_TO.contains(&name) {
            return;
        }
        let operands: Vec<&crate::windows::Tok> = args
            .iter()
            .filter(|tok| {
                let head = tok.bare_head().to_ascii_lowercase();
                !matches!(head.as_str(), "/d" | "-path" | "-literalpath" | "-passthru")
            })
            .collect();
        let dir = match operands.as_slice() {
            [only] if only.literal().is_some_and(|t| !matches!(t, "-" | "+")) => {
                Some(crate::windows::target(only, dialect))
            }
            _ => None,
        };
        if dir
            .as_ref()
            .is_some_and(|t| t.tilde || t.text.starts_with('/') || t.text.contains(':'))
        {
            self.unfollowable.push(index);
        }
        self.cd_dirs.push((index, dir));
    }

    /// Records a cmd or PowerShell command by its normalised name. A bare drive (`D:`)
    /// switches the current drive, which changes the working directory.
    pub(crate) fn note_windows_command(&mut self, name: &str, index: usize) {
        let drive =
            name.len() == 2 && name.ends_with(':') && name.as_bytes()[0].is_ascii_alphabetic();
        if WINDOWS_CD_HEADS.contains(&name) || drive {
            self.cd.push(index);
        } else if CREATE_HEADS.contains(&name) || WINDOWS_CREATE_HEADS.contains(&name) {
            self.create.push(index);
        }
    }

    /// Records file-creating redirections in cmd or PowerShell (`> f`, `>> f`; not `>nul`,
    /// `> $null` or `2>&1`).
    pub(crate) fn note_windows_redirects(&mut self, command: &SimpleCommand, index: usize) {
        let creates = command
            .redirects
            .iter()
            .any(|r| r.op.writes() && r.target.as_ref().is_none_or(|t| !windows_null(t)));
        if creates && !command.context.in_substitution {
            self.create.push(index);
        }
    }

    /// Each directory change before command `index` (and its own, `env -C`), in order:
    /// the directory when a POSIX `cd`/`pushd` names a literal one, else `None`.
    fn changes_before(&self, index: usize) -> Vec<Option<agent_guard_types::Target>> {
        let mut changes: Vec<Option<agent_guard_types::Target>> = self
            .cd
            .iter()
            .filter(|&&i| i < index)
            .map(|&i| {
                self.cd_dirs
                    .binary_search_by_key(&i, |(at, _)| *at)
                    .ok()
                    .and_then(|found| self.cd_dirs[found].1.clone())
            })
            .collect();
        if self.own_cwd.contains(&index) {
            changes.push(None);
        }
        changes
    }

    /// The directory command `index` runs in, from where the line started, when the line
    /// changed directory before it and every change is literal (`sub`, `sub/deeper`, an
    /// absolute one); `None` when it did not change, or a change is not literal.
    pub(crate) fn literal_dir_before(&self, index: usize) -> Option<String> {
        let changes = self.changes_before(index);
        if changes.is_empty() {
            return None;
        }
        let mut dir = std::path::PathBuf::new();
        for change in changes {
            let target = change?;
            if target.opaque.is_some() || target.glob {
                return None;
            }
            dir.push(&target.text);
        }
        Some(dir.to_string_lossy().into_owned())
    }

    /// Whether the line changed directory before command `index` to a place it does not
    /// show (`cd %X%`, `pushd ..\%NAME%`, `D: & cd src`). A later change to a rooted
    /// directory (`D: & cd \src`) shows the place again: outside the workspace.
    pub(crate) fn unknown_dir_before(&self, index: usize) -> bool {
        for change in self.changes_before(index).iter().rev() {
            match change {
                None => return true,
                Some(target) if target.opaque.is_some() || target.glob => return true,
                Some(target) if target.text.starts_with('/') => return false,
                Some(_) => {}
            }
        }
        false
    }

    /// Records a command that runs in another directory itself (`env -C`, `sudo -D`).
    pub(crate) fn note_cwd_change(&mut self, index: usize) {
        self.own_cwd.push(index);
    }

    /// Records file-creating redirections (`> f`, `>> f`; not `2>/dev/null` or `2>&1`).
    pub(crate) fn note_redirects(&mut self, command: &SimpleCommand, index: usize, _source: &str) {
        let creates = command.redirects.iter().any(|r| {
            r.op.writes()
                && r.target.as_ref().is_none_or(|t| {
                    t.literal_text().is_none_or(|text| {
                        !(NULL_TARGETS.contains(&text.as_str())
                            || text == "-"
                            || (!text.is_empty() && text.chars().all(|c| c.is_ascii_digit())))
                    })
                })
        });
        if creates && !command.context.in_substitution {
            self.create.push(index);
        }
    }
}

/// Returns `true` if a cmd or PowerShell redirect target creates nothing: the null device,
/// `$null`, or a descriptor (`2>&1`).
fn windows_null(target: &agent_guard_lex::Word) -> bool {
    let mut text = String::new();
    for part in &target.parts {
        match part {
            agent_guard_lex::WordPart::Literal { text: t, .. } => text.push_str(t),
            agent_guard_lex::WordPart::Parameter { raw, .. } => text.push_str(raw),
            _ => return false,
        }
    }
    let text = text.to_ascii_lowercase();
    WINDOWS_NULL_TARGETS.contains(&text.as_str())
        || (!text.is_empty() && text.chars().all(|c| c.is_ascii_digit()))
}

/// Returns `true` for a path that does not depend on the working directory: POSIX-absolute,
/// UNC (`//server`) or drive-absolute (`C:/x`, as the Windows classifiers spell it).
fn is_absolute(text: &str) -> bool {
    let bytes = text.as_bytes();
    text.starts_with('/')
        || (bytes.len() >= 3
            && bytes[0].is_ascii_alphabetic()
            && bytes[1] == b':'
            && bytes[2] == b'/')
}

/// Marks shapes on `ops` and applies the compound hard-reset rule.
pub(crate) fn apply(
    ops: &mut [OpSpec],
    positions: &Positions,
    script: &agent_guard_lex::Script,
    commands: usize,
) {
    // A change after the line's first op may find its directory gone, replaced or a link
    // (`rm -rf src; cd src; rm -rf build`): not followed.
    let first_op = ops
        .iter()
        .filter(|op| op.kind != OpKind::Other)
        .map(|op| op.segment_index)
        .min()
        .unwrap_or(usize::MAX);
    let follows = positions.follows(&script.commands, first_op);
    let link_ops: Vec<usize> = ops
        .iter()
        .filter(|op| op.kind == OpKind::GitMoveWorkTree || op.listed_writes.is_some())
        .map(|op| op.segment_index)
        .collect();
    let changes_directory =
        !positions.cd.is_empty() || !positions.own_cwd.is_empty() || positions.cd_in_substitution;
    for op in ops.iter_mut() {
        if op.kind == OpKind::Unknown || op.kind == OpKind::Other {
            continue;
        }
        let index = op.segment_index;
        // A POSIX substitution's op is judged like any other, but where the line changes
        // directory the guard does not place it (`$(cd sub && rm -rf build)`).
        let in_substitution = script
            .commands
            .get(index)
            .is_some_and(|c| c.context.in_substitution);
        if op.dialect == agent_guard_types::Dialect::Posix
            && ((changes_directory && in_substitution) || positions.creates_in_substitution)
        {
            op.mark_undeterminable(
                "a command substitution on a line that changes directory or creates, moves or \
                 links files inside a substitution",
            );
        }
        if op.kind == OpKind::GitResetHard && commands > 1 {
            op.mark_undeterminable("hard reset in a compound line");
        }
        let cwd_changed =
            positions.cd.iter().any(|&i| i < index) || positions.own_cwd.contains(&index);
        // Path ops (deletes, overwrites) depend on the working directory only through a
        // relative target; git ops always do (they find the repository from it).
        let path_op = matches!(
            op.kind,
            OpKind::FsDelete | OpKind::Overwrite | OpKind::SideEffectDelete
        ) && op.sub.is_none();
        let cwd_matters = !path_op
            || op
                .targets
                .iter()
                .any(|t| !(t.tilde || is_absolute(&t.text) || t.opaque.is_some()));
        if cwd_changed && cwd_matters {
            // A git command that only writes another commit into the work tree destroys
            // nothing: the directory matters only to find the repository whose commits
            // the policy compares, after its own `-C` changes.
            // A change the guard can follow leaves no shape: the policy judges the op where
            // the line goes, when every directory on the way exists.
            if op.kind != OpKind::GitMoveWorkTree
                && (positions.own_cwd.contains(&index)
                    || !follows.get(index).copied().unwrap_or(false))
            {
                op.shape = Some(Shape::F1);
            }
            let mut cd = positions.changes_before(index);
            cd.append(&mut op.cd);
            op.cd = cd;
        }
        // A program the guard cannot see into runs where the last `cd` before it went: the
        // policy refuses it when that is outside the workspace (a checkpoint protects
        // nothing there).
        if op.kind == OpKind::OpaqueProgram
            && op.targets.is_empty()
            && let Some((_, Some(dir))) = positions.cd_dirs.iter().rev().find(|(i, _)| *i < index)
        {
            op.targets.push(dir.clone());
        }
        let target_dependent = matches!(
            op.kind,
            OpKind::FsDelete | OpKind::GitClean | OpKind::GitDiscard | OpKind::GitResetHard
        );
        if target_dependent && positions.create.iter().any(|&i| i < index) {
            op.shape = Some(Shape::F2);
        }
        // A write (or a `find` that moves onto names made from its matches) after a command
        // that can leave a link, a git command that writes the work tree or an archive
        // extraction: the line may write through a link it made, out of the workspace.
        let linked_before =
            positions.links.iter().any(|&i| i < index) || link_ops.iter().any(|&i| i < index);
        // (A move is followed through the line's earlier moves by the policy's move rules.)
        let writes = matches!(op.kind, OpKind::Overwrite | OpKind::SideEffectDelete);
        let writes_through = writes || op.confined.as_ref().is_some_and(|c| c.derived_names);
        // So may a delete below a directory such a link can be (`tar xf x.tar && rm -f
        // src/lnk/f`, `find src/lnk/ -delete`); a delete of the link's own name (`rm -rf
        // build`) removes the link only.
        let deletes_through = op.kind == OpKind::FsDelete
            && (op.confined.is_some()
                || op.targets.iter().any(|t| {
                    t.glob || t.text.trim_end_matches('/').contains('/') || t.text.ends_with('/')
                }));
        if linked_before && (writes_through || deletes_through) {
            op.confined = None;
            if (writes || deletes_through) && op.shape.is_none() && !op.undeterminable {
                op.shape = Some(Shape::F2);
            }
        }
    }
}
