//! Git's `wildmatch`, ported from `wildmatch.c`: the pathspec and artifact globs (ignore
//! rules are matched by `gix-ignore`, in `ignore.rs`).

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Match,
    NoMatch,
    AbortAll,
    AbortToStarStar,
}

/// Returns `true` if `text` matches the glob `pattern`.
pub(crate) fn wildmatch(pattern: &[u8], text: &[u8], pathname: bool) -> bool {
    dowild(pattern, text, pathname) == Outcome::Match
}

fn at(bytes: &[u8], index: usize) -> u8 {
    bytes.get(index).copied().unwrap_or(0)
}

fn dowild(pattern: &[u8], text: &[u8], pathname: bool) -> Outcome {
    let (mut p, mut t) = (0usize, 0usize);
    while p < pattern.len() {
        let mut p_ch = pattern[p];
        let t_ch = at(text, t);
        if t_ch == 0 && p_ch != b'*' {
            return Outcome::AbortAll;
        }
        match p_ch {
            b'?' => {
                if pathname && t_ch == b'/' {
                    return Outcome::NoMatch;
                }
            }
            b'*' => return star(pattern, p, text, t, pathname),
            b'[' => match class_matches(pattern, &mut p, t_ch) {
                Err(outcome) => return outcome,
                Ok(false) => return Outcome::NoMatch,
                Ok(true) if pathname && t_ch == b'/' => return Outcome::NoMatch,
                Ok(true) => {}
            },
            _ => {
                if p_ch == b'\\' {
                    p += 1;
                    p_ch = at(pattern, p);
                }
                if t_ch != p_ch {
                    return Outcome::NoMatch;
                }
            }
        }
        p += 1;
        t += 1;
    }
    if t < text.len() {
        Outcome::NoMatch
    } else {
        Outcome::Match
    }
}

/// The `*` / `**` case of `dowild`, with `pattern[p] == b'*'`.
fn star(pattern: &[u8], mut p: usize, text: &[u8], mut t: usize, pathname: bool) -> Outcome {
    let match_slash;
    p += 1;
    if at(pattern, p) == b'*' {
        let prev_is_boundary = p < 2 || pattern[p - 2] == b'/';
        while at(pattern, p) == b'*' {
            p += 1;
        }
        let next = at(pattern, p);
        if prev_is_boundary
            && (next == 0 || next == b'/' || (next == b'\\' && at(pattern, p + 1) == b'/'))
        {
            if next == b'/' && dowild(&pattern[p + 1..], &text[t..], pathname) == Outcome::Match {
                return Outcome::Match;
            }
            match_slash = true;
        } else {
            match_slash = !pathname;
        }
    } else {
        match_slash = !pathname;
    }
    if p >= pattern.len() {
        // A trailing `**` matches everything, a trailing `*` only within one component.
        if !match_slash && text[t..].contains(&b'/') {
            return Outcome::NoMatch;
        }
        return Outcome::Match;
    }
    if !match_slash && pattern[p] == b'/' {
        // One `*` followed by `/` matches up to the next slash.
        let Some(slash) = text[t..].iter().position(|b| *b == b'/') else {
            return Outcome::NoMatch;
        };
        t += slash;
        return dowild(&pattern[p..], &text[t..], pathname);
    }
    loop {
        let t_ch = at(text, t);
        if t_ch == 0 {
            break;
        }
        let matched = dowild(&pattern[p..], &text[t..], pathname);
        if matched != Outcome::NoMatch {
            if !match_slash || matched != Outcome::AbortToStarStar {
                return matched;
            }
        } else if !match_slash && t_ch == b'/' {
            return Outcome::AbortToStarStar;
        }
        t += 1;
    }
    Outcome::AbortAll
}

/// Matches `t_ch` against the bracket expression starting at `pattern[*p] == b'['`;
/// leaves `*p` on its closing `]`. `Err` is a malformed expression (`AbortAll`).
fn class_matches(pattern: &[u8], p: &mut usize, t_ch: u8) -> Result<bool, Outcome> {
    *p += 1;
    let mut p_ch = at(pattern, *p);
    if p_ch == b'^' {
        p_ch = b'!';
    }
    let negated = p_ch == b'!';
    if negated {
        *p += 1;
        p_ch = at(pattern, *p);
    }
    let mut prev_ch = 0u8;
    let mut matched = false;
    loop {
        if p_ch == 0 {
            return Err(Outcome::AbortAll);
        }
        if p_ch == b'\\' {
            *p += 1;
            p_ch = at(pattern, *p);
            if p_ch == 0 {
                return Err(Outcome::AbortAll);
            }
            if t_ch == p_ch {
                matched = true;
            }
        } else if p_ch == b'-'
            && prev_ch != 0
            && at(pattern, *p + 1) != 0
            && at(pattern, *p + 1) != b']'
        {
            *p += 1;
            p_ch = at(pattern, *p);
            if p_ch == b'\\' {
                *p += 1;
                p_ch = at(pattern, *p);
                if p_ch == 0 {
                    return Err(Outcome::AbortAll);
                }
            }
            if t_ch <= p_ch && t_ch >= prev_ch {
                matched = true;
            }
            p_ch = 0;
        } else if p_ch == b'[' && at(pattern, *p + 1) == b':' {
            let start = *p + 2;
            let mut end = start;
            while at(pattern, end) != 0 && at(pattern, end) != b']' {
                end += 1;
            }
            if at(pattern, end) == 0 {
                return Err(Outcome::AbortAll);
            }
            if end == start || pattern[end - 1] != b':' {
                // No `:]`: a literal `[`.
                *p = start - 2;
                p_ch = b'[';
                if t_ch == p_ch {
                    matched = true;
                }
            } else {
                *p = end;
                if character_class(&pattern[start..end - 1], t_ch)? {
                    matched = true;
                }
                p_ch = 0;
            }
        } else if t_ch == p_ch {
            matched = true;
        }
        prev_ch = p_ch;
        *p += 1;
        p_ch = at(pattern, *p);
        if p_ch == b']' {
            break;
        }
    }
    Ok(matched != negated)
}

/// `[:name:]` classes, ASCII only (git's own ctype).
fn character_class(name: &[u8], c: u8) -> Result<bool, Outcome> {
    Ok(match name {
        b"alnum" => c.is_ascii_alphanumeric(),
        b"alpha" => c.is_ascii_alphabetic(),
        b"blank" => c == b' ' || c == b'\t',
        b"cntrl" => c.is_ascii_control(),
        b"digit" => c.is_ascii_digit(),
        b"graph" => c.is_ascii_graphic(),
        b"lower" => c.is_ascii_lowercase(),
        b"print" => (0x20..=0x7e).contains(&c),
        b"punct" => c.is_ascii_punctuation(),
        b"space" => matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c),
        b"upper" => c.is_ascii_uppercase(),
        b"xdigit" => c.is_ascii_hexdigit(),
        _ => return Err(Outcome::AbortAll),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_wildmatch_cases() {
        // (pattern, text, with WM_PATHNAME, without) — a selection of git's t3070 cases.
        let cases: &[(&str, &str, bool, bool)] = &[
            ("foo", "foo", true, true),
            ("bar", "foo", false, false),
            ("???", "foo", true, true),
            ("*f", "foo", false, false),
            ("*", "foo", true, true),
            ("f*", "foo", true, true),
            ("*o", "foo", true, true),
            ("\\*", "*", true, true),
            ("[ab]", "a", true, true),
            ("[!ab]", "a", false, false),
            ("[^ab]", "c", true, true),
            ("[a-c]x", "bx", true, true),
            ("foo/*", "foo/bar/baz", false, true),
            ("foo/**", "foo/bar/baz", true, true),
            ("**/foo", "a/b/foo", true, true),
            ("**/foo", "foo", true, true),
            ("a/**/b", "a/b", true, true),
            ("a/**/b", "a/x/y/b", true, true),
            ("a/*/b", "a/x/y/b", false, true),
            ("*.log", "x.log", true, true),
            ("*.log", "dir/x.log", false, true),
            ("[[:digit:]]*", "1a", true, true),
            ("[[:alpha:]]", "1", false, false),
            ("[a-]", "-", true, true),
            ("[]]", "]", true, true),
            ("a?c", "a/c", false, true),
            ("**", "a/b", true, true),
            ("*/b", "a/b", true, true),
            ("[", "[", false, false),
            ("a[", "a[", false, false),
        ];
        for (pattern, text, with, without) in cases {
            assert_eq!(
                wildmatch(pattern.as_bytes(), text.as_bytes(), true),
                *with,
                "{pattern} ~ {text} (pathname)"
            );
            assert_eq!(
                wildmatch(pattern.as_bytes(), text.as_bytes(), false),
                *without,
                "{pattern} ~ {text}"
            );
        }
    }
}
