//! Strings bash evaluates as code (issue 35, from the second outside review): arithmetic
//! evaluates a variable's value again and runs the command substitutions of its array
//! subscripts; `${x@P}` runs those of a prompt. A value the line does not show (read from a
//! file the agent wrote earlier) is checkpointed and undone; one written on the line is
//! judged by what it runs, however it is spelled. Each line is checked with `check
//! --enforce` and, when allowed, run for real by `bash`.

use crate::support::{TestEnv, enforce, undone_after_run};

/// What the file the agent wrote earlier holds: an array subscript that deletes `src/`.
const PAYLOAD: &str = "a[$(rm -rf src)]\n";

fn workspace() -> TestEnv {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.ws().join("src/deep")).unwrap();
    std::fs::write(env.ws().join("src/deep/lib.rs"), "pub fn kept() {}\n").unwrap();
    std::fs::write(env.ws().join("evil.txt"), PAYLOAD).unwrap();
    env
}

fn bash(env: &TestEnv, line: &str) {
    let status = std::process::Command::new("bash")
        .args(["-c", line])
        .current_dir(env.ws())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    // The lines fail or succeed as bash pleases; what matters is what they deleted.
    let _ = status;
}

/// Values read at run time reach arithmetic: checkpointed, run, deleted, undone.
const BUILT: &[&str] = &[
    "x=$(cat evil.txt); echo $((x))",
    "read x < evil.txt; echo $((x))",
    "read x < evil.txt; [[ $x -eq 1 ]]",
    "mapfile -t v < evil.txt; (( v[0] ))",
    "for x in \"$(cat evil.txt)\"; do let y=x; done",
    "printf -v x 'a[$%s(rm -rf src)]' ''; echo $((x))",
    "x=`cat evil.txt`; declare -a arr; echo ${arr[$x]}",
    // Found by an outside review: values built by expansions, and more contexts.
    "d=$; x=\"a[${d}(rm -rf src)]\"; echo $((x))",
    "d=$; x=\"a[${d}(rm -rf src)]\"; echo ${!x}",
    "d=$; x=\"a[${d}(rm -rf src)]\"; declare -n r=$x; echo $r",
    "d=$; x=\"a[${d}(rm -rf src)]\"; [[ -v $x ]]",
    "d=$; x=\"a[${d}(rm -rf src)]\"; test -v \"$x\"",
    "d=$; x=\"a[${d}(rm -rf src)]\"; echo $[x]",
    "d=$; x=\"a[${d}(rm -rf src)]\"; s=abc; echo ${s:x}",
    "d=$; x=\"b[${d}(rm -rf src)]\"; a=(1); echo ${a[x]}",
    "d=$; x=\"a[${d}(rm -rf src)]\"; for ((i=x;i<0;i++)); do :; done",
    "x='a[%(rm -rf src)]'; echo $((${x/\\%/$}))",
    "read x < evil.txt; echo ${!x}",
];

#[test]
fn a_value_read_at_run_time_into_arithmetic_is_checkpointed_and_undone() {
    for line in BUILT {
        undone_after_run(
            &workspace(),
            line,
            "SNAPSHOT_CHECKPOINT",
            |env| bash(env, line),
            |env| !env.ws().join("src").exists(),
        );
    }
}

/// Strings written on the line that run a delete when bash evaluates them: refused, and
/// `src/` is still there (the line is not run).
const WRITTEN: &[&str] = &[
    "x='$(rm -rf src)'; echo \"${x@P}\"",
    "x='\\$(rm -rf src)'; echo \"${x@P}\"",
    "x='a[$(r\"\"m -rf src)]'; echo $((x))",
    "x='a[`r\"\"m -rf src`]'; (( x ))",
    "x=$'a[\\x24(rm -rf src)]'; echo $((x))",
    "[[ 'a[$(\\rm -rf src)]' -eq 1 ]]",
];

#[test]
fn a_string_written_on_the_line_that_bash_runs_is_refused() {
    for line in WRITTEN {
        let env = workspace();
        let (exit, report) = enforce(&env, line);
        assert_eq!(exit, 2, "{line}: {report}");
        assert_eq!(
            report["code"], "BLOCK_UNDETERMINABLE_EFFECT",
            "{line}: {report}"
        );
        assert!(env.ws().join("src/deep/lib.rs").exists(), "{line}");
    }
}

/// Control: the same line run after an allow really deletes (the payload is live), and
/// lines whose values are numbers or shown harmless strings stay free.
#[test]
fn the_payload_is_live_and_harmless_arithmetic_stays_free() {
    let env = workspace();
    bash(&env, "x='a[$(r\"\"m -rf src)]'; echo $((x))");
    assert!(
        !env.ws().join("src").exists(),
        "the written payload runs in bash"
    );
    let env = workspace();
    for line in [
        "n=$(wc -l < evil.txt); echo $((n*2))",
        "n=$(ls | wc -l); echo $((n+1))",
        "x=$(cat evil.txt); echo \"$x\"",
        "echo ${arr[$i]}",
        "echo '$(date)'; [ -f x ]",
        "x='$(date)'; echo $((1+2))",
    ] {
        assert_eq!(env.check_json(line)["code"], "ALLOW_NOOP", "{line}");
    }
}
