//! The real harness CLIs under test: how each is found, set up by "the user", run, and what
//! its hook configuration and payloads look like.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

/// The mock's loopback port; every scenario has its own network namespace.
pub(crate) const MOCK_PORT: u16 = 48123;

/// The harnesses under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Harness {
    ClaudeCode,
    Codex,
    Gemini,
    Copilot,
    QwenCode,
    OpenCode,
}

/// Where the hook's note (what moved, the txid, the restore command) reaches the model,
/// besides the output of the rewritten command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Context {
    /// A message of its own in the next request (Claude Code, Codex, Copilot CLI).
    Message,
    /// Appended to the tool result (`OpenCode`, by agent-guard's plugin).
    ToolResult,
    /// Nowhere (Gemini CLI's `BeforeTool` has no such field; Qwen Code drops it).
    Nowhere,
}

/// The directories of one scenario that the harnesses' configs live in.
pub(crate) struct Dirs<'a> {
    pub(crate) ws: &'a Path,
    pub(crate) home: &'a Path,
    pub(crate) scratch: &'a Path,
}

impl Dirs<'_> {
    pub(crate) fn codex_home(&self) -> PathBuf {
        self.scratch.join("codex-home")
    }

    pub(crate) fn copilot_home(&self) -> PathBuf {
        self.scratch.join("copilot-home")
    }

    pub(crate) fn xdg(&self, kind: &str) -> PathBuf {
        self.scratch.join(format!("xdg-{kind}"))
    }
}

/// Copilot CLI unpacks its application (~235 MB) into `$XDG_CACHE_HOME/copilot` on first
/// start: one cache for every scenario instead of one per fake home.
pub(crate) fn copilot_cache() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("copilot-cache")
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

impl Harness {
    /// Every harness, in documentation order.
    pub(crate) const ALL: [Harness; 6] = [
        Harness::ClaudeCode,
        Harness::Codex,
        Harness::Gemini,
        Harness::Copilot,
        Harness::QwenCode,
        Harness::OpenCode,
    ];

    /// agent-guard's name for it (`--harness`, `install`).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "claude-code",
            Harness::Codex => "codex",
            Harness::Gemini => "gemini",
            Harness::Copilot => "copilot",
            Harness::QwenCode => "qwen-code",
            Harness::OpenCode => "opencode",
        }
    }

    pub(crate) fn binary(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "claude",
            Harness::Codex => "codex",
            Harness::Gemini => "gemini",
            Harness::Copilot => "copilot",
            Harness::QwenCode => "qwen",
            Harness::OpenCode => "opencode",
        }
    }

    pub(crate) fn bin_env(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "AGENT_GUARD_CLAUDE_BIN",
            Harness::Codex => "AGENT_GUARD_CODEX_BIN",
            Harness::Gemini => "AGENT_GUARD_GEMINI_BIN",
            Harness::Copilot => "AGENT_GUARD_COPILOT_BIN",
            Harness::QwenCode => "AGENT_GUARD_QWEN_BIN",
            Harness::OpenCode => "AGENT_GUARD_OPENCODE_BIN",
        }
    }

    /// The first line `--version` prints for the pinned release (`scripts/install-harnesses.sh`).
    pub(crate) fn version_line(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "2.1.328 (Claude Code)",
            Harness::Codex => "codex-cli 0.169.0",
            Harness::Gemini => "0.61.0",
            Harness::Copilot => "GitHub Copilot CLI 1.0.102.",
            Harness::QwenCode => "0.24.4",
            Harness::OpenCode => "1.18.33",
        }
    }

    /// The mock model server, in `tests/harness/`.
    pub(crate) fn mock(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "mock_anthropic.py",
            Harness::Gemini => "mock_gemini.py",
            Harness::Codex | Harness::Copilot | Harness::QwenCode | Harness::OpenCode => {
                "mock_openai.py"
            }
        }
    }

    /// The id the mock gives its one scripted tool call.
    pub(crate) fn tool_call_id(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "toolu_mock_01",
            _ => "call_mock_01",
        }
    }

    /// Whether a fully compensated `rm -r build` is rewritten into an `echo` of the note; in
    /// Qwen Code, which has no rewrite, it is a deny whose reason is the note.
    pub(crate) fn rewrites(self) -> bool {
        self != Harness::QwenCode
    }

    pub(crate) fn context(self) -> Context {
        match self {
            Harness::ClaudeCode | Harness::Codex | Harness::Copilot => Context::Message,
            Harness::OpenCode => Context::ToolResult,
            Harness::Gemini | Harness::QwenCode => Context::Nowhere,
        }
    }

    /// The hook file `install <harness> --project` writes.
    pub(crate) fn config_file(self, ws: &Path) -> PathBuf {
        ws.join(match self {
            Harness::ClaudeCode => ".claude/settings.json",
            Harness::Codex => ".codex/hooks.json",
            Harness::Gemini => ".gemini/settings.json",
            Harness::Copilot => ".github/hooks/agent-guard.json",
            Harness::QwenCode => ".qwen/settings.json",
            Harness::OpenCode => ".opencode/plugins/agent-guard.js",
        })
    }

    /// What the user sets up before installing agent-guard: the mock model provider (and the
    /// credentials these CLIs insist on), and the folder trust a project's config needs.
    pub(crate) fn prepare(self, dirs: &Dirs<'_>) {
        let ws = dirs.ws.display().to_string();
        match self {
            Harness::ClaudeCode => {}
            // Codex loads a project's `.codex/` layer only for a trusted project; the hook's
            // own trust is install's.
            Harness::Codex => write(
                &dirs.codex_home().join("config.toml"),
                &format!(
                    "model = \"mock-model\"\n\
                     model_provider = \"mock\"\n\
                     \n\
                     [model_providers.mock]\n\
                     name = \"mock\"\n\
                     base_url = \"http://127.0.0.1:{MOCK_PORT}/v1\"\n\
                     env_key = \"MOCK_API_KEY\"\n\
                     wire_api = \"responses\"\n\
                     request_max_retries = 0\n\
                     stream_max_retries = 0\n\
                     \n\
                     [projects.\"{ws}\"]\n\
                     trust_level = \"trusted\"\n"
                ),
            ),
            // Without an auth type Gemini CLI exits 41; usage statistics would look up a
            // remote host. A folder it does not trust runs no hooks (`-p` exits 55 there).
            Harness::Gemini => {
                let dir = dirs.home.join(".gemini");
                write(
                    &dir.join("settings.json"),
                    &json!({"security": {"auth": {"selectedType": "gemini-api-key"}},
                            "privacy": {"usageStatisticsEnabled": false}})
                    .to_string(),
                );
                write(
                    &dir.join("trustedFolders.json"),
                    &json!({ws: "TRUST_FOLDER"}).to_string(),
                );
            }
            // Copilot CLI skips a repository's hooks, silently, unless the folder is trusted.
            Harness::Copilot => write(
                &dirs.copilot_home().join("config.json"),
                &json!({"trustedFolders": [ws]}).to_string(),
            ),
            Harness::QwenCode => write(
                &dirs.home.join(".qwen/settings.json"),
                &json!({"security": {"auth": {"selectedType": "openai"}},
                        "privacy": {"usageStatisticsEnabled": false}})
                .to_string(),
            ),
            // A custom OpenAI-compatible provider (the bundled `@ai-sdk/openai-compatible`).
            Harness::OpenCode => write(
                &dirs.xdg("config").join("opencode/opencode.json"),
                &json!({
                    "$schema": "https://opencode.ai/config.json",
                    "provider": {"mock": {
                        "npm": "@ai-sdk/openai-compatible", "name": "Mock",
                        "options": {"baseURL": format!("http://127.0.0.1:{MOCK_PORT}/v1"),
                                    "apiKey": "test"},
                        "models": {"mock-model": {"name": "Mock"}}}},
                    "model": "mock/mock-model", "autoupdate": false, "share": "disabled"
                })
                .to_string(),
            ),
        }
    }

    /// The CLI's arguments and environment for a non-interactive run on `prompt`.
    pub(crate) fn configure(self, cmd: &mut Command, prompt: &str, dirs: &Dirs<'_>) {
        let url = format!("http://127.0.0.1:{MOCK_PORT}");
        match self {
            Harness::ClaudeCode => {
                cmd.args(["-p", prompt, "--dangerously-skip-permissions"])
                    .env("ANTHROPIC_BASE_URL", &url)
                    .env("ANTHROPIC_API_KEY", "test")
                    .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
                    .env("DISABLE_AUTOUPDATER", "1")
                    // Claude Code refuses --dangerously-skip-permissions as root otherwise.
                    .env("IS_SANDBOX", "1");
            }
            Harness::Codex => {
                cmd.arg("exec")
                    .arg("--dangerously-bypass-approvals-and-sandbox")
                    .args(["--color", "never", "-C"])
                    .arg(dirs.ws)
                    .arg(prompt)
                    .env("MOCK_API_KEY", "test");
            }
            // Without `--approval-mode yolo`, `-p` does not offer the shell tool at all.
            Harness::Gemini => {
                cmd.args(["-p", prompt, "--approval-mode", "yolo"])
                    .env("GEMINI_API_KEY", "test")
                    .env("GOOGLE_GEMINI_BASE_URL", &url);
            }
            // A provider of its own: no GitHub login.
            Harness::Copilot => {
                cmd.args(["-p", prompt, "--allow-all-tools"])
                    .env("COPILOT_PROVIDER_BASE_URL", format!("{url}/v1"))
                    .env("COPILOT_PROVIDER_API_KEY", "test")
                    .env("COPILOT_MODEL", "mock-model")
                    .env("COPILOT_OFFLINE", "true");
            }
            Harness::QwenCode => {
                cmd.args(["-p", prompt, "--approval-mode", "yolo"])
                    .env("OPENAI_BASE_URL", format!("{url}/v1"))
                    .env("OPENAI_API_KEY", "test")
                    .env("OPENAI_MODEL", "mock-model")
                    .env("QWEN_CODE_SUPPRESS_YOLO_WARNING", "1");
            }
            // OpenCode installs `@opencode-ai/plugin` into every config directory that has
            // plugins, in the background, and waits for it before loading them; offline, npm's
            // retries stall that for about 70 s. agent-guard's plugin imports nothing, so the
            // failed install is harmless: make it fail at once.
            // Its models.dev, update and LSP downloads are off: the namespace refuses them
            // anyway, this only saves the attempts.
            Harness::OpenCode => {
                cmd.args(["run", "--format", "json", prompt])
                    .env("npm_config_fetch_retries", "0")
                    .env("OPENCODE_DISABLE_MODELS_FETCH", "1")
                    .env("OPENCODE_DISABLE_AUTOUPDATE", "1")
                    .env("OPENCODE_DISABLE_LSP_DOWNLOAD", "1");
            }
        }
    }

    /// Whether `payload` is this harness's pre-tool payload for the shell command `ls`.
    pub(crate) fn is_ls_payload(self, payload: &Value) -> bool {
        match self {
            Harness::ClaudeCode | Harness::Codex => {
                payload["hook_event_name"] == "PreToolUse"
                    && payload["tool_input"]["command"] == "ls"
            }
            Harness::Gemini => {
                payload["hook_event_name"] == "BeforeTool"
                    && payload["tool_name"] == "run_shell_command"
                    && payload["tool_input"]["command"] == "ls"
            }
            Harness::Copilot => {
                let args = match &payload["toolArgs"] {
                    Value::String(text) => serde_json::from_str(text).unwrap_or(Value::Null),
                    other => other.clone(),
                };
                payload["toolName"] == "bash" && args["command"] == "ls"
            }
            Harness::QwenCode => {
                payload["hook_event_name"] == "PreToolUse"
                    && payload["tool_name"] == "run_shell_command"
                    && payload["tool_input"]["command"] == "ls"
            }
            Harness::OpenCode => {
                payload["hook_event_name"] == "tool.execute.before"
                    && payload["tool"] == "bash"
                    && payload["args"]["command"] == "ls"
            }
        }
    }

    /// Sets the timeout of the installed hook to `secs` (the failure-mode tests), in the
    /// harness's own unit; `false` where that cannot be done without invalidating the hook
    /// (Codex: the hook's trust hash covers it).
    pub(crate) fn set_hook_timeout(self, config: &Path, secs: u64) -> bool {
        if self == Harness::OpenCode {
            let text = fs::read_to_string(config).unwrap();
            let shorter = text.replace(
                "const TIMEOUT_MS = 30000;",
                &format!("const TIMEOUT_MS = {};", secs * 1000),
            );
            assert_ne!(text, shorter, "the plugin's timeout is where it was");
            fs::write(config, shorter).unwrap();
            return true;
        }
        let mut doc: Value = serde_json::from_str(&fs::read_to_string(config).unwrap()).unwrap();
        let (slot, value) = match self {
            Harness::Codex => return false,
            Harness::ClaudeCode | Harness::QwenCode => (
                &mut doc["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"],
                json!(secs),
            ),
            Harness::Gemini => (
                &mut doc["hooks"]["BeforeTool"][0]["hooks"][0]["timeout"],
                json!(secs * 1000),
            ),
            Harness::Copilot => (
                &mut doc["hooks"]["preToolUse"][0]["timeoutSec"],
                json!(secs),
            ),
            Harness::OpenCode => unreachable!("handled above"),
        };
        assert!(
            !slot.is_null(),
            "{} has a hook timeout to shorten",
            self.name()
        );
        *slot = value;
        fs::write(config, doc.to_string()).unwrap();
        true
    }
}
