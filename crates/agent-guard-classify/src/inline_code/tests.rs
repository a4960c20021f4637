use super::*;

#[test]
fn interpreters_are_recognised_by_name() {
    for (name, lang) in [
        ("python", Lang::Python),
        ("python3", Lang::Python),
        ("python3.12", Lang::Python),
        ("pypy3", Lang::Python),
        ("py", Lang::Python),
        ("node", Lang::Node),
        ("bun", Lang::Node),
        ("deno", Lang::Deno),
        ("ruby", Lang::Ruby),
        ("perl", Lang::Perl),
        ("perl5.36", Lang::Perl),
        ("php", Lang::Php),
    ] {
        assert_eq!(interpreter(name), Some(lang), "{name}");
    }
    for name in [
        "pythonista",
        "nodemon",
        "rubocop",
        "perltidy",
        "phpunit",
        "pip",
    ] {
        assert_eq!(interpreter(name), None, "{name}");
    }
}

#[test]
fn deletion_apis_smell() {
    for code in [
        "import shutil; shutil.rmtree('build')",
        "from shutil import rmtree as r",
        "import os; os.remove('a')",
        "from os import remove; remove('a')",
        "import pathlib; pathlib.Path('a').unlink()",
        "require('fs').rmSync('build', {recursive: true})",
        "const fs = require('fs'); fs.rm('x', () => {})",
        "await fs.promises.rm('x')",
        "require 'fileutils'; FileUtils.rm_rf('build')",
        "File.delete('a')",
        "unlink 'a'",
        "use File::Path; remove_tree('build')",
        "unlink('a.txt');",
        "Deno.removeSync('x')",
        "import subprocess; subprocess.run(['rm', '-rf', 'build'])",
        "import os; os.system('git clean -fdx')",
        "require('child_process').execSync('rm -rf build')",
        "`rm -rf build`",
        "system('rd /s /q build')",
    ] {
        assert!(deletes(code), "{code}");
    }
}

#[test]
fn ordinary_code_does_not_smell() {
    for code in [
        "print('hello')",
        "import json, sys; print(json.load(sys.stdin)['txid'])",
        "l = [1, 2]; l.remove(1)",
        "import os; print(os.getcwd())",
        "console.log(process.version)",
        "puts RUBY_VERSION",
        "print \"ok\\n\"",
        "echo phpversion();",
        "import subprocess; subprocess.run(['ls', '-la'])",
        "d = {}; d['a'] = 1",
        "os.removexattr",
    ] {
        assert!(!deletes(code), "{code}");
    }
}

fn inline(lang: Lang, args: &[Option<&str>]) -> Option<Vec<String>> {
    match source(lang, args) {
        Source::Inline(codes) => Some(codes.into_iter().map(str::to_owned).collect()),
        _ => None,
    }
}

#[test]
fn the_code_is_found_after_the_options() {
    let s = |t: &'static str| Some(t);
    assert_eq!(
        inline(Lang::Python, &[s("-c"), s("X")]),
        Some(vec!["X".into()])
    );
    assert_eq!(
        inline(
            Lang::Python,
            &[s("-I"), s("-W"), s("ignore"), s("-c"), s("X"), s("-c")]
        ),
        Some(vec!["X".into()])
    );
    assert_eq!(
        inline(Lang::Python, &[s("-Sc"), s("X")]),
        Some(vec!["X".into()])
    );
    assert_eq!(inline(Lang::Python, &[s("-cX")]), Some(vec!["X".into()]));
    assert_eq!(
        inline(Lang::Python, &[s("-3.12"), s("-c"), s("X")]),
        Some(vec!["X".into()])
    );
    assert!(matches!(
        source(Lang::Python, &[s("tool.py"), s("-c"), s("X")]),
        Source::File
    ));
    assert!(matches!(source(Lang::Python, &[None]), Source::OpaqueFile));
    assert!(matches!(
        source(Lang::Python, &[s("/dev/stdin")]),
        Source::Stdin
    ));
    assert!(matches!(
        source(Lang::Python, &[s("-m"), s("http.server")]),
        Source::Elsewhere
    ));
    assert!(matches!(source(Lang::Python, &[s("-")]), Source::Stdin));
    assert!(matches!(source(Lang::Python, &[]), Source::Stdin));
    assert!(matches!(
        source(Lang::Python, &[s("-c"), None]),
        Source::Opaque
    ));
    assert_eq!(
        inline(
            Lang::Node,
            &[s("--require"), s("ts-node/register"), s("-e"), s("X")]
        ),
        Some(vec!["X".into()])
    );
    assert_eq!(inline(Lang::Node, &[s("--eval=X")]), Some(vec!["X".into()]));
    assert_eq!(
        inline(Lang::Node, &[s("-p"), s("X")]),
        Some(vec!["X".into()])
    );
    assert_eq!(
        inline(
            Lang::Ruby,
            &[s("-rfileutils"), s("-e"), s("A"), s("-e"), s("B")]
        ),
        Some(vec!["A".into(), "B".into()])
    );
    assert_eq!(
        inline(Lang::Perl, &[s("-ne"), s("X"), s("f.txt")]),
        Some(vec!["X".into()])
    );
    assert_eq!(
        inline(Lang::Perl, &[s("-E"), s("X")]),
        Some(vec!["X".into()])
    );
    assert_eq!(
        inline(Lang::Php, &[s("-r"), s("X")]),
        Some(vec!["X".into()])
    );
    assert_eq!(
        inline(Lang::Deno, &[s("eval"), s("X")]),
        Some(vec!["X".into()])
    );
    assert!(matches!(
        source(Lang::Deno, &[s("run"), s("x.ts")]),
        Source::File
    ));
    assert!(matches!(
        source(Lang::Deno, &[s("run"), s("-")]),
        Source::Stdin
    ));
    assert!(matches!(
        source(Lang::Python, &[s("-V")]),
        Source::Elsewhere
    ));
    assert!(matches!(source(Lang::Deno, &[]), Source::Elsewhere));
}
