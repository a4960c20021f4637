//! Reading the guard paths into [`Sealed`] entries, for a seal and for the comparison.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use agent_guard_types::guard_files::{UserDirs, project_entries};

use super::Sealed;
use crate::workspace::Workspace;

/// The largest guard file whose bytes a seal keeps; a larger one is compared by its
/// `lstat` identity (ctime included).
const KEEP_MAX_BYTES: u64 = 256 * 1024;

/// Below one guard root, the most files whose content is read; past it, files are compared
/// by identity.
const MAX_READ_PER_ROOT: usize = 256;

/// Below one guard root, the most entries recorded; past it, a directory keeps only its
/// names (a new entry there is still seen).
const MAX_ENTRIES_PER_ROOT: usize = 2_000;

/// How deep a guard directory is followed.
const MAX_DEPTH: usize = 6;

/// How a path is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reading {
    /// Content hashed (and kept when taking).
    Content,
    /// A directory above a project entry (`.claude`): only whether a link or a file stands
    /// there matters, not what else it holds.
    Above,
}

/// What one guard root may still read.
struct Budget {
    read: usize,
    entries: usize,
}

/// The guard paths of `workspace` and how each is read. The guard's binary and the
/// `agent-guard` names on `PATH` are left out: a replaced binary no longer runs this check,
/// and an upgrade by a person is no tampering. `skip` (the seal's own directory) is never
/// read.
fn guard_paths(workspace: &Workspace) -> Vec<(PathBuf, Reading)> {
    let content_dirs = UserDirs {
        guard_binary: None,
        path_dirs: Vec::new(),
        ..workspace.user_dirs.clone()
    };
    let mut paths: Vec<(PathBuf, Reading)> = Vec::new();
    for entry in project_entries(&workspace.root) {
        // The directories between the workspace and a project entry (`.claude`): replacing
        // one by a link moves every file below it.
        if let Ok(relative) = entry.strip_prefix(&workspace.root) {
            let mut above = workspace.root.clone();
            let parts: Vec<_> = relative.components().collect();
            for part in parts.iter().take(parts.len().saturating_sub(1)) {
                above.push(part);
                paths.push((above.clone(), Reading::Above));
            }
        }
        paths.push((entry, Reading::Content));
    }
    paths.extend(
        content_dirs
            .entries()
            .into_iter()
            .map(|p| (p, Reading::Content)),
    );
    paths
}

/// What each guard path of `workspace` is now, `skip` (the seal's own files) left out.
/// Of the sessions' remembered shell definitions ([`crate::definitions`]) only the file of
/// `session` (the one that ran the sealed line) is read: other sessions' files change
/// whenever those sessions judge a line, and the guard brings a seal up to date itself when
/// it writes its session's file ([`super::guard_wrote`]).
/// `keep` is called with the digest and bytes of every regular file small enough to keep
/// (it answers whether they are kept).
pub(super) fn observe(
    workspace: &Workspace,
    session: Option<&str>,
    skip: &Path,
    keep: &mut dyn FnMut(&str, &[u8]) -> bool,
) -> BTreeMap<PathBuf, Sealed> {
    let mut entries = BTreeMap::new();
    let definitions = workspace
        .state_dir
        .as_ref()
        .map(|dir| dir.join("definitions"));
    for (path, reading) in guard_paths(workspace) {
        if entries.contains_key(&path) {
            continue;
        }
        let mut budget = Budget {
            read: MAX_READ_PER_ROOT,
            entries: MAX_ENTRIES_PER_ROOT,
        };
        let mut reader = Reader {
            skip,
            definitions: definitions.as_deref(),
            entries: &mut entries,
            keep,
            budget: &mut budget,
        };
        reader.read(&path, reading, 0);
    }
    if let Some(state) = &workspace.state_dir {
        let own = agent_guard_session::definitions::definitions_path(state, session);
        let sealed = content(&own, keep);
        entries.insert(own, sealed);
    }
    entries
}

/// What the file at `path` is now, its bytes offered to `keep`.
pub(super) fn content(path: &Path, keep: &mut dyn FnMut(&str, &[u8]) -> bool) -> Sealed {
    one(path, Reading::Content, keep)
}

/// What `path` is now, read as the seal read it, without what lies below it.
pub(super) fn shallow(path: &Path, was: &Sealed) -> Sealed {
    let reading = match was {
        Sealed::Dir { names: None, .. } => Reading::Above,
        _ => Reading::Content,
    };
    one(path, reading, &mut |_, _| false)
}

/// What `path` alone is now, read as `reading` says.
fn one(path: &Path, reading: Reading, keep: &mut dyn FnMut(&str, &[u8]) -> bool) -> Sealed {
    let mut one = BTreeMap::new();
    let mut budget = Budget {
        read: 1,
        entries: 1,
    };
    let mut reader = Reader {
        skip: Path::new(""),
        definitions: None,
        entries: &mut one,
        keep,
        budget: &mut budget,
    };
    reader.read(path, reading, MAX_DEPTH);
    one.remove(path).unwrap_or(Sealed::Absent)
}

/// One guard root being read.
struct Reader<'a> {
    skip: &'a Path,
    definitions: Option<&'a Path>,
    entries: &'a mut BTreeMap<PathBuf, Sealed>,
    keep: &'a mut dyn FnMut(&str, &[u8]) -> bool,
    budget: &'a mut Budget,
}

impl Reader<'_> {
    /// Records `path` (and, for a guard directory, what lies below it).
    fn read(&mut self, path: &Path, reading: Reading, depth: usize) {
        if path == self.skip || Some(path) == self.definitions || self.budget.entries == 0 {
            return;
        }
        self.budget.entries -= 1;
        let Ok(metadata) = std::fs::symlink_metadata(path) else {
            self.entries.insert(path.to_path_buf(), Sealed::Absent);
            return;
        };
        let kind = metadata.file_type();
        let sealed = if kind.is_symlink() {
            self.link(path)
        } else if kind.is_dir() {
            self.dir(path, &metadata, reading, depth)
        } else if kind.is_file() && reading == Reading::Content && self.budget.read > 0 {
            self.budget.read -= 1;
            self.file(path, &metadata)
        } else {
            Sealed::Identity {
                stamp: identity(&metadata),
            }
        };
        self.entries.insert(path.to_path_buf(), sealed);
    }

    /// A link, and the file it leads to (a guard file kept in a dotfiles repository is
    /// written through its link).
    fn link(&mut self, path: &Path) -> Sealed {
        let target = std::fs::read_link(path).unwrap_or_default();
        let through = std::fs::metadata(path)
            .ok()
            .filter(std::fs::Metadata::is_file)
            .map(|metadata| Box::new(self.file(path, &metadata)));
        Sealed::Link { target, through }
    }

    fn dir(
        &mut self,
        path: &Path,
        metadata: &std::fs::Metadata,
        reading: Reading,
        depth: usize,
    ) -> Sealed {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = metadata.permissions().mode() & 0o7777;
        if reading == Reading::Above {
            return Sealed::Dir { names: None, mode };
        }
        let mut names: Vec<String> = std::fs::read_dir(path)
            .map(|dir| {
                dir.filter_map(Result::ok)
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        if depth < MAX_DEPTH {
            for name in &names {
                self.read(&path.join(name), reading, depth + 1);
            }
        }
        Sealed::Dir {
            names: Some(names),
            mode,
        }
    }

    /// A regular file's entry (through a link too): hashed, and kept when small enough.
    fn file(&mut self, path: &Path, metadata: &std::fs::Metadata) -> Sealed {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = metadata.permissions().mode() & 0o7777;
        if metadata.len() > KEEP_MAX_BYTES {
            return Sealed::Identity {
                stamp: identity(metadata),
            };
        }
        match std::fs::read(path) {
            Ok(bytes) => {
                let sha256 = agent_guard_config::trust::digest(&bytes);
                let kept = (self.keep)(&sha256, &bytes);
                Sealed::File {
                    view: view(path, &bytes),
                    sha256,
                    mode,
                    kept,
                }
            }
            // Unreadable to this user: compared by what `lstat` says.
            Err(_) => Sealed::Identity {
                stamp: identity(metadata),
            },
        }
    }
}

/// What of a guard file the guard depends on, when that is less than its bytes: a Claude
/// Code settings file without its `permissions`, which Claude Code itself writes when a
/// person answers "don't ask again" (a change the guard must not undo). `None`: the bytes.
fn view(path: &Path, bytes: &[u8]) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    if !matches!(name, "settings.json" | "settings.local.json") {
        return None;
    }
    let serde_json::Value::Object(mut settings) = serde_json::from_slice(bytes).ok()? else {
        return None;
    };
    settings.remove("permissions");
    let rest = serde_json::to_vec(&settings).ok()?;
    Some(agent_guard_config::trust::digest(&rest))
}

/// `dev:ino:size:mtime:ctime` of an entry.
fn identity(metadata: &std::fs::Metadata) -> String {
    use std::os::unix::fs::MetadataExt as _;
    format!(
        "{}:{}:{}:{}.{}:{}.{}",
        metadata.dev(),
        metadata.ino(),
        metadata.size(),
        metadata.mtime(),
        metadata.mtime_nsec(),
        metadata.ctime(),
        metadata.ctime_nsec()
    )
}
