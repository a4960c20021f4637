//! Colour: one palette for our output and clap's, on a terminal only.
//!
//! Output goes through `anstream`, which drops the styles when the stream is not a terminal,
//! when `NO_COLOR` is set or `--color never` was given, and keeps them with `CLICOLOR_FORCE`
//! or `--color always`.

use anstyle::{AnsiColor, Color, Style};

use agent_guard_types::Decision;

use crate::args::ColorWhen;

/// Errors.
pub const ERROR: Style = Style::new()
    .bold()
    .fg_color(Some(Color::Ansi(AnsiColor::Red)));
/// Warnings.
pub const WARNING: Style = Style::new()
    .bold()
    .fg_color(Some(Color::Ansi(AnsiColor::Yellow)));
/// Hints (the next thing to type).
pub const HINT: Style = Style::new()
    .bold()
    .fg_color(Some(Color::Ansi(AnsiColor::Cyan)));
/// Headings and ids.
pub const BOLD: Style = Style::new().bold();
/// Secondary text.
pub const DIM: Style = Style::new().dimmed();
/// What succeeded.
pub const OK: Style = Style::new().fg_color(Some(Color::Ansi(AnsiColor::Green)));

/// Applies the `--color` choice to everything printed afterwards.
pub fn apply(when: ColorWhen) {
    let choice = match when {
        ColorWhen::Auto => anstream::ColorChoice::Auto,
        ColorWhen::Always => anstream::ColorChoice::Always,
        ColorWhen::Never => anstream::ColorChoice::Never,
    };
    choice.write_global();
}

/// The style of a decision: ALLOW green, RELOCATE and SNAPSHOT cyan, ASK yellow, BLOCK red.
pub fn decision(decision: Decision) -> Style {
    let color = match decision {
        Decision::Allow | Decision::Sanitize => AnsiColor::Green,
        Decision::Relocate | Decision::Snapshot => AnsiColor::Cyan,
        Decision::Ask => AnsiColor::Yellow,
        Decision::Block => AnsiColor::Red,
    };
    Style::new().bold().fg_color(Some(Color::Ansi(color)))
}

/// `text` in `style` (the codes are dropped later when colour is off).
pub fn paint(style: Style, text: &str) -> String {
    format!("{style}{text}{style:#}")
}

/// clap's help and errors in the same palette.
pub const fn clap_styles() -> clap::builder::Styles {
    clap::builder::Styles::styled()
        .header(Style::new().bold().underline())
        .usage(Style::new().bold().underline())
        .literal(HINT)
        .placeholder(Style::new().fg_color(Some(Color::Ansi(AnsiColor::Cyan))))
        .error(ERROR)
        .valid(OK)
        .invalid(WARNING)
}
