//! Helpers shared by the harness modules' unit tests.

use serde_json::{Map, Value};

use crate::{EditCall, Harness, HookReply, HookRequest, ShellCall, parse};

/// The shell call `harness` reads from `bytes`; panics on any other request.
pub(crate) fn shell(harness: Harness, bytes: &[u8]) -> ShellCall {
    match parse(harness, bytes) {
        HookRequest::Shell(call) => call,
        other => panic!("{harness:?}: a shell call expected, got {other:?}"),
    }
}

/// The file-writing call `harness` reads from `bytes`; panics on any other request.
pub(crate) fn edit(harness: Harness, bytes: &[u8]) -> EditCall {
    match parse(harness, bytes) {
        HookRequest::Edit(call) => call,
        other => panic!("{harness:?}: an edit call expected, got {other:?}"),
    }
}

/// Whether `harness` reads `bytes` as a malformed payload.
pub(crate) fn malformed(harness: Harness, bytes: &[u8]) -> bool {
    matches!(parse(harness, bytes), HookRequest::Malformed(_))
}

/// A reply's stdout, parsed as JSON.
pub(crate) fn stdout_json(reply: &HookReply) -> Value {
    serde_json::from_str(reply.stdout.as_deref().unwrap()).unwrap()
}

/// The object `value` is.
pub(crate) fn map(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!(),
    }
}
