//! Copies of the guard's binary under another name (issue 35, point 3). A copy escapes the
//! rule that refuses a line naming a person-only verb of `agent-guard`: `cp` it to `x` in
//! one line, run `setsid -f script -qc './x approve ID' /dev/null` in the next, and the
//! verb runs detached from the harness. The classifier refuses a line that makes such a
//! copy; this probe finds one that is already there when a line names it.

use std::io::Read as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

/// The files among `words` (relative to `cwd`; `~/…` below `home`) that are the guard's
/// executable `exe` under another name: the same file (a hard or symbolic link to it) or the
/// same bytes. Cheap when there is none: one `stat` of `exe` and one per word; bytes are
/// compared only for a file of exactly the executable's size.
pub fn copies_of_the_guard(
    words: &[String],
    cwd: &Path,
    home: Option<&Path>,
    exe: &Path,
) -> Vec<PathBuf> {
    let Ok(guard) = std::fs::metadata(exe) else {
        return Vec::new();
    };
    words
        .iter()
        .filter_map(|word| {
            let path = match (word.strip_prefix("~/"), home) {
                (Some(rest), Some(home)) => home.join(rest),
                _ => cwd.join(word),
            };
            let found = std::fs::metadata(&path).ok()?;
            let copy = found.is_file()
                && found.len() == guard.len()
                && ((found.dev(), found.ino()) == (guard.dev(), guard.ino())
                    || same_bytes(&path, exe).unwrap_or(true));
            copy.then_some(path)
        })
        .collect()
}

/// Whether the files at `a` and `b` hold the same bytes (an error: they may).
fn same_bytes(a: &Path, b: &Path) -> std::io::Result<bool> {
    let (mut a, mut b) = (std::fs::File::open(a)?, std::fs::File::open(b)?);
    let (mut left, mut right) = (vec![0u8; 64 * 1024], vec![0u8; 64 * 1024]);
    loop {
        let n = read_full(&mut a, &mut left)?;
        let m = read_full(&mut b, &mut right)?;
        if n != m || left[..n] != right[..m] {
            return Ok(false);
        }
        if n == 0 {
            return Ok(true);
        }
    }
}

/// Reads until `buf` is full or the file ends.
fn read_full(file: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read(&mut buf[filled..])? {
            0 => break,
            n => filled += n,
        }
    }
    Ok(filled)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_a_link_and_a_hard_link_are_found_and_other_files_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("agent-guard");
        std::fs::write(&exe, b"\x7fELF the guard").unwrap();
        std::fs::write(dir.path().join("x"), b"\x7fELF the guard").unwrap();
        std::fs::write(dir.path().join("same-size"), b"\x7fELF the gvard").unwrap();
        std::fs::write(dir.path().join("other"), b"other").unwrap();
        std::fs::hard_link(&exe, dir.path().join("hard")).unwrap();
        std::os::unix::fs::symlink(&exe, dir.path().join("soft")).unwrap();
        let words: Vec<String> = ["./x", "same-size", "other", "hard", "soft", "missing", "-v"]
            .map(str::to_owned)
            .to_vec();
        let found = copies_of_the_guard(&words, dir.path(), None, &exe);
        let names: Vec<_> = found
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["x", "hard", "soft"]);
    }
}
