//! Questions to a person at a terminal: confirm, or choose one of several.
//!
//! Only asked when stdin and stderr are both terminals; a script never blocks on a prompt.

use std::io::{BufRead as _, IsTerminal as _, Write as _};

/// Whether a person can be asked (stdin and stderr are terminals).
pub fn interactive() -> bool {
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

fn read_answer(question: &str) -> Option<String> {
    let mut stderr = anstream::stderr().lock();
    let _ = write!(stderr, "{question} ");
    let _ = stderr.flush();
    drop(stderr);
    let mut line = String::new();
    match std::io::stdin().lock().read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line.trim().to_owned()),
    }
}

/// Asks `question [y/N]`; only `y` or `yes` is yes.
pub fn confirm(question: &str) -> bool {
    read_answer(&format!("{question} [y/N]"))
        .is_some_and(|answer| matches!(answer.to_ascii_lowercase().as_str(), "y" | "yes"))
}

/// Asks which of `count` numbered choices (1-based, already printed); `None` when the person
/// declines (an empty answer, `q`, end of input).
pub fn choose(count: usize) -> Option<usize> {
    loop {
        let answer = read_answer(&format!("which one? [1-{count}, q to quit]"))?;
        if answer.is_empty() || answer.eq_ignore_ascii_case("q") {
            return None;
        }
        match answer.parse::<usize>() {
            Ok(n) if (1..=count).contains(&n) => return Some(n - 1),
            _ => crate::printer::err(&format!("please answer a number from 1 to {count}")),
        }
    }
}
