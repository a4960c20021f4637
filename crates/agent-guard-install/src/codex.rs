//! Codex hook trust.
//!
//! Codex (0.169.0) runs a non-managed hook only when the user's `config.toml` records trust
//! for that exact hook (otherwise it skips the hook silently, unless the session was started
//! with `--dangerously-bypass-hook-trust`):
//!
//! ```toml
//! [hooks.state."/abs/.codex/hooks.json:pre_tool_use:0:0"]
//! trusted_hash = "sha256:…"
//! ```
//!
//! The key is the hooks file's absolute path, the event's snake-case label and the
//! handler's group and handler indices (`hook_key` in `codex-rs/hooks`). The hash is
//! `version_for_toml` of the normalized hook identity (`command_hook_hash` in
//! `codex-rs/hooks/src/engine/discovery.rs`): the event label plus the matcher group holding
//! only that handler, with `timeout` defaulted to 600 and unset fields dropped, rendered as
//! key-sorted compact JSON and hashed with SHA-256. Codex reads trust only from user layers,
//! so it always goes into `$CODEX_HOME/config.toml`, also for a project's hooks. A project's
//! `.codex/` layer is loaded at all only once the project itself is trusted
//! (`[projects."<root>"] trust_level = "trusted"`), which is the user's decision.

use std::path::Path;

use sha2::{Digest, Sha256};
use toml_edit::{DocumentMut, Item, Table, TableLike, value};

use crate::entry::{Placement, Removed};
use crate::error::{Error, Result};
use crate::json::Json;
use crate::record::hex;

/// Codex's label for the `PreToolUse` event in trust keys and hashes.
const EVENT_LABEL: &str = "pre_tool_use";

/// Codex's default hook timeout in seconds, materialised before hashing.
const DEFAULT_TIMEOUT_SECS: u64 = 600;

/// The `[hooks.state]` key of the handler at `at` in `hooks_file`.
pub(crate) fn trust_key(hooks_file: &Path, at: Placement) -> String {
    format!(
        "{}:{EVENT_LABEL}:{}:{}",
        hooks_file.display(),
        at.group,
        at.handler
    )
}

/// The trust hash Codex computes for a `PreToolUse` command handler in a group with
/// `matcher`.
pub(crate) fn trust_hash(matcher: Option<&str>, handler: &Json) -> String {
    let mut normalized = serde_json::Map::new();
    normalized.insert("type".into(), "command".into());
    let command = handler.get("command").and_then(Json::as_str).unwrap_or("");
    normalized.insert("command".into(), command.into());
    let timeout = match handler.get("timeout") {
        Some(Json::Number(number)) => number.as_u64().unwrap_or(DEFAULT_TIMEOUT_SECS),
        _ => DEFAULT_TIMEOUT_SECS,
    };
    normalized.insert("timeout".into(), timeout.max(1).into());
    let is_async = matches!(handler.get("async"), Some(Json::Bool(true)));
    normalized.insert("async".into(), is_async.into());
    if let Some(message) = handler.get("statusMessage").and_then(Json::as_str) {
        normalized.insert("statusMessage".into(), message.into());
    }
    let mut identity = serde_json::Map::new();
    identity.insert("event_name".into(), EVENT_LABEL.into());
    if let Some(matcher) = matcher {
        identity.insert("matcher".into(), matcher.into());
    }
    identity.insert(
        "hooks".into(),
        serde_json::Value::Array(vec![normalized.into()]),
    );
    // serde_json's map is a BTreeMap here (no `preserve_order`), so keys come out sorted
    // at every level, which is Codex's canonical form.
    let canonical = serde_json::Value::Object(identity).to_string();
    format!("sha256:{}", hex(&Sha256::digest(canonical.as_bytes())))
}

/// Parses a `config.toml` text (empty when the file is absent).
pub(crate) fn parse(text: &str, path: &Path) -> Result<DocumentMut> {
    text.parse::<DocumentMut>().map_err(|error| Error::Parse {
        path: path.to_path_buf(),
        format: "TOML",
        message: error.to_string(),
    })
}

/// Records `hash` as trusted for `key`; `earlier_keys` (our earlier placements) are dropped.
pub(crate) fn set_trust(
    doc: &mut DocumentMut,
    path: &Path,
    key: &str,
    hash: &str,
    earlier_keys: &[String],
) -> Result<()> {
    for old in earlier_keys.iter().filter(|old| old.as_str() != key) {
        remove_key(doc, old);
    }
    let states = state_table(doc, path)?;
    if let Some(entry) = states.get_mut(key).and_then(Item::as_table_like_mut) {
        if entry.get("trusted_hash").and_then(Item::as_str) != Some(hash) {
            entry.insert("trusted_hash", value(hash));
        }
    } else {
        let mut entry = Table::new();
        entry.insert("trusted_hash", value(hash));
        states.insert(key, Item::Table(entry));
    }
    Ok(())
}

/// Removes the trust entry `key`, and `hooks.state` / `hooks` if that left them empty.
pub(crate) fn remove_key(doc: &mut DocumentMut, key: &str) {
    let Some(hooks) = doc.get_mut("hooks").and_then(Item::as_table_like_mut) else {
        return;
    };
    if let Some(state) = hooks.get_mut("state").and_then(Item::as_table_like_mut) {
        state.remove(key);
        if state.is_empty() {
            hooks.remove("state");
        }
    }
    if hooks.is_empty() {
        doc.remove("hooks");
    }
}

/// Moves the trust entries of the handlers that followed removed ones in `hooks_file` to
/// their new indices, so that uninstalling agent-guard does not silently untrust (and so
/// disable) the user's other hooks. `removed` lists the removals last first.
pub(crate) fn shift_after_removal(doc: &mut DocumentMut, hooks_file: &Path, removed: &[Removed]) {
    let prefix = format!("{}:{EVENT_LABEL}:", hooks_file.display());
    let Some(state) = doc
        .get_mut("hooks")
        .and_then(Item::as_table_like_mut)
        .and_then(|hooks| hooks.get_mut("state"))
        .and_then(Item::as_table_like_mut)
    else {
        return;
    };
    // `removed` is last first, so each removal is applied to indices that later ones did
    // not disturb.
    for removal in removed {
        let mut moves: Vec<((usize, usize), (usize, usize))> = state
            .iter()
            .filter_map(|(key, _)| parse_indices(key.strip_prefix(&prefix)?))
            .filter_map(|(group, handler)| {
                let at = removal.at;
                if removal.group_removed && group > at.group {
                    Some(((group, handler), (group - 1, handler)))
                } else if !removal.group_removed && group == at.group && handler > at.handler {
                    Some(((group, handler), (group, handler - 1)))
                } else {
                    None
                }
            })
            .collect();
        moves.sort_unstable();
        for ((group, handler), (new_group, new_handler)) in moves {
            let from = format!("{prefix}{group}:{handler}");
            let to = format!("{prefix}{new_group}:{new_handler}");
            if let Some(item) = state.remove(&from) {
                state.insert(&to, item);
            }
        }
    }
}

/// The hash recorded as trusted for `key`, if any.
pub(crate) fn trusted_hash(doc: &DocumentMut, key: &str) -> Option<String> {
    doc.get("hooks")?
        .as_table_like()?
        .get("state")?
        .as_table_like()?
        .get(key)?
        .as_table_like()?
        .get("trusted_hash")?
        .as_str()
        .map(str::to_owned)
}

/// Whether Codex treats `project` as trusted (`[projects."<root>"] trust_level`).
pub(crate) fn project_trusted(doc: &DocumentMut, project: &Path) -> bool {
    let key = project.display().to_string();
    doc.get("projects")
        .and_then(Item::as_table_like)
        .and_then(|projects| projects.get(&key))
        .and_then(Item::as_table_like)
        .and_then(|entry| entry.get("trust_level"))
        .and_then(Item::as_str)
        == Some("trusted")
}

fn parse_indices(rest: &str) -> Option<(usize, usize)> {
    let (group, handler) = rest.split_once(':')?;
    Some((group.parse().ok()?, handler.parse().ok()?))
}

/// `hooks.state`, created (as implicit tables, so no empty headers appear) if missing.
fn state_table<'a>(doc: &'a mut DocumentMut, path: &Path) -> Result<&'a mut dyn TableLike> {
    let shape_error = |key: &str| Error::Shape {
        path: path.to_path_buf(),
        key: key.to_owned(),
        expected: "a table",
    };
    let implicit = || {
        let mut table = Table::new();
        table.set_implicit(true);
        Item::Table(table)
    };
    let hooks = doc
        .entry("hooks")
        .or_insert_with(implicit)
        .as_table_like_mut()
        .ok_or_else(|| shape_error("hooks"))?;
    hooks
        .entry("state")
        .or_insert_with(implicit)
        .as_table_like_mut()
        .ok_or_else(|| shape_error("hooks.state"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checked against Codex 0.169.0 itself: `codex app-server`, `hooks/list`, reported
    /// this `currentHash` for this handler in `$CODEX_HOME/hooks.json`.
    #[test]
    fn hash_matches_codex() {
        let handler = Json::parse(
            r#"{"type": "command", "command": "'/abs/agent-guard' check --enforce --harness codex", "timeout": 30, "statusMessage": "agent-guard"}"#,
        )
        .unwrap();
        assert_eq!(
            trust_hash(Some("Bash"), &handler),
            "sha256:6d494ab0bfd233df76ac26f791e00b05627ff65d7017f1166ad56065e74ab5ac"
        );
    }

    #[test]
    fn trust_is_added_and_removed_without_touching_the_rest() {
        let text = "# my config\nmodel = \"o3\"\n\n[projects.\"/w\"]\ntrust_level = \"trusted\"\n";
        let path = Path::new("config.toml");
        let mut doc = parse(text, path).unwrap();
        set_trust(
            &mut doc,
            path,
            "/w/.codex/hooks.json:pre_tool_use:0:0",
            "sha256:ab",
            &[],
        )
        .unwrap();
        let written = doc.to_string();
        assert_eq!(
            written,
            format!(
                "{text}\n[hooks.state.\"/w/.codex/hooks.json:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:ab\"\n"
            )
        );
        let mut again = parse(&written, path).unwrap();
        assert_eq!(
            trusted_hash(&again, "/w/.codex/hooks.json:pre_tool_use:0:0").as_deref(),
            Some("sha256:ab")
        );
        assert!(project_trusted(&again, Path::new("/w")));
        remove_key(&mut again, "/w/.codex/hooks.json:pre_tool_use:0:0");
        assert_eq!(again.to_string().trim_end(), text.trim_end());
    }

    #[test]
    fn later_handlers_keep_their_trust_after_a_removal() {
        let text = "[hooks.state.\"/h.json:pre_tool_use:0:0\"]\ntrusted_hash = \"a\"\n\n[hooks.state.\"/h.json:pre_tool_use:1:0\"]\ntrusted_hash = \"b\"\n\n[hooks.state.\"/h.json:pre_tool_use:2:1\"]\ntrusted_hash = \"c\"\n";
        let path = Path::new("config.toml");
        let mut doc = parse(text, path).unwrap();
        remove_key(&mut doc, "/h.json:pre_tool_use:0:0");
        let removed = [Removed {
            at: Placement {
                group: 0,
                handler: 0,
            },
            group_removed: true,
        }];
        shift_after_removal(&mut doc, Path::new("/h.json"), &removed);
        assert_eq!(
            trusted_hash(&doc, "/h.json:pre_tool_use:0:0").as_deref(),
            Some("b")
        );
        assert_eq!(
            trusted_hash(&doc, "/h.json:pre_tool_use:1:1").as_deref(),
            Some("c")
        );
        assert_eq!(trusted_hash(&doc, "/h.json:pre_tool_use:2:1"), None);
    }
}
