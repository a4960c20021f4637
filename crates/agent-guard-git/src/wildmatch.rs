//! Git's `wildmatch`, for the artifact globs, on `gix-glob` (issue 36: it was a port of
//! `wildmatch.c`). Ignore rules are matched by `gix-ignore`, in `ignore.rs`.

use bstr::ByteSlice as _;
use gix_glob::wildmatch::Mode;

/// Returns `true` if `text` matches the glob `pattern`; with `pathname` (git's
/// `WM_PATHNAME`), `*`, `?` and `[…]` do not match `/`.
pub(crate) fn wildmatch(pattern: &[u8], text: &[u8], pathname: bool) -> bool {
    let mode = if pathname {
        Mode::NO_MATCH_SLASH_LITERAL
    } else {
        Mode::empty()
    };
    gix_glob::wildmatch(pattern.as_bstr(), text.as_bstr(), mode)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_wildmatch_cases() {
        // (pattern, text, with WM_PATHNAME, without) — a selection of git's t3070 cases,
        // checked against `git ls-files` with and without `:(glob)` (`[` and `a[` list there
        // only because a pathspec also matches its own literal text).
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
            // Without WM_PATHNAME `**` is two `*`: the `/` must be there (`git ls-files --
            // '**/foo'` does not list `foo`; the hand port this replaced said it matched).
            ("**/foo", "foo", true, false),
            ("a/**/b", "a/b", true, false),
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
