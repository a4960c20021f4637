//! End-to-end tests of the binaries (one test binary, jj style).

#![allow(
    clippy::unwrap_used,
    clippy::disallowed_methods,
    unreachable_pub,
    reason = "test support code sets up and tears down fixtures"
)]

mod argv;
mod audit;
mod check;
mod crash;
mod dialects;
mod evidence;
mod example;
mod failures;
mod git;
mod hooks;
mod install;
mod mode;
mod quarantine;
mod roundtrip;
mod stress;
mod support;
