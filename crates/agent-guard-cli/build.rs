//! Links the binaries as position-dependent executables on Linux with glibc.
//!
//! A PIE `check` spends a measurable part of its start-up applying about 10,000 relative
//! relocations, which also dirties the pages they land on; a non-PIE executable has none, and
//! `check` runs before every command an agent issues (`docs/PERFORMANCE.md`, "Start-up"). The
//! shared libraries, the heap and the stack keep their address randomisation. Set
//! `AGENT_GUARD_PIE=1` at build time to keep the default.

#![allow(
    clippy::disallowed_methods,
    reason = "a build script's input is cargo's environment"
)]

fn main() {
    println!("cargo::rerun-if-env-changed=AGENT_GUARD_PIE");
    let linux_gnu = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux")
        && std::env::var("CARGO_CFG_TARGET_ENV").as_deref() == Ok("gnu");
    if linux_gnu && std::env::var_os("AGENT_GUARD_PIE").is_none() {
        println!("cargo::rustc-link-arg-bins=-no-pie");
    }
}
