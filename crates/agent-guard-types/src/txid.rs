//! Transaction ids.

use std::fmt;

/// A quarantine transaction id.
///
/// Generated ids have the form `YYYYMMDD-HHMMSS-xxxxxxxx` (UTC time and 8 lowercase hex
/// digits). Ids accepted from users must match `[A-Za-z0-9][A-Za-z0-9_-]*` and be at most 128
/// characters, so an id can never name a path (no dots, no separators).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TxId(String);

/// The reason a string is not a usable transaction id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InvalidTxId;

impl fmt::Display for InvalidTxId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("invalid quarantine transaction id")
    }
}

impl std::error::Error for InvalidTxId {}

impl TxId {
    /// The longest id accepted.
    pub const MAX_LEN: usize = 128;

    /// Validates a user-supplied id.
    pub fn parse(text: &str) -> Result<TxId, InvalidTxId> {
        let mut chars = text.chars();
        let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphanumeric());
        let rest_ok = chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if first_ok && rest_ok && text.len() <= TxId::MAX_LEN {
            Ok(TxId(text.to_owned()))
        } else {
            Err(InvalidTxId)
        }
    }

    /// Builds a generated id from a UTC timestamp (`YYYYMMDD-HHMMSS`) and 32 random bits.
    pub fn generated(stamp: &str, random: u32) -> Result<TxId, InvalidTxId> {
        TxId::parse(&format!("{stamp}-{random:08x}")).and_then(|id| {
            if id.is_generated() {
                Ok(id)
            } else {
                Err(InvalidTxId)
            }
        })
    }

    /// Returns `true` if the id has the generated shape `\d{8}-\d{6}-[0-9a-f]{8}`.
    pub fn is_generated(&self) -> bool {
        is_generated_id(&self.0)
    }

    /// Returns the id text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Returns `true` if `text` has the generated id shape `\d{8}-\d{6}-[0-9a-f]{8}`.
pub fn is_generated_id(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 24
        && bytes[..8].iter().all(u8::is_ascii_digit)
        && bytes[8] == b'-'
        && bytes[9..15].iter().all(u8::is_ascii_digit)
        && bytes[15] == b'-'
        && bytes[16..]
            .iter()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b))
}

impl fmt::Display for TxId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for TxId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_ids_are_refused() {
        for bad in [
            "",
            ".",
            "..",
            "../../outside",
            "/outside",
            "a/b",
            "a\\b",
            "C:outside",
            "a\nb",
            "-x",
            "_x",
        ] {
            assert!(TxId::parse(bad).is_err(), "{bad:?}");
        }
        assert!(TxId::parse(&"a".repeat(129)).is_err());
    }

    #[test]
    fn legacy_and_generated_ids_are_accepted() {
        assert!(TxId::parse("legacy_1").is_ok());
        let id = TxId::generated("20261130-045130", 0xdead_beef).unwrap();
        assert_eq!(id.as_str(), "20261130-045130-deadbeef");
        assert!(id.is_generated());
        assert!(!TxId::parse("legacy_1").unwrap().is_generated());
    }
}
