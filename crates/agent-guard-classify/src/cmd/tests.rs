use agent_guard_types::{Dialect, OpKind, Shape};

use super::classify;

crate::test_support::line_helpers!(classify);

#[test]
fn reference_cmd_rows() {
    let o = ops("rd /s /q build");
    assert_eq!(o.len(), 1);
    assert!(o[0].recursive && o[0].force && !o[0].undeterminable);
    assert_eq!(o[0].dialect, Dialect::Cmd);
    assert_eq!(targets("del build\\nested\\a.o"), ["build/nested/a.o"]);
    assert_eq!(
        targets("del a.txt b.txt c.txt"),
        ["a.txt", "b.txt", "c.txt"]
    );
    assert_eq!(targets("del a^&b.txt"), ["a&b.txt"]);
    // A literal change that certainly ran is listed for the policy to follow, without F1.
    let o = ops("cd build && del /q a.txt");
    assert_eq!((o[0].shape, o[0].cd.len()), (None, 1));
    assert_eq!(ops("cd D:\\x & del /q a.txt")[0].shape, Some(Shape::F1));
    assert_eq!(ops("cd build || del /q a.txt")[0].shape, Some(Shape::F1));
    assert_eq!(ops("echo x&del a.txt")[0].shape, Some(Shape::F2));
    let o = ops("copy src.txt a.tmp && del a.tmp");
    assert_eq!((o[0].kind, o[0].shape), (OpKind::Overwrite, None));
    assert_eq!(o[1].shape, Some(Shape::F2));
    assert_eq!(ops("dir | del a.txt")[0].shape, None);
    assert!(ops("del /s /q %BUILD_DIR%")[0].targets[0].opaque.is_some());
    assert_eq!(kinds("del /q \"unterminated"), [OpKind::Unknown]);
    assert!(ops("del /z a.txt")[0].undeterminable);
    assert!(ops("del /s /q")[0].undeterminable);
    for harmless in [
        "git status",
        "echo del",
        "where del",
        "echo \"rm -rf .\"",
        "echo $(rm -rf .)",
    ] {
        assert!(ops(harmless).is_empty(), "{harmless}");
    }
    let o = ops("rm -rf build");
    assert_eq!(o.len(), 1);
    assert_eq!(o[0].kind, OpKind::Unknown);
    assert!(o[0].targets.is_empty());
    assert_eq!(
        kinds("del a.txt & rm -rf ."),
        [OpKind::FsDelete, OpKind::Unknown]
    );
    assert_eq!(kinds("git reset --hard"), [OpKind::Unknown]);
    assert_eq!(kinds("git clean -fdx"), [OpKind::Unknown]);
    assert!(kinds("git clean -n").is_empty());
    assert_eq!(kinds("Remove-Item -Recurse build"), [OpKind::Unknown]);
    assert_eq!(kinds("ri build"), [OpKind::Unknown]);
    assert_eq!(kinds("RM.EXE x"), [OpKind::Unknown]);
    assert_eq!(kinds("find . -name x -delete"), [OpKind::Unknown]);
    assert!(kinds("find \"text\" notes.txt").is_empty());
}

#[test]
fn switches_after_targets_and_glued_forms() {
    let o = ops("del a.txt /q");
    assert_eq!(targets("del a.txt /q"), ["a.txt"]);
    assert!(o[0].force);
    assert_eq!(targets("rd/s/q build"), ["build"]);
    assert!(ops("rd/s/q build")[0].recursive);
    assert_eq!(targets("del a.txt,b.txt"), ["a.txt", "b.txt"]);
    // cmd ends the builtin's name at `.`: `del.x` deletes `.x` (Wine's cmd.exe does).
    assert_eq!(targets("del.x"), [".x"]);
    assert_eq!(kinds("del(x"), [OpKind::Unknown]);
    // Not `del`: a batch script, whose effects only show when it runs (checkpointed).
    assert_eq!(kinds("delete.bat x"), [OpKind::OpaqueProgram]);
}

#[test]
fn blocks_conditions_loops_and_call() {
    for line in [
        "if exist build rd /s /q build",
        "if exist build (rd /s /q build) else (echo none)",
        "(rd /s /q build)",
        "call rd /s /q build",
        "@rd /s /q build",
        "call call rd /s /q build",
    ] {
        assert_eq!(targets(line), ["build"], "{line}");
        assert!(!ops(line)[0].undeterminable, "{line}");
    }
    let o = ops("for /d %d in (*) do rd /s /q %d");
    assert!(o[0].targets[0].opaque.is_some());
    let o = ops("for /f %i in ('del x') do echo %i");
    assert!(o[0].undeterminable);
}

#[test]
fn nested_hosts() {
    for line in [
        "cmd /c \"rd /s /q build\"",
        "cmd /c rd /s /q build",
        "cmd.exe /s /c \"rd /s /q build\"",
        "cmd /k rd /s /q build",
        "cmd/c rd /s /q build",
        "powershell -Command \"Remove-Item -Recurse build\"",
        "pwsh -NoProfile -c \"Remove-Item -Recurse build\"",
        "powershell -EncodedCommand UgBlAG0AbwB2AGUALQBJAHQAZQBtACAALQBSAGUAYwB1AHIAcwBlACAAYgB1AGkAbABkAA==",
        "cmd /c cmd /c \"rd /s /q build\"",
    ] {
        let o = ops(line);
        assert_eq!(o.len(), 1, "{line}: {o:?}");
        assert_eq!(o[0].kind, OpKind::FsDelete, "{line}");
        assert!(
            o[0].recursive && !o[0].undeterminable && o[0].wrapped,
            "{line}"
        );
        assert_eq!(o[0].targets[0].text, "build", "{line}");
    }
    assert_eq!(targets("cmd /c \"del x & del y\""), ["x", "y"]);
    assert_eq!(targets("cmd /c del x ^& del y"), ["x", "y"]);
    assert_eq!(kinds("cmd /c \"del %X%\""), [OpKind::Unknown]);
    assert!(ops("cmd /c \"echo hi\"").is_empty());
    assert!(ops("powershell -Command \"Write-Host hi\"").is_empty());
    assert_eq!(kinds("powershell -EncodedCommand !!!"), [OpKind::Unknown]);
    assert_eq!(kinds("start \"\" del x"), [OpKind::Unknown]);
    let deep = "cmd /c ".repeat(10) + "del x";
    assert_eq!(kinds(&deep), [OpKind::Unknown]);
}

#[test]
fn windows_paths() {
    assert_eq!(targets("rd /s /q C:\\"), ["C:/"]);
    assert_eq!(targets("rd /s /q \\\\srv\\share\\x"), ["//srv/share/x"]);
    assert_eq!(targets("rd /s /q ..\\other"), ["../other"]);
    assert!(ops("del *.log")[0].targets[0].glob);
    assert!(ops("del \"*.log\"")[0].targets[0].glob);
}

#[test]
fn robocopy_mirror_is_undeterminable() {
    let o = ops("robocopy empty build /MIR");
    let delete = o.iter().find(|o| o.kind == OpKind::FsDelete).unwrap();
    assert!(delete.undeterminable && delete.recursive);
    assert_eq!(delete.targets[0].text, "build");
    let o = ops("robocopy . build notes.txt /MOV");
    assert_eq!(o[1].kind, OpKind::SideEffectDelete);
    assert_eq!(o[1].targets[0].text, "./notes.txt");
    assert!(!o[1].undeterminable);
    assert!(ops("robocopy . build /MOV")[1].undeterminable);
    // Copying a tree overwrites the destination's changed files (issue 11: it was taken
    // for harmless): undeterminable; named files are known.
    let o = ops("robocopy src dst /E");
    assert_eq!((o[0].kind, o[0].undeterminable), (OpKind::Overwrite, true));
    let o = ops("robocopy src dst a.txt b.txt");
    assert!(!o[0].undeterminable);
    let names: Vec<&str> = o[0].targets.iter().map(|t| t.text.as_str()).collect();
    assert_eq!(names, ["dst/a.txt", "dst/b.txt"]);
    assert!(ops("robocopy src dst /L").is_empty());
}

#[test]
fn drive_switch_and_redirects_shape() {
    assert_eq!(ops("D: & del a.txt")[0].shape, Some(Shape::F1));
    let o = ops("echo x > a.tmp & del a.tmp");
    assert_eq!(
        (o[0].kind, o[0].shape),
        (OpKind::Overwrite, None),
        "F2 is never set on writes"
    );
    assert_eq!(o[1].shape, Some(Shape::F2));
    assert_eq!(ops("dir > nul & del a.tmp")[0].shape, None);
    assert_eq!(ops("dir 2>&1 & del a.tmp")[0].shape, None);
    assert_eq!(ops("cd build & del C:\\x\\a")[0].shape, None);
}

#[test]
fn host_tails_stay_linear() {
    // Thousands of words after `cmd /c`: only one command line is rebuilt.
    let line = format!("cmd /s /c del {}", "x ".repeat(20_000));
    let o = ops(&line);
    assert_eq!(o.len(), 1);
    assert_eq!(o[0].targets.len(), 20_000);
    let line = format!("cmd {}", "/cx ".repeat(20_000));
    let _ = ops(&line);
}
