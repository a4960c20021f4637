//! Shell lexers: command text → a flat list of simple commands ([`Script`]).
//!
//! This is the first stage of the pipeline (`lex → classify → policy`). Each dialect module
//! turns text into the same dialect-neutral [`ast`] so the classifier can share its rules.
//! Lexers are pure: no I/O, no environment, no clock. They never panic and run in time linear
//! in the input; property tests and fuzz targets hold them to that.

#![warn(missing_docs)]

pub mod ast;
pub mod cmd;
mod cursor;
pub mod expand;
mod list;
pub mod posix;
pub mod powershell;
mod quote;
#[cfg(test)]
mod test_support;
mod wordbuf;

pub use ast::{
    Brace, CommandContext, Heredoc, LexError, LexErrorKind, Redirect, RedirectOp, Script,
    Separator, SimpleCommand, Word, WordPart,
};
pub use expand::{Expansion, Field, expand_word};
pub use quote::{Unquotable, quote_words};
