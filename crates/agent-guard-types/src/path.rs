//! Path facts: what the world says about one target.

use std::path::PathBuf;

/// Why a path may never be deleted through the guard, in evaluation order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Protected {
    /// Exactly a filesystem root (`/`, `/usr`, …), the home directory, or a drive root.
    AncestorRoot,
    /// The workspace root or the quarantine root (or an alias of either).
    WorkspaceRoot,
    /// A quarantine control path, or an in-workspace ancestor of the quarantine.
    QuarantineControl,
    /// Outside the workspace.
    OutsideWorkspace,
    /// Inside git metadata (a `.git` component).
    GitMetadata,
    /// The guard's own configuration or a harness's hook configuration
    /// ([`guard_files`](crate::guard_files)), a directory holding one, or a path where one
    /// could be created: changing it could switch the guard off.
    GuardControl,
}

impl Protected {
    /// Returns the stable fact label (`ancestor-root`, `workspace-root`, …).
    pub const fn as_str(self) -> &'static str {
        match self {
            Protected::AncestorRoot => "ancestor-root",
            Protected::WorkspaceRoot => "workspace-root",
            Protected::QuarantineControl => "quarantine-control",
            Protected::OutsideWorkspace => "outside-workspace",
            Protected::GitMetadata => "git-metadata",
            Protected::GuardControl => "guard-control",
        }
    }
}

/// The kind of filesystem object found at a path (without following a final symlink).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum EntryKind {
    /// Nothing there.
    #[default]
    Absent,
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link (judged by where it sits; it is moved as a link).
    Symlink,
    /// A FIFO, socket or device.
    Special,
}

/// Facts about one target, resolved against a base directory. Produced by the world, read by
/// the policy.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PathSpec {
    /// The target as the caller spelled it.
    pub raw: String,
    /// The lexical absolute path (`~` expanded, joined to the base, `.`/`..` folded). `None`
    /// when the target could not be resolved.
    pub resolved: Option<PathBuf>,
    /// The physical spelling used for boundary checks: the parent chain resolved, the final
    /// component kept verbatim unless the path goes *through* it (a trailing slash).
    pub physical: Option<PathBuf>,
    /// The path relative to the physical workspace root, when inside it.
    pub relative: Option<PathBuf>,
    /// What is at the path (a final symlink is not followed).
    pub entry: EntryKind,
    /// The size in bytes of what is at the path (a regular file's length; 0 otherwise).
    pub size: u64,
    /// The target contains active wildcards.
    pub glob: bool,
    /// Why the path could not be resolved (empty, a variable, …).
    pub error: Option<String>,
    /// The physical path lies inside the workspace (inclusive).
    pub inside_workspace: bool,
    /// The physical path lies inside the quarantine (inclusive).
    pub inside_trash: bool,
    /// The first protection that applies, if any.
    pub protected: Option<Protected>,
}

impl PathSpec {
    /// Returns `true` if something exists at the path (a dangling link counts).
    pub fn exists(&self) -> bool {
        self.entry != EntryKind::Absent
    }

    /// Returns `true` for an existing directory (not a link to one).
    pub fn is_dir(&self) -> bool {
        self.entry == EntryKind::Dir
    }

    /// Returns `true` for a regular file or a symlink.
    pub fn is_file_or_symlink(&self) -> bool {
        matches!(self.entry, EntryKind::File | EntryKind::Symlink)
    }
}

/// `text` joined to `base` with `.` and `..` folded by name, as a shell's logical `cd`
/// does (`cd lnk/..` stays where it was, whatever `lnk` leads to).
pub fn logical_join(base: &std::path::Path, text: &str) -> std::path::PathBuf {
    let mut path = if text.starts_with('/') {
        std::path::PathBuf::from("/")
    } else {
        base.to_path_buf()
    };
    for part in text.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                path.pop();
            }
            name => path.push(name),
        }
    }
    path
}
