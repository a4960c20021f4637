//! Paths as the manifest stores them: never lossy.
//!
//! A UTF-8 path is a plain JSON string (the reference tool's format, so its quarantines stay
//! readable); any other path is `{"bytes": "<base64>"}`. Readers also accept
//! `{"text": "…"}`.

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt as _, OsStringExt as _};
use std::path::{Path, PathBuf};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A path stored in the manifest.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StoredPath(pub PathBuf);

impl StoredPath {
    /// Wraps a path.
    pub fn new(path: impl Into<PathBuf>) -> StoredPath {
        StoredPath(path.into())
    }

    /// The path.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Serialize for StoredPath {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        if let Some(text) = self.0.to_str() {
            serializer.serialize_str(text)
        } else {
            let mut map = serializer.serialize_map(Some(1))?;
            map.serialize_entry("bytes", &STANDARD.encode(self.0.as_os_str().as_bytes()))?;
            map.end()
        }
    }
}

impl<'de> Deserialize<'de> for StoredPath {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Form {
            Plain(String),
            Text { text: String },
            Bytes { bytes: String },
        }
        match Form::deserialize(deserializer)? {
            Form::Plain(text) | Form::Text { text } => Ok(StoredPath(PathBuf::from(text))),
            Form::Bytes { bytes } => {
                let raw = STANDARD.decode(bytes).map_err(D::Error::custom)?;
                Ok(StoredPath(PathBuf::from(OsString::from_vec(raw))))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_is_a_plain_string_and_bytes_round_trip() {
        let plain = StoredPath::new("/ws/a b.txt");
        assert_eq!(serde_json::to_string(&plain).unwrap(), "\"/ws/a b.txt\"");
        let raw = StoredPath(PathBuf::from(OsString::from_vec(b"/ws/\xff\xfe".to_vec())));
        let json = serde_json::to_string(&raw).unwrap();
        assert!(json.starts_with("{\"bytes\":"), "{json}");
        assert_eq!(serde_json::from_str::<StoredPath>(&json).unwrap(), raw);
        let text: StoredPath = serde_json::from_str("{\"text\":\"/x\"}").unwrap();
        assert_eq!(text.path(), Path::new("/x"));
    }
}
