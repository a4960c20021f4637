//! SHA-256 correlation labels and session ids.

use std::fmt::Write as _;
use std::sync::OnceLock;

use sha2::{Digest, Sha256};

const PREFIX: &str = "sha256:";

/// Returns the lowercase hex SHA-256 digest of `text`.
pub fn sha256_hex(text: &str) -> String {
    sha256_bytes(text.as_bytes())
}

/// Returns the lowercase hex SHA-256 digest of `bytes`.
pub fn sha256_bytes(bytes: &[u8]) -> String {
    to_hex(Sha256::digest(bytes).as_slice())
}

/// Returns `bytes` as lowercase hex.
pub(crate) fn to_hex(bytes: &[u8]) -> String {
    let mut hex = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        // Writing to a String cannot fail.
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

/// Returns `sha256:<hex>` of `text`.
pub(crate) fn sha256_label(text: &str) -> String {
    format!("{PREFIX}{}", sha256_hex(text))
}

/// Returns `true` if `text` is exactly `len` lowercase hex digits.
pub(crate) fn is_hex(text: &str, len: usize) -> bool {
    text.len() == len
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Returns `true` if `text` is already a `sha256:<64 hex>` label.
pub(crate) fn is_sha256_label(text: &str) -> bool {
    text.strip_prefix(PREFIX).is_some_and(|hex| is_hex(hex, 64))
}

/// Returns the audit form of a session id: `sha256:<hex of the raw value>`.
///
/// Idempotent: a value that already is a `sha256:<64 hex>` label is returned unchanged, so a
/// projected record can be projected again.
///
/// ```
/// let hashed = agent_guard_audit::session_hash("agent-1");
/// assert!(hashed.starts_with("sha256:"));
/// assert_eq!(agent_guard_audit::session_hash(&hashed), hashed);
/// ```
pub fn session_hash(raw: &str) -> String {
    if is_sha256_label(raw) {
        raw.to_owned()
    } else {
        sha256_label(raw)
    }
}

/// Returns the audit session of this process.
///
/// `raw` is the value of `AGENT_GUARD_SESSION` as captured by the caller (this crate reads no
/// environment). When it is set and non-empty, the result is its [`session_hash`]. Otherwise
/// it is the hash of a random id and the process id: stable within the process, different
/// across processes, and never derived from the user or host name.
pub fn default_session(raw: Option<&str>) -> String {
    static PROCESS_SESSION: OnceLock<String> = OnceLock::new();
    match raw.filter(|raw| !raw.is_empty()) {
        Some(raw) => session_hash(raw),
        None => PROCESS_SESSION
            .get_or_init(|| {
                sha256_label(&format!("{}-{}", uuid::Uuid::new_v4(), std::process::id()))
            })
            .clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_digest() {
        assert_eq!(
            sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(session_hash("abc"), format!("sha256:{}", sha256_hex("abc")));
    }

    #[test]
    fn session_hash_is_idempotent_but_not_fooled_by_lookalikes() {
        let once = session_hash("raw");
        assert_eq!(session_hash(&once), once);
        assert_ne!(session_hash("sha256:xyz"), "sha256:xyz");
        assert_ne!(session_hash(&once.to_uppercase()), once.to_uppercase());
    }

    #[test]
    fn default_session_is_stable_in_process() {
        let first = default_session(None);
        assert!(is_sha256_label(&first));
        assert_eq!(default_session(None), first);
        assert_eq!(default_session(Some("")), first);
        assert_eq!(default_session(Some("s1")), session_hash("s1"));
    }
}
