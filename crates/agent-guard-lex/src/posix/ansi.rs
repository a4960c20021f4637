//! Decoding of ANSI-C quoted text (`$'…'`).

use std::iter::Peekable;
use std::str::Chars;

/// Decodes the body of `$'…'` (without the quotes) as bash does. Invalid or incomplete
/// escapes are kept literally. A NUL ends the string, since bash truncates there. Byte values
/// from `\xHH` and octal escapes above 0x7f become the Latin-1 char of that value (a `String`
/// cannot hold the raw byte).
pub(super) fn decode(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        let decoded = match e {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            'a' => Some('\x07'),
            'b' => Some('\x08'),
            'e' | 'E' => Some('\x1b'),
            'f' => Some('\x0c'),
            'v' => Some('\x0b'),
            '\\' | '\'' | '"' | '?' => Some(e),
            'x' => numeric(&mut chars, &mut out, "\\x", 16, 2, true),
            'u' => numeric(&mut chars, &mut out, "\\u", 16, 4, false),
            'U' => numeric(&mut chars, &mut out, "\\U", 16, 8, false),
            '0'..='7' => {
                // `\0nnn` takes up to three more digits, `\nnn` up to three in all.
                let first = e.to_digit(8).unwrap_or(0);
                let more = if e == '0' { 3 } else { 2 };
                let (value, _) = digits(&mut chars, 8, more, first);
                Some(byte_char(value))
            }
            'c' => match chars.next() {
                Some('?') => Some('\x7f'),
                Some(x) if x.is_ascii() => Some(char::from(
                    u8::try_from(x.to_ascii_uppercase()).unwrap_or(0) & 0x1f,
                )),
                Some(x) => {
                    out.push_str("\\c");
                    Some(x)
                }
                None => {
                    out.push_str("\\c");
                    None
                }
            },
            other => {
                out.push('\\');
                Some(other)
            }
        };
        match decoded {
            Some('\0') => break,
            Some(ch) => out.push(ch),
            None => {}
        }
    }
    out
}

/// Reads up to `max` digits of `radix`, continuing from `start`; returns the value and count.
fn digits(chars: &mut Peekable<Chars<'_>>, radix: u32, max: usize, start: u32) -> (u32, usize) {
    let mut value = start;
    let mut count = 0;
    while count < max {
        let Some(d) = chars.peek().and_then(|c| c.to_digit(radix)) else {
            break;
        };
        value = value.saturating_mul(radix).saturating_add(d);
        chars.next();
        count += 1;
    }
    (value, count)
}

/// `\xHH`, `\uHHHH`, `\UHHHHHHHH`: on failure the escape is written literally.
fn numeric(
    chars: &mut Peekable<Chars<'_>>,
    out: &mut String,
    prefix: &str,
    radix: u32,
    max: usize,
    byte: bool,
) -> Option<char> {
    let rest: String = chars
        .clone()
        .take(max)
        .take_while(|c| c.is_digit(radix))
        .collect();
    let (value, count) = digits(chars, radix, max, 0);
    let decoded = if count == 0 {
        None
    } else if byte {
        Some(byte_char(value))
    } else {
        char::from_u32(value)
    };
    if decoded.is_none() {
        out.push_str(prefix);
        out.push_str(&rest);
    }
    decoded
}

/// The char for a byte value (low 8 bits), Latin-1 above 0x7f.
fn byte_char(value: u32) -> char {
    char::from(u8::try_from(value & 0xff).unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::decode;

    #[test]
    fn simple_escapes() {
        assert_eq!(decode(r"a\nb"), "a\nb");
        assert_eq!(decode(r"\t\r\a\b\e\E\f\v"), "\t\r\x07\x08\x1b\x1b\x0c\x0b");
        assert_eq!(decode(r#"\\\'\"\?"#), "\\'\"?");
    }

    #[test]
    fn numeric_escapes() {
        assert_eq!(decode(r"\x41\x4a2"), "AJ2");
        assert_eq!(decode(r"\u00e9\U0001F600"), "é😀");
        assert_eq!(decode(r"\101\0101\12"), "AA\n");
        assert_eq!(decode(r"\cA\c?"), "\x01\x7f");
    }

    #[test]
    fn invalid_escapes_stay_literal() {
        assert_eq!(decode(r"\q\x\xg"), r"\q\x\xg");
        assert_eq!(decode(r"\uD800"), r"\uD800");
        assert_eq!(decode("end\\"), "end\\");
        assert_eq!(decode(r"\c"), r"\c");
    }

    #[test]
    fn nul_truncates() {
        assert_eq!(decode(r"ab\0cd"), "ab");
        assert_eq!(decode(r"ab\x00cd"), "ab");
    }
}
