//! Edit-tool facts: which files a harness's file-writing tool call (`Write`, `Edit`,
//! `apply_patch`, `write_file`, …) changes, and how.
//!
//! The hook layer reads them from the payload; the engine turns them into one
//! [`OpKind::EditTool`](crate::OpKind::EditTool) op whose targets the policy judges like a
//! shell write's.

use serde::{Deserialize, Serialize};

/// What a file-writing tool call does to one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EditEffect {
    /// Writes the whole content, creating the file if it is absent (`Write`, `write_file`,
    /// `*** Add File:`, Copilot `create`).
    Write,
    /// Rewrites part of an existing file (`Edit`, `replace`, `*** Update File:`).
    Edit,
    /// Removes the path (`*** Delete File:`).
    Delete,
    /// The source of a rename: its content moves away, the path is removed
    /// (`*** Update File:` followed by `*** Move to:`).
    MoveFrom,
    /// The destination of a rename: written, created if absent (`*** Move to:`).
    MoveTo,
}

impl EditEffect {
    /// The stable kebab-case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            EditEffect::Write => "write",
            EditEffect::Edit => "edit",
            EditEffect::Delete => "delete",
            EditEffect::MoveFrom => "move-from",
            EditEffect::MoveTo => "move-to",
        }
    }

    /// Whether the tool acts on where a final symlink leads (it writes through the link)
    /// rather than on the link itself (it removes the link).
    pub const fn through_symlink(self) -> bool {
        matches!(
            self,
            EditEffect::Write | EditEffect::Edit | EditEffect::MoveTo
        )
    }

    /// Whether the path is gone after the call.
    pub const fn removes(self) -> bool {
        matches!(self, EditEffect::Delete | EditEffect::MoveFrom)
    }
}

/// One path a file-writing tool call changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EditFile {
    /// The path as the payload spells it: absolute, or relative to the call's directory.
    pub path: String,
    /// What the call does to it.
    pub effect: EditEffect,
}

impl EditFile {
    /// Creates an entry.
    pub fn new(path: impl Into<String>, effect: EditEffect) -> EditFile {
        EditFile {
            path: path.into(),
            effect,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_symlink_semantics() {
        assert_eq!(EditEffect::MoveFrom.as_str(), "move-from");
        assert_eq!(
            serde_json::to_string(&EditEffect::MoveTo).unwrap(),
            "\"move-to\""
        );
        assert!(EditEffect::Edit.through_symlink());
        assert!(!EditEffect::Delete.through_symlink());
        assert!(EditEffect::MoveFrom.removes() && !EditEffect::Write.removes());
    }
}
