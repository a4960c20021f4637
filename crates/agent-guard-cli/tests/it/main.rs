//! End-to-end tests of the binaries (one test binary, jj style).

#![allow(clippy::unwrap_used, unreachable_pub, reason = "test support code")]

mod check;
mod mode;
mod support;
