//! Probing the installed Claude Code for `onFailure` support.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The first Claude Code release that honours `onFailure: "block"` on command hooks.
const ON_FAILURE_SINCE: ClaudeVersion = ClaudeVersion(2, 1, 295);

/// A Claude Code version, `major.minor.patch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct ClaudeVersion(pub u32, pub u32, pub u32);

impl ClaudeVersion {
    /// Parses the first `x.y.z` of `claude --version` output (`2.1.328 (Claude Code)`).
    pub fn parse(text: &str) -> Option<ClaudeVersion> {
        let word = text.split_whitespace().next()?;
        let mut parts = word.split('.').map(str::parse::<u32>);
        match (parts.next(), parts.next(), parts.next()) {
            (Some(Ok(major)), Some(Ok(minor)), Some(Ok(patch))) => {
                Some(ClaudeVersion(major, minor, patch))
            }
            _ => None,
        }
    }
}

/// Whether install should set `onFailure: "block"`: yes unless a `claude` on `PATH`
/// reports a version older than 2.1.295. When no `claude` answers (not installed, or
/// installed later), the option is set: current releases honour it.
pub fn claude_supports_on_failure() -> (bool, Option<ClaudeVersion>) {
    let version = claude_version();
    (version.is_none_or(|v| v >= ON_FAILURE_SINCE), version)
}

fn claude_version() -> Option<ClaudeVersion> {
    let mut child = Command::new("claude")
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let mut text = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take()?, &mut text).ok()?;
    ClaudeVersion::parse(&text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_and_compare() {
        assert_eq!(
            ClaudeVersion::parse("2.1.328 (Claude Code)\n"),
            Some(ClaudeVersion(2, 1, 328))
        );
        assert_eq!(ClaudeVersion::parse("claude"), None);
        assert!(ClaudeVersion(2, 1, 294) < ON_FAILURE_SINCE);
        assert!(ClaudeVersion(2, 2, 0) > ON_FAILURE_SINCE);
    }
}
