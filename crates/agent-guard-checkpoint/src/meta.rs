//! What a checkpoint records beside its files' tree: what it did not keep, permission bits
//! git's modes cannot say, and empty directories.
//!
//! Stored as one blob next to the files' tree (the commit's tree is `{files, meta}`, so no
//! workspace name can collide with it). NUL-separated fields, so any path survives as its
//! bytes: `n SIZE REASON PATH`, `m OCTAL PATH`, `d PATH`, (version 2) `p OCTAL PATH`
//! for a directory whose bits are not `0755`: a version-2 meta records every directory's
//! bits, a version-1 meta (older checkpoints) none, and restore leaves those alone; and
//! (since 2026-12-07, in version 2) `r PATH` for a regenerable artifact the walk left out,
//! which a restore leaves alone even when the `.gitignore` that made it regenerable is gone.

use std::collections::HashMap;

/// Why a path is listed in a checkpoint without its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum NotKeptReason {
    /// Larger than the checkpoint's per-file cap.
    TooLarge,
    /// A FIFO, socket or device: not content.
    Special,
    /// It could not be read (permissions), or a directory could not be listed.
    Unreadable,
    /// The `.git` of a repository nested in the workspace: a checkpoint never keeps git
    /// metadata (its work-tree files are kept like any others).
    NestedRepository,
}

impl NotKeptReason {
    /// The stable name.
    pub const fn as_str(self) -> &'static str {
        match self {
            NotKeptReason::TooLarge => "too-large",
            NotKeptReason::Special => "special",
            NotKeptReason::Unreadable => "unreadable",
            NotKeptReason::NestedRepository => "nested-repository",
        }
    }

    fn parse(text: &[u8]) -> Option<NotKeptReason> {
        [
            NotKeptReason::TooLarge,
            NotKeptReason::Special,
            NotKeptReason::Unreadable,
            NotKeptReason::NestedRepository,
        ]
        .into_iter()
        .find(|r| r.as_str().as_bytes() == text)
    }
}

/// A path a checkpoint lists but does not hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotKept {
    /// Workspace-relative, `/`-separated bytes.
    pub path: Vec<u8>,
    /// Its size when the checkpoint was taken.
    pub size: u64,
    /// Why it was not kept.
    pub reason: NotKeptReason,
}

/// The decoded meta blob.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Meta {
    pub(crate) not_kept: Vec<NotKept>,
    pub(crate) permissions: HashMap<Vec<u8>, u32>,
    pub(crate) empty_dirs: Vec<Vec<u8>>,
    /// Directories whose bits are not `0755` (with `dir_modes_recorded`).
    pub(crate) dir_modes: HashMap<Vec<u8>, u32>,
    /// Whether this checkpoint recorded directory bits (version 2).
    pub(crate) dir_modes_recorded: bool,
    /// Regenerable artifacts the walk left out (directories and files).
    pub(crate) left_out: Vec<Vec<u8>>,
}

/// What a checkpoint's meta records, each list sorted in path order.
pub(crate) struct Records<'a> {
    pub(crate) not_kept: &'a [NotKept],
    pub(crate) permissions: &'a [(&'a [u8], u32)],
    pub(crate) empty_dirs: &'a [Vec<u8>],
    pub(crate) dir_modes: &'a [(Vec<u8>, u32)],
    pub(crate) left_out: &'a [Vec<u8>],
}

impl Meta {
    /// Encodes deterministically (the caller passes sorted lists), so that an unchanged
    /// workspace gives the same blob.
    pub(crate) fn encode(records: &Records<'_>) -> Vec<u8> {
        let Records {
            not_kept,
            permissions,
            empty_dirs,
            dir_modes,
            left_out,
        } = *records;
        let mut out = b"agent-guard-checkpoint 2\0".to_vec();
        let field = |out: &mut Vec<u8>, bytes: &[u8]| {
            out.extend_from_slice(bytes);
            out.push(0);
        };
        for item in not_kept {
            field(&mut out, b"n");
            field(&mut out, item.size.to_string().as_bytes());
            field(&mut out, item.reason.as_str().as_bytes());
            field(&mut out, &item.path);
        }
        for (path, bits) in permissions {
            field(&mut out, b"m");
            field(&mut out, format!("{bits:o}").as_bytes());
            field(&mut out, path);
        }
        for dir in empty_dirs {
            field(&mut out, b"d");
            field(&mut out, dir);
        }
        for (dir, bits) in dir_modes {
            field(&mut out, b"p");
            field(&mut out, format!("{bits:o}").as_bytes());
            field(&mut out, dir);
        }
        for path in left_out {
            field(&mut out, b"r");
            field(&mut out, path);
        }
        out
    }

    /// Whether `path` is, or lies below, a regenerable artifact this checkpoint left out.
    pub(crate) fn left_out(&self, path: &[u8]) -> bool {
        self.left_out
            .iter()
            .any(|out| path.starts_with(out) && matches!(path.get(out.len()), None | Some(b'/')))
    }

    /// Decodes a meta blob; unknown record kinds are skipped.
    pub(crate) fn decode(bytes: &[u8]) -> Meta {
        let mut meta = Meta::default();
        let mut fields = bytes.split(|b| *b == 0);
        meta.dir_modes_recorded = fields.next().is_some_and(|header| {
            header
                .strip_prefix(b"agent-guard-checkpoint ")
                .and_then(|v| std::str::from_utf8(v).ok())
                .and_then(|v| v.parse::<u32>().ok())
                .is_some_and(|version| version >= 2)
        });
        while let Some(kind) = fields.next() {
            match kind {
                b"n" => {
                    let (Some(size), Some(reason), Some(path)) =
                        (fields.next(), fields.next(), fields.next())
                    else {
                        break;
                    };
                    let size = std::str::from_utf8(size)
                        .ok()
                        .and_then(|s| s.parse().ok())
                        .unwrap_or(0);
                    if let Some(reason) = NotKeptReason::parse(reason) {
                        meta.not_kept.push(NotKept {
                            path: path.to_vec(),
                            size,
                            reason,
                        });
                    }
                }
                kind @ (b"m" | b"p") => {
                    let (Some(bits), Some(path)) = (fields.next(), fields.next()) else {
                        break;
                    };
                    if let Some(bits) = std::str::from_utf8(bits)
                        .ok()
                        .and_then(|s| u32::from_str_radix(s, 8).ok())
                    {
                        let map = if kind == b"m" {
                            &mut meta.permissions
                        } else {
                            &mut meta.dir_modes
                        };
                        map.insert(path.to_vec(), bits);
                    }
                }
                b"d" => {
                    let Some(path) = fields.next() else { break };
                    meta.empty_dirs.push(path.to_vec());
                }
                b"r" => {
                    let Some(path) = fields.next() else { break };
                    meta.left_out.push(path.to_vec());
                }
                _ => {}
            }
        }
        meta
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_any_path() {
        let not_kept = vec![NotKept {
            path: b"big \xff\nfile".to_vec(),
            size: 12,
            reason: NotKeptReason::TooLarge,
        }];
        let bytes = Meta::encode(&Records {
            not_kept: &not_kept,
            permissions: &[(b".env", 0o600)],
            empty_dirs: &[b"logs".to_vec()],
            dir_modes: &[(b"private".to_vec(), 0o700)],
            left_out: &[b"node_modules".to_vec(), b"a/x.pyc".to_vec()],
        });
        let meta = Meta::decode(&bytes);
        assert!(meta.dir_modes_recorded);
        assert_eq!(meta.dir_modes.get(&b"private"[..]), Some(&0o700));
        let old = Meta::decode(b"agent-guard-checkpoint 1\0d\0logs\0");
        assert!(
            !old.dir_modes_recorded,
            "a version-1 meta recorded no directory bits"
        );
        assert_eq!(meta.not_kept, not_kept);
        assert_eq!(meta.permissions.get(&b".env"[..]), Some(&0o600));
        assert_eq!(meta.empty_dirs, [b"logs".to_vec()]);
        assert!(meta.left_out(b"node_modules") && meta.left_out(b"node_modules/p/i.js"));
        assert!(meta.left_out(b"a/x.pyc") && !meta.left_out(b"node_modules2"));
        assert_eq!(Meta::decode(b""), Meta::default());
    }
}
