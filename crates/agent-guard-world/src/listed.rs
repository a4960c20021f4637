//! The paths a patch or an archive names (issue 35): what `patch`, `git apply`, `git am`,
//! `tar x` and `unzip` will write, read before they run. A patch is read as text; an
//! archive is listed by the system's own `tar -tf` or `unzip -Z1` (from the system's
//! directories only, never one `PATH` could put in the workspace).

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use agent_guard_types::{ListFormat, ListedWrites};

/// The largest patch read; a larger one is not listed (the program stays a checkpointed
/// program the guard does not see into).
const MAX_PATCH: u64 = 64 << 20;

/// The most names an archive listing keeps.
const MAX_MEMBERS: usize = 200_000;

/// The paths `listed` names, as written in it; `None` when it cannot be read or listed.
pub(crate) fn paths(listed: &ListedWrites, base: &Path) -> Option<Vec<String>> {
    if let Some(text) = &listed.inline {
        return Some(patch_paths(text));
    }
    if listed.list.opaque.is_some() {
        return None;
    }
    let file = base.join(&listed.list.text);
    match listed.format {
        ListFormat::Patch => {
            let mut text = Vec::new();
            std::fs::File::open(&file)
                .ok()?
                .take(MAX_PATCH + 1)
                .read_to_end(&mut text)
                .ok()?;
            (text.len() as u64 <= MAX_PATCH).then(|| patch_paths(&String::from_utf8_lossy(&text)))
        }
        ListFormat::Archive => archive_members(&file),
    }
}

/// The file names a unified, context or git diff (or a mailbox of them) names: every
/// header that names a file, `/dev/null` left out, quotes and a trailing timestamp removed.
pub(crate) fn patch_paths(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in text.lines() {
        let line = line.trim_end_matches('\r');
        if let Some(rest) = line.strip_prefix("diff --git ") {
            // `a/X b/Y`: names may hold spaces, so keep both readings of the split.
            if let Some((left, right)) = rest.split_once(" b/") {
                found.push(unquote(left));
                found.push(format!("b/{}", unquote(right)));
            }
            found.push(unquote(rest));
            continue;
        }
        let name = [
            "--- ",
            "+++ ",
            "*** ",
            "Index: ",
            "rename to ",
            "rename from ",
            "copy to ",
        ]
        .iter()
        .find_map(|header| line.strip_prefix(header));
        if let Some(name) = name {
            let name = name.split('\t').next().unwrap_or(name).trim();
            if !name.is_empty() && name != "/dev/null" {
                found.push(unquote(name));
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

/// A name without the double quotes git puts around one with special characters (its
/// escapes are kept: such a name only widens what is compared).
fn unquote(name: &str) -> String {
    name.strip_prefix('"')
        .and_then(|n| n.strip_suffix('"'))
        .unwrap_or(name)
        .to_owned()
}

/// The members of the archive at `file`, listed by the system's `tar` (any compression it
/// reads) or, for a zip, `unzip`.
fn archive_members(file: &Path) -> Option<Vec<String>> {
    let zip = std::fs::File::open(file).ok().and_then(|mut f| {
        let mut magic = [0u8; 2];
        f.read_exact(&mut magic).ok().map(|()| &magic == b"PK")
    })?;
    let (tool, args): (&str, &[&str]) = if zip {
        ("unzip", &["-Z1"])
    } else {
        ("tar", &["-tf"])
    };
    let program = system_tool(tool)?;
    let output = Command::new(program)
        .args(args)
        .arg(file)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let members: Vec<String> = text
        .lines()
        .take(MAX_MEMBERS + 1)
        .map(str::to_owned)
        .collect();
    (members.len() <= MAX_MEMBERS).then_some(members)
}

/// `tool` in the system's directories.
fn system_tool(tool: &str) -> Option<PathBuf> {
    ["/usr/bin", "/bin", "/usr/local/bin"]
        .iter()
        .map(|dir| Path::new(dir).join(tool))
        .find(|path| path.is_file())
}

#[cfg(test)]
mod tests {
    use super::patch_paths;

    #[test]
    fn every_header_that_names_a_file_is_read() {
        let text = "From 1 Mon\nSubject: x\n---\ndiff --git a/.claude/settings.json b/.claude/settings.json\n\
            diff --git a/src/a.rs b/src/a.rs\n--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1 +1 @@\n-x\n+y\n\
            --- old/notes.txt\t2026-01-01 00:00:00\n+++ /dev/null\n\
            rename from x\nrename to .codex/hooks.json\n*** ctx/file.c\n";
        let paths = patch_paths(text);
        for expected in [
            "a/src/a.rs",
            "b/src/a.rs",
            "old/notes.txt",
            "x",
            ".codex/hooks.json",
            "ctx/file.c",
        ] {
            assert!(
                paths.contains(&expected.to_owned()),
                "{expected}: {paths:?}"
            );
        }
        assert!(!paths.contains(&"/dev/null".to_owned()));
    }
}
