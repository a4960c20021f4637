//! The per-user chain key: a 256-bit secret in the user's state directory, never in a
//! workspace.
//!
//! The key lives at `<state>/keys/audit-chain.key`, where `<state>` is the directory the
//! caller passes in (the engine passes `$XDG_STATE_HOME/agent-guard`, or
//! `~/.local/state/agent-guard`; this crate reads no environment). The `keys` directory is
//! `0700` and the file `0600`, created on first use:
//!
//! 1. the new key is written to a temporary file unique to this process (`0600`,
//!    `O_EXCL`) and synced;
//! 2. it is renamed into place without ever replacing an existing key
//!    (`renameat2(RENAME_NOREPLACE)`, or a hard link where that is missing), and the
//!    directory is synced;
//! 3. a process that loses that race removes its temporary file and uses the winner's key,
//!    which is complete because it was synced before the rename made it visible.
//!
//! The audit log never contains the key: records name it by its [`AuditKey::id`], a
//! one-way digest (`k1-` and 16 hex digits).

use std::fmt;
use std::fs::DirBuilder;
use std::io::Write as _;
use std::os::unix::fs::{DirBuilderExt as _, PermissionsExt as _};

use fs_err::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};

use agent_guard_fsops as fsops;

use crate::AuditError;
use crate::hash::{is_hex, to_hex as hex};

/// The directory under the state directory that holds keys.
pub const KEY_DIR_NAME: &str = "keys";
/// The key file's name inside [`KEY_DIR_NAME`].
pub const KEY_FILE_NAME: &str = "audit-chain.key";

/// The prefix of a key id; the digit is the chain format's version.
const KEY_ID_PREFIX: &str = "k1-";
/// BLAKE3 `derive_key` contexts: one subkey per purpose, so the raw key is used for nothing.
const MAC_CONTEXT: &str = "agent-guard 2026-12 audit chain v1 record mac";
const ID_CONTEXT: &str = "agent-guard 2026-12 audit chain v1 key id";

/// The user's chain key.
///
/// `Debug` shows the id only, so the secret cannot reach a log by accident.
#[derive(Clone)]
pub struct AuditKey {
    mac_key: [u8; 32],
    id: String,
}

impl fmt::Debug for AuditKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuditKey")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl AuditKey {
    /// Builds a key from its 32 secret bytes (tests, and the key file).
    pub fn from_bytes(secret: [u8; 32]) -> AuditKey {
        let mac_key = blake3::derive_key(MAC_CONTEXT, &secret);
        let id_bytes = blake3::derive_key(ID_CONTEXT, &secret);
        let mut id = String::with_capacity(KEY_ID_PREFIX.len() + 16);
        id.push_str(KEY_ID_PREFIX);
        id.push_str(&hex(&id_bytes[..8]));
        AuditKey { mac_key, id }
    }

    /// Returns the key's public name: `k1-` and 16 lowercase hex digits.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Returns the lowercase hex MAC of `canonical` under this key (keyed BLAKE3).
    pub(crate) fn mac(&self, canonical: &[u8]) -> String {
        blake3::keyed_hash(&self.mac_key, canonical)
            .to_hex()
            .to_string()
    }

    /// Returns `true` if `mac` is this key's MAC of `canonical`, compared in constant time.
    pub(crate) fn verifies(&self, canonical: &[u8], mac: &str) -> bool {
        blake3::Hash::from_hex(mac)
            .is_ok_and(|expected| blake3::keyed_hash(&self.mac_key, canonical) == expected)
    }

    /// Returns the key file's path under `state_dir`.
    pub fn path(state_dir: &Path) -> PathBuf {
        state_dir.join(KEY_DIR_NAME).join(KEY_FILE_NAME)
    }

    /// Reads the key under `state_dir`; `Ok(None)` when there is none yet. Creates nothing
    /// (for `verify` and `status`, which must not mint a key).
    pub fn load(state_dir: &Path) -> Result<Option<AuditKey>, AuditError> {
        let path = AuditKey::path(state_dir);
        match fs_err::symlink_metadata(&path) {
            Ok(_) => read_key(&path).map(Some),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(AuditError::Key { path, source }),
        }
    }

    /// Reads the key under `state_dir`, creating the directory and the key on first use
    /// (see the module documentation for how concurrent first uses agree on one key).
    pub fn load_or_create(state_dir: &Path) -> Result<AuditKey, AuditError> {
        let dir = state_dir.join(KEY_DIR_NAME);
        private_dir(state_dir, &dir)?;
        let path = dir.join(KEY_FILE_NAME);
        if let Some(key) = AuditKey::load(state_dir)? {
            return Ok(key);
        }
        let mut secret = [0_u8; 32];
        getrandom::fill(&mut secret).map_err(|error| AuditError::Key {
            path: path.clone(),
            source: std::io::Error::other(error),
        })?;
        let key_error = |source| AuditError::Key {
            path: path.clone(),
            source,
        };
        let mut nonce = [0_u8; 8];
        getrandom::fill(&mut nonce).map_err(|e| key_error(std::io::Error::other(e)))?;
        let temporary = dir.join(format!(
            ".{KEY_FILE_NAME}.{}.{}.tmp",
            std::process::id(),
            hex(&nonce)
        ));
        let mut file = fs_err::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&temporary)
            .map_err(key_error)?;
        let written = file
            .write_all(format!("{}\n", hex(&secret)).as_bytes())
            .and_then(|()| file.sync_all());
        drop(file);
        if let Err(source) = written {
            let _ = fsops::remove_file(&temporary);
            return Err(key_error(source));
        }
        match fsops::rename_noreplace(&temporary, &path) {
            Ok(()) => {
                fsops::sync_dir(&dir).map_err(key_error)?;
                Ok(AuditKey::from_bytes(secret))
            }
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
                // Another process created the key first: use its key.
                let _ = fsops::remove_file(&temporary);
                read_key(&path)
            }
            Err(source) => {
                let _ = fsops::remove_file(&temporary);
                Err(key_error(source))
            }
        }
    }
}

/// Creates `dir` (and `parent`) if needed and makes sure `dir` is a real directory that only
/// its owner can enter.
fn private_dir(parent: &Path, dir: &Path) -> Result<(), AuditError> {
    let dir_error = |source| AuditError::Key {
        path: dir.to_owned(),
        source,
    };
    fs_err::create_dir_all(parent).map_err(dir_error)?;
    match DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(source) => return Err(dir_error(source)),
    }
    let metadata = fs_err::symlink_metadata(dir).map_err(dir_error)?;
    if !metadata.is_dir() {
        // A symlink or a file where the key directory belongs: never follow it.
        return Err(AuditError::KeyInsecure {
            path: dir.to_owned(),
        });
    }
    if metadata.permissions().mode() & 0o077 != 0 {
        fs_err::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).map_err(dir_error)?;
    }
    Ok(())
}

/// Reads and parses a key file: 64 lowercase hex digits and a newline, a regular file that
/// only its owner can read (looser permissions are tightened first).
fn read_key(path: &Path) -> Result<AuditKey, AuditError> {
    let key_error = |source| AuditError::Key {
        path: path.to_owned(),
        source,
    };
    let metadata = fs_err::symlink_metadata(path).map_err(key_error)?;
    if !metadata.is_file() {
        return Err(AuditError::KeyInsecure {
            path: path.to_owned(),
        });
    }
    if metadata.permissions().mode() & 0o077 != 0 {
        fs_err::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(key_error)?;
    }
    // The `lstat` above and this open race only against the directory's owner (it is
    // `0700`), who could replace the key anyway.
    let file = fsops::state::open_file(path, fsops::state::Access::Read).map_err(key_error)?;
    let mut text = String::new();
    std::io::Read::read_to_string(&mut std::io::Read::take(file, 1024), &mut text)
        .map_err(key_error)?;
    let digits = text.strip_suffix('\n').unwrap_or(&text);
    if !is_hex(digits, 64) {
        return Err(AuditError::KeyMalformed {
            path: path.to_owned(),
        });
    }
    let mut secret = [0_u8; 32];
    for (index, byte) in secret.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&digits[2 * index..2 * index + 2], 16).map_err(|_| {
            AuditError::KeyMalformed {
                path: path.to_owned(),
            }
        })?;
    }
    Ok(AuditKey::from_bytes(secret))
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::MetadataExt as _;

    use super::*;

    #[test]
    fn first_use_creates_a_private_key_and_later_uses_read_it() {
        let state = tempfile::tempdir().unwrap();
        let dir = state.path().join("agent-guard");
        assert!(AuditKey::load(&dir).unwrap().is_none());
        let key = AuditKey::load_or_create(&dir).unwrap();
        let path = AuditKey::path(&dir);
        assert_eq!(fs_err::metadata(&path).unwrap().mode() & 0o777, 0o600);
        assert_eq!(
            fs_err::metadata(dir.join(KEY_DIR_NAME)).unwrap().mode() & 0o777,
            0o700
        );
        let again = AuditKey::load_or_create(&dir).unwrap();
        assert_eq!(again.id(), key.id());
        assert_eq!(AuditKey::load(&dir).unwrap().unwrap().id(), key.id());
        assert!(key.id().starts_with("k1-") && is_hex(&key.id()[3..], 16));
        let text = fs_err::read_to_string(&path).unwrap();
        assert!(!text.contains(key.id()), "the id is not the key");
        assert!(
            !format!("{key:?}").contains(text.trim()),
            "Debug hides the key"
        );
        let leftovers: Vec<_> = fs_err::read_dir(dir.join(KEY_DIR_NAME))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(leftovers, [KEY_FILE_NAME]);
    }

    #[test]
    fn concurrent_first_uses_agree_on_one_key() {
        let state = tempfile::tempdir().unwrap();
        let dir = state.path().join("agent-guard");
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let dir = dir.clone();
                std::thread::spawn(move || AuditKey::load_or_create(&dir).unwrap().id().to_owned())
            })
            .collect();
        let ids: std::collections::BTreeSet<String> =
            threads.into_iter().map(|t| t.join().unwrap()).collect();
        assert_eq!(ids.len(), 1, "{ids:?}");
        assert_eq!(fs_err::read_dir(dir.join(KEY_DIR_NAME)).unwrap().count(), 1);
    }

    #[test]
    fn loose_permissions_are_tightened_and_bad_keys_refused() {
        let state = tempfile::tempdir().unwrap();
        let dir = state.path().join("agent-guard");
        let key = AuditKey::load_or_create(&dir).unwrap();
        let path = AuditKey::path(&dir);
        fs_err::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        fs_err::set_permissions(
            dir.join(KEY_DIR_NAME),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        assert_eq!(AuditKey::load_or_create(&dir).unwrap().id(), key.id());
        assert_eq!(fs_err::metadata(&path).unwrap().mode() & 0o777, 0o600);
        assert_eq!(
            fs_err::metadata(dir.join(KEY_DIR_NAME)).unwrap().mode() & 0o777,
            0o700
        );

        fs_err::write(&path, "not a key\n").unwrap();
        assert!(matches!(
            AuditKey::load(&dir),
            Err(AuditError::KeyMalformed { .. })
        ));

        let other = tempfile::tempdir().unwrap();
        let linked = other.path().join("agent-guard");
        fs_err::create_dir_all(&linked).unwrap();
        std::os::unix::fs::symlink(dir.join(KEY_DIR_NAME), linked.join(KEY_DIR_NAME)).unwrap();
        assert!(matches!(
            AuditKey::load_or_create(&linked),
            Err(AuditError::KeyInsecure { .. })
        ));
    }

    #[test]
    fn different_secrets_have_different_ids_and_macs() {
        let a = AuditKey::from_bytes([1; 32]);
        let b = AuditKey::from_bytes([2; 32]);
        assert_ne!(a.id(), b.id());
        let mac = a.mac(b"record");
        assert!(a.verifies(b"record", &mac));
        assert!(!b.verifies(b"record", &mac));
        assert!(!a.verifies(b"record2", &mac));
        assert!(!a.verifies(b"record", "zz"));
    }
}
