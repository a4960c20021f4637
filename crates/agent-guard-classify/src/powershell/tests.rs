use agent_guard_types::{Dialect, OpKind, Shape};

use super::classify;

crate::test_support::line_helpers!(classify);

#[test]
fn reference_powershell_rows() {
    let o = ops("Remove-Item -Recurse -Force .\\build");
    assert_eq!(o[0].op, "remove-item");
    assert_eq!(o[0].dialect, Dialect::PowerShell);
    assert_eq!(targets("Remove-Item -Recurse -Force .\\build"), ["./build"]);
    for line in [
        "del a.txt",
        "ri -Force a.txt",
        "erase a.txt",
        "rmdir -Recurse -Force build",
    ] {
        assert_eq!(kinds(line), [OpKind::FsDelete], "{line}");
    }
    assert!(ops("Remove-Item -Recurse -WhatIf build")[0].dry_run);
    let o = ops("Get-ChildItem -Recurse | Remove-Item -Force");
    assert!(o[0].undeterminable && o[0].targets.is_empty());
    assert!(ops("Get-ChildItem *.log | Remove-Item")[0].undeterminable);
    assert_eq!(
        targets("Remove-Item -Recurse \"a b\" \"c d\""),
        ["a b", "c d"]
    );
    assert_eq!(targets("Write-Host hi; Remove-Item a.txt"), ["a.txt"]);
    assert!(
        ops("Remove-Item -Recurse (Join-Path $PWD build)")[0].targets[0]
            .opaque
            .is_some()
    );
    assert!(
        ops("Remove-Item -Recurse -Force $target")[0].targets[0]
            .opaque
            .is_some()
    );
    for harmless in [
        "powershell -Command \"Write-Host hi\"",
        "Remove-ItemProperty -Path x -Name y",
        "Get-ChildItem -Recurse",
        "git status",
        "Write-Host 'rm -rf .'",
        "Write-Host \"rm -rf .\"",
    ] {
        assert!(ops(harmless).is_empty(), "{harmless}");
    }
    // Clear-Content truncates the file: the reference took it for harmless (issue 11).
    assert_eq!(kinds("Clear-Content a.txt"), [OpKind::Overwrite]);
    assert_eq!(kinds("git clean -fdx"), [OpKind::Unknown]);
    assert_eq!(targets("rd /s /q build"), ["/s", "/q", "build"]);
    let o = ops("rd build");
    assert!(!o[0].recursive && !o[0].undeterminable);
    assert!(ops("rm -rf build")[0].undeterminable);
    assert!(!ops("rm -r build")[0].undeterminable);
}

#[test]
fn script_blocks_and_control_flow() {
    let o = ops("if (Test-Path build) { Remove-Item build -Recurse }");
    assert!(!o[0].undeterminable && o[0].recursive);
    let o = ops("Get-ChildItem | ForEach-Object { Remove-Item $_ }");
    assert_eq!(o.len(), 1);
    let o = ops("& { Remove-Item build -Recurse }");
    assert!(!o[0].undeterminable);
    let o = ops("Start-Job { Remove-Item build -Recurse }");
    assert!(o.iter().all(|o| o.undeterminable));
    let o = ops("Invoke-Command -ComputerName srv { Remove-Item build -Recurse }");
    assert!(o[0].undeterminable);
    let o = ops("Invoke-Command { Remove-Item build -Recurse }");
    assert!(!o[0].undeterminable);
    let o = ops("function Clean { Remove-Item build -Recurse }");
    assert!(!o[0].undeterminable);
    let o = ops("$x = (Remove-Item build)");
    assert!(o[0].undeterminable);
}

#[test]
fn expressions_and_dotnet_calls() {
    assert_eq!(
        kinds("[IO.Directory]::Delete('build', $true)"),
        [OpKind::Unknown]
    );
    assert_eq!(kinds("(Get-Item build).Delete()"), [OpKind::Unknown]);
    assert_eq!(
        kinds("[System.IO.File]::DeleteFile('a')"),
        [OpKind::Unknown]
    );
    assert!(ops("$x.Count; Write-Host deleted").is_empty());
    assert!(ops("'build' | Out-Null").is_empty());
    assert_eq!(
        kinds("& $cmd build; rm -rf x"),
        [OpKind::Unknown, OpKind::FsDelete]
    );
}

#[test]
fn nested_hosts_and_invoke_expression() {
    for line in [
        "cmd /c \"rd /s /q build\"",
        "cmd /c rd /s /q build",
        "pwsh -c 'Remove-Item -Recurse build'",
        "powershell -NoProfile -ExecutionPolicy Bypass -Command Remove-Item -Recurse build",
        "Invoke-Expression 'Remove-Item -Recurse build'",
        "iex -Command 'Remove-Item -Recurse build'",
    ] {
        let o = ops(line);
        assert_eq!(o.len(), 1, "{line}: {o:?}");
        assert!(o[0].recursive && !o[0].undeterminable, "{line}");
        assert_eq!(o[0].targets[0].text, "build", "{line}");
    }
    assert_eq!(
        kinds("iex $script; ri x"),
        [OpKind::Unknown, OpKind::FsDelete]
    );
    // A script that is not literal is unknown whatever the line says (issue 12 item 10).
    assert_eq!(kinds("iex $script"), [OpKind::Unknown]);
    assert_eq!(kinds("Start-Process cmd '/c del x'"), [OpKind::Unknown]);
    let o = ops("pwsh -WorkingDirectory sub -c 'Remove-Item x'");
    assert_eq!(o[0].shape, Some(Shape::F1));
}

#[test]
fn shapes() {
    // A literal change that certainly ran is listed for the policy to follow (issue 38).
    let o = ops("Set-Location build; Remove-Item a.txt");
    assert_eq!((o[0].shape, o[0].cd.len()), (None, 1));
    assert_eq!(ops("sl build; ri a.txt")[0].shape, None);
    assert_eq!(
        ops("function cd { }; sl build; ri a.txt")[0].shape,
        Some(Shape::F1)
    );
    assert_eq!(ops("sl HKLM:\\x; ri a.txt")[0].shape, Some(Shape::F1));
    assert_eq!(
        ops("New-Item a.tmp; Remove-Item a.tmp")[0].shape,
        Some(Shape::F2)
    );
    let o = ops("echo x > a.tmp; Remove-Item a.tmp");
    assert_eq!(
        (o[0].kind, o[0].shape),
        (OpKind::Overwrite, None),
        "F2 is never set on writes"
    );
    assert_eq!(o[1].shape, Some(Shape::F2));
    assert_eq!(ops("Get-Date > $null; Remove-Item a.tmp")[0].shape, None);
}

#[test]
fn windows_paths_and_providers() {
    assert_eq!(targets("Remove-Item -Recurse C:\\"), ["C:/"]);
    assert!(
        ops("Remove-Item HKLM:\\Software\\X -Recurse")[0].targets[0]
            .opaque
            .is_some()
    );
    assert!(ops("Remove-Item env:FOO")[0].targets[0].opaque.is_some());
    assert!(ops("Remove-Item -Recurse ~")[0].targets[0].tilde);
}
