//! Decoding of ANSI-C quoted text (`$'…'`).
//!
//! Bash turns the escapes into bytes, not characters: `$'r\xc3\xa9sum\xc3\xa9.txt'` names
//! `résumé.txt`, and `$'\xff'` names a file whose name is the single byte 0xff. The decoder
//! therefore works on bytes and only then asks whether they are UTF-8. Every rule below was
//! checked against bash 5.2 in a UTF-8 locale.

/// Decodes the body of `$'…'` (without the quotes) into the bytes bash produces.
///
/// - `\a \b \e \E \f \n \r \t \v \\ \' \" \?` are the usual bytes.
/// - `\NNN`: one to three octal digits, the value's low 8 bits (`\0101` is `\010` then `1`).
/// - `\xHH`: one or two hex digits; `\x{H…}` takes any number of digits up to a `}`; the low
///   8 bits count.
/// - `\uHHHH` (one to four digits) and `\UHHHHHHHH` (one to eight) encode the code point as
///   UTF-8, the way bash does in a UTF-8 locale, surrogates and values above U+10FFFF
///   included (those bytes are not valid UTF-8); values from 0x80000000 up produce nothing.
/// - `\cX`: the control character `X & 0x1f` of the upper-cased byte (`\c?` is DEL, and
///   `\c\\` consumes both backslashes).
/// - An escape with no valid digits, or an unknown one, stays as written (`\q`, `\x`, `\c`).
/// - A NUL ends the string, since bash truncates there.
pub(super) fn decode(raw: &str) -> Vec<u8> {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        i += 1;
        if b != b'\\' {
            out.push(b);
            continue;
        }
        let Some(&e) = bytes.get(i) else {
            out.push(b'\\');
            break;
        };
        i += 1;
        let simple = match e {
            b'a' => Some(0x07),
            b'b' => Some(0x08),
            b'e' | b'E' => Some(0x1b),
            b'f' => Some(0x0c),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            b'v' => Some(0x0b),
            b'\\' | b'\'' | b'"' | b'?' => Some(e),
            _ => None,
        };
        let decoded: Decoded = if let Some(byte) = simple {
            Decoded::Byte(byte)
        } else {
            match e {
                b'0'..=b'7' => {
                    let (value, used) = digits(&bytes[i..], 8, 2, u32::from(e - b'0'));
                    i += used;
                    Decoded::Byte(low_byte(value))
                }
                b'x' if bytes.get(i) == Some(&b'{') => {
                    let (value, used) = digits(&bytes[i + 1..], 16, usize::MAX, 0);
                    i += 1 + used;
                    if bytes.get(i) == Some(&b'}') {
                        i += 1;
                    }
                    Decoded::Byte(low_byte(value))
                }
                b'x' | b'u' | b'U' => {
                    let max = match e {
                        b'x' => 2,
                        b'u' => 4,
                        _ => 8,
                    };
                    let (value, used) = digits(&bytes[i..], 16, max, 0);
                    i += used;
                    match (used, e) {
                        (0, _) => Decoded::Literal(e),
                        (_, b'x') => Decoded::Byte(low_byte(value)),
                        _ => Decoded::CodePoint(value),
                    }
                }
                b'c' => match bytes.get(i) {
                    None => Decoded::Literal(e),
                    Some(&c) => {
                        i += 1;
                        if c == b'\\' && bytes.get(i) == Some(&b'\\') {
                            i += 1;
                        }
                        Decoded::Byte(if c == b'?' {
                            0x7f
                        } else {
                            c.to_ascii_uppercase() & 0x1f
                        })
                    }
                },
                _ => Decoded::Literal(e),
            }
        };
        match decoded {
            Decoded::Byte(0) | Decoded::CodePoint(0) => break,
            Decoded::Byte(byte) => out.push(byte),
            Decoded::CodePoint(value) => encode(value, &mut out),
            Decoded::Literal(letter) => {
                out.push(b'\\');
                out.push(letter);
            }
        }
    }
    out
}

/// One decoded escape.
enum Decoded {
    /// A byte value.
    Byte(u8),
    /// A `\u`/`\U` code point.
    CodePoint(u32),
    /// Not an escape: the backslash and this byte stay as written.
    Literal(u8),
}

/// Reads up to `max` digits of `radix` from the start of `bytes`, continuing from `start`;
/// returns the value and how many bytes were read.
fn digits(bytes: &[u8], radix: u32, max: usize, start: u32) -> (u32, usize) {
    let mut value = start;
    let mut count = 0;
    while count < max {
        let Some(d) = bytes
            .get(count)
            .and_then(|&b| char::from(b).to_digit(radix))
        else {
            break;
        };
        value = value.saturating_mul(radix).saturating_add(d);
        count += 1;
    }
    (value, count)
}

/// The low 8 bits of a value.
fn low_byte(value: u32) -> u8 {
    u8::try_from(value & 0xff).unwrap_or(0)
}

/// Encodes `value` the way bash's UTF-8 conversion does: the classic UTF-8 scheme of up to
/// six bytes, with no check for surrogates or the U+10FFFF limit; nothing from 0x80000000.
fn encode(value: u32, out: &mut Vec<u8>) {
    let byte = |v: u32| u8::try_from(v & 0xff).unwrap_or(0);
    let continuation = |shift: u32| byte(0x80 | ((value >> shift) & 0x3f));
    let (lead, tail) = match value {
        0..=0x7f => {
            out.push(byte(value));
            return;
        }
        0x80..=0x7ff => (0xc0 | (value >> 6), 1),
        0x800..=0xffff => (0xe0 | (value >> 12), 2),
        0x1_0000..=0x1f_ffff => (0xf0 | (value >> 18), 3),
        0x20_0000..=0x3ff_ffff => (0xf8 | (value >> 24), 4),
        0x400_0000..=0x7fff_ffff => (0xfc | (value >> 30), 5),
        _ => return,
    };
    out.push(byte(lead));
    for k in (0..tail).rev() {
        out.push(continuation(6 * k));
    }
}

#[cfg(test)]
mod tests {
    use super::decode;

    fn text(raw: &str) -> String {
        String::from_utf8(decode(raw)).expect("valid UTF-8")
    }

    #[test]
    fn simple_escapes() {
        assert_eq!(text(r"a\nb"), "a\nb");
        assert_eq!(text(r"\t\r\a\b\e\E\f\v"), "\t\r\x07\x08\x1b\x1b\x0c\x0b");
        assert_eq!(text(r#"\\\'\"\?"#), "\\'\"?");
    }

    #[test]
    fn byte_escapes_are_bytes() {
        assert_eq!(text(r"r\xc3\xa9sum\xc3\xa9.txt"), "résumé.txt");
        assert_eq!(text(r"\303\251t\303\251"), "été");
        assert_eq!(decode(r"\xff"), [0xff]);
        assert_eq!(decode(r"\377"), [0xff]);
        assert_eq!(decode(r"\777"), [0xff]);
        assert_eq!(decode(r"\x{c3}\x{a9}"), [0xc3, 0xa9]);
        assert_eq!(decode(r"\x{4142}"), [0x42]);
        assert_eq!(text(r"\x41\x4a2"), "AJ2");
        assert_eq!(text(r"\x414"), "A4");
    }

    #[test]
    fn octal_takes_at_most_three_digits() {
        assert_eq!(text(r"\101"), "A");
        assert_eq!(text(r"\0101"), "\x081");
        assert_eq!(text(r"\12"), "\n");
        assert_eq!(text(r"\18"), "\x018");
    }

    #[test]
    fn unicode_escapes_are_utf8() {
        assert_eq!(text(r"\u00e9\U0001F600"), "é😀");
        assert_eq!(text(r"\u12345"), "\u{1234}5");
        assert_eq!(text(r"\u7f\u80"), "\x7f\u{80}");
        // Surrogates and values past U+10FFFF are bytes, but not UTF-8.
        assert_eq!(decode(r"\uD800"), [0xed, 0xa0, 0x80]);
        assert_eq!(decode(r"\U110000"), [0xf4, 0x90, 0x80, 0x80]);
        assert_eq!(decode(r"\U7fffffff"), [0xfd, 0xbf, 0xbf, 0xbf, 0xbf, 0xbf]);
        assert_eq!(decode(r"a\UFFFFFFFFb"), b"ab");
    }

    #[test]
    fn control_escapes() {
        assert_eq!(text(r"\cA\ca\c?\c["), "\x01\x01\x7f\x1b");
        assert_eq!(text(r"a\c\\b"), "a\x1cb");
        assert_eq!(text(r"\c\x"), "\x1cx");
        assert_eq!(decode("\\c\u{e9}"), [0x03, 0xa9]);
    }

    #[test]
    fn invalid_escapes_stay_literal() {
        assert_eq!(text(r"\q\x\xg"), r"\q\x\xg");
        assert_eq!(text(r"\u{41}"), r"\u{41}");
        assert_eq!(text("end\\"), "end\\");
        assert_eq!(text(r"\c"), r"\c");
    }

    #[test]
    fn nul_truncates() {
        assert_eq!(text(r"ab\0cd"), "ab");
        assert_eq!(text(r"ab\x00cd"), "ab");
        assert_eq!(text(r"ab\u0000cd"), "ab");
        assert_eq!(text(r"ab\400cd"), "ab");
        assert_eq!(text(r"a\c b"), "a");
        assert_eq!(text(r"a\x{}b"), "a");
    }
}
