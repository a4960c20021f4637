//! The human CLI (issue 16): colour on a terminal only, `--help` that teaches (snapshots),
//! the human `list`/`show`/`status` on the example quarantine (snapshots), `explain`,
//! completions and man pages (`agent-guard-mcp --help` is tested in its crate).

use clap::CommandFactory as _;

use crate::example::install_example;
use crate::support::{TestEnv, json, pty};

const ESC: char = '\u{1b}';

/// The fixed clock and zone of the snapshot tests.
const NOW: &str = "2026-11-30T12:00:00Z";

fn human(env: &TestEnv, args: &[&str]) -> String {
    let output = env
        .cmd("agent-guard")
        .args(args)
        .env("AGENT_GUARD_NOW", NOW)
        .env("TZ", "UTC")
        .output()
        .unwrap();
    assert!(output.status.success(), "{args:?}: {output:?}");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let text = text
        .replace(&*env.trash().to_string_lossy(), "[STORE]")
        .replace(&*env.ws().to_string_lossy(), "[WS]");
    // The quarantine's total size counts its journals, which hold the workspace path: its
    // length depends on the temporary directory.
    text.lines()
        .map(|line| match line.rsplit_once(", ") {
            Some((head, _))
                if line.starts_with("quarantine [STORE]") || line.starts_with("usage") =>
            {
                format!("{head}, [SIZE]")
            }
            _ => line.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn colour_on_a_terminal_none_when_piped_or_disabled() {
    let env = TestEnv::new();
    // Piped: no escape codes, even for a BLOCK.
    let piped = env.ag(&["check", "rm -rf /"]);
    let text = String::from_utf8_lossy(&piped.stdout);
    assert!(text.starts_with("BLOCK ["), "{text}");
    assert!(!text.contains(ESC));
    // On a terminal: BLOCK is red and bold.
    let tty = pty(&env, &["check", "rm -rf /"], "", &[]);
    assert!(
        tty.text.contains("\u{1b}[1m\u{1b}[31mBLOCK"),
        "{:?}",
        tty.text
    );
    // NO_COLOR and --color never turn it off on a terminal; --color always forces it.
    let no_color = pty(&env, &["check", "rm -rf /"], "", &[("NO_COLOR", "1")]);
    assert!(!no_color.text.contains(ESC), "{:?}", no_color.text);
    let never = pty(&env, &["--color", "never", "check", "rm -rf /"], "", &[]);
    assert!(!never.text.contains(ESC), "{:?}", never.text);
    let forced = env.ag(&["--color", "always", "check", "rm -rf /"]);
    assert!(String::from_utf8_lossy(&forced.stdout).contains(ESC));
    // clap's own errors use the same palette on a terminal.
    let usage = pty(&env, &["list", "--bogus"], "", &[]);
    assert_eq!(usage.code, 2);
    assert!(
        usage.text.contains("\u{1b}[1m\u{1b}[31merror:"),
        "{:?}",
        usage.text
    );
}

/// Every command's `--help`, for the umbrella binary, the short-named ones and the MCP server.
#[test]
fn every_help_is_snapshotted() {
    let env = TestEnv::new();
    let mut names = vec![String::new()];
    names.extend(
        agent_guard_cli::args::Cli::command()
            .get_subcommands()
            .map(|c| c.get_name().to_owned()),
    );
    for name in &names {
        let mut args: Vec<&str> = Vec::new();
        if !name.is_empty() {
            args.push(name);
        }
        args.push("--help");
        let output = env
            .cmd("agent-guard")
            .args(&args)
            .env("COLUMNS", "100")
            .output()
            .unwrap();
        assert!(output.status.success(), "{args:?}");
        let text = String::from_utf8(output.stdout).unwrap();
        let help = text.to_ascii_lowercase();
        // Every command teaches: examples or exit codes, in the long help.
        if !matches!(name.as_str(), "" | "completions" | "man") {
            assert!(help.contains("exit codes"), "{name}: no exit codes");
        }
        let snapshot = if name.is_empty() {
            "help".to_owned()
        } else {
            format!("help-{name}")
        };
        insta::assert_snapshot!(snapshot, text);
    }
    for bin in ["check", "safe_delete", "restore", "status", "gc"] {
        let output = env
            .cmd(bin)
            .args(["--help"])
            .env("COLUMNS", "100")
            .output()
            .unwrap();
        assert!(output.status.success());
        insta::assert_snapshot!(
            format!("help-bin-{bin}"),
            String::from_utf8(output.stdout).unwrap()
        );
    }
}

#[test]
fn human_list_show_and_status_of_the_example() {
    let env = TestEnv::new();
    install_example(&env);
    insta::assert_snapshot!("list", human(&env, &["list"]));
    insta::assert_snapshot!("list-all", human(&env, &["list", "--all", "--limit", "1"]));
    insta::assert_snapshot!("show", human(&env, &["show", "0a1b"]));
    insta::assert_snapshot!("show-restored", human(&env, &["show", "4e5f6a7b"]));
    insta::assert_snapshot!("status", human(&env, &["status", "--tail", "3"]));
}

#[test]
fn explain_prints_the_docs_section_of_a_code() {
    let env = TestEnv::new();
    let docs = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/reasons.md"),
    )
    .unwrap();
    let output = env.ag(&["explain", "block-wildcard", "--json"]);
    assert!(output.status.success());
    let explained = json(&output);
    assert_eq!(explained["code"], "BLOCK_WILDCARD");
    assert!(docs.contains(explained["markdown"].as_str().unwrap()));
    let text = human(&env, &["explain", "BLOCK_WILDCARD"]);
    assert!(
        text.contains("What it catches") && text.contains("Recovery"),
        "{text}"
    );
    // Unknown: exit 2 with the near names.
    let unknown = env.ag(&["explain", "wildcards"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("did you mean BLOCK_WILDCARD"));
    // Without a code: every code, one line each.
    let all = human(&env, &["explain"]);
    assert_eq!(all.lines().count(), docs.matches("\n## ").count(), "{all}");
}

#[test]
fn completions_and_man_pages_are_generated_and_installable() {
    let env = TestEnv::new();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let output = env.ag(&["completions", shell]);
        assert!(output.status.success(), "{shell}");
        let script = String::from_utf8(output.stdout).unwrap();
        assert!(
            script.contains("safe-delete") && script.contains("undo"),
            "{shell}"
        );
    }
    // The bash script is valid bash and completes subcommands.
    let bash = env
        .std_cmd("bash")
        .args([
            "-c",
            &format!(
                "source <({} completions bash); COMP_WORDS=(agent-guard un); COMP_CWORD=1; \
                 _agent__guard agent-guard un agent-guard && printf '%s\\n' \"${{COMPREPLY[@]}}\"",
                assert_cmd::cargo::cargo_bin!("agent-guard").display()
            ),
        ])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&bash.stdout)
            .lines()
            .any(|l| l == "undo"),
        "{bash:?}"
    );
    let page = env.ag(&["man"]);
    assert!(String::from_utf8_lossy(&page.stdout).contains(".TH agent-guard 1"));
    let dir = env.ws().join("man1");
    let listed = env
        .cmd("agent-guard")
        .args(["man", "--dir"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(listed.status.success());
    for name in [
        "agent-guard.1",
        "agent-guard-undo.1",
        "agent-guard-restore.1",
    ] {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        assert!(text.contains(".TH"), "{name}");
    }
}
