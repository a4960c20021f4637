//! End-to-end tests of the binaries (one test binary, jj style).

#![allow(
    clippy::unwrap_used,
    clippy::disallowed_methods,
    unreachable_pub,
    reason = "test support code sets up and tears down fixtures"
)]

mod agents;
mod approve;
mod argv;
mod asked;
mod audit;
mod backups;
mod carriers;
mod check;
mod checkpoint;
mod checkpoint_watch;
mod config_layers;
mod confined_writes;
mod crash;
mod damage;
mod databases;
mod definitions;
mod dialects;
mod edit_corpus;
mod edits;
mod enospc;
mod evaluated;
mod evidence;
mod example;
mod failures;
mod followed_cd;
mod git;
mod git_guard_tree;
mod git_refs;
mod guard_commands;
mod hardening;
mod history;
mod hooks;
mod human;
mod ignored;
mod install;
mod kill;
mod listed_writes;
mod mode;
mod moves;
mod overwrite;
mod own_programs;
mod privacy;
mod quarantine;
mod readme;
mod roundtrip;
mod sealed;
mod self_protection;
mod start;
mod state_files;
mod stress;
mod support;
mod whole_workspace;
mod wine_cmd;
