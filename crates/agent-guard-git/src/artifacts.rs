//! Artifact patterns (`node_modules`, `target`, `*.pyc`…), compiled once: the one matcher
//! behind "regenerable" — the world's fact that the policy receives, and the checkpoint
//! walk, which asks every path of the workspace (glob matching each path against every
//! pattern twice was the largest cost of a checkpoint of an unchanged workspace).

/// One pattern, in the cheapest form that matches exactly what the glob matches.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Compiled {
    /// No glob character: the name or the whole path equals it.
    Literal(Vec<u8>),
    /// `*` then no glob character: the path ends with it (a name ending with it is the end
    /// of the path; `*` matches `/` here, so the whole path matches when it ends with it).
    Suffix(Vec<u8>),
    /// Anything else: the glob itself.
    Glob(Vec<u8>),
}

/// A set of artifact patterns (`node_modules`, `*.pyc`, `gen/*.rs`…), shell globs matched
/// like [`crate::glob_matches`] (`*` also matches `/`) against path components or the whole
/// relative path.
#[derive(Debug, Clone, Default)]
pub struct Artifacts {
    patterns: Vec<Compiled>,
}

fn literal(bytes: &[u8]) -> bool {
    !bytes
        .iter()
        .any(|b| matches!(b, b'*' | b'?' | b'[' | b'\\'))
}

impl Artifacts {
    /// Compiles `patterns`.
    pub fn new(patterns: &[String]) -> Artifacts {
        let patterns = patterns
            .iter()
            .map(|pattern| {
                let bytes = pattern.as_bytes();
                match bytes.split_first() {
                    _ if literal(bytes) => Compiled::Literal(bytes.to_vec()),
                    Some((b'*', rest)) if !rest.is_empty() && literal(rest) => {
                        Compiled::Suffix(rest.to_vec())
                    }
                    _ => Compiled::Glob(bytes.to_vec()),
                }
            })
            .collect();
        Artifacts { patterns }
    }

    /// Whether the last component of `relative`, or `relative` itself, matches a pattern
    /// (a walk that never enters what it leaves out needs no more).
    pub fn matches(&self, relative: &[u8]) -> bool {
        let name = relative.rsplit(|b| *b == b'/').next().unwrap_or(relative);
        self.patterns
            .iter()
            .any(|pattern| pattern.matches(name, relative))
    }

    /// Whether some component of `relative`, or `relative` itself, matches a pattern: a
    /// path inside `node_modules/` is an artifact too.
    pub fn matches_some_component(&self, relative: &[u8]) -> bool {
        relative
            .split(|b| *b == b'/')
            .any(|name| self.patterns.iter().any(|p| p.matches(name, relative)))
    }
}

impl Compiled {
    /// Whether the pattern matches `name` (a component of `relative`) or `relative`.
    fn matches(&self, name: &[u8], relative: &[u8]) -> bool {
        match self {
            Compiled::Literal(text) => name == text.as_slice() || relative == text.as_slice(),
            Compiled::Suffix(tail) => name.ends_with(tail) || relative.ends_with(tail),
            Compiled::Glob(glob) => {
                crate::glob_matches(glob, name) || crate::glob_matches(glob, relative)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The compiled forms agree with the glob on every pattern and path here, spellings that
    /// sit at the edges of each form included.
    #[test]
    fn compiled_patterns_match_what_the_glob_matches() {
        let patterns: Vec<String> = [
            "node_modules",
            "build",
            "*.pyc",
            "*.egg-info",
            "gen/out",
            "*/cache",
            "*",
            "a*b",
            "?uild",
            "[bt]arget",
            "\\*lit",
            "*.",
            "out*",
            "**/tmp",
        ]
        .into_iter()
        .map(str::to_owned)
        .collect();
        let paths: [&[u8]; 22] = [
            b"node_modules",
            b"src/node_modules",
            b"node_modules2",
            b"build",
            b"a/build",
            b"rebuild",
            b"x.pyc",
            b"a/b/x.pyc",
            b"x.pyc/y",
            b"pkg.egg-info",
            b"gen/out",
            b"a/gen/out",
            b"gen/outer",
            b"x/cache",
            b"cache",
            b"ab",
            b"a/xb",
            b"target",
            b"*lit",
            b"file.",
            b"outside/x",
            b"a/tmp",
        ];
        for pattern in &patterns {
            let set = Artifacts::new(std::slice::from_ref(pattern));
            for path in paths {
                let name = path.rsplit(|b| *b == b'/').next().unwrap();
                let glob = crate::glob_matches(pattern.as_bytes(), name)
                    || crate::glob_matches(pattern.as_bytes(), path);
                assert_eq!(
                    set.matches(path),
                    glob,
                    "{pattern} against {}",
                    String::from_utf8_lossy(path)
                );
            }
        }
    }

    #[test]
    fn some_component_or_the_whole_path() {
        let set = Artifacts::new(&["node_modules".into(), "*.pyc".into(), "gen/out".into()]);
        assert!(set.matches_some_component(b"web/node_modules/x/y.js"));
        assert!(
            !set.matches(b"web/node_modules/x/y.js"),
            "last component only"
        );
        assert!(set.matches_some_component(b"pkg/__x/mod.pyc"));
        assert!(set.matches_some_component(b"gen/out"));
        assert!(
            !set.matches_some_component(b"a/gen/out"),
            "a whole-path pattern"
        );
        assert!(!set.matches_some_component(b"src/lib.rs"));
        assert!(!Artifacts::default().matches_some_component(b"node_modules"));
    }
}
