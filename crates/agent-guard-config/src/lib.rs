//! Configuration of agent-guard: the environment and `.agent-guard.toml`, resolved once.
//!
//! In the pipeline this crate sits beside the pure core: the engine captures the environment
//! once ([`EnvSnapshot::capture`]), loads the project file once ([`load_config`]) and resolves
//! both into an immutable [`Settings`] that it hands to the later stages.
//!
//! ```text
//! env + .agent-guard.toml → config → Settings → engine (policy, recovery, audit)
//! ```
//!
//! This crate reads the environment in exactly one place ([`EnvSnapshot::capture`]) and reads
//! one small file. It writes nothing, never creates directories and never touches the
//! quarantine. A project file that cannot be parsed is an error, never a silent default:
//! the caller turns it into a refusal.
//!
//! ```
//! use std::path::PathBuf;
//!
//! use agent_guard_config::{EnvSnapshot, Settings};
//!
//! let env = EnvSnapshot { trash: Some("quarantine".into()), ..EnvSnapshot::default() };
//! let settings = Settings::resolve(PathBuf::from("/work/project"), &env, None).unwrap();
//! assert_eq!(settings.trash, PathBuf::from("/work/project/quarantine"));
//! assert!(settings.allow_regenerable);
//! assert_eq!(settings.deadline_ms, 5000);
//! ```

#![warn(missing_docs)]

mod env;
pub mod env_vars;
mod error;
mod file;
pub mod layers;
mod settings;
pub mod trust;

pub use env::EnvSnapshot;
pub use error::ConfigError;
pub use file::{
    CONFIG_FILE_NAME, CheckpointConfig, ConfigFile, HookConfig, MAX_CONFIG_BYTES, PreserveConfig,
    RegenerableConfig, RetentionConfig, load_config, load_trusted_config,
};
pub use settings::{
    DEFAULT_ARTIFACTS, DEFAULT_CHECKPOINT_MAX_FILE_BYTES, DEFAULT_DEADLINE_MS,
    DEFAULT_PRESERVE_MAX_BYTES, DEFAULT_TRASH_DIRNAME, MAX_DEADLINE_MS, Settings, env_deadline,
};
