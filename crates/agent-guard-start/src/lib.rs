//! Process start-up for the agent-guard binaries, without the standard runtime's stack probe.
//!
//! `check` runs before every command an agent issues, so what happens before `main` counts.
//! Rust's own entry point asks glibc for the main thread's stack bounds, to place its
//! stack-overflow guard, and glibc answers by parsing `/proc/self/maps` with `sscanf`: about a
//! sixth of the no-op path's instructions (`docs/PERFORMANCE.md`, "Start-up"). A binary that
//! declares `#![no_main]` and enters through [`main!`] skips that probe and keeps the rest of
//! what the runtime does that matters here:
//!
//! - standard descriptors 0–2 that are closed at start are opened on `/dev/null`, so a file the
//!   guard opens (the audit log, a manifest) can never be taken for stdout;
//! - `SIGPIPE` is ignored, so a harness that closes the pipe early gets an error path, not a
//!   silent kill;
//! - a panic that escapes is caught and the process exits 101, as under Rust's runtime;
//! - the process ends through [`std::process::exit`], which flushes stdout.
//!
//! What is given up is the runtime's "thread 'main' has overflowed its stack" message: a stack
//! overflow is still stopped by the kernel's guard page, as a plain `SIGSEGV`.

/// Declares the C `main` of a `#![no_main]` binary, which runs `$body` (a `fn() -> u8` giving
/// the exit code) through [`run`].
#[macro_export]
macro_rules! main {
    ($body:path) => {
        #[unsafe(no_mangle)]
        extern "C" fn main(
            _argc: ::std::ffi::c_int,
            _argv: *const *const ::std::ffi::c_char,
        ) -> ::std::ffi::c_int {
            $crate::run($body)
        }
    };
}

/// Prepares the process as the crate documentation says, runs `body` and exits with the code
/// it returns. Never returns.
pub fn run(body: fn() -> u8) -> ! {
    sanitize_standard_descriptors();
    ignore_sigpipe();
    let code = match std::panic::catch_unwind(body) {
        Ok(code) => i32::from(code),
        // The panic hook has already printed the message; 101 is what Rust's runtime exits with.
        Err(_) => 101,
    };
    #[allow(clippy::exit, reason = "the end of the process: it flushes stdout")]
    std::process::exit(code)
}

#[cfg(unix)]
#[allow(unsafe_code, reason = "two libc calls with no Rust equivalent")]
fn sanitize_standard_descriptors() {
    for fd in 0..=2 {
        // SAFETY: F_GETFD only queries the descriptor table; `open` gets a valid C string and
        // its descriptor is deliberately kept for the life of the process.
        unsafe {
            if libc::fcntl(fd, libc::F_GETFD) == -1
                && std::io::Error::last_os_error().raw_os_error() == Some(libc::EBADF)
            {
                // The lowest free descriptor is `fd` itself: the lower ones are open by now.
                libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
            }
        }
    }
}

#[cfg(not(unix))]
fn sanitize_standard_descriptors() {}

#[cfg(unix)]
#[allow(unsafe_code, reason = "signal(2) has no Rust equivalent in std")]
fn ignore_sigpipe() {
    // SAFETY: installing SIG_IGN for SIGPIPE has no preconditions and no handler to race.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
}

#[cfg(not(unix))]
fn ignore_sigpipe() {}

/// Closes every descriptor above the standard three that this process inherited: for a
/// process that outlives its parent (the checkpoint watcher), which must not keep the
/// caller's pipes open — a harness that waits for the end of a pipe it handed its hook
/// would wait for as long as the watcher runs. Call it first, before anything is opened.
#[cfg(target_os = "linux")]
#[allow(
    unsafe_code,
    reason = "close_range(2) on descriptors no Rust object owns yet"
)]
pub fn close_inherited_descriptors() {
    // SAFETY: called before the program opens any descriptor of its own (the runtime keeps
    // only 0-2), so no Rust object owns a descriptor from 3 up: closing them leaves nothing
    // dangling. close_range has no other precondition; an old kernel without it (ENOSYS)
    // leaves them open.
    unsafe {
        libc::syscall(libc::SYS_close_range, 3_u32, u32::MAX, 0_u32);
    }
}

/// Elsewhere descriptors are left as they are.
#[cfg(not(target_os = "linux"))]
pub fn close_inherited_descriptors() {}
