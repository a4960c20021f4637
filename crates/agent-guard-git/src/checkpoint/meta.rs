//! What a checkpoint records beside its files' tree: what it did not keep, permission bits
//! git's modes cannot say, and empty directories.
//!
//! Stored as one blob next to the files' tree (the commit's tree is `{files, meta}`, so no
//! workspace name can collide with it). NUL-separated fields, so any path survives as its
//! bytes: `n SIZE REASON PATH`, `m OCTAL PATH`, `d PATH`.

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
}

impl NotKeptReason {
    /// The stable name.
    pub const fn as_str(self) -> &'static str {
        match self {
            NotKeptReason::TooLarge => "too-large",
            NotKeptReason::Special => "special",
            NotKeptReason::Unreadable => "unreadable",
        }
    }

    fn parse(text: &[u8]) -> Option<NotKeptReason> {
        [
            NotKeptReason::TooLarge,
            NotKeptReason::Special,
            NotKeptReason::Unreadable,
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
}

impl Meta {
    /// Encodes deterministically (the caller passes sorted lists), so that an unchanged
    /// workspace gives the same blob.
    pub(crate) fn encode(
        not_kept: &[NotKept],
        permissions: &[(&[u8], u32)],
        empty_dirs: &[Vec<u8>],
    ) -> Vec<u8> {
        let mut out = b"agent-guard-checkpoint 1\0".to_vec();
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
        out
    }

    /// Decodes a meta blob; unknown record kinds are skipped.
    pub(crate) fn decode(bytes: &[u8]) -> Meta {
        let mut meta = Meta::default();
        let mut fields = bytes.split(|b| *b == 0).skip(1);
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
                b"m" => {
                    let (Some(bits), Some(path)) = (fields.next(), fields.next()) else {
                        break;
                    };
                    if let Some(bits) = std::str::from_utf8(bits)
                        .ok()
                        .and_then(|s| u32::from_str_radix(s, 8).ok())
                    {
                        meta.permissions.insert(path.to_vec(), bits);
                    }
                }
                b"d" => {
                    let Some(path) = fields.next() else { break };
                    meta.empty_dirs.push(path.to_vec());
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
        let bytes = Meta::encode(&not_kept, &[(b".env", 0o600)], &[b"logs".to_vec()]);
        let meta = Meta::decode(&bytes);
        assert_eq!(meta.not_kept, not_kept);
        assert_eq!(meta.permissions.get(&b".env"[..]), Some(&0o600));
        assert_eq!(meta.empty_dirs, [b"logs".to_vec()]);
        assert_eq!(Meta::decode(b""), Meta::default());
    }
}
