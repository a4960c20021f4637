//! The entry point keeps what Rust's runtime start-up did and the binaries rely on. This test
//! is its own `#![no_main]` binary: run with `AGENT_GUARD_START_PROBE` set, it is the probe
//! that enters through `agent_guard_start::main!`; run by `cargo test`, it starts the probe
//! with descriptors closed or a dead pipe and checks what happened.

#![no_main]
#![allow(clippy::print_stdout, reason = "the probe's output is what is tested")]

use std::io::Write as _;
use std::os::unix::process::ExitStatusExt as _;
use std::process::{Command, Stdio};

agent_guard_start::main!(body);

const PROBE: &str = "AGENT_GUARD_START_PROBE";

#[allow(
    clippy::disallowed_methods,
    reason = "the probe's mode is its environment"
)]
fn body() -> u8 {
    match std::env::var(PROBE).as_deref() {
        Ok("open") => {
            // The first file the process opens: its descriptor is the exit code.
            let file = tempfile::tempfile().expect("a temporary file");
            let fd = std::os::fd::AsRawFd::as_raw_fd(&file);
            u8::try_from(fd).unwrap_or(u8::MAX)
        }
        Ok("write") => {
            // Fails with EPIPE instead of killing the process when the reader is gone.
            let failed = std::io::stdout().write_all(b"to nobody\n").is_err()
                || std::io::stdout().flush().is_err();
            if failed { 9 } else { 0 }
        }
        Ok("unflushed") => {
            print!("no newline, still buffered");
            0
        }
        Ok("panic") => panic!("the probe panics"),
        _ => tests(),
    }
}

fn probe(mode: &str) -> Command {
    let mut cmd = Command::new(std::env::current_exe().expect("the test binary"));
    cmd.env(PROBE, mode);
    cmd
}

fn tests() -> u8 {
    // Closed stdout, stdin and stderr are opened on /dev/null before the body runs: the
    // first file opened is never descriptor 0, 1 or 2.
    let exe = std::env::current_exe().expect("the test binary");
    let closed = Command::new("sh")
        .arg("-c")
        .arg(format!("exec '{}' <&- >&- 2>&-", exe.display()))
        .env(PROBE, "open")
        .status()
        .expect("sh runs");
    assert!(
        closed.code().is_some_and(|fd| fd >= 3),
        "the first file opened took a standard descriptor: {closed:?}"
    );

    // A write to a pipe whose reader is gone is an error, not SIGPIPE.
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let piped = probe("write")
        .stdout(writer)
        .status()
        .expect("the probe runs");
    assert_eq!(piped.signal(), None, "killed by a signal: {piped:?}");
    assert_eq!(
        piped.code(),
        Some(9),
        "the write failed and said so: {piped:?}"
    );

    // Stdout is flushed at exit.
    let output = probe("unflushed").output().expect("the probe runs");
    assert_eq!(output.stdout, b"no newline, still buffered");
    assert_eq!(output.status.code(), Some(0));

    // A panic exits 101, as under Rust's runtime.
    let panicked = probe("panic")
        .stderr(Stdio::null())
        .status()
        .expect("the probe runs");
    assert_eq!(panicked.code(), Some(101));

    println!("entry: 4 checks passed");
    0
}
