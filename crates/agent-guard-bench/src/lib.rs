//! Benchmark support for agent-guard. The crate holds `trivial-rust`, the process-start-up
//! floor that `bench/check.sh` measures `check` against.

#![warn(missing_docs)]
