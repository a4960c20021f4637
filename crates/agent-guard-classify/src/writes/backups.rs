//! The backup an in-place editor keeps (`sed -i.orig`, `perl -i.bak`, `ruby -i~`): the old
//! file is renamed to its backup name, replacing whatever held that name before. A backup
//! name that exists already is overwritten like any file (issue 37, point 3): it is a target
//! of the edit itself (both are names a rename replaces; the edit reads its file first).

use agent_guard_types::{OpSpec, Target};

/// Adds each target's backup name to the edit `op`, when a backup is kept (a suffix; none
/// for BSD sed's `-i ''`). A suffix with a `/` is the caller's refusal.
pub(super) fn add_backups(op: &mut OpSpec, suffix: &str) {
    if suffix.is_empty() || suffix.contains('/') || op.targets.is_empty() {
        return;
    }
    let names: Vec<Target> = op
        .targets
        .iter()
        .map(|file| backup_of(file, suffix))
        .collect();
    op.targets.extend(names);
    op.note(format!(
        "each file is renamed to its backup name ({suffix}), replacing what that name held"
    ));
}

/// `FILE` + suffix, or with each `*` of the suffix replaced by the file name as the command
/// gives it (GNU sed 4.9, perl and ruby alike: `-i'old_*' src/a` renames to `old_src/a`).
fn backup_of(file: &Target, suffix: &str) -> Target {
    let text = if suffix.contains('*') {
        suffix.replace('*', &file.text)
    } else {
        format!("{}{suffix}", file.text)
    };
    let exact = file
        .exact
        .as_ref()
        .filter(|_| !suffix.contains('*'))
        .map(|path| {
            let mut name = path.clone().into_os_string();
            name.push(suffix);
            name.into()
        });
    Target {
        text,
        // The rename replaces the name: a symlink there is replaced, not followed.
        through_symlink: false,
        exact,
        ..file.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(files: &[&str], suffix: &str) -> Vec<String> {
        let mut op = OpSpec::new(
            "sed",
            agent_guard_types::OpKind::Overwrite,
            agent_guard_types::Dialect::Posix,
        );
        op.targets = files.iter().map(|f| Target::literal(*f)).collect();
        add_backups(&mut op, suffix);
        op.targets
            .into_iter()
            .skip(files.len())
            .map(|t| t.text)
            .collect()
    }

    #[test]
    fn backup_names() {
        assert_eq!(names(&["f.txt"], ".orig"), ["f.txt.orig"]);
        assert_eq!(names(&["src/a.c", "b.c"], "~"), ["src/a.c~", "b.c~"]);
        assert_eq!(names(&["a.c"], "old_*"), ["old_a.c"]);
        assert_eq!(names(&["src/a.c"], "old_*"), ["old_src/a.c"]);
        assert_eq!(names(&["src/a.c"], "old_*.bak"), ["old_src/a.c.bak"]);
        assert!(names(&["f"], "").is_empty());
        assert!(names(&["f"], "x/*").is_empty());
    }

    #[test]
    fn a_glob_stays_a_glob() {
        let mut op = OpSpec::new(
            "sed",
            agent_guard_types::OpKind::Overwrite,
            agent_guard_types::Dialect::Posix,
        );
        op.targets.push(Target {
            glob: true,
            ..Target::literal("*.txt")
        });
        add_backups(&mut op, ".bak");
        assert_eq!(op.targets[1].text, "*.txt.bak");
        assert!(op.targets[1].glob);
    }
}
