//! Backup names (issue 37, point 3): an in-place editor's suffix (`sed -i.orig`, `perl
//! -i.bak`, sed's `*` form) and a copy's `--backup` (its `-S` suffix, or
//! `SIMPLE_BACKUP_SUFFIX` set for the command) rename the old file to its backup name,
//! replacing what held that name. Each line runs for real after `check --enforce`; `undo`
//! brings every file back, the old backups included, byte for byte.

use crate::support::{TestEnv, enforce, txids};

const LINES: &[&str] = &[
    "sed -i.orig 's/notes/edited/' notes.txt",
    "sed --in-place=.orig -e 's/notes/edited/' notes.txt",
    "sed -i'old_*' 's/fn/pub fn/' src/main.rs",
    "perl -i.orig -pe 's/notes/edited/' notes.txt",
    "perl -pi.orig -e 's/notes/edited/' notes.txt",
    "cp --backup=simple --suffix=.orig src/main.rs notes.txt",
    "SIMPLE_BACKUP_SUFFIX=.orig cp -b src/main.rs notes.txt",
    "SIMPLE_BACKUP_SUFFIX=.orig mv -b src/main.rs notes.txt",
    "install -b -S .orig -m 644 src/main.rs notes.txt",
    // From an outside review: `-S` alone turns backups on, an empty suffix is `~`, a method
    // may be abbreviated, the variable may come through `env` or an earlier `export`.
    "cp -S .orig src/main.rs notes.txt",
    "mv --suffix=.orig src/main.rs notes.txt",
    "cp -b -S '' src/main.rs notes.txt",
    "cp --backup=si --suffix=.orig src/main.rs notes.txt",
    "env SIMPLE_BACKUP_SUFFIX=.orig cp -b src/main.rs notes.txt",
    "export SIMPLE_BACKUP_SUFFIX=.orig; cp -b src/main.rs notes.txt",
];

#[test]
fn existing_backup_names_come_back() {
    for line in LINES {
        let env = TestEnv::new();
        env.write("notes.txt.orig", "an older backup, kept by hand\n");
        env.write("old_src/main.rs", "// an older backup of main.rs\n");
        env.write("notes.txt~", "an older tilde backup\n");
        let before = crate::support::snapshot(env.ws(), &[]);
        let (exit, report) = enforce(&env, line);
        assert_eq!(exit, 0, "{line}: {report}");
        assert!(!txids(&report).is_empty(), "{line}: {report}");
        let status = env.std_cmd("sh").args(["-c", line]).status().unwrap();
        assert!(status.success(), "{line}");
        let backups = ["notes.txt.orig", "old_src/main.rs", "notes.txt~"]
            .map(|p| std::fs::read(env.ws().join(p)).unwrap_or_default());
        assert!(
            backups[0] != b"an older backup, kept by hand\n"
                || backups[1] != b"// an older backup of main.rs\n"
                || backups[2] != b"an older tilde backup\n",
            "{line}: the command replaces a backup name"
        );
        for txid in txids(&report) {
            let output = env.ag(&["restore", "--json", &txid]);
            assert!(output.status.success(), "{line}: {output:?}");
        }
        let after = crate::support::snapshot(env.ws(), &[]);
        for (path, entry) in &before {
            let now = after.get(path);
            assert_eq!(
                now.map(|e| (&e.kind, &e.data)),
                Some((&entry.kind, &entry.data)),
                "{line}: {}",
                String::from_utf8_lossy(path)
            );
        }
    }
}
