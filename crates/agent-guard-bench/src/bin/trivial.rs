//! The floor: a Rust binary that does nothing, built with the same profile as `check`.
//! `bench/check.sh` compares `check`'s whole-process time against it.

fn main() {}
