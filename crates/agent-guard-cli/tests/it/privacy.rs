//! Stored copies keep the originals' privacy (issue 34, point 5): a `0600` file relocated,
//! kept before an overwrite (copy, hard link), moved, or checkpointed is not readable by
//! another user from the store — not even where the store's own directory was made
//! world-readable beforehand (a named store in a shared place, a store of an older version).
//! The modes are checked, and as root a real read is tried as `nobody` (`setpriv`).

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

use crate::crash::cross_device_trash;
use crate::support::{TestEnv, json, run_shell};

const SECRET: &[u8] = b"the private key 0123456789\n";

/// Whether `haystack` holds `needle` (a pack stores small blobs verbatim).
fn holds(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Every file of the store that holds the secret, or any checkpoint object, is readable by
/// its owner only, and (as root) `nobody` cannot read it.
fn assert_private(store: &Path, what: &str) -> (usize, usize) {
    let (mut copies, mut objects) = (0, 0);
    let mut stack = vec![store.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let meta = path.symlink_metadata().unwrap();
            if meta.is_dir() {
                stack.push(path);
                continue;
            }
            if !meta.is_file() {
                continue;
            }
            let relative = path
                .strip_prefix(store)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            // The store's own records (manifest, audit log, lock, pending links) name the
            // workspace's paths and commands: its owner's only, whatever the store's mode.
            if !relative.contains('/') {
                assert_eq!(
                    meta.mode_bits() & 0o077,
                    0,
                    "{what}: the store's {relative} is readable by others"
                );
            }
            let object = relative.starts_with("checkpoints/objects/");
            let secret = std::fs::read(&path).is_ok_and(|bytes| holds(&bytes, SECRET));
            if !(object || secret) {
                continue;
            }
            copies += usize::from(secret);
            objects += usize::from(object);
            // Readable by another user only through every directory above it and its own
            // bits: the nearest of them must shut others out.
            let shut = |p: &Path| {
                p.symlink_metadata()
                    .is_ok_and(|m| m.permissions().mode().trailing_zeros() >= 6)
            };
            let guarded = shut(&path)
                || path
                    .ancestors()
                    .skip(1)
                    .take_while(|a| a.starts_with(store))
                    .any(shut);
            assert!(
                guarded,
                "{what}: {relative} is readable by others: {:o}",
                meta.mode_bits()
            );
            if secret {
                assert_eq!(
                    meta.mode_bits() & 0o077,
                    0,
                    "{what}: {relative}, a copy of a 0600 file, is more readable than it"
                );
            }
            if is_root() {
                let read = std::process::Command::new("setpriv")
                    .args(["--reuid=65534", "--regid=65534", "--clear-groups", "cat"])
                    .arg(&path)
                    .output()
                    .unwrap();
                assert!(
                    !holds(&read.stdout, SECRET),
                    "{what}: nobody read the secret from {relative}"
                );
            }
        }
    }
    (copies, objects)
}

trait ModeBits {
    fn mode_bits(&self) -> u32;
}

impl ModeBits for std::fs::Metadata {
    fn mode_bits(&self) -> u32 {
        self.permissions().mode() & 0o7777
    }
}

fn is_root() -> bool {
    std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0")
}

/// Runs each line guarded, in a workspace with a `0600` secret, with the store at `trash`
/// (created beforehand with `0755` when `open`), and checks the store.
fn scenario(trash: Option<&Path>, open: bool, what: &str) {
    let env = TestEnv::new();
    let ws = env.ws();
    let secret = ws.join("secret.key");
    std::fs::write(&secret, SECRET).unwrap();
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::write(ws.join("tool.sh"), "echo x >> notes.txt\n").unwrap();
    let store = trash.map_or_else(|| env.trash(), Path::to_path_buf);
    if open {
        std::fs::create_dir_all(&store).unwrap();
        std::fs::set_permissions(&store, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    for line in [
        "sh tool.sh",
        "echo overwritten > secret.key",
        "cp notes.txt secret.key",
        "mv notes.txt secret.key",
        "mv secret.key moved.key",
        "rm moved.key",
    ] {
        // The secret again where the line expects it.
        if !secret.exists() {
            std::fs::write(&secret, SECRET).unwrap();
            std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        if !ws.join("notes.txt").exists() {
            std::fs::write(ws.join("notes.txt"), "notes\n").unwrap();
        }
        let mut cmd = env.cmd("agent-guard");
        if let Some(trash) = trash {
            cmd.env("AGENT_GUARD_TRASH", trash);
        }
        let output = cmd
            .args(["check", "--enforce", "--json", "--", line])
            .output()
            .unwrap();
        assert_eq!(
            output.status.code(),
            Some(0),
            "{what}: `{line}`: {output:?}"
        );
        let _ = json(&output);
        run_shell(&env, line);
    }
    // A second checkpoint after the secret changed stores it again, in a new pack.
    std::fs::write(ws.join("tool.sh"), "cat secret.key > /dev/null\n").unwrap();
    std::fs::write(&secret, SECRET).unwrap();
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
    let mut cmd = env.cmd("agent-guard");
    if let Some(trash) = trash {
        cmd.env("AGENT_GUARD_TRASH", trash);
    }
    cmd.args(["check", "--enforce", "--json", "--", "sh tool.sh"])
        .assert()
        .success();
    let (copies, objects) = assert_private(&store, what);
    assert!(
        copies >= 2,
        "{what}: the secret was kept ({copies} copies found)"
    );
    assert!(objects >= 2, "{what}: the checkpoints' packs were checked");
}

#[test]
fn a_private_file_stays_private_in_the_store() {
    scenario(None, false, "per-user store");
}

#[test]
fn a_private_file_stays_private_in_a_store_made_readable_beforehand() {
    let shared = tempfile::tempdir().unwrap();
    let trash = shared.path().join("q");
    scenario(Some(&trash), true, "named store, 0755 beforehand");
}

#[test]
fn a_private_file_stays_private_in_a_store_on_another_filesystem() {
    let Some(shm) = cross_device_trash() else {
        eprintln!("skipping: no second filesystem");
        return;
    };
    let trash = shm.path().join("q");
    scenario(
        Some(&trash),
        true,
        "store on another filesystem, 0755 beforehand",
    );
}
