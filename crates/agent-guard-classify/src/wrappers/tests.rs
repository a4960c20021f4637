use super::*;

fn run(words: &str) -> Unwrap {
    let args: Vec<Arg> = words.split_whitespace().map(Arg::literal).collect();
    unwrap(&args)
}

fn start(words: &str) -> usize {
    match run(words) {
        Unwrap::Command(u) => u.start,
        other => panic!("{words}: {other:?}"),
    }
}

#[test]
fn finds_the_wrapped_command() {
    assert_eq!(start("rm -rf x"), 0);
    assert_eq!(start("sudo -u root rm -rf ."), 3);
    assert_eq!(start("nice -n 5 rm -rf ."), 3);
    assert_eq!(start("nice -5 rm -rf ."), 2);
    assert_eq!(start("command -- rm -rf ."), 2);
    assert_eq!(start("exec rm -rf ."), 1);
    assert_eq!(start("env FLAG=1 rm -rf ."), 2);
    assert_eq!(start("env -i -u X A=1 B=2 rm x"), 6);
    assert_eq!(start("timeout -s KILL 10 rm -rf x"), 4);
    assert_eq!(start("xargs -0 -n 1 rm -rf"), 4);
    assert_eq!(start("sudo env nice nohup time -p stdbuf -oL rm x"), 8);
    assert_eq!(start("/usr/bin/sudo /usr/bin/rm x"), 1);
}

#[test]
fn help_and_version_run_nothing() {
    for words in [
        "sudo -e rm",
        "nice --version rm",
        "nohup --help rm",
        "time --version rm",
        "stdbuf --help rm",
        "xargs --show-limits rm",
        "command -v rm",
        "env",
        "timeout 5",
    ] {
        assert_eq!(run(words), Unwrap::NoCommand, "{words}");
    }
}

#[test]
fn unknown_arity_is_ambiguous() {
    for words in [
        "env -S 'rm -rf .'",
        "sudo -s rm",
        "sudo -i",
        "sudo --weird rm",
        "stdbuf -q rm",
    ] {
        assert!(matches!(run(words), Unwrap::Ambiguous(_)), "{words}");
    }
}

#[test]
fn records_stdin_cwd_and_assignments() {
    let Unwrap::Command(u) = run("env -C /tmp GIT_DIR=x git reset --hard") else {
        panic!()
    };
    assert!(u.changes_cwd);
    assert_eq!(u.assigned, ["GIT_DIR"]);
    let Unwrap::Command(u) = run("xargs rm") else {
        panic!()
    };
    assert!(u.from_stdin);
}

fn script(words: &str) -> Option<String> {
    match run(words) {
        Unwrap::Script(_, script) => script,
        other => panic!("{words}: {other:?}"),
    }
}

#[test]
fn programs_that_run_their_arguments_are_peeled() {
    for (words, at) in [
        ("busybox rm -rf x", 1),
        ("toybox rm x", 1),
        ("coproc rm -rf x", 1),
        ("flock /tmp/l rm -rf x", 2),
        ("flock -n -w 5 /tmp/l rm x", 5),
        ("setsid -f -w rm x", 3),
        ("ionice -c 3 -n 7 rm x", 5),
        ("taskset -c 0-3 rm x", 3),
        ("taskset 0x1 rm x", 2),
        ("chrt -f 10 rm x", 3),
        ("chrt -b rm x", 2),
        ("unbuffer -p rm x", 2),
        ("runuser -u bob -- rm x", 4),
        ("watch -x -n 2 rm x", 4),
        ("pkexec --user root rm x", 3),
        ("strace -f -o t.txt rm x", 4),
        ("fakeroot -- rm x", 2),
        ("nocache rm x", 1),
        ("eatmydata rm x", 1),
        ("xvfb-run -a rm x", 2),
        ("setarch x86_64 -R rm x", 3),
        ("linux32 rm x", 1),
        ("caffeinate -i rm x", 2),
        ("cgexec -g cpu:low rm x", 3),
        ("numactl -N 0 -m 0 rm x", 5),
        ("ssh-agent rm x", 1),
        ("entr -r rm x", 2),
        ("sudo flock /l busybox rm x", 4),
        ("env -a cleaner rm x", 3),
    ] {
        assert_eq!(start(words), at, "{words}");
    }
}

#[test]
fn command_strings_are_reported() {
    assert_eq!(script("flock /tmp/l -c rm").as_deref(), Some("rm"));
    assert_eq!(script("flock /tmp/l --command rm").as_deref(), Some("rm"));
    assert_eq!(script("su -c rm root").as_deref(), Some("rm"));
    assert_eq!(script("su root -c rm").as_deref(), Some("rm"));
    assert_eq!(script("script -qc rm /dev/null").as_deref(), Some("rm"));
    assert_eq!(script("runuser -u bob -c rm").as_deref(), Some("rm"));
    assert_eq!(script("watch -n 5 rm -rf x").as_deref(), Some("rm -rf x"));
    assert_eq!(script("sg dev -c rm").as_deref(), Some("rm"));
    assert_eq!(script("entr -s rm").as_deref(), Some("rm"));
    let Unwrap::Script(found, _) = run("su - bob -c rm") else {
        panic!()
    };
    assert!(found.changes_cwd, "a login shell starts at home");
}

#[test]
fn forms_that_run_nothing() {
    for words in [
        "busybox --list",
        "busybox",
        "flock 9",
        "flock -u 9",
        "ionice -p 42",
        "taskset -p 42",
        "chrt -m",
        "script typescript",
        "su",
        "su - bob",
        "watch --version",
        "setarch x86_64",
        "ssh-agent -k",
        "numactl --hardware",
    ] {
        assert_eq!(run(words), Unwrap::NoCommand, "{words}");
    }
}

#[test]
fn unknown_options_and_other_roots_are_ambiguous() {
    for words in [
        "flock --weird /l rm",
        "setsid -z rm",
        "taskset --bogus 1 rm",
        "watch -z rm",
        "strace --weird rm",
        "chroot /jail rm",
        "su bob rm -rf x",
        "systemd-run --user rm",
    ] {
        assert!(matches!(run(words), Unwrap::Ambiguous(_)), "{words}");
    }
}
