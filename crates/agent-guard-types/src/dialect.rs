//! Shell dialects and the resolution of a dialect selector.

use serde::{Deserialize, Serialize};

/// A shell language whose lexer and classifier judge the command text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    /// POSIX shells: sh, bash, zsh, dash, ksh.
    #[default]
    Posix,
    /// Windows `cmd.exe`.
    Cmd,
    /// Windows PowerShell and PowerShell 7 (`pwsh`).
    #[serde(rename = "powershell")]
    PowerShell,
}

impl Dialect {
    /// Returns the canonical lower-case name (`posix`, `cmd`, `powershell`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Dialect::Posix => "posix",
            Dialect::Cmd => "cmd",
            Dialect::PowerShell => "powershell",
        }
    }

    /// Maps an alias (already trimmed and lower-cased) to its dialect.
    ///
    /// Aliases: `posix sh bash zsh dash ksh`, `cmd cmd.exe batch bat`, `powershell pwsh ps
    /// powershell.exe pwsh.exe`.
    pub fn from_alias(alias: &str) -> Option<Dialect> {
        match alias {
            "posix" | "sh" | "bash" | "zsh" | "dash" | "ksh" => Some(Dialect::Posix),
            "cmd" | "cmd.exe" | "batch" | "bat" => Some(Dialect::Cmd),
            "powershell" | "pwsh" | "ps" | "powershell.exe" | "pwsh.exe" => {
                Some(Dialect::PowerShell)
            }
            _ => None,
        }
    }
}

impl std::fmt::Display for Dialect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a dialect selector came from; used in messages and precedence tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DialectSource {
    /// The `--dialect` flag.
    Flag,
    /// A field of the harness payload.
    Payload,
    /// The `AGENT_GUARD_DIALECT` environment variable.
    Env,
    /// The `dialect` key of `.agent-guard.toml`.
    Config,
    /// Nothing selected a dialect: POSIX.
    Default,
}

/// The outcome of resolving a dialect selector. Never an error: an unusable selector is a
/// verdict (`BLOCK_DIALECT_UNKNOWN` / `BLOCK_DIALECT_INVALID`), never a silent POSIX fallback.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DialectResolution {
    /// A usable selector (or none, meaning POSIX).
    Ok {
        /// The dialect to lex with.
        dialect: Dialect,
        /// The trimmed, lower-cased selector as requested, `None` when nothing was requested.
        requested: Option<String>,
    },
    /// The selector is well-formed but names no known dialect.
    Unknown,
    /// The selector is malformed: empty after trimming, or containing `:` `,` `/` `;`, or
    /// control characters.
    Invalid,
}

impl DialectResolution {
    /// Resolves a selector. `None` means "nothing requested" and yields POSIX.
    pub fn resolve(selector: Option<&str>) -> DialectResolution {
        let Some(raw) = selector else {
            return DialectResolution::Ok {
                dialect: Dialect::Posix,
                requested: None,
            };
        };
        let trimmed = raw.trim();
        if trimmed.is_empty()
            || trimmed
                .chars()
                .any(|c| matches!(c, ':' | ',' | '/' | ';' | '\\') || c.is_control())
        {
            return DialectResolution::Invalid;
        }
        let lowered = trimmed.to_ascii_lowercase();
        match Dialect::from_alias(&lowered) {
            Some(dialect) => DialectResolution::Ok {
                dialect,
                requested: Some(lowered),
            },
            None => DialectResolution::Unknown,
        }
    }

    /// Returns the usable dialect, if any.
    pub fn dialect(&self) -> Option<Dialect> {
        match self {
            DialectResolution::Ok { dialect, .. } => Some(*dialect),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_resolve() {
        for (alias, dialect) in [
            ("posix", Dialect::Posix),
            (" Bash ", Dialect::Posix),
            ("cmd.exe", Dialect::Cmd),
            ("BAT", Dialect::Cmd),
            ("pwsh", Dialect::PowerShell),
            ("ps", Dialect::PowerShell),
        ] {
            assert_eq!(
                DialectResolution::resolve(Some(alias)).dialect(),
                Some(dialect),
                "{alias}"
            );
        }
    }

    #[test]
    fn requested_value_is_trimmed_and_lowered() {
        assert_eq!(
            DialectResolution::resolve(Some(" PWSH ")),
            DialectResolution::Ok {
                dialect: Dialect::PowerShell,
                requested: Some("pwsh".into())
            }
        );
        assert_eq!(
            DialectResolution::resolve(None),
            DialectResolution::Ok {
                dialect: Dialect::Posix,
                requested: None
            }
        );
    }

    #[test]
    fn unusable_selectors_are_never_posix() {
        assert_eq!(
            DialectResolution::resolve(Some("fish")),
            DialectResolution::Unknown
        );
        assert_eq!(
            DialectResolution::resolve(Some("posix:cmd")),
            DialectResolution::Invalid
        );
        assert_eq!(
            DialectResolution::resolve(Some("  ")),
            DialectResolution::Invalid
        );
        assert_eq!(
            DialectResolution::resolve(Some("a,b")),
            DialectResolution::Invalid
        );
        assert_eq!(
            DialectResolution::resolve(Some("x/y")),
            DialectResolution::Invalid
        );
        assert_eq!(
            DialectResolution::resolve(Some("bash\n")),
            DialectResolution::Ok {
                dialect: Dialect::Posix,
                requested: Some("bash".into())
            }
        );
        assert_eq!(
            DialectResolution::resolve(Some("ba\u{7}sh")),
            DialectResolution::Invalid
        );
    }
}
