//! Fuzzes the cmd lexer (and the classifier on the same text).

#![no_main]

use agent_guard_types::Dialect;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let script = agent_guard_lex::cmd::lex(text);
        agent_guard_fuzz::check(text, &script, Dialect::Cmd);
    }
});
