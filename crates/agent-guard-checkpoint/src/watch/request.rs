//! The watcher's wire format, one request and one reply per connection.
//!
//! - Request: `AGW1 <token> <filter>\n`: the token of the last checkpoint or `-`, and the
//!   checkpoint's [`super::filter_digest`] in hex.
//! - Reply: `AGW1 FULL <token>\n` (walk everything), or `AGW1 SOME <token> <count>\n`
//!   followed by `count` records, each a kind byte (`f`: this path; `t`: this directory and
//!   everything below it), the workspace-relative path and a NUL.

use super::Token;

const MAGIC: &str = "AGW1";

/// What a watcher heard since a token.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Heard {
    /// Paths named by an event (files, links, directories); the empty path (the root)
    /// when what git ignores or tracks may have changed.
    pub paths: Vec<Vec<u8>>,
    /// Directories created or moved in: everything below them is new to the index.
    pub trees: Vec<Vec<u8>>,
}

impl Heard {
    /// Whether nothing was heard.
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty() && self.trees.is_empty()
    }
}

/// A watcher's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Reply {
    /// Walk everything; the checkpoint's token is this.
    Full(Token),
    /// Only these changed since the token asked with; the checkpoint's token is this.
    Some(Token, Heard),
}

pub(super) fn encode_request(token: Option<&Token>, filter: u64) -> Vec<u8> {
    let token = token.map_or_else(|| "-".to_owned(), Token::encode);
    format!("{MAGIC} {token} {filter:016x}\n").into_bytes()
}

/// The token a request asks with (`None`: none) and its filter digest; `None` for a
/// malformed request.
pub(super) fn decode_request(line: &[u8]) -> Option<(Option<Token>, u64)> {
    let line = std::str::from_utf8(line).ok()?.trim_end_matches('\n');
    let (token, filter) = line
        .strip_prefix(MAGIC)?
        .strip_prefix(' ')?
        .split_once(' ')?;
    let filter = u64::from_str_radix(filter, 16).ok()?;
    if token == "-" {
        return Some((None, filter));
    }
    Some((Some(Token::decode(token)?), filter))
}

pub(super) fn encode_reply(reply: &Reply) -> Vec<u8> {
    match reply {
        Reply::Full(token) => format!("{MAGIC} FULL {}\n", token.encode()).into_bytes(),
        Reply::Some(token, heard) => {
            let count = heard.paths.len() + heard.trees.len();
            let mut out = format!("{MAGIC} SOME {} {count}\n", token.encode()).into_bytes();
            for (kind, paths) in [(b'f', &heard.paths), (b't', &heard.trees)] {
                for path in paths {
                    out.push(kind);
                    out.extend_from_slice(path);
                    out.push(0);
                }
            }
            out
        }
    }
}

pub(super) fn decode_reply(bytes: &[u8]) -> Option<Reply> {
    let end = bytes.iter().position(|b| *b == b'\n')?;
    let header = std::str::from_utf8(bytes.get(..end)?).ok()?;
    let mut words = header.split(' ');
    if words.next()? != MAGIC {
        return None;
    }
    let kind = words.next()?;
    let token = Token::decode(words.next()?)?;
    if kind == "FULL" {
        return Some(Reply::Full(token));
    }
    if kind != "SOME" {
        return None;
    }
    let count: usize = words.next()?.parse().ok()?;
    let mut heard = Heard::default();
    let mut records = bytes.get(end + 1..)?.split(|b| *b == 0);
    for _ in 0..count {
        let record = records.next()?;
        let (kind, path) = record.split_first()?;
        match kind {
            b'f' => heard.paths.push(path.to_vec()),
            b't' => heard.trees.push(path.to_vec()),
            _ => return None,
        }
    }
    // Exactly `count` records, the last ended by its NUL: what is left is the empty piece
    // after it.
    if records.next() != Some(&[][..]) || records.next().is_some() {
        return None;
    }
    Some(Reply::Some(token, heard))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_and_requests_read_back_and_a_short_reply_is_refused() {
        let token = Token {
            instance: [1; 16],
            seq: 5,
        };
        assert_eq!(
            decode_request(&encode_request(Some(&token), 7)),
            Some((Some(token), 7))
        );
        assert_eq!(decode_request(&encode_request(None, 0)), Some((None, 0)));
        assert_eq!(decode_request(b"AGW2 - 0\n"), None);
        assert_eq!(decode_request(b"AGW1 -\n"), None);
        let heard = Heard {
            paths: vec![b"a/b\nc".to_vec(), b"d".to_vec()],
            trees: vec![b"new".to_vec()],
        };
        let reply = Reply::Some(token, heard);
        let bytes = encode_reply(&reply);
        assert_eq!(decode_reply(&bytes), Some(reply));
        assert_eq!(decode_reply(&bytes[..bytes.len() - 4]), None);
        let full = Reply::Full(token);
        assert_eq!(decode_reply(&encode_reply(&full)), Some(full));
    }
}
