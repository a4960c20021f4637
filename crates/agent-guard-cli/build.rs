//! Links the binaries position-dependent on Linux with glibc when they are linked
//! dynamically.
//!
//! A dynamically linked PIE `check` spends a measurable part of its start-up having the
//! loader apply about 10,000 relative relocations, which also dirties the pages they land
//! on; a non-PIE executable has none (`docs/PERFORMANCE.md`, "Start-up"). The shared
//! libraries, the heap and the stack keep their address randomisation. `AGENT_GUARD_PIE=1`
//! at build time keeps the default. A static build (`-C target-feature=+crt-static`, the
//! README's Linux install) is left alone here: `-no-pie` would make a broken hybrid of a
//! static PIE. The README's flags add `-C relocation-model=static`, with which rustc links a
//! plain static executable, which does not relocate itself at start (about a fifth of the
//! hook's no-op instructions as a static PIE).

#![allow(
    clippy::disallowed_methods,
    reason = "a build script's input is cargo's environment"
)]

fn main() {
    println!("cargo::rerun-if-env-changed=AGENT_GUARD_PIE");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let linux_gnu = var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu";
    let static_crt = var("CARGO_CFG_TARGET_FEATURE")
        .split(',')
        .any(|f| f == "crt-static");
    if linux_gnu && !static_crt && std::env::var_os("AGENT_GUARD_PIE").is_none() {
        println!("cargo::rustc-link-arg-bins=-no-pie");
    }
}
