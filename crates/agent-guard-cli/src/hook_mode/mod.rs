//! Hook mode: `check --harness NAME`, the pre-tool hook of an agent harness.
//!
//! Reads the harness's payload on stdin (at most [`MAX_PAYLOAD_BYTES`]), judges the shell
//! command (or the file-writing tool call: `Write`, `Edit`, `apply_patch`, …) with the engine
//! under `--enforce`, and writes the reply in the harness's own form
//! ([`agent_guard_hook::render`]). Hook mode always enforces.
//!
//! Most harnesses run the command anyway when a hook fails, times out or exits 1, so this
//! module never fails open:
//!
//! - the whole job (reading stdin included) runs on a worker thread, and the main thread
//!   waits at most the deadline (`AGENT_GUARD_DEADLINE_MS`, else the project's
//!   `[hook] deadline_ms`, else 5000 ms); past it, the reply is a deny;
//! - panics are caught on both threads (and the panic hook prints nothing, so stdout stays the
//!   reply alone): a panic is a deny;
//! - a malformed payload, an internal error and an unparseable hook command line
//!   ([`usage_error`]) are denies;
//! - the exit code is the reply's (0, 2 or 3), never 1 or 101.
//!
//! `AGENT_GUARD_FAULT=hook-panic` and `AGENT_GUARD_FAULT=hook-stall` (test-only, unstable)
//! make the worker panic or stall once the payload is parsed.

mod edit;
mod verdict;

use std::ffi::OsString;
use std::io::Read as _;
use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use agent_guard_engine::EnvSnapshot;
use agent_guard_engine::{
    CheckRequest, DEFAULT_DEADLINE_MS, NoProgress, check_observing, env_deadline,
};
use agent_guard_hook::{
    Harness, HookRequest, MAX_PAYLOAD_BYTES, Malformed, Outcome, Refusal, ShellCall, detect, parse,
    render,
};

use crate::args::CheckArgs;
use crate::exit_code::ExitCode;
use crate::printer;

/// What `--harness` selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Selector {
    /// A known harness.
    Named(Harness),
    /// `auto`: guess from the payload.
    Auto,
    /// A name agent-guard does not know: a configuration error, denied.
    Unknown,
}

impl Selector {
    fn parse(name: &str) -> Selector {
        if name.trim().eq_ignore_ascii_case("auto") {
            return Selector::Auto;
        }
        Harness::parse_name(name).map_or(Selector::Unknown, Selector::Named)
    }

    /// The harness to reply as before the payload is read.
    fn harness(self) -> Harness {
        match self {
            Selector::Named(harness) => harness,
            Selector::Auto | Selector::Unknown => Harness::Generic,
        }
    }
}

/// A message from the worker to the waiting main thread.
enum Message {
    /// The harness, once the payload is read (it may have been guessed).
    Harness(Harness),
    /// The project's deadline, once the workspace is known.
    Deadline(u64),
    /// The outcome (boxed: it is much larger than the other messages).
    Done(Box<Outcome>),
}

/// Runs hook mode: `args.harness` names the harness. Never fails, never exits 1.
pub fn run(args: &CheckArgs) -> ExitCode {
    // The default hook prints to stderr, which is the deny reason of some harnesses.
    panic::set_hook(Box::new(|_| {}));
    let selector = Selector::parse(args.harness.as_deref().unwrap_or_default());
    let dialect_flag = args.dialect.clone();
    let judged = panic::catch_unwind(AssertUnwindSafe(|| {
        judge(selector, dialect_flag, EnvSnapshot::capture())
    }));
    let (harness, outcome) =
        judged.unwrap_or_else(|_| (selector.harness(), Outcome::refused(Refusal::Panic)));
    reply(harness, &outcome)
}

/// Handles a command line clap rejected. When it names a harness (`--harness NAME` or
/// `--harness=NAME`, before any `--`), the reply is that harness's deny (`HOOK_USAGE_ERROR`):
/// clap's own exit 2 would let the tool run in harnesses such as Copilot. Otherwise clap
/// prints its error or help and exits as usual.
pub fn usage_error(raw: &[OsString], error: &clap::Error) -> ExitCode {
    match harness_arg(raw) {
        Some(name) => reply(
            Selector::parse(&name).harness(),
            &Outcome::refused(Refusal::Usage),
        ),
        None => error.exit(),
    }
}

/// The value of `--harness` in a raw command line, if the flag is there.
fn harness_arg(raw: &[OsString]) -> Option<String> {
    let mut words = raw.iter().skip(1).map(|w| w.to_string_lossy());
    while let Some(word) = words.next() {
        if word == "--" {
            return None;
        }
        if word == "--harness" {
            return Some(
                words
                    .next()
                    .map(std::borrow::Cow::into_owned)
                    .unwrap_or_default(),
            );
        }
        if let Some(value) = word.strip_prefix("--harness=") {
            return Some(value.to_owned());
        }
    }
    None
}

/// Writes `harness`'s reply for `outcome` and returns its exit code.
fn reply(harness: Harness, outcome: &Outcome) -> ExitCode {
    let reply = render(harness, outcome);
    if let Some(stdout) = &reply.stdout {
        printer::out(stdout);
    }
    if let Some(stderr) = &reply.stderr {
        printer::err(stderr);
    }
    crate::exit_code::from_hook(reply.exit)
}

/// Runs the job on a worker thread and waits for it until the deadline.
fn judge(selector: Selector, dialect_flag: Option<String>, env: EnvSnapshot) -> (Harness, Outcome) {
    let started = Instant::now();
    let mut deadline_ms = env_deadline(&env);
    let mut harness = selector.harness();
    let (sender, receiver) = mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("agent-guard-hook".into())
        .spawn(move || {
            let job = panic::catch_unwind(AssertUnwindSafe(|| {
                work(selector, dialect_flag, env, &sender)
            }));
            let _ = sender.send(Message::Done(Box::new(
                job.unwrap_or_else(|_| Outcome::refused(Refusal::Panic)),
            )));
        });
    if spawned.is_err() {
        return (harness, Outcome::refused(Refusal::Internal));
    }
    loop {
        let remaining = Duration::from_millis(deadline_ms).saturating_sub(started.elapsed());
        match receiver.recv_timeout(remaining) {
            Ok(Message::Harness(detected)) => harness = detected,
            Ok(Message::Deadline(ms)) => deadline_ms = ms,
            Ok(Message::Done(outcome)) => return (harness, *outcome),
            // The worker is abandoned: the process exits with the reply. A relocation cut
            // short is journaled; the next command reconciles it, and nothing runs.
            Err(RecvTimeoutError::Timeout) => {
                return (
                    harness,
                    Outcome::refused(Refusal::Deadline { ms: deadline_ms }),
                );
            }
            Err(RecvTimeoutError::Disconnected) => {
                return (harness, Outcome::refused(Refusal::Internal));
            }
        }
    }
}

/// The job: read, parse, judge.
fn work(
    selector: Selector,
    dialect_flag: Option<String>,
    env: EnvSnapshot,
    sender: &Sender<Message>,
) -> Outcome {
    let Ok(bytes) = read_stdin() else {
        return Outcome::refused(Refusal::Internal);
    };
    let harness = match selector {
        Selector::Named(harness) => harness,
        Selector::Auto | Selector::Unknown => match detect(&bytes) {
            Some(harness) => harness,
            None => return Outcome::refused(Refusal::Malformed(undetected(&bytes))),
        },
    };
    if selector != Selector::Named(harness) {
        let _ = sender.send(Message::Harness(harness));
    }
    if selector == Selector::Unknown {
        return Outcome::refused(Refusal::Usage);
    }
    match parse(harness, &bytes) {
        HookRequest::Shell(call) => shell(harness, &call, dialect_flag, env, sender),
        HookRequest::Edit(call) => edit::judge(harness, &call, env, &|ms| {
            if ms != DEFAULT_DEADLINE_MS {
                let _ = sender.send(Message::Deadline(ms));
            }
        }),
        HookRequest::NotShell => Outcome::pass(),
        HookRequest::Malformed(why) => Outcome::refused(Refusal::Malformed(why)),
        // A request kind this CLI does not know is not something to let through.
        _ => Outcome::refused(Refusal::Internal),
    }
}

/// Why an `auto` payload was not recognised: its own defect if it has one.
fn undetected(bytes: &[u8]) -> Malformed {
    match parse(Harness::Generic, bytes) {
        HookRequest::Malformed(
            why @ (Malformed::Empty
            | Malformed::TooLarge
            | Malformed::NotJson { .. }
            | Malformed::NotObject),
        ) => why,
        _ => Malformed::Undetected,
    }
}

/// Reads stdin, one byte past the limit so that an oversized payload is detected.
fn read_stdin() -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(MAX_PAYLOAD_BYTES as u64 + 1)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Judges a shell call with the engine, enforced.
fn shell(
    harness: Harness,
    call: &ShellCall,
    dialect_flag: Option<String>,
    mut env: EnvSnapshot,
    sender: &Sender<Message>,
) -> Outcome {
    adopt_session(&mut env, call.session.as_ref());
    let fault = env.fault.as_deref().map(str::trim).map(str::to_owned);
    assert!(
        fault.as_deref() != Some("hook-panic"),
        "AGENT_GUARD_FAULT=hook-panic"
    );
    // `hook-stall` stalls the judgement once the project's deadline is known (or, for a line
    // that never opens the workspace, once it is judged): the deadline must still hold.
    let stall = || {
        if fault.as_deref() == Some("hook-stall") {
            loop {
                std::thread::sleep(Duration::from_hours(1));
            }
        }
    };
    let request = CheckRequest {
        command: call.command.clone(),
        cwd: call.cwd.clone(),
        dialect_flag,
        dialect_payload: call.dialect.clone(),
        enforce: true,
        env,
        ..CheckRequest::default()
    };
    // The project's `[hook] deadline_ms` arrives once the engine opens the workspace; a line
    // that never opens it (nothing destructive) keeps the environment's or the default.
    let adopt = |ms: u64| {
        if ms != DEFAULT_DEADLINE_MS {
            let _ = sender.send(Message::Deadline(ms));
        }
        stall();
    };
    let report = check_observing(&request, &NoProgress, &adopt);
    if let Some(watcher) = &report.watcher {
        watcher.start();
    }
    stall();
    verdict::outcome(harness, &report, call)
}

/// The payload's session id is the session, unless `AGENT_GUARD_SESSION` is set.
fn adopt_session(env: &mut EnvSnapshot, session: Option<&String>) {
    if env.session.as_deref().is_none_or(|s| s.trim().is_empty()) {
        env.session = session.cloned();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &[&str]) -> Vec<OsString> {
        line.iter().map(OsString::from).collect()
    }

    #[test]
    fn the_harness_flag_is_found_before_the_separator_only() {
        let found = |line: &[&str]| harness_arg(&words(line));
        assert_eq!(
            found(&["check", "--harness", "copilot", "--bogus"]),
            Some("copilot".into())
        );
        assert_eq!(
            found(&["agent-guard", "check", "--harness=codex"]),
            Some("codex".into())
        );
        assert_eq!(found(&["check", "--harness"]), Some(String::new()));
        assert_eq!(found(&["check", "--", "--harness", "x"]), None);
        assert_eq!(found(&["check", "--enforce"]), None);
    }

    #[test]
    fn selectors_and_deadlines() {
        assert_eq!(
            Selector::parse("Claude-Code"),
            Selector::Named(Harness::ClaudeCode)
        );
        assert_eq!(Selector::parse("auto"), Selector::Auto);
        assert_eq!(Selector::parse("claude"), Selector::Unknown);
        let env = |value: &str| EnvSnapshot {
            deadline_ms: Some(value.into()),
            ..EnvSnapshot::default()
        };
        assert_eq!(env_deadline(&EnvSnapshot::default()), 5000);
        assert_eq!(env_deadline(&env(" 200 ")), 200);
        assert_eq!(env_deadline(&env("0")), 5000);
        assert_eq!(env_deadline(&env("soon")), 5000);
    }
}
