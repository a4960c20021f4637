//! A small `fnmatch` (shell wildcard) matcher for artifact patterns.

/// Returns `true` if `name` matches `pattern` (`*`, `?`, `[abc]`, `[a-z]`, `[!x]`).
/// Runs in O(pattern × name) with no backtracking blow-up.
pub(crate) fn fnmatch(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        if pi < p.len() {
            match p[pi] {
                '*' => {
                    star = Some((pi, ni));
                    pi += 1;
                    continue;
                }
                '?' => {
                    pi += 1;
                    ni += 1;
                    continue;
                }
                '[' => {
                    if let Some((matched, next)) = class(&p, pi, n[ni]) {
                        if matched {
                            pi = next;
                            ni += 1;
                            continue;
                        }
                    } else if n[ni] == '[' {
                        pi += 1;
                        ni += 1;
                        continue;
                    }
                }
                c if c == n[ni] => {
                    pi += 1;
                    ni += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some((sp, sn)) => {
                pi = sp + 1;
                ni = sn + 1;
                star = Some((sp, sn + 1));
            }
            None => return false,
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// Matches a bracket class at `start`; returns (matched, index after `]`), or `None` if the
/// class is not closed (then `[` is literal).
fn class(p: &[char], start: usize, c: char) -> Option<(bool, usize)> {
    let mut i = start + 1;
    let negate = matches!(p.get(i), Some('!' | '^'));
    if negate {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    while i < p.len() {
        if p[i] == ']' && !first {
            return Some((matched != negate, i + 1));
        }
        first = false;
        if i + 2 < p.len() && p[i + 1] == '-' && p[i + 2] != ']' {
            if p[i] <= c && c <= p[i + 2] {
                matched = true;
            }
            i += 3;
        } else {
            if p[i] == c {
                matched = true;
            }
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::fnmatch;

    #[test]
    fn wildcard_matching() {
        assert!(fnmatch("node_modules", "node_modules"));
        assert!(fnmatch("*.pyc", "mod.pyc"));
        assert!(!fnmatch("*.pyc", "mod.py"));
        assert!(fnmatch("*.egg-info", "pkg.egg-info"));
        assert!(fnmatch("b?ild", "build"));
        assert!(fnmatch("[bd]ist", "dist"));
        assert!(!fnmatch("[!d]ist", "dist"));
        assert!(fnmatch("a*b*c", "axxbyyc"));
        assert!(!fnmatch("a*b*c", "axxbyy"));
        assert!(fnmatch("[", "["));
        assert!(fnmatch(&"*a".repeat(20), &"a".repeat(40)));
    }
}
