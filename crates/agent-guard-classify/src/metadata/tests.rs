use agent_guard_types::{Dialect, OpKind, OpSpec, Span};

use crate::classify;

fn ops_in(line: &str, dialect: Dialect) -> Vec<OpSpec> {
    classify(line, dialect).ops
}

fn posix(line: &str) -> Vec<OpSpec> {
    ops_in(line, Dialect::Posix)
}

/// The one op of a line, which must be a metadata op; its target texts.
fn metadata_targets(line: &str, dialect: Dialect) -> Vec<String> {
    let ops = ops_in(line, dialect);
    assert_eq!(ops.len(), 1, "{line}: {ops:?}");
    assert_eq!(ops[0].kind, OpKind::Metadata, "{line}: {ops:?}");
    assert_eq!(ops[0].dialect, dialect, "{line}");
    ops[0].targets.iter().map(|t| t.text.clone()).collect()
}

fn kinds(line: &str, dialect: Dialect) -> Vec<OpKind> {
    ops_in(line, dialect).iter().map(|o| o.kind).collect()
}

#[test]
fn chmod_skips_the_mode_however_it_is_given() {
    for (line, targets) in [
        ("chmod +x build.sh", &["build.sh"][..]),
        ("chmod 755 a b", &["a", "b"]),
        ("chmod u+x,go-w a", &["a"]),
        ("chmod -w notes.txt", &["notes.txt"]),
        ("chmod -rwx,u+s a b", &["a", "b"]),
        ("chmod --reference=ref.txt a", &["a"]),
        ("chmod --reference ref.txt a", &["a"]),
        ("chmod -- -x a", &["a"]),
        ("chmod 644 -- -dash.txt", &["-dash.txt"]),
        ("chmod -v -c -f --quiet --silent 600 a", &["a"]),
        ("chmod --preserve-root --no-dereference 600 a", &["a"]),
        ("chmod", &[]),
        ("/bin/chmod 600 a", &["a"]),
    ] {
        assert_eq!(metadata_targets(line, Dialect::Posix), targets, "{line}");
    }
    let o = &posix("chmod 755 dir -R")[0];
    assert!(o.recursive && !o.undeterminable);
    assert!(posix("chmod --recursive 755 dir")[0].recursive);
    assert!(!posix("chmod 755 dir")[0].recursive);
}

#[test]
fn chown_and_chgrp_skip_the_owner_or_group() {
    for (line, targets) in [
        ("chown root:root a b", &["a", "b"][..]),
        ("chown :staff a", &["a"]),
        ("chown -R --from=bob alice dir", &["dir"]),
        ("chown --from bob alice dir", &["dir"]),
        ("chown -hHLP alice dir", &["dir"]),
        ("chown --reference=ref a b", &["a", "b"]),
        ("chgrp staff a", &["a"]),
        ("chgrp -R --reference ref dir", &["dir"]),
        ("gchown alice a", &["a"]),
    ] {
        assert_eq!(metadata_targets(line, Dialect::Posix), targets, "{line}");
    }
    assert!(posix("chown -R alice dir")[0].recursive);
    // `-h` changes the link itself; otherwise the owner of what it leads to.
    assert!(!posix("chown -h alice link")[0].targets[0].through_symlink);
    assert!(posix("chown alice link")[0].targets[0].through_symlink);
    // chgrp has no --from.
    assert_eq!(
        kinds("chgrp --from=x staff a", Dialect::Posix),
        [OpKind::OpaqueProgram]
    );
}

#[test]
fn chattr_reads_attribute_changes_until_the_first_path() {
    for (line, targets) in [
        ("chattr +i .git/config", &[".git/config"][..]),
        ("chattr -i a b", &["a", "b"]),
        ("chattr =ae -R dir", &["dir"]),
        ("chattr -R -V -f +a -i dir", &["dir"]),
        ("chattr -v 7 -p 3 +i a", &["a"]),
        ("chattr -Ri a", &["a"]),
        // After the first path every word is one.
        ("chattr +i a -i", &["a", "-i"]),
        // A word the guard cannot read could be either: it and what follows are paths.
        ("chattr $ATTR +i a", &["$ATTR", "+i", "a"]),
    ] {
        assert_eq!(metadata_targets(line, Dialect::Posix), targets, "{line}");
    }
    assert!(posix("chattr -R +i dir")[0].recursive);
    assert!(!posix("chattr -i dir")[0].recursive);
    for unfollowed in ["chattr +Q a", "chattr -Z a", "chattr -v", "chattr --help a"] {
        assert_eq!(
            kinds(unfollowed, Dialect::Posix),
            [OpKind::OpaqueProgram],
            "{unfollowed}"
        );
    }
}

#[test]
fn setfacl_skips_acls_and_acl_files() {
    for (line, targets) in [
        ("setfacl -m u:bob:rw a", &["a"][..]),
        ("setfacl -x u:bob a b", &["a", "b"]),
        ("setfacl -M acl.txt a", &["a"]),
        ("setfacl -X acl.txt a", &["a"]),
        ("setfacl --set u::rw,g::r,o::- a", &["a"]),
        ("setfacl --set-file=acl.txt a", &["a"]),
        ("setfacl --modify=u:bob:r a", &["a"]),
        ("setfacl -b -k -d -n --mask -L -P a", &["a"]),
        ("setfacl -Rm u:bob:rwX dir", &["dir"]),
    ] {
        assert_eq!(metadata_targets(line, Dialect::Posix), targets, "{line}");
    }
    assert!(posix("setfacl -R -m u:bob:r dir")[0].recursive);
    // `--restore` applies a dump the guard does not read.
    let o = &posix("setfacl --restore=perms.acl")[0];
    assert_eq!(o.kind, OpKind::Metadata);
    assert!(o.targets.is_empty() && o.undeterminable);
    assert!(posix("setfacl --test -m u:bob:r a").is_empty());
    assert!(posix("setfacl --help").is_empty());
    assert_eq!(
        kinds("setfacl -Q a", Dialect::Posix),
        [OpKind::OpaqueProgram]
    );
    assert_eq!(kinds("setfacl -m", Dialect::Posix), [OpKind::OpaqueProgram]);
}

#[test]
fn touch_changes_every_operand() {
    for (line, targets) in [
        ("touch notes.txt", &["notes.txt"][..]),
        ("touch a b c", &["a", "b", "c"]),
        ("touch -a -m -c a", &["a"]),
        ("touch -d '2 days ago' a", &["a"]),
        ("touch --date=tomorrow a", &["a"]),
        ("touch -r ref.txt a", &["a"]),
        ("touch --reference ref.txt a", &["a"]),
        ("touch -t 202401011200 a", &["a"]),
        ("touch --time=mtime a", &["a"]),
        ("touch - a", &["a"]),
        ("touch -- -dash.txt", &["-dash.txt"]),
    ] {
        assert_eq!(metadata_targets(line, Dialect::Posix), targets, "{line}");
    }
    assert!(!posix("touch -h link")[0].targets[0].through_symlink);
    assert!(posix("touch --help").is_empty());
    assert!(posix("touch --version").is_empty());
}

#[test]
fn an_unknown_option_keeps_the_program_opaque() {
    for line in [
        "chmod -Z 600 a",
        "chmod --bogus 600 a",
        "chown --no alice a",
        "chown --reference",
        "touch --bogus a",
        "touch -q a",
        "touch -d",
    ] {
        let ops = posix(line);
        assert_eq!(ops.len(), 1, "{line}");
        assert_eq!(ops[0].kind, OpKind::OpaqueProgram, "{line}");
        assert!(ops[0].targets.is_empty(), "{line}");
    }
    assert!(posix("chmod --help").is_empty());
    assert!(posix("chown --version").is_empty());
}

#[test]
fn targets_are_built_like_other_path_targets() {
    let line = "chmod -R 755 'my dir' ~/bin \"$HOME/x\" *.sh {a,b}.txt";
    let o = &posix(line)[0];
    let texts: Vec<&str> = o.targets.iter().map(|t| t.text.as_str()).collect();
    assert_eq!(
        texts,
        ["my dir", "~/bin", "\"$HOME/x\"", "*.sh", "a.txt", "b.txt"]
    );
    assert!(o.targets[0].is_concrete() && !o.targets[0].tilde);
    assert!(o.targets[1].tilde);
    assert!(o.targets[2].opaque.is_some());
    assert!(o.targets[3].glob && o.targets[3].opaque.is_none());
    assert!(o.targets.iter().all(|t| t.through_symlink));
    // Spans point back into the command.
    let line = "chmod +x build.sh";
    let target = &posix(line)[0].targets[0];
    assert_eq!(target.span, Some(Span::new(9, 17)));
    assert_eq!(&line[9..17], "build.sh");
    assert_eq!(posix(line)[0].span, Span::new(0, line.len()));
}

#[test]
fn wrappers_and_compound_lines_reach_the_op() {
    for line in [
        "sudo chmod +x build.sh",
        "sudo -u bob chmod +x build.sh",
        "env A=1 chmod +x build.sh",
        "nohup chmod +x build.sh",
        "command chmod +x build.sh",
        "A=1 chmod +x build.sh",
        "bash -c 'chmod +x build.sh'",
    ] {
        assert_eq!(
            metadata_targets(line, Dialect::Posix),
            ["build.sh"],
            "{line}"
        );
        assert!(posix(line)[0].wrapped, "{line}");
    }
    let o = posix("make && chmod +x out/app && touch done");
    assert_eq!(
        o.iter().map(|o| o.kind).collect::<Vec<_>>(),
        [OpKind::OpaqueProgram, OpKind::Metadata, OpKind::Metadata]
    );
    assert!(o.iter().all(|op| op.in_compound_line));
    assert_eq!((o[1].segment_index, o[2].segment_index), (1, 2));
    // Arguments from stdin: the paths are not known.
    let o = &posix("ls *.sh | xargs chmod +x")[0];
    assert_eq!(o.kind, OpKind::Metadata);
    assert!(o.undeterminable && o.targets.is_empty());
}

#[test]
fn find_running_a_metadata_command_changes_metadata_below_its_starts() {
    let o = &posix("find scripts -name '*.sh' -exec chmod +x {} +")[0];
    assert_eq!((o.op.as_str(), o.kind), ("find", OpKind::Metadata));
    assert!(o.recursive && o.undeterminable);
    assert_eq!(o.targets[0].text, "scripts");
    assert_eq!(
        kinds("find . -exec touch {} \\;", Dialect::Posix),
        [OpKind::Metadata]
    );
    assert_eq!(
        kinds("fd -e sh -x chmod +x", Dialect::Posix),
        [OpKind::Metadata]
    );
    // With a delete among the commands it runs, it is a delete.
    assert_eq!(
        kinds(
            "find . -exec chmod +x {} \\; -exec rm {} \\;",
            Dialect::Posix
        ),
        [OpKind::FsDelete]
    );
}

#[test]
fn unresolved_paths_on_a_line_naming_git_are_unknown() {
    for line in [
        "X=.git; chmod +x $X/hooks/pre-commit",
        "cd .git && chmod +x hooks/pre-commit",
        "chmod +x \"$GIT_DIR/hooks/pre-commit\"",
        "ls .git/hooks | xargs chmod +x",
    ] {
        assert_eq!(
            kinds(line, Dialect::Posix).last(),
            Some(&OpKind::Unknown),
            "{line}"
        );
    }
    // Resolved, they stay metadata ops for the policy to judge.
    assert_eq!(
        metadata_targets("chmod +x .git/hooks/pre-commit", Dialect::Posix),
        [".git/hooks/pre-commit"]
    );
    assert_eq!(
        metadata_targets("chmod +x \"$X/build.sh\"", Dialect::Posix).len(),
        1
    );
}

#[test]
fn git_editors_that_only_touch_their_scratch_file_change_nothing() {
    assert!(posix("GIT_EDITOR=touch git commit").is_empty());
}

#[test]
fn attrib_changes_only_with_an_attribute() {
    for dialect in [Dialect::Cmd, Dialect::PowerShell] {
        for (line, targets) in [
            ("attrib +r notes.txt", &["notes.txt"][..]),
            ("attrib -h -s +a a.txt b.txt", &["a.txt", "b.txt"]),
            ("attrib +R .git\\config", &[".git/config"]),
            ("attrib +h build /S /D", &["build"]),
            ("attrib -r \"my dir\\a.txt\"", &["my dir/a.txt"]),
            ("attrib +r *.txt", &["*.txt"]),
        ] {
            assert_eq!(
                metadata_targets(line, dialect),
                targets,
                "{dialect:?} {line}"
            );
        }
        let o = &ops_in("attrib +r a.txt /s", dialect)[0];
        assert!(o.recursive && o.name_match);
        assert!(o.targets[0].through_symlink);
        assert!(!ops_in("attrib +r link /l", dialect)[0].targets[0].through_symlink);
        assert!(ops_in("attrib +r *.txt", dialect)[0].targets[0].glob);
        let o = &ops_in("attrib +r", dialect)[0];
        assert!(o.targets.is_empty() && o.undeterminable);
        for prints in ["attrib", "attrib notes.txt", "attrib /s *.txt", "attrib /?"] {
            assert!(ops_in(prints, dialect).is_empty(), "{dialect:?} {prints}");
        }
        assert_eq!(
            kinds("attrib +r a.txt /z", dialect),
            [OpKind::OpaqueProgram]
        );
    }
}

#[test]
fn icacls_cacls_and_takeown_change_their_path() {
    for dialect in [Dialect::Cmd, Dialect::PowerShell] {
        for (line, targets) in [
            ("icacls notes.txt /grant Everyone:F", &["notes.txt"][..]),
            (
                "icacls .git\\hooks /grant:r 'bob:(OI)(CI)F' /t /c /q",
                &[".git/hooks"],
            ),
            ("icacls a.txt /deny Everyone:W", &["a.txt"]),
            ("icacls a.txt /remove:g bob alice", &["a.txt"]),
            ("icacls a.txt /setowner bob", &["a.txt"]),
            ("icacls a.txt /inheritance:d", &["a.txt"]),
            ("icacls dir /reset /T", &["dir"]),
            ("icacls a.txt /setintegritylevel h", &["a.txt"]),
            ("icacls *.txt /grant bob:R", &["*.txt"]),
            ("cacls notes.txt /e /g bob:r", &["notes.txt"]),
            ("cacls dir /t /e /r bob", &["dir"]),
            ("cacls a.txt /s:D:PAI", &["a.txt"]),
            ("takeown /f .git /r /d y", &[".git"]),
            ("takeown /F a.txt /A", &["a.txt"]),
            ("C:\\Windows\\System32\\icacls.exe a.txt /reset", &["a.txt"]),
        ] {
            assert_eq!(
                metadata_targets(line, dialect),
                targets,
                "{dialect:?} {line}"
            );
        }
        assert!(ops_in("icacls dir /grant bob:F /t", dialect)[0].recursive);
        assert!(!ops_in("icacls dir /grant bob:F", dialect)[0].recursive);
        assert!(ops_in("takeown /f dir /r", dialect)[0].recursive);
        assert!(!ops_in("icacls link /reset /l", dialect)[0].targets[0].through_symlink);
        let o = &ops_in("icacls dir /restore acl.txt", dialect)[0];
        assert_eq!(o.targets[0].text, "dir");
        assert!(o.recursive && o.undeterminable);
        for prints in [
            "icacls a.txt",
            "icacls a.txt /t /c",
            "icacls a.txt /verify",
            "icacls a.txt /findsid bob /t",
            "icacls /?",
            "cacls a.txt",
            "cacls a.txt /s",
            "takeown /?",
        ] {
            assert!(ops_in(prints, dialect).is_empty(), "{dialect:?} {prints}");
        }
        for unfollowed in [
            "icacls a.txt /save acl.txt",
            "icacls a.txt /bogus",
            "icacls a.txt b.txt /reset",
            "icacls /grant bob:F a.txt",
            "cacls a.txt /z",
            "takeown /s server /f a.txt",
            "takeown /f",
            "takeown a.txt",
        ] {
            assert_eq!(
                kinds(unfollowed, dialect),
                [OpKind::OpaqueProgram],
                "{dialect:?} {unfollowed}"
            );
        }
    }
}

#[test]
fn set_itemproperty_of_a_file_property_changes_metadata() {
    let ps = Dialect::PowerShell;
    for (line, targets) in [
        (
            "Set-ItemProperty -Path notes.txt -Name IsReadOnly -Value $true",
            &["notes.txt"][..],
        ),
        ("sp .git\\config IsReadOnly $false", &[".git/config"]),
        (
            "Set-ItemProperty -LiteralPath 'a[1].txt' -Name Attributes -Value Hidden",
            &["a[1].txt"],
        ),
        (
            "Set-ItemProperty a.txt -Name LastWriteTime -Value (Get-Date)",
            &["a.txt"],
        ),
        (
            "Set-ItemProperty -Path a.txt,b.txt -Name isreadonly -Value 1",
            &["a.txt", "b.txt"],
        ),
        (
            "Set-ItemProperty -Path a.txt -Name $prop -Value 1",
            &["a.txt"],
        ),
        (
            "Set-Acl -Path .git\\config -AclObject $acl",
            &[".git/config"],
        ),
        (
            "Set-Acl .claude\\settings.json $acl",
            &[".claude/settings.json"],
        ),
        ("Get-Acl a.txt | Set-Acl -Path b.txt", &["b.txt"]),
        ("Set-Acl -Path *.txt -AclObject $acl", &["*.txt"]),
    ] {
        assert_eq!(metadata_targets(line, ps), targets, "{line}");
    }
    let o = &ops_in("sp a.txt IsReadOnly 1", ps)[0];
    assert_eq!(o.op, "set-itemproperty");
    assert!(o.targets[0].through_symlink);
    assert!(
        !ops_in(
            "Set-ItemProperty -LiteralPath 'a[1].txt' -Name IsReadOnly -Value 1",
            ps
        )[0]
        .targets[0]
            .glob
    );
    assert!(ops_in("Set-Acl -Path *.txt -AclObject $acl", ps)[0].targets[0].glob);
    // Through the pipeline, the paths are not known.
    let o = &ops_in(
        "Get-Item a.txt | Set-ItemProperty -Name IsReadOnly -Value $true",
        ps,
    )[0];
    assert_eq!(o.kind, OpKind::Metadata);
    assert!(o.targets.is_empty() && o.undeterminable);
    // The registry, another property, a dry run: nothing changes on a file.
    for nothing in [
        "Set-ItemProperty -Path HKCU:\\Software\\X -Name Foo -Value 1",
        "Set-ItemProperty -Path 'HKLM:\\SOFTWARE\\X' -Name IsReadOnly -Value 1 -Type DWord",
        "Set-ItemProperty -Path Registry::HKEY_CURRENT_USER\\X -Name Foo -Value 1",
        "sp HKCU:\\X Foo 1",
        "Set-ItemProperty -Path a.txt -Name Foo -Value 1",
        "Set-ItemProperty -Path a.txt -Name IsReadOnly -Value 1 -WhatIf",
        "Set-Acl -Path a.txt -AclObject $acl -WhatIf",
    ] {
        assert!(ops_in(nothing, ps).is_empty(), "{nothing}");
    }
    for unfollowed in [
        "Set-ItemProperty -Path a.txt -Name IsReadOnly -Value 1 -Bogus",
        "Set-ItemProperty -Path a.txt -InputObject $props",
        "Set-Acl -Path a.txt -AclObject $acl -Bogus x",
    ] {
        assert_eq!(
            kinds(unfollowed, ps),
            [OpKind::OpaqueProgram],
            "{unfollowed}"
        );
    }
}

#[test]
fn posix_metadata_programs_in_windows_dialects_are_unchanged() {
    // Git for Windows' `chmod` from cmd or PowerShell is still a program the guard does not
    // model, and its `touch` still only creates.
    for dialect in [Dialect::Cmd, Dialect::PowerShell] {
        assert_eq!(kinds("chmod +x a.sh", dialect), [OpKind::OpaqueProgram]);
        assert!(kinds("touch a.txt", dialect).is_empty());
    }
}
