//! Integration tests of the read-only world against real directories and real git repositories.

#![allow(
    clippy::unwrap_used,
    reason = "fixture helpers fail loudly, like the tests calling them"
)]

mod discovery;
mod facts;
mod ignore;
mod ignore_oracle;
mod reset;
mod reset_cache;
mod reset_large;
mod support;
