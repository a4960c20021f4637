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
    // In a file the patch makes a symbolic link (`new file mode 120000`), the added line is
    // where the link points: `cl -> .claude` then `cl/settings.json` writes a hook file.
    let mut link_at: Option<String> = None;
    let mut last_name = String::new();
    for line in text.lines() {
        let line = line.trim_end_matches('\r');
        if line.starts_with("new file mode 120000") || line.starts_with("new mode 120000") {
            link_at = Some(last_name.clone());
            continue;
        }
        if let (Some(at), Some(target)) = (&link_at, line.strip_prefix('+'))
            && !line.starts_with("+++")
        {
            found.push(target.to_owned());
            let parent = at.rsplit_once('/').map_or("", |(parent, _)| parent);
            if !parent.is_empty() {
                found.push(format!("{parent}/{target}"));
            }
            continue;
        }
        if line.starts_with("diff ") {
            link_at = None;
        }
        if let Some(rest) = line.strip_prefix("diff --git ") {
            // `a/X b/Y`: names may hold spaces, so keep both readings of the split.
            if let Some((left, right)) = rest.split_once(" b/") {
                found.push(unquote(left));
                found.push(format!("b/{}", unquote(right)));
                last_name = format!("b/{}", unquote(right));
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
                last_name = unquote(name);
                found.push(last_name.clone());
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

/// A name as git writes it: in double quotes with C escapes (`\\t`, `\\"`, octal bytes such
/// as `\\141`) when it has special characters; plain otherwise.
fn unquote(name: &str) -> String {
    let Some(inner) = name.strip_prefix('"').and_then(|n| n.strip_suffix('"')) else {
        return name.to_owned();
    };
    let mut bytes = Vec::with_capacity(inner.len());
    let mut rest = inner.bytes().peekable();
    while let Some(byte) = rest.next() {
        if byte != b'\\' {
            bytes.push(byte);
            continue;
        }
        match rest.next() {
            Some(digit @ b'0'..=b'7') => {
                let mut value = u32::from(digit - b'0');
                for _ in 0..2 {
                    if let Some(next) = rest.next_if(|b| (b'0'..=b'7').contains(b)) {
                        value = value * 8 + u32::from(next - b'0');
                    }
                }
                bytes.push(u8::try_from(value & 0xff).unwrap_or(0));
            }
            Some(b'n') => bytes.push(b'\n'),
            Some(b't') => bytes.push(b'\t'),
            Some(b'r') => bytes.push(b'\r'),
            Some(b'a') => bytes.push(7),
            Some(b'b') => bytes.push(8),
            Some(b'f') => bytes.push(12),
            Some(b'v') => bytes.push(11),
            Some(other) => bytes.push(other),
            None => {}
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
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
    let output = Command::new(&program)
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
    let mut members: Vec<String> = text
        .lines()
        .take(MAX_MEMBERS + 1)
        .map(str::to_owned)
        .collect();
    if members.len() > MAX_MEMBERS {
        return None;
    }
    if !zip {
        members.extend(link_targets(&program, file)?);
    }
    Some(members)
}

/// Where the archive's symbolic and hard links point (`cl -> .claude` makes the next member
/// `cl/settings.json` a hook file), as paths from the archive's root: `tar -tvf` shows
/// them after ` -> ` or ` link to `.
fn link_targets(tar: &Path, file: &Path) -> Option<Vec<String>> {
    let output = Command::new(tar)
        .arg("-tvf")
        .arg(file)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    let mut found = Vec::new();
    for line in text.lines().filter(|l| l.starts_with(['l', 'h'])) {
        let Some((member, target)) = line
            .split_once(" -> ")
            .or_else(|| line.split_once(" link to "))
        else {
            continue;
        };
        let member = member.rsplit(' ').next().unwrap_or(member);
        found.push(target.to_owned());
        if let Some((parent, _)) = member.rsplit_once('/') {
            found.push(format!("{parent}/{target}"));
        }
    }
    Some(found)
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

    #[test]
    fn quoted_names_and_links_a_patch_makes_are_read() {
        let quoted = "diff --git \"a/.cl\\141ude/settings.json\" \"b/.cl\\141ude/settings.json\"\n\
            --- \"a/.cl\\141ude/settings.json\"\n+++ \"b/.cl\\141ude/settings.json\"\n";
        let paths = patch_paths(quoted);
        assert!(
            paths.contains(&"b/.claude/settings.json".to_owned()),
            "{paths:?}"
        );
        let link = "diff --git a/cl b/cl\nnew file mode 120000\nindex 0000000..1111111\n\
            --- /dev/null\n+++ b/cl\n@@ -0,0 +1 @@\n+.claude\n\\ No newline at end of file\n";
        let paths = patch_paths(link);
        assert!(paths.contains(&".claude".to_owned()), "{paths:?}");
    }
}
