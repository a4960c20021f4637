//! Option tables of the wrapper programs, one per program, from their manuals (sudo 1.9,
//! GNU coreutils 9, util-linux 2.39, procps-ng 4, findutils 4.9, expect, strace 6).
//!
//! Canonical names the unwrapper acts on: `none` (nothing runs: `--help`, `--version`, a
//! pid form), `shell` (a login or interactive shell: what runs is unknown), `chdir` (the
//! command runs in another directory), `chroot` (under another root), `command` (a command
//! string for the shell), `exec` (`watch -x`: the operands are an argv, not a string),
//! `user` (`runuser -u`: the command follows the options). Everything else is neutral.

use crate::getopt::Opt;

pub(super) const SUDO: &[Opt] = &[
    Opt::flag("A", Some('A'), Some("askpass")),
    Opt::flag("b", Some('b'), Some("background")),
    Opt::optional("E", Some('E'), Some("preserve-env")),
    Opt::flag("H", Some('H'), Some("set-home")),
    Opt::flag("k", Some('k'), Some("reset-timestamp")),
    Opt::flag("n", Some('n'), Some("non-interactive")),
    Opt::flag("P", Some('P'), Some("preserve-groups")),
    Opt::flag("S", Some('S'), Some("stdin")),
    Opt::flag("B", Some('B'), Some("bell")),
    Opt::value("C", Some('C'), Some("close-from")),
    Opt::value("chdir", Some('D'), Some("chdir")),
    Opt::value("g", Some('g'), Some("group")),
    Opt::value("h", Some('h'), Some("host")),
    Opt::value("p", Some('p'), Some("prompt")),
    Opt::value("chroot", Some('R'), Some("chroot")),
    Opt::value("r", Some('r'), Some("role")),
    Opt::value("t", Some('t'), Some("type")),
    Opt::value("T", Some('T'), Some("command-timeout")),
    Opt::value("u", Some('u'), Some("user")),
    Opt::value("U", Some('U'), Some("other-user")),
    Opt::flag("shell", Some('s'), Some("shell")),
    Opt::flag("shell", Some('i'), Some("login")),
    Opt::flag("none", Some('e'), Some("edit")),
    Opt::flag("none", Some('K'), Some("remove-timestamp")),
    Opt::flag("none", Some('V'), Some("version")),
    Opt::flag("none", Some('v'), Some("validate")),
    Opt::flag("none", Some('l'), Some("list")),
    Opt::flag("none", None, Some("help")),
];

pub(super) const ENV: &[Opt] = &[
    Opt::flag("i", Some('i'), Some("ignore-environment")),
    Opt::flag("0", Some('0'), Some("null")),
    Opt::flag("v", Some('v'), Some("debug")),
    Opt::value("u", Some('u'), Some("unset")),
    Opt::value("a", Some('a'), Some("argv0")),
    Opt::value("chdir", Some('C'), Some("chdir")),
    Opt::value("split", Some('S'), Some("split-string")),
    Opt::optional("sig", None, Some("block-signal")),
    Opt::optional("sig", None, Some("default-signal")),
    Opt::optional("sig", None, Some("ignore-signal")),
    Opt::flag("sig", None, Some("list-signal-handling")),
    Opt::flag("none", None, Some("help")),
    Opt::flag("none", None, Some("version")),
];

pub(super) const NICE: &[Opt] = &[
    Opt::value("n", Some('n'), Some("adjustment")),
    Opt::flag("none", None, Some("help")),
    Opt::flag("none", None, Some("version")),
];

pub(super) const NOHUP: &[Opt] = &[
    Opt::flag("none", None, Some("help")),
    Opt::flag("none", None, Some("version")),
];

pub(super) const COMMAND: &[Opt] = &[
    Opt::flag("p", Some('p'), None),
    Opt::flag("none", Some('v'), None),
    Opt::flag("none", Some('V'), None),
];

pub(super) const TIME: &[Opt] = &[
    Opt::flag("a", Some('a'), Some("append")),
    Opt::flag("p", Some('p'), Some("portability")),
    Opt::flag("v", Some('v'), Some("verbose")),
    Opt::flag("q", Some('q'), Some("quiet")),
    Opt::value("f", Some('f'), Some("format")),
    Opt::value("o", Some('o'), Some("output")),
    Opt::flag("none", None, Some("help")),
    Opt::flag("none", Some('V'), Some("version")),
];

pub(super) const STDBUF: &[Opt] = &[
    Opt::value("i", Some('i'), Some("input")),
    Opt::value("o", Some('o'), Some("output")),
    Opt::value("e", Some('e'), Some("error")),
    Opt::flag("none", None, Some("help")),
    Opt::flag("none", None, Some("version")),
];

pub(super) const EXEC: &[Opt] = &[
    Opt::flag("c", Some('c'), None),
    Opt::flag("l", Some('l'), None),
    Opt::value("a", Some('a'), None),
];

pub(super) const XARGS: &[Opt] = &[
    Opt::flag("0", Some('0'), Some("null")),
    Opt::flag("p", Some('p'), Some("interactive")),
    Opt::flag("r", Some('r'), Some("no-run-if-empty")),
    Opt::flag("t", Some('t'), Some("verbose")),
    Opt::flag("x", Some('x'), Some("exit")),
    Opt::flag("o", Some('o'), Some("open-tty")),
    Opt::value("a", Some('a'), Some("arg-file")),
    Opt::value("d", Some('d'), Some("delimiter")),
    Opt::value("E", Some('E'), None),
    Opt::optional("e", Some('e'), Some("eof")),
    Opt::value("I", Some('I'), None),
    Opt::optional("i", Some('i'), Some("replace")),
    Opt::value("L", Some('L'), None),
    Opt::optional("l", Some('l'), Some("max-lines")),
    Opt::value("n", Some('n'), Some("max-args")),
    Opt::value("P", Some('P'), Some("max-procs")),
    Opt::value("s", Some('s'), Some("max-chars")),
    Opt::value("slot", None, Some("process-slot-var")),
    Opt::flag("none", None, Some("help")),
    Opt::flag("none", None, Some("show-limits")),
    Opt::flag("none", None, Some("version")),
];

pub(super) const TIMEOUT: &[Opt] = &[
    Opt::value("s", Some('s'), Some("signal")),
    Opt::value("k", Some('k'), Some("kill-after")),
    Opt::flag("ps", None, Some("preserve-status")),
    Opt::flag("fg", None, Some("foreground")),
    Opt::flag("v", Some('v'), Some("verbose")),
    Opt::flag("none", None, Some("help")),
    Opt::flag("none", None, Some("version")),
];

pub(super) const DOAS: &[Opt] = &[
    Opt::flag("n", Some('n'), None),
    Opt::flag("shell", Some('s'), None),
    Opt::value("u", Some('u'), None),
    Opt::value("none", Some('C'), None),
    Opt::flag("none", Some('L'), None),
];

/// util-linux `flock [options] FILE|DIR COMMAND…` / `… FILE -c STRING` / `… FD`.
pub(super) const FLOCK: &[Opt] = &[
    Opt::flag("s", Some('s'), Some("shared")),
    Opt::flag("x", Some('x'), Some("exclusive")),
    Opt::flag("x", Some('e'), None),
    Opt::flag("u", Some('u'), Some("unlock")),
    Opt::flag("n", Some('n'), Some("nonblock")),
    Opt::flag("n", None, Some("nb")),
    Opt::flag("o", Some('o'), Some("close")),
    Opt::flag("F", Some('F'), Some("no-fork")),
    Opt::flag("verbose", None, Some("verbose")),
    Opt::value("w", Some('w'), Some("wait")),
    Opt::value("w", None, Some("timeout")),
    Opt::value("E", Some('E'), Some("conflict-exit-code")),
    Opt::flag("none", Some('h'), Some("help")),
    Opt::flag("none", Some('V'), Some("version")),
];

/// util-linux `setsid [options] PROGRAM…`.
pub(super) const SETSID: &[Opt] = &[
    Opt::flag("c", Some('c'), Some("ctty")),
    Opt::flag("f", Some('f'), Some("fork")),
    Opt::flag("w", Some('w'), Some("wait")),
    Opt::flag("none", Some('h'), Some("help")),
    Opt::flag("none", Some('V'), Some("version")),
];

/// util-linux `ionice [-c class] [-n level] [-t] COMMAND…` (`-p`, `-P`, `-u` act on
/// running processes and run nothing).
pub(super) const IONICE: &[Opt] = &[
    Opt::value("c", Some('c'), Some("class")),
    Opt::value("n", Some('n'), Some("classdata")),
    Opt::flag("t", Some('t'), Some("ignore")),
    Opt::value("none", Some('p'), Some("pid")),
    Opt::value("none", Some('P'), Some("pgid")),
    Opt::value("none", Some('u'), Some("uid")),
    Opt::flag("none", Some('h'), Some("help")),
    Opt::flag("none", Some('V'), Some("version")),
];

/// util-linux `taskset [options] MASK COMMAND…` (`-p` acts on a running process).
pub(super) const TASKSET: &[Opt] = &[
    Opt::flag("a", Some('a'), Some("all-tasks")),
    Opt::flag("c", Some('c'), Some("cpu-list")),
    Opt::flag("none", Some('p'), Some("pid")),
    Opt::flag("none", Some('h'), Some("help")),
    Opt::flag("none", Some('V'), Some("version")),
];

/// util-linux `chrt [options] [PRIORITY] COMMAND…` (`-p` acts on a running process,
/// `-m` prints the ranges).
pub(super) const CHRT: &[Opt] = &[
    Opt::flag("a", Some('a'), Some("all-tasks")),
    Opt::flag("b", Some('b'), Some("batch")),
    Opt::flag("d", Some('d'), Some("deadline")),
    Opt::flag("f", Some('f'), Some("fifo")),
    Opt::flag("i", Some('i'), Some("idle")),
    Opt::flag("o", Some('o'), Some("other")),
    Opt::flag("r", Some('r'), Some("rr")),
    Opt::flag("R", Some('R'), Some("reset-on-fork")),
    Opt::flag("v", Some('v'), Some("verbose")),
    Opt::value("T", Some('T'), Some("sched-runtime")),
    Opt::value("P", Some('P'), Some("sched-period")),
    Opt::value("D", Some('D'), Some("sched-deadline")),
    Opt::flag("none", Some('m'), Some("max")),
    Opt::flag("none", Some('p'), Some("pid")),
    Opt::flag("none", Some('h'), Some("help")),
    Opt::flag("none", Some('V'), Some("version")),
];

/// expect's `unbuffer [-p] PROGRAM…`.
pub(super) const UNBUFFER: &[Opt] = &[Opt::flag("p", Some('p'), None)];

/// util-linux `script [options] [FILE]`: `-c STRING` runs a command string, otherwise an
/// interactive shell (nothing the guard can see).
/// `script`'s options, read both as a wrapper (`command`, `none`) and for the files it
/// writes itself (`append`, `log`, `timing`: `writes::script_logs`).
pub(crate) const SCRIPT: &[Opt] = &[
    Opt::value("command", Some('c'), Some("command")),
    Opt::flag("append", Some('a'), Some("append")),
    Opt::flag("e", Some('e'), Some("return")),
    Opt::flag("f", Some('f'), Some("flush")),
    Opt::flag("force", None, Some("force")),
    Opt::flag("q", Some('q'), Some("quiet")),
    Opt::value("E", Some('E'), Some("echo")),
    Opt::value("log", Some('B'), Some("log-io")),
    Opt::value("log", Some('I'), Some("log-in")),
    Opt::value("log", Some('O'), Some("log-out")),
    Opt::value("timing", Some('T'), Some("log-timing")),
    Opt::value("m", Some('m'), Some("logging-format")),
    Opt::value("o", Some('o'), Some("output-limit")),
    Opt::optional("timing", Some('t'), Some("timing")),
    Opt::flag("none", Some('h'), Some("help")),
    Opt::flag("none", Some('V'), Some("version")),
];

/// util-linux `su [options] [-] [USER [ARG…]]` and `runuser` (which adds `-u USER
/// COMMAND…`). `-c` runs a command string in the user's shell.
pub(super) const SU: &[Opt] = &[
    Opt::value("command", Some('c'), Some("command")),
    Opt::value("command", None, Some("session-command")),
    Opt::value("s", Some('s'), Some("shell")),
    Opt::value("g", Some('g'), Some("group")),
    Opt::value("G", Some('G'), Some("supp-group")),
    Opt::value("w", Some('w'), Some("whitelist-environment")),
    Opt::value("user", Some('u'), Some("user")),
    Opt::flag("l", Some('l'), Some("login")),
    Opt::flag("m", Some('m'), Some("preserve-environment")),
    Opt::flag("m", Some('p'), None),
    Opt::flag("f", Some('f'), Some("fast")),
    Opt::flag("P", Some('P'), Some("pty")),
    Opt::flag("none", Some('h'), Some("help")),
    Opt::flag("none", Some('V'), Some("version")),
];

/// procps `watch [options] COMMAND`: the words are joined and run with `sh -c` unless
/// `-x` is given.
pub(super) const WATCH: &[Opt] = &[
    Opt::flag("b", Some('b'), Some("beep")),
    Opt::flag("c", Some('c'), Some("color")),
    Opt::flag("C", Some('C'), Some("no-color")),
    Opt::optional("d", Some('d'), Some("differences")),
    Opt::flag("e", Some('e'), Some("errexit")),
    Opt::flag("g", Some('g'), Some("chgexit")),
    Opt::value("n", Some('n'), Some("interval")),
    Opt::flag("p", Some('p'), Some("precise")),
    Opt::value("q", Some('q'), Some("equexit")),
    Opt::flag("r", Some('r'), Some("no-rerun")),
    Opt::flag("t", Some('t'), Some("no-title")),
    Opt::flag("w", Some('w'), Some("no-wrap")),
    Opt::flag("exec", Some('x'), Some("exec")),
    Opt::flag("none", Some('h'), Some("help")),
    Opt::flag("none", Some('v'), Some("version")),
];

/// polkit's `pkexec [--user NAME] [--keep-cwd] PROGRAM…`.
pub(super) const PKEXEC: &[Opt] = &[
    Opt::value("user", None, Some("user")),
    Opt::flag("k", None, Some("keep-cwd")),
    Opt::flag("d", None, Some("disable-internal-agent")),
    Opt::flag("none", None, Some("version")),
    Opt::flag("none", None, Some("help")),
];

/// `strace [options] COMMAND…` (it runs the command it traces; `-p` attaches instead).
pub(super) const STRACE: &[Opt] = &[
    Opt::flag("c", Some('c'), Some("summary-only")),
    Opt::flag("C", Some('C'), Some("summary")),
    Opt::flag("d", Some('d'), Some("debug")),
    Opt::flag("D", Some('D'), Some("daemonize")),
    Opt::flag("f", Some('f'), Some("follow-forks")),
    Opt::flag("F", Some('F'), None),
    Opt::flag("i", Some('i'), Some("instruction-pointer")),
    Opt::flag("k", Some('k'), Some("stack-traces")),
    Opt::flag("n", Some('n'), Some("syscall-number")),
    Opt::flag("q", Some('q'), Some("quiet")),
    Opt::flag("r", Some('r'), Some("relative-timestamps")),
    Opt::flag("t", Some('t'), Some("absolute-timestamps")),
    Opt::flag("T", Some('T'), Some("syscall-times")),
    Opt::flag("v", Some('v'), Some("no-abbrev")),
    Opt::flag("w", Some('w'), Some("summary-wall-clock")),
    Opt::flag("x", Some('x'), None),
    Opt::flag("y", Some('y'), Some("decode-fds")),
    Opt::flag("z", Some('z'), Some("successful-only")),
    Opt::flag("Z", Some('Z'), Some("failed-only")),
    Opt::value("a", Some('a'), Some("columns")),
    Opt::value("b", Some('b'), Some("detach-on")),
    Opt::value("e", Some('e'), None),
    Opt::value("e", None, Some("trace")),
    Opt::value("I", Some('I'), Some("interruptible")),
    Opt::value("o", Some('o'), Some("output")),
    Opt::value("O", Some('O'), Some("summary-syscall-overhead")),
    Opt::value("P", Some('P'), Some("trace-path")),
    Opt::value("s", Some('s'), Some("string-limit")),
    Opt::value("S", Some('S'), Some("summary-sort-by")),
    Opt::value("u", Some('u'), Some("user")),
    Opt::value("E", Some('E'), Some("env")),
    Opt::value("X", Some('X'), Some("const-print-style")),
    Opt::value("p", Some('p'), Some("attach")),
    Opt::flag("none", Some('h'), Some("help")),
    Opt::flag("none", Some('V'), Some("version")),
];

/// `fakeroot [options] [--] COMMAND…`.
pub(super) const FAKEROOT: &[Opt] = &[
    Opt::value("l", Some('l'), Some("lib")),
    Opt::value("faked", None, Some("faked")),
    Opt::value("s", Some('s'), None),
    Opt::value("i", Some('i'), None),
    Opt::value("b", Some('b'), None),
    Opt::flag("u", Some('u'), Some("unknown-is-real")),
    Opt::flag("none", Some('h'), Some("help")),
    Opt::flag("none", Some('v'), Some("version")),
];

/// `nocache [-n N] COMMAND…`, `eatmydata [--] COMMAND…`, `catchsegv COMMAND…`.
pub(super) const NOCACHE: &[Opt] = &[Opt::value("n", Some('n'), None)];

/// `proxychains [-q] [-f CONFIG] COMMAND…`.
pub(super) const PROXYCHAINS: &[Opt] = &[
    Opt::flag("q", Some('q'), None),
    Opt::value("f", Some('f'), None),
];

/// `xvfb-run [options] COMMAND…`.
pub(super) const XVFB_RUN: &[Opt] = &[
    Opt::flag("a", Some('a'), Some("auto-servernum")),
    Opt::value("n", Some('n'), Some("server-num")),
    Opt::value("s", Some('s'), Some("server-args")),
    Opt::value("e", Some('e'), Some("error-file")),
    Opt::value("f", Some('f'), Some("auth-file")),
    Opt::value("w", Some('w'), Some("wait")),
    Opt::value("p", Some('p'), Some("xauth-protocol")),
    Opt::flag("none", Some('h'), Some("help")),
];

/// `dbus-run-session [--config-file=F] [--dbus-daemon=B] [--] COMMAND…`.
pub(super) const DBUS_RUN_SESSION: &[Opt] = &[
    Opt::value("c", None, Some("config-file")),
    Opt::value("d", None, Some("dbus-daemon")),
    Opt::flag("none", None, Some("help")),
    Opt::flag("none", None, Some("version")),
];

/// `ssh-agent [options] [COMMAND…]` (`-k` kills an agent).
pub(super) const SSH_AGENT: &[Opt] = &[
    Opt::flag("c", Some('c'), None),
    Opt::flag("s", Some('s'), None),
    Opt::flag("d", Some('d'), None),
    Opt::flag("D", Some('D'), None),
    Opt::value("a", Some('a'), None),
    Opt::value("E", Some('E'), None),
    Opt::value("t", Some('t'), None),
    Opt::value("P", Some('P'), None),
    Opt::value("O", Some('O'), None),
    Opt::flag("none", Some('k'), None),
];

/// libcgroup's `cgexec [-g CONTROLLERS:PATH] [--sticky] COMMAND…`.
pub(super) const CGEXEC: &[Opt] = &[
    Opt::value("g", Some('g'), None),
    Opt::flag("sticky", None, Some("sticky")),
];

/// `numactl [options] COMMAND…` (the show and hardware forms run nothing).
pub(super) const NUMACTL: &[Opt] = &[
    Opt::value("i", Some('i'), Some("interleave")),
    Opt::value("w", Some('w'), Some("weighted-interleave")),
    Opt::value("p", Some('p'), Some("preferred")),
    Opt::value("P", Some('P'), Some("preferred-many")),
    Opt::value("m", Some('m'), Some("membind")),
    Opt::value("N", Some('N'), Some("cpunodebind")),
    Opt::value("C", Some('C'), Some("physcpubind")),
    Opt::flag("l", Some('l'), Some("localalloc")),
    Opt::flag("a", Some('a'), Some("all")),
    Opt::flag("b", Some('b'), Some("balancing")),
    Opt::flag("none", Some('s'), Some("show")),
    Opt::flag("none", Some('H'), Some("hardware")),
    Opt::flag("none", Some('h'), Some("help")),
];

/// macOS `caffeinate [-dimsu] [-t SECONDS] [-w PID] [COMMAND…]`.
pub(super) const CAFFEINATE: &[Opt] = &[
    Opt::flag("d", Some('d'), None),
    Opt::flag("i", Some('i'), None),
    Opt::flag("m", Some('m'), None),
    Opt::flag("s", Some('s'), None),
    Opt::flag("u", Some('u'), None),
    Opt::value("t", Some('t'), None),
    Opt::value("w", Some('w'), None),
];

/// `entr [-acdnprsz] UTILITY [ARG…]`: the file list arrives on stdin; with `-s` the
/// utility is a command string for the shell.
pub(super) const ENTR: &[Opt] = &[
    Opt::flag("a", Some('a'), None),
    Opt::flag("c", Some('c'), None),
    Opt::flag("d", Some('d'), None),
    Opt::flag("n", Some('n'), None),
    Opt::flag("p", Some('p'), None),
    Opt::flag("r", Some('r'), None),
    Opt::flag("command", Some('s'), None),
    Opt::flag("z", Some('z'), None),
];

/// util-linux `setarch ARCH [options] [COMMAND…]` (also `linux32`, `linux64`).
pub(super) const SETARCH: &[Opt] = &[
    Opt::flag("v", Some('v'), Some("verbose")),
    Opt::flag("R", Some('R'), Some("addr-no-randomize")),
    Opt::flag("F", Some('F'), Some("fdpic-funcptrs")),
    Opt::flag("Z", Some('Z'), Some("mmap-page-zero")),
    Opt::flag("L", Some('L'), Some("addr-compat-layout")),
    Opt::flag("X", Some('X'), Some("read-implies-exec")),
    Opt::flag("B", Some('B'), Some("32bit")),
    Opt::flag("I", Some('I'), Some("short-inode")),
    Opt::flag("S", Some('S'), Some("whole-seconds")),
    Opt::flag("T", Some('T'), Some("sticky-timeouts")),
    Opt::flag("3", Some('3'), Some("3gb")),
    Opt::flag("u", None, Some("4gb")),
    Opt::flag("u", None, Some("uname-2.6")),
    Opt::flag("none", None, Some("list")),
    Opt::flag("none", Some('h'), Some("help")),
    Opt::flag("none", Some('V'), Some("version")),
];

/// Wrappers whose only option is `--` (or none at all).
pub(super) const NO_OPTIONS: &[Opt] = &[];
