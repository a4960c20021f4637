//! `gc`: the same as `agent-guard gc`.

#![no_main]

// Entered without the standard runtime's stack probe: see `agent_guard_start`.
agent_guard_start::main!(agent_guard_cli::bins::gc);
