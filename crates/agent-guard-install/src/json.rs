//! An order-preserving JSON document.
//!
//! `serde_json::Value` sorts object keys unless the workspace-wide `preserve_order` feature
//! is on, and switching that on would change every other crate's output. Harness settings
//! files are edited by people, so their key order must survive an install: this small tree
//! keeps objects as ordered lists and is parsed and printed through `serde_json`.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

/// A JSON value whose objects keep their key order (and duplicate keys, if any).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    /// Parses a document.
    pub(crate) fn parse(text: &str) -> Result<Json, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// Prints the document pretty, with `indent` per level and a final newline.
    pub(crate) fn render(&self, indent: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let formatter = serde_json::ser::PrettyFormatter::with_indent(indent);
        let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
        // Serializing an in-memory tree into a Vec cannot fail: every key is a string.
        if self.serialize(&mut serializer).is_err() {
            out.clear();
        }
        out.push(b'\n');
        out
    }

    /// Returns the string value, if this is a string.
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(text) => Some(text),
            _ => None,
        }
    }

    /// Returns the value of `key`, if this is an object that has it.
    pub(crate) fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Returns the value of `key` mutably, if this is an object that has it.
    pub(crate) fn get_mut(&mut self, key: &str) -> Option<&mut Json> {
        match self {
            Json::Object(entries) => entries.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Sets `key` in an object: in place when present, appended otherwise. No-op on
    /// non-objects.
    pub(crate) fn set(&mut self, key: &str, value: Json) {
        if let Json::Object(entries) = self {
            match entries.iter_mut().find(|(k, _)| k == key) {
                Some((_, slot)) => *slot = value,
                None => entries.push((key.to_owned(), value)),
            }
        }
    }

    /// Removes `key` from an object.
    pub(crate) fn remove(&mut self, key: &str) {
        if let Json::Object(entries) = self {
            entries.retain(|(k, _)| k != key);
        }
    }

    /// Whether this is an empty object or array.
    pub(crate) fn is_empty_container(&self) -> bool {
        match self {
            Json::Object(entries) => entries.is_empty(),
            Json::Array(items) => items.is_empty(),
            _ => false,
        }
    }

    /// Builds an object from `(key, value)` pairs.
    pub(crate) fn object<const N: usize>(entries: [(&str, Json); N]) -> Json {
        Json::Object(
            entries
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v))
                .collect(),
        )
    }

    /// A string value.
    pub(crate) fn str(text: &str) -> Json {
        Json::String(text.to_owned())
    }

    /// An unsigned integer value.
    pub(crate) fn uint(value: u64) -> Json {
        Json::Number(value.into())
    }
}

/// Guesses the indentation of a JSON text from its first indented line (two spaces if none).
pub(crate) fn detect_indent(text: &str) -> Vec<u8> {
    text.lines()
        .skip(1)
        .map(|line| {
            line.bytes()
                .take_while(|b| *b == b' ' || *b == b'\t')
                .collect::<Vec<u8>>()
        })
        .find(|indent| !indent.is_empty())
        .unwrap_or_else(|| b"  ".to_vec())
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => serializer.serialize_unit(),
            Json::Bool(value) => serializer.serialize_bool(*value),
            Json::Number(number) => number.serialize(serializer),
            Json::String(text) => serializer.serialize_str(text),
            Json::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Object(entries) => {
                let mut map = serializer.serialize_map(Some(entries.len()))?;
                for (key, value) in entries {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Json, D::Error> {
        deserializer.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<Json, E> {
        Ok(Json::Bool(value))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Json, E> {
        Ok(Json::Number(value.into()))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Json, E> {
        Ok(Json::Number(value.into()))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Json, E> {
        serde_json::Number::from_f64(value)
            .map(Json::Number)
            .ok_or_else(|| E::custom("a JSON number must be finite"))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Json, E> {
        Ok(Json::String(value.to_owned()))
    }

    fn visit_string<E: de::Error>(self, value: String) -> Result<Json, E> {
        Ok(Json::String(value))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut entries = Vec::new();
        while let Some((key, value)) = map.next_entry::<String, Json>()? {
            entries.push((key, value));
        }
        Ok(Json::Object(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_order_survives_a_round_trip() {
        let text = "{\n  \"zeta\": 1,\n  \"alpha\": {\"b\": [true, null, 2.5], \"a\": \"x\"}\n}\n";
        let doc = Json::parse(text).unwrap();
        let out = String::from_utf8(doc.render(b"  ")).unwrap();
        assert_eq!(
            out,
            "{\n  \"zeta\": 1,\n  \"alpha\": {\n    \"b\": [\n      true,\n      null,\n      2.5\n    ],\n    \"a\": \"x\"\n  }\n}\n"
        );
    }

    #[test]
    fn indentation_is_detected() {
        assert_eq!(detect_indent("{\n    \"a\": 1\n}"), b"    ");
        assert_eq!(detect_indent("{\n\t\"a\": 1\n}"), b"\t");
        assert_eq!(detect_indent("{}"), b"  ");
    }

    #[test]
    fn set_updates_in_place_and_appends() {
        let mut doc = Json::object([("a", Json::uint(1)), ("b", Json::uint(2))]);
        doc.set("a", Json::uint(3));
        doc.set("c", Json::uint(4));
        doc.remove("b");
        assert_eq!(
            doc,
            Json::object([("a", Json::uint(3)), ("c", Json::uint(4))])
        );
    }
}
