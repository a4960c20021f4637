//! The human-facing commands over the quarantine's history, and the helpers around them.

pub mod approve;
pub mod audit;
pub mod config;
pub mod docs;
pub mod explain;
pub mod gc;
pub mod list;
pub mod restore;
pub mod show;
pub mod status;
