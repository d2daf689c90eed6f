//! Reading the replies of the queue's Redis: bytes, text and lists out of its values,
//! and the error of a reply of another shape.

use redis::Value;

use super::QueueError;

/// The bytes of a string reply.
pub fn bytes(v: &Value) -> Option<&[u8]> {
    match v {
        Value::BulkString(b) => Some(b),
        Value::SimpleString(s) => Some(s.as_bytes()),
        _ => None,
    }
}

/// A reply as text (a number or OK as written).
pub fn text(v: &Value) -> Option<String> {
    match v {
        Value::Int(n) => Some(n.to_string()),
        Value::Okay => Some("OK".into()),
        other => bytes(other).map(|b| String::from_utf8_lossy(b).into_owned()),
    }
}

/// The items of a list or set reply (none for another).
pub fn items(v: &Value) -> &[Value] {
    match v {
        Value::Array(items) | Value::Set(items) => items,
        _ => &[],
    }
}

/// The error of a reply of another shape than `what` has.
pub fn unexpected(what: &str, v: &Value) -> QueueError {
    QueueError::Unreachable(format!("unexpected reply to {what}: {v:?}"))
}
