//! Getting things back, as a person does it (issue 16): transaction references, `list`,
//! `show`, `undo`/`redo`, restore by path, `gc`, `status`, and what `check`/`safe-delete`
//! name. Every delete here is the real command after `check --enforce` or `safe-delete`.

use serde_json::Value;

use crate::support::{TestEnv, enforce, pty, run_shell, txids};

fn ok_json(env: &TestEnv, args: &[&str]) -> Value {
    let output = env.cmd("agent-guard").args(args).output().unwrap();
    assert!(output.status.success(), "{args:?}: {output:?}");
    serde_json::from_slice(&output.stdout).unwrap()
}

fn run(env: &TestEnv, args: &[&str]) -> (i32, String, String) {
    let output = env.cmd("agent-guard").args(args).output().unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Deletes `path` through the guard and the real `rm`; returns the txid.
fn delete(env: &TestEnv, path: &str) -> String {
    let command = format!("rm -rf {path}");
    let (code, report) = enforce(env, &command);
    assert_eq!(code, 0, "{report}");
    run_shell(env, &command);
    assert!(!env.ws().join(path).exists());
    txids(&report).remove(0)
}

#[test]
fn references_prefixes_suffixes_and_relative_forms() {
    let env = TestEnv::new();
    let first = delete(&env, "notes.txt");
    let second = delete(&env, "build");
    // `@` is the newest undoable, `@-` the one before; a unique suffix or prefix names one.
    assert_eq!(
        ok_json(&env, &["show", "@", "--json"])["txid"],
        second.as_str()
    );
    assert_eq!(
        ok_json(&env, &["show", "@-", "--json"])["txid"],
        first.as_str()
    );
    assert_eq!(
        ok_json(&env, &["show", "@-1", "--json"])["txid"],
        first.as_str()
    );
    assert_eq!(
        ok_json(&env, &["show", &second[second.len() - 6..], "--json"])["txid"],
        second.as_str()
    );
    // A shared prefix (the date) is ambiguous: an error that lists the matches.
    let (code, _, stderr) = run(&env, &["show", &first[..8]]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains(&first) && stderr.contains(&second),
        "{stderr}"
    );
    // Restore by a unique part.
    let restored = ok_json(&env, &["restore", &first[first.len() - 8..], "--json"]);
    assert_eq!(restored["txid"], first.as_str());
    assert_eq!(env.read("notes.txt"), "notes\n");
    // The one that is left is `@` now.
    assert_eq!(ok_json(&env, &["show", "--json"])["txid"], second.as_str());
}

#[test]
fn list_shows_size_age_local_time_state_and_what() {
    let env = TestEnv::new();
    let build = delete(&env, "build");
    let notes = delete(&env, "notes.txt");
    ok_json(&env, &["restore", &notes, "--json"]);
    let list = ok_json(&env, &["list", "--json"]);
    // The restored one is hidden by default and counted.
    assert_eq!(list["total"], 1);
    assert_eq!(list["hidden"], 1);
    let row = &list["transactions"][0];
    assert_eq!(row["txid"], build.as_str());
    assert_eq!(row["what"], "build/");
    assert_eq!(row["bytes"], 14); // "object\n" + "report\n"
    let all = ok_json(&env, &["list", "--json", "--all", "--limit", "1"]);
    assert_eq!(all["total"], 2);
    assert_eq!(all["transactions"].as_array().unwrap().len(), 1);
    let (_, text, _) = run(&env, &["list", "--all", "--limit", "1"]);
    assert!(text.contains("1 of 2 shown"), "{text}");
    let (_, text, _) = run(&env, &["list"]);
    assert!(text.contains("just now") && text.contains("14 B"), "{text}");
    assert!(
        text.contains("1 restored, purged or empty transaction(s) hidden"),
        "{text}"
    );
}

#[test]
fn show_lists_a_directory_and_hints_by_state() {
    let env = TestEnv::new();
    let txid = delete(&env, "build");
    let (_, text, stderr) = run(&env, &["show", &txid]);
    assert!(
        text.contains("out/app.o") && text.contains("report.txt"),
        "{text}"
    );
    assert!(stderr.contains(&format!("restore with `agent-guard restore {txid}`")));
    ok_json(&env, &["restore", &txid, "--json"]);
    let (_, _, stderr) = run(&env, &["show", &txid]);
    assert!(stderr.contains("already restored"), "{stderr}");
    assert!(!stderr.contains("restore with"), "{stderr}");
}

#[test]
fn show_gives_the_diffstat_of_a_git_snapshot() {
    let env = TestEnv::new();
    env.write("src/main.rs", "fn main() { println!(\"hi\"); }\n");
    let (code, report) = enforce(&env, "git reset --hard");
    assert_eq!(code, 0, "{report}");
    run_shell(&env, "git reset --hard");
    let txid = txids(&report).remove(0);
    let show = ok_json(&env, &["show", &txid, "--json"]);
    let stat = &show["snapshots"][0]["diffstat"][0];
    assert_eq!(stat["path"], "src/main.rs");
    assert_eq!(
        (stat["added"].as_u64(), stat["removed"].as_u64()),
        (Some(1), Some(1))
    );
    let (_, text, _) = run(&env, &["show", &txid]);
    assert!(text.contains("src/main.rs | +1 -1"), "{text}");
    assert!(!text.contains('{'), "no raw JSON: {text}");
}

#[test]
fn undo_names_what_it_undid_steps_back_and_skips_conflicts() {
    let env = TestEnv::new();
    let notes = delete(&env, "notes.txt");
    let build = delete(&env, "build");
    let dist = delete(&env, "dist");
    // Something new is at dist before the undo: its restore conflicts.
    env.write("dist", "new\n");
    let queue = ok_json(&env, &["undo", "--list", "--json"]);
    let ids: Vec<&str> = queue["queue"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["txid"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [dist.as_str(), build.as_str(), notes.as_str()]);
    let (code, text, stderr) = run(&env, &["undo"]);
    assert_eq!(code, 3, "{text}{stderr}");
    assert!(text.contains(&dist) && text.contains("conflict"), "{text}");
    // The next undo steps past the conflicted one.
    let (code, text, _) = run(&env, &["undo"]);
    assert_eq!(code, 0);
    assert!(
        text.starts_with(&format!("undid {build}: build/")),
        "{text}"
    );
    assert!(env.ws().join("build/out/app.o").is_file());
    let (code, text, _) = run(&env, &["undo"]);
    assert_eq!(code, 0);
    assert!(text.contains(&notes), "{text}");
    let (code, _, stderr) = run(&env, &["undo"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("nothing to undo"), "{stderr}");
    // The conflicted one is still there for a person to decide.
    let forced = ok_json(&env, &["restore", &dist, "--force", "--json"]);
    assert_eq!(forced["ok"], true);
    assert_eq!(env.read("dist/bundle.js"), "bundle\n");
    // What the forced restore replaced (the new dist) is kept; redo puts it back.
    let backup = forced["backup_txids"][0].as_str().unwrap().to_owned();
    std::fs::remove_dir_all(env.ws().join("dist")).unwrap();
    let redone = ok_json(&env, &["redo", "--json"]);
    assert_eq!(redone["txid"], backup.as_str());
    assert_eq!(env.read("dist"), "new\n");
}

#[test]
fn restore_by_path_takes_the_newest_or_lets_a_person_choose() {
    let env = TestEnv::new();
    let old = delete(&env, "notes.txt");
    env.write("notes.txt", "second\n");
    let new = delete(&env, "notes.txt");
    // Without a terminal: the newest, and a hint naming the older one.
    let (code, text, stderr) = run(&env, &["restore", "notes.txt"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(text.contains(&new), "{text}");
    assert!(
        stderr.contains(&format!("agent-guard restore {old} --path notes.txt")),
        "{stderr}"
    );
    assert_eq!(env.read("notes.txt"), "second\n");
    // On a terminal with several holders, the person picks (2 = the older one).
    delete(&env, "notes.txt");
    let chosen = pty(&env, &["restore", "notes.txt"], "2\n", &[]);
    assert_eq!(chosen.code, 0, "{}", chosen.text);
    assert!(chosen.text.contains("which one?"), "{}", chosen.text);
    assert_eq!(env.read("notes.txt"), "notes\n");
    // A path nothing holds says so.
    let (code, _, stderr) = run(&env, &["restore", "never/was.txt"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("names no transaction of this workspace"),
        "{stderr}"
    );
}

#[test]
fn gc_is_quiet_with_nothing_to_do_and_purges_recent_ones_only_when_asked() {
    let env = TestEnv::new();
    let (code, _, _) = run(&env, &["gc", "--execute", "--all-eligible"]);
    assert_eq!(code, 0, "a cron job on a quiet day succeeds");
    let txid = delete(&env, "build");
    // Inside the grace window nothing is eligible.
    let plan = ok_json(&env, &["gc", "--json"]);
    assert_eq!(plan["plan"]["eligible"].as_array().unwrap().len(), 0);
    // --now needs a person: refused without a terminal and without --yes.
    let (code, _, stderr) = run(&env, &["gc", "--execute", "--all", "--now"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("--yes"), "{stderr}");
    assert!(env.trash().join(&txid).is_dir());
    // On a terminal, "n" keeps it, "y" purges it.
    let declined = pty(&env, &["gc", "--execute", "--all", "--now"], "n\n", &[]);
    assert!(
        declined.text.contains("nothing purged"),
        "{}",
        declined.text
    );
    assert!(env.trash().join(&txid).is_dir());
    let accepted = pty(&env, &["gc", "--execute", "--all", "--now"], "y\n", &[]);
    assert_eq!(accepted.code, 0, "{}", accepted.text);
    assert!(!env.trash().join(&txid).exists());
    // --yes is the scripted form.
    let other = delete(&env, "dist");
    let purged = ok_json(
        &env,
        &[
            "gc",
            "--execute",
            "--txid",
            &other[other.len() - 8..],
            "--now",
            "--yes",
            "--json",
        ],
    );
    assert_eq!(purged["outcome"]["purged"][0], other.as_str());
}

#[test]
fn status_runs_with_a_broken_config_and_keeps_its_lines() {
    let env = TestEnv::new();
    delete(&env, "notes.txt");
    env.write(".agent-guard.toml", "[retention]\ndays = \"many\"\n");
    let (code, text, stderr) = run(&env, &["status", "--tail", "2"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("BLOCK_CONFIG_INVALID"), "{stderr}");
    assert!(!stderr.contains('\u{FFFD}'), "newlines survive: {stderr}");
    assert!(stderr.lines().count() > 2, "{stderr}");
    assert!(text.contains("last 2 audit record(s)"), "{text}");
    let json = ok_json(&env, &["status", "--json"]);
    assert!(json["config_error"].as_str().is_some());
}

#[test]
fn check_and_safe_delete_name_targets_workspace_and_the_next_command() {
    let env = TestEnv::new();
    let report = env.check_json("rm -rf ../elsewhere");
    assert_eq!(report["code"], "BLOCK_OUT_OF_WORKSPACE");
    assert_eq!(
        report["command"], "rm -rf ../elsewhere",
        "shown to the person who ran it"
    );
    assert_eq!(report["ops"][0]["targets"][0], "../elsewhere");
    let workspace = report["workspace"].as_str().unwrap().to_owned();
    let (_, text, _) = run(&env, &["check", "rm -rf ../elsewhere"]);
    assert!(
        text.contains("../elsewhere") && text.contains(&workspace),
        "{text}"
    );
    // The audit log still redacts it.
    let audit = std::fs::read_to_string(env.trash().join("audit.jsonl")).unwrap();
    assert!(!audit.contains("elsewhere"));
    // A refused wildcard gets the ready-to-paste safe-delete.
    let report = env.check_json("rm */*.txt");
    assert_eq!(report["suggestion"], "agent-guard safe-delete '*/*.txt'");
    let (_, _, stderr) = run(&env, &["check", "rm */*.txt"]);
    assert!(
        stderr.contains("agent-guard safe-delete '*/*.txt'"),
        "{stderr}"
    );
    // Every refusal ends with the next thing to type.
    let (_, _, stderr) = run(&env, &["check", "rm -rf /"]);
    assert!(
        stderr.contains("hint:") && stderr.contains("agent-guard explain"),
        "{stderr}"
    );
    // safe-delete: --dry-run lists the matches; a missing path is named; moves say how much.
    let (code, text, _) = run(&env, &["safe-delete", "--dry-run", "build/*"]);
    assert_eq!(code, 0);
    assert!(
        text.contains("would move") && text.contains("build/report.txt"),
        "{text}"
    );
    assert!(env.ws().join("build/report.txt").exists());
    let (code, text, stderr) = run(&env, &["safe-delete", "notes.txt", "missing.txt"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(text.contains("moved 1 item(s), 6 B"), "{text}");
    assert!(stderr.contains("`missing.txt` does not exist"), "{stderr}");
    let json = ok_json(&env, &["safe-delete", "--json", "dist", "gone.txt"]);
    assert_eq!(json["absent"][0], "gone.txt");
    assert_eq!(json["moved"][0]["bytes"], 7);
}
