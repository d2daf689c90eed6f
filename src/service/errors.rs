//! The API's errors as gRPC statuses: a bad field is INVALID_ARGUMENT with a
//! `google.rpc.BadRequest` naming the field and the reason.

use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

use crate::api::Error;
use crate::engine::EngineError;

/// Longest field or reason a status carries whole, in bytes. The reason is written
/// twice (message and BadRequest detail), percent-encoded or in base64: a status of
/// such texts stays far below the 16 KiB of headers a default client accepts.
pub const MAX_ECHO_BYTES: usize = 1024;

/// Bytes kept from each end of a text that is cut.
const KEPT_BYTES: usize = 384;

/// INVALID_ARGUMENT with one field violation. A reason that echoes a long input is cut
/// in its middle (see [`clip`]).
pub fn bad_request(field: impl Into<String>, reason: impl Into<String>) -> Status {
    let (field, reason) = (clip(field.into()), clip(reason.into()));
    let message = format!("{field}: {reason}");
    Status::with_error_details(Code::InvalidArgument, message, ErrorDetails::with_bad_request_violation(field, reason))
}

impl From<Error> for Status {
    fn from(e: Error) -> Status {
        match e {
            Error::BadField { field, reason } => bad_request(field, reason),
            Error::Unimplemented(what) => Status::unimplemented(what),
            Error::FailedPrecondition(what) => Status::failed_precondition(what),
            Error::Internal(what) => Status::internal(what),
            Error::Engine(e) => e.into(),
        }
    }
}

impl From<EngineError> for Status {
    fn from(e: EngineError) -> Status {
        match e {
            EngineError::Busy => Status::resource_exhausted(e.to_string()),
            EngineError::Stopped => Status::unavailable(e.to_string()),
            EngineError::Lost => Status::internal(e.to_string()),
        }
    }
}

/// `text` if it is at most [`MAX_ECHO_BYTES`] long; otherwise its start and its end
/// (where an error says what is wrong) around a marker of the bytes left out:
/// `"h2e2 h9g7 …(7,232 bytes)… b0c2" is not a move`.
pub fn clip(text: String) -> String {
    if text.len() <= MAX_ECHO_BYTES {
        return text;
    }
    let head = floor_char_boundary(&text, KEPT_BYTES);
    let tail = ceil_char_boundary(&text, text.len() - KEPT_BYTES);
    format!("{}…({} bytes)…{}", &text[..head], thousands(tail - head), &text[tail..])
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_char_boundary(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_texts_are_whole_and_long_ones_cut_in_the_middle() {
        assert_eq!(clip("h2e2 is illegal".into()), "h2e2 is illegal");
        let long = format!("\"{}\" is not a move", "马八进七".repeat(1000));
        let cut = clip(long.clone());
        assert!(cut.len() < MAX_ECHO_BYTES, "{} bytes", cut.len());
        assert!(cut.starts_with("\"马八进七"), "{cut}");
        assert!(cut.ends_with("\" is not a move"), "{cut}");
        let (open, close) = (cut.find("…(").unwrap(), cut.find(" bytes)…").unwrap());
        let left_out: usize = cut[open + "…(".len()..close].replace(',', "").parse().unwrap();
        let kept = open + (cut.len() - close - " bytes)…".len());
        assert_eq!(left_out + kept, long.len(), "{cut}");
        assert_eq!(thousands(7), "7");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}
