//! Paths a program takes from a file it is handed: a patch's files, an archive's members
//! (issue 35: `git apply evil.diff` or `tar xf hooks.tar` writes a hook file the line never
//! names). The classifier names the file and how to read it; the world reads it; the policy
//! judges the paths.

use serde::{Deserialize, Serialize};

use crate::Target;

/// A file whose contents name the paths a program writes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListedWrites {
    /// The patch or archive (opaque when it comes from a stream or a variable).
    pub list: Target,
    /// The patch itself, when the line holds it (a heredoc or here-string on stdin).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inline: Option<String>,
    /// How its paths are written in it.
    pub format: ListFormat,
    /// The directory its paths are relative to (`tar -C DIR`, `unzip -d DIR`, `patch -d
    /// DIR`, `git apply --directory=DIR`); `None` for the working directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub into: Option<Target>,
}

/// How a [`ListedWrites`] file names its paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ListFormat {
    /// A unified, context or git diff, or a mailbox of them (`patch`, `git apply`, `git am`):
    /// the names after `---`, `+++`, `***`, `diff --git`, `rename to` and `copy to`, with any
    /// number of leading components stripped.
    Patch,
    /// An archive `tar` or `unzip` lists (`tar -tf`, `unzip -Z1`).
    Archive,
}
