//! A progress bar for long cross-device copies, drawn on stderr only when it is a terminal.

use std::io::IsTerminal as _;

use agent_guard_engine::Progress;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Copies smaller than this finish too fast to deserve a bar.
const MIN_BYTES: u64 = 64 * 1024 * 1024;

/// What the bar is showing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Activity {
    /// Moving targets into the quarantine (`check --enforce`, `safe-delete`).
    #[default]
    Quarantining,
    /// Putting quarantined items back (`restore`, `undo`, `redo`).
    Restoring,
}

impl Activity {
    /// The bar's words.
    pub const fn label(self) -> &'static str {
        match self {
            Activity::Quarantining => "moving to the quarantine",
            Activity::Restoring => "restoring from the quarantine",
        }
    }
}

/// A [`Progress`] that draws an indicatif bar on an interactive stderr.
#[derive(Debug)]
pub struct TerminalProgress {
    bar: Option<ProgressBar>,
    activity: Activity,
}

impl TerminalProgress {
    /// A bar for moving into the quarantine if stderr is a terminal, otherwise a silent sink.
    pub fn new() -> TerminalProgress {
        TerminalProgress::for_activity(Activity::Quarantining)
    }

    /// A bar for `activity` if stderr is a terminal, otherwise a silent sink.
    pub fn for_activity(activity: Activity) -> TerminalProgress {
        TerminalProgress {
            bar: std::io::stderr().is_terminal().then(ProgressBar::hidden),
            activity,
        }
    }
}

impl Default for TerminalProgress {
    fn default() -> TerminalProgress {
        TerminalProgress::new()
    }
}

impl Progress for TerminalProgress {
    fn start(&self, total_bytes: u64) {
        if let Some(bar) = &self.bar
            && total_bytes >= MIN_BYTES
        {
            {
                bar.set_length(total_bytes);
                bar.set_position(0);
                let template = format!(
                    "{{spinner}} {} {{bytes}}/{{total_bytes}} ({{bytes_per_sec}}, {{eta}})",
                    self.activity.label()
                );
                if let Ok(style) = ProgressStyle::with_template(&template) {
                    bar.set_style(style);
                }
                bar.set_draw_target(ProgressDrawTarget::stderr());
            }
        }
    }

    fn advance(&self, bytes: u64) {
        if let Some(bar) = &self.bar {
            bar.inc(bytes);
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
