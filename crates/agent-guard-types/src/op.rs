//! Operation specs: the facts the classifier extracts from a command line.

use serde::{Deserialize, Serialize};

use crate::Dialect;

/// A byte range in the original command text, for error display.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct Span {
    /// Start offset in bytes (inclusive).
    pub start: usize,
    /// End offset in bytes (exclusive).
    pub end: usize,
}

impl Span {
    /// Creates a span; `end` is clamped so that it is never before `start`.
    pub const fn new(start: usize, end: usize) -> Span {
        Span {
            start,
            end: if end < start { start } else { end },
        }
    }

    /// Returns the smallest span covering both.
    #[must_use]
    pub const fn join(self, other: Span) -> Span {
        let start = if self.start < other.start {
            self.start
        } else {
            other.start
        };
        let end = if self.end > other.end {
            self.end
        } else {
            other.end
        };
        Span { start, end }
    }
}

/// What kind of destructive effect an operation has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum OpKind {
    /// Not destructive (dropped from classifier output).
    Other,
    /// Deletes filesystem paths (`rm`, `rmdir`, `unlink`, `shred -u`, `del`, `Remove-Item`).
    FsDelete,
    /// `git clean`.
    GitClean,
    /// `git reset --hard`.
    GitResetHard,
    /// Discards work-tree changes (`git checkout -- p`, `git restore p`, …).
    GitDiscard,
    /// Destroys remote history (`git push --force`, ref deletion).
    GitPushForce,
    /// Drops stash entries (`git stash drop`, `git stash clear`, and `git stash pop` /
    /// `git stash branch`, which drop the entry they apply).
    GitStashDrop,
    /// Pushes a new stash entry (`git stash`, `git stash push|save|store`). Not destructive
    /// itself, but the stash ops after it in the line see the stack it leaves.
    GitStashPush,
    /// Deletes a branch regardless of merge state (`git branch -D`).
    GitBranchDelete,
    /// Deletes or moves another ref, by its full name (`git tag -d`, `git tag -f`,
    /// `git update-ref [-d] refs/tags/…`): what it pointed to can be kept first.
    GitRefDelete,
    /// Drops reflog entries (`git reflog expire`, `git reflog delete`): a commit only a
    /// reflog reached becomes prunable. Every reflog can be kept first.
    GitReflogExpire,
    /// Points a symbolic ref elsewhere or deletes it (`git symbolic-ref HEAD refs/heads/x`,
    /// `git symbolic-ref -d refs/remotes/origin/HEAD`): the ref each target names can be
    /// kept first.
    GitSymbolicRef,
    /// Writes another commit's content into the work tree, keeping local changes or
    /// refusing (`git checkout <branch>`, `git switch`, `git merge`, `git pull`, `git rebase`,
    /// `git cherry-pick`, `git revert`, `git stash apply`, `git reset --keep`, `git rm`): it
    /// destroys nothing uncommitted, so it matters only for the guard files the commit
    /// would change. What it writes is [`OpSpec::tree_sources`].
    GitMoveWorkTree,
    /// Replaces or truncates the content of existing paths (`>`, `truncate`, `cp` onto,
    /// `mv` onto, `sed -i`, `Set-Content`, `copy /y`); new paths are only created. How it
    /// treats an existing target is [`OpSpec::write`].
    Overwrite,
    /// Reads its inputs, then deletes them (`gzip f`, `tar --remove-files`, `zip -m`,
    /// `rsync --remove-source-files`).
    SideEffectDelete,
    /// Renames paths (`mv`, `git mv`, `Move-Item`, `Rename-Item`, `move`, `ren`): each of
    /// [`OpSpec::sources`] leaves its name for a destination, replacing what was there. The
    /// targets are every path a source can land on (`dest` and `dest/<name>` when the
    /// destination may be a directory), as for an [`OpKind::Overwrite`] that replaces.
    Move,
    /// Adds to the end of paths and changes nothing already there (`>>`, `tee -a`,
    /// `Add-Content`, `Out-File -Append`). It destroys nothing, so it is judged only against
    /// the protected paths: appending to `.git/config` or the quarantine's logs is tampering.
    Append,
    /// Changes the permissions, ownership, attributes or times of paths (`chmod`, `chown`,
    /// `chgrp`, `chattr`, `setfacl`, `touch`, `attrib`, `icacls`): no content is lost, so
    /// like an append it is judged only against the protected paths (a hook file made
    /// unreadable, or a hook made executable in `.git/hooks`, is tampering).
    Metadata,
    /// Runs one of agent-guard's own verbs that only a person may run (`approve`, `mode
    /// normal`, `config trust`, `uninstall`, `gc --execute`), however it is reached: by
    /// name or path, through an interpreter, a pseudo-terminal wrapper or a copy of the
    /// binary named on the same line. Always refused (`BLOCK_SELF_PROTECTION`).
    GuardVerb,
    /// A harness's file-writing tool call (`Write`, `Edit`, `apply_patch`, …; hook mode
    /// only, never classified from a command line): writes, edits, deletes or renames the
    /// target files. Judged like [`OpKind::Overwrite`]; every existing file is copied first.
    EditTool,
    /// Destructive, but what it destroys cannot be known.
    Unknown,
    /// Runs a program whose effects the guard does not model: a script, an interpreter
    /// running a file or code it does not flag, a build tool or task runner, a command it
    /// does not know at all. What it changes is only knowable by looking afterwards.
    OpaqueProgram,
    /// Drops, truncates, resets or wipes a database, or runs statements the guard cannot
    /// read against one (`psql -c 'DROP TABLE …'`, `dropdb`, `mysql -e 'TRUNCATE …'`,
    /// `prisma migrate reset`, `manage.py flush`). What it is is [`OpSpec::outside`].
    DatabaseDestroy,
    /// Destroys state outside the workspace that no workspace compensation keeps: cloud
    /// resources, cluster objects, container volumes, a hosted service's data
    /// (`terraform destroy`, `kubectl delete`, `docker volume rm`, `aws s3 rm`). What it
    /// is is [`OpSpec::outside`].
    OutsideDestroy,
}

impl OpKind {
    /// Returns the stable kebab-case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            OpKind::Other => "other",
            OpKind::FsDelete => "fs-delete",
            OpKind::GitClean => "git-clean",
            OpKind::GitResetHard => "git-reset-hard",
            OpKind::GitDiscard => "git-discard",
            OpKind::GitPushForce => "git-push-force",
            OpKind::GitStashDrop => "git-stash-drop",
            OpKind::GitStashPush => "git-stash-push",
            OpKind::GitBranchDelete => "git-branch-delete",
            OpKind::GitRefDelete => "git-ref-delete",
            OpKind::GitReflogExpire => "git-reflog-expire",
            OpKind::GitSymbolicRef => "git-symbolic-ref",
            OpKind::GitMoveWorkTree => "git-move-work-tree",
            OpKind::Overwrite => "overwrite",
            OpKind::SideEffectDelete => "side-effect-delete",
            OpKind::Move => "move",
            OpKind::Append => "append",
            OpKind::Metadata => "metadata",
            OpKind::GuardVerb => "guard-verb",
            OpKind::EditTool => "edit-tool",
            OpKind::Unknown => "unknown",
            OpKind::OpaqueProgram => "opaque-program",
            OpKind::DatabaseDestroy => "database-destroy",
            OpKind::OutsideDestroy => "outside-destroy",
        }
    }

    /// Returns `true` for the git kinds.
    pub const fn is_git(self) -> bool {
        matches!(
            self,
            OpKind::GitClean
                | OpKind::GitResetHard
                | OpKind::GitDiscard
                | OpKind::GitPushForce
                | OpKind::GitStashDrop
                | OpKind::GitStashPush
                | OpKind::GitBranchDelete
                | OpKind::GitRefDelete
                | OpKind::GitReflogExpire
                | OpKind::GitSymbolicRef
                | OpKind::GitMoveWorkTree
        )
    }
}

/// How a writing command treats a target that exists (facts of [`OpKind::Overwrite`] and
/// [`OpKind::SideEffectDelete`] ops). It decides how the old version can be kept without
/// taking it away: a path whose name the command only replaces can be hard-linked; one it
/// reads or writes in place is reflinked or copied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WriteMode {
    /// Truncates or rewrites the file in place; its inode stays (`>`, `truncate`, `dd of=`,
    /// `cp` onto, `tee`, `Set-Content`).
    #[default]
    InPlace,
    /// Reads the old content, then renames a new file over it (`sed -i`, `perl -i`, `rsync`).
    ReplaceAfterRead,
    /// Replaces the path without reading it (`mv` onto, `ln -f`, `install`,
    /// `cp --remove-destination`).
    Replace,
    /// Reads the path, then deletes it (`gzip f`, `tar --remove-files`).
    ReadThenRemove,
}

impl WriteMode {
    /// Returns the stable kebab-case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            WriteMode::InPlace => "in-place",
            WriteMode::ReplaceAfterRead => "replace-after-read",
            WriteMode::Replace => "replace",
            WriteMode::ReadThenRemove => "read-then-remove",
        }
    }

    /// Whether the command only replaces the path's name (a rename over it, an unlink
    /// first), never writing or reading the old file: then a hard link keeps the old
    /// version, unseen by the command.
    pub const fn replaces_name_only(self) -> bool {
        matches!(self, WriteMode::Replace)
    }
}

/// What bounds a delete whose matches only the program knows (`find … -delete`,
/// `find … | xargs rm`): everything it deletes lies below the op's targets (its starting
/// points), which are literal and followed through no symlink (`find` without `-L`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "independent facts of one expression, serialized by name in the op's JSON"
)]
pub struct Confinement {
    /// Every deleted entry's name matches each of these patterns (`find`'s `-name` and
    /// `-iname` in an expression that is a plain conjunction); empty when the expression
    /// does not say.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<String>,
    /// The name patterns ignore case (`-iname`).
    #[serde(default)]
    pub ignore_case: bool,
    /// A matched directory goes with everything below it (`-exec rm -r {} +`), not entry by
    /// entry (`-delete`).
    #[serde(default)]
    pub whole_matches: bool,
    /// The per-file commands also write names made from the one found, in its directory
    /// (`mv {} {}.bak`, `gzip {}` writing `{}.gz`): no link may lie anywhere below the
    /// starting points, since such a name is not among the matches.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub derived_names: bool,
    /// The matches reach the command as text split on blanks and unquoted (`find … |
    /// xargs rm`, without `-0`): only when no name below the starting points holds a blank,
    /// a quote or a backslash is every word exactly one of the matches.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub split_names: bool,
    /// The deepest level a match lies at below its starting point (`-maxdepth N`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_depth: Option<u32>,
    /// Only entries that are not directories match (`-type f`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub files_only: bool,
    /// The op writes new names right in its target directory, one per match (`find … -exec
    /// cp {} dest/ \;`): no name the patterns allow may be `.git`, the quarantine or a guard
    /// file there, whether or not one exists yet.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub creates_names: bool,
}

/// Whether `xargs` without `-0` splits a word at `byte` or reads it as quoting (a blank, a
/// newline, a quote, a backslash): a name holding one does not reach the command whole
/// ([`Confinement::split_names`]). The classifier checks a `find`'s starting points with
/// it, the world the names below them.
pub fn xargs_splits(byte: u8) -> bool {
    byte.is_ascii_whitespace() || matches!(byte, b'\'' | b'"' | b'\\' | b'\x0b')
}

/// A compound-line shape that makes pre-execution compensation unsafe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Shape {
    /// A directory change precedes the destructive op in the same line.
    F1,
    /// A creating command precedes a target-dependent destructive op in the same line.
    F2,
}

/// One target word of an operation, after quote removal.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Target {
    /// The text as the command will see it, quotes removed. When [`Target::tilde`] is set it
    /// starts with `~`, which stands for the home directory.
    pub text: String,
    /// The leading `~` expands to the home directory.
    pub tilde: bool,
    /// The text contains active wildcard characters whose matches are unknown.
    pub glob: bool,
    /// Why the value cannot be known statically (a variable, a substitution, …).
    pub opaque: Option<String>,
    /// Where the word is in the command text, when known.
    pub span: Option<Span>,
    /// The command acts on where a final symlink leads, not on the link (`>` and `cp` onto a
    /// link write through it; `rm` and `mv` onto it act on the link itself).
    #[serde(default)]
    pub through_symlink: bool,
    /// The exact path, when [`Target::text`] cannot spell it (a name that is not UTF-8, found
    /// by expanding a glob): resolution uses it instead of the text, which is then only a
    /// lossy spelling for messages.
    #[serde(skip)]
    pub exact: Option<std::path::PathBuf>,
}

impl Target {
    /// Creates a plain literal target.
    pub fn literal(text: impl Into<String>) -> Target {
        Target {
            text: text.into(),
            ..Target::default()
        }
    }

    /// Returns `true` if the target is neither opaque nor a glob.
    pub fn is_concrete(&self) -> bool {
        self.opaque.is_none() && !self.glob
    }
}

/// The facts about one destructive operation of a command line.
///
/// An `OpSpec` never carries a decision: the policy turns it into a verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "independent facts, not a state machine"
)]
pub struct OpSpec {
    /// The program, normalised: `rm`, `git`, `del`, `remove-item`, … or `<opaque>` /
    /// `<unparseable>` for whole-line findings.
    pub op: String,
    /// The kind of effect.
    pub kind: OpKind,
    /// The git subcommand, for git kinds.
    pub sub: Option<String>,
    /// The raw targets (paths, pathspecs, a revision for `reset --hard`, a branch name, …).
    pub targets: Vec<Target>,
    /// Deletes directories recursively.
    pub recursive: bool,
    /// Forced (`-f`, `/q`, `-Force`).
    pub force: bool,
    /// Only reports what it would do (`-n`, `-WhatIf`).
    pub dry_run: bool,
    /// Only removes empty directories (`rmdir`, `rm -d`).
    pub dir_only: bool,
    /// The program leaves directory targets alone (POSIX `rm`, `unlink` and `shred` without
    /// `-r` or `-d` refuse directories), so a directory target needs no compensation.
    #[serde(default)]
    pub files_only: bool,
    /// A target that is not an existing directory also matches same-named files in every
    /// subdirectory (`del /s name`), so its effect is only known for directories.
    #[serde(default)]
    pub name_match: bool,
    /// Scope flags that matter for replay (`git clean -d -x -X`).
    pub extra_flags: Vec<String>,
    /// How an [`OpKind::Overwrite`] or [`OpKind::SideEffectDelete`] op treats existing
    /// targets.
    #[serde(default)]
    pub write: WriteMode,
    /// Index of the simple command in the line, in textual order.
    pub segment_index: usize,
    /// The dialect that classified it.
    pub dialect: Dialect,
    /// The effect cannot be determined statically.
    pub undeterminable: bool,
    /// It is undeterminable only because its file arguments arrive at run time, one per
    /// file `find` found or per line `xargs` read: what it does to each is known.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub per_file_only: bool,
    /// The op was reached through a wrapper or leading assignments.
    pub wrapped: bool,
    /// The compound-line shape, if any.
    pub shape: Option<Shape>,
    /// Free-text notes for humans and tests; never part of a contract.
    pub notes: Vec<String>,
    /// The simple command in the original text.
    pub span: Span,
    /// For an undeterminable delete: what confines it to its targets, when something does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confined: Option<Confinement>,
    /// For an [`OpKind::Move`]: the paths that leave their names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<Target>,
    /// For an [`OpKind::Move`], one per target: the index in [`OpSpec::sources`] of the
    /// source that may land there (`None` for a backup name, where the replaced file goes).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub landing_of: Vec<Option<usize>>,
    /// The op's command is one of several in its line (`a && b`, `a | b`, `a; b`): another
    /// command could touch what it touches (give a file a second name, write it) in ways no
    /// op of the line shows.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub in_compound_line: bool,
    /// For an op after a directory change in its line (or git's own `-C DIR`): each change
    /// before it, in order, with the directory when it is literal; `None` for one the guard
    /// does not follow (`cd -`, `popd`, a variable, `env -C`). Without the shape F1, every
    /// change certainly ran before the op, and the policy judges the op where they lead
    /// when each is a directory it can enter.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cd: Vec<Option<Target>>,
    /// For a git op that writes another commit's content into the work tree (a
    /// [`OpKind::GitMoveWorkTree`], and a hard reset, a discard or a stash pop from a named
    /// revision): each commit, and what of it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tree_sources: Vec<crate::TreeSource>,
    /// For a program that writes the paths a file it is handed names (a patch, an archive):
    /// that file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listed_writes: Option<crate::ListedWrites>,
    /// For an [`OpKind::DatabaseDestroy`] or [`OpKind::OutsideDestroy`]: what it destroys
    /// outside the workspace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outside: Option<crate::Outside>,
}

impl OpSpec {
    /// Creates an op of the given kind with no targets or flags.
    pub fn new(op: impl Into<String>, kind: OpKind, dialect: Dialect) -> OpSpec {
        OpSpec {
            op: op.into(),
            kind,
            sub: None,
            targets: Vec::new(),
            recursive: false,
            force: false,
            dry_run: false,
            dir_only: false,
            files_only: false,
            name_match: false,
            extra_flags: Vec::new(),
            write: WriteMode::InPlace,
            segment_index: 0,
            dialect,
            undeterminable: false,
            per_file_only: false,
            wrapped: false,
            shape: None,
            notes: Vec::new(),
            span: Span::default(),
            confined: None,
            sources: Vec::new(),
            landing_of: Vec::new(),
            in_compound_line: false,
            cd: Vec::new(),
            tree_sources: Vec::new(),
            listed_writes: None,
            outside: None,
        }
    }

    /// Creates an `unknown` op with a note saying why.
    pub fn unknown(op: impl Into<String>, dialect: Dialect, note: impl Into<String>) -> OpSpec {
        let mut spec = OpSpec::new(op, OpKind::Unknown, dialect);
        spec.undeterminable = true;
        spec.notes.push(note.into());
        spec
    }

    /// Creates an [`OpKind::OpaqueProgram`] op for `program` with a note saying why its
    /// effects are not modelled.
    pub fn opaque_program(
        program: impl Into<String>,
        dialect: Dialect,
        note: impl Into<String>,
    ) -> OpSpec {
        let mut spec = OpSpec::new(program, OpKind::OpaqueProgram, dialect);
        spec.notes.push(note.into());
        spec
    }

    /// Marks the op undeterminable and records why (notes are de-duplicated).
    pub fn mark_undeterminable(&mut self, note: impl Into<String>) {
        self.undeterminable = true;
        self.note(note);
    }

    /// Adds a de-duplicated note.
    pub fn note(&mut self, note: impl Into<String>) {
        let note = note.into();
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }
}
