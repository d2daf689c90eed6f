//! What the gRPC headers of a call say: the client's `grpc-timeout`, and a response's
//! `grpc-status` read back (trailers-only answers) and mapped to the codes the gRPC
//! conventions give a fault of the request.

use std::time::Duration;

use http::{HeaderMap, HeaderValue, Request};

/// The `grpc-status` of headers or trailers, first given the code the gRPC convention
/// names for what the framework rejects: a message over the size limit is
/// RESOURCE_EXHAUSTED (the framework says OUT_OF_RANGE), a message that does not decode
/// or a malformed frame is INVALID_ARGUMENT (the framework says INTERNAL).
pub(super) fn status_of(headers: &mut HeaderMap) -> Option<tonic::Code> {
    let code = tonic::Code::from_bytes(headers.get("grpc-status")?.as_bytes());
    let message = headers.get("grpc-message").map_or_else(Vec::new, |m| percent_decoded(m.as_bytes()));
    let public = public_code(code, &message);
    if let Some(undecodable) = message.strip_prefix(UNDECODABLE.as_bytes())
        && public == tonic::Code::InvalidArgument
        && !headers.contains_key("grpc-status-details-bin")
    {
        let (field, reason) = decoder_field(&String::from_utf8_lossy(undecodable));
        // A message that does not decode is a bad field like any other.
        super::errors::bad_request(field, reason).add_header(headers).ok();
    } else if public != code {
        headers.insert("grpc-status", HeaderValue::from(public as i32));
    }
    Some(public)
}

/// The start of the message of a request that does not decode.
const UNDECODABLE: &str = "failed to decode Protobuf message: ";

/// The field path and the reason of what the decoder reports: its fields, innermost
/// first (`Position.fen: ListLegalMovesRequest.position: invalid string value`), as a
/// path from the request (`position.fen`); none when the request itself is broken.
fn decoder_field(report: &str) -> (String, String) {
    let mut fields = Vec::new();
    let mut rest = report;
    while let Some((step, after)) = rest.split_once(": ")
        && let Some((message, field)) = step.split_once('.')
        && [message, field]
            .iter()
            .all(|name| !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
    {
        fields.push(field);
        rest = after;
    }
    fields.reverse();
    (fields.join("."), rest.to_string())
}

/// The bytes of a percent-encoded `grpc-message` (a bad escape is kept as it is).
fn percent_decoded(encoded: &[u8]) -> Vec<u8> {
    let hex = |b: u8| (b as char).to_digit(16);
    let mut out = Vec::with_capacity(encoded.len());
    let mut i = 0;
    while i < encoded.len() {
        if encoded[i] == b'%'
            && let Some(&[h, l]) = encoded.get(i + 1..i + 3)
            && let (Some(h), Some(l)) = (hex(h), hex(l))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
        } else {
            out.push(encoded[i]);
            i += 1;
        }
    }
    out
}

/// The code the gRPC convention names for what the framework rejects: a message over
/// the size limit is RESOURCE_EXHAUSTED (the framework says OUT_OF_RANGE), a message
/// that does not decode or a malformed frame is INVALID_ARGUMENT (it says INTERNAL).
pub fn public_code(code: tonic::Code, message: &[u8]) -> tonic::Code {
    const TOO_LARGE: &[&[u8]] =
        &[b"Error, decoded message length too large", b"Error, encoded message length too large"];
    const MALFORMED: &[&[u8]] = &[
        UNDECODABLE.as_bytes(),
        b"protocol error: received message with invalid compression flag",
        b"Unexpected EOF decoding stream",
    ];
    match code {
        tonic::Code::OutOfRange if TOO_LARGE.iter().any(|p| message.starts_with(p)) => tonic::Code::ResourceExhausted,
        tonic::Code::Internal if MALFORMED.iter().any(|p| message.starts_with(p)) => tonic::Code::InvalidArgument,
        _ => code,
    }
}

/// The `grpc-timeout` header of a request.
pub(super) fn client_timeout<B>(req: &Request<B>) -> Option<Duration> {
    parse_grpc_timeout(req.headers().get("grpc-timeout")?.to_str().ok()?)
}

/// A `grpc-timeout` value: `<digits><unit>`, unit H M S m u n.
pub fn parse_grpc_timeout(v: &str) -> Option<Duration> {
    let (digits, unit) = v.split_at(v.len().checked_sub(1)?);
    let n: u64 = digits.parse().ok()?;
    Some(match unit {
        "H" => Duration::from_secs(n.saturating_mul(3600)),
        "M" => Duration::from_secs(n.saturating_mul(60)),
        "S" => Duration::from_secs(n),
        "m" => Duration::from_millis(n),
        "u" => Duration::from_micros(n),
        "n" => Duration::from_nanos(n),
        _ => return None,
    })
}

/// Code names as the Go interceptors write them (`OK`, `InvalidArgument`, ...).
pub(super) fn code_name(code: tonic::Code) -> &'static str {
    use tonic::Code::*;
    match code {
        Ok => "OK",
        Cancelled => "Canceled",
        Unknown => "Unknown",
        InvalidArgument => "InvalidArgument",
        DeadlineExceeded => "DeadlineExceeded",
        NotFound => "NotFound",
        AlreadyExists => "AlreadyExists",
        PermissionDenied => "PermissionDenied",
        ResourceExhausted => "ResourceExhausted",
        FailedPrecondition => "FailedPrecondition",
        Aborted => "Aborted",
        OutOfRange => "OutOfRange",
        Unimplemented => "Unimplemented",
        Internal => "Internal",
        Unavailable => "Unavailable",
        DataLoss => "DataLoss",
        Unauthenticated => "Unauthenticated",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic::Status;

    #[test]
    fn framework_codes_follow_the_convention() {
        use tonic::Code::*;
        let too_large = b"Error, decoded message length too large: found 9 bytes, the limit is: 4 bytes";
        assert_eq!(public_code(OutOfRange, too_large), ResourceExhausted);
        assert_eq!(public_code(Internal, b"failed to decode Protobuf message: invalid wire type"), InvalidArgument);
        assert_eq!(public_code(Internal, b"Unexpected EOF decoding stream."), InvalidArgument);
        assert_eq!(public_code(Internal, b"validation task failed"), Internal);
        assert_eq!(public_code(OutOfRange, b"ply 12 is past the end"), OutOfRange);
        assert_eq!(percent_decoded(b"Error,%20decoded%2"), b"Error, decoded%2");
    }

    #[test]
    fn the_decoders_report_names_the_field_from_the_request() {
        let report = "Position.fen: ListLegalMovesRequest.position: invalid string value: data is not UTF-8 encoded";
        assert_eq!(
            decoder_field(report),
            ("position.fen".into(), "invalid string value: data is not UTF-8 encoded".into())
        );
        assert_eq!(decoder_field("invalid tag value: 0"), (String::new(), "invalid tag value: 0".into()));
        let mut headers = HeaderMap::new();
        Status::internal(format!("{UNDECODABLE}{report}")).add_header(&mut headers).unwrap();
        assert_eq!(status_of(&mut headers), Some(tonic::Code::InvalidArgument));
        let status = Status::from_header_map(&headers).unwrap();
        let details = tonic_types::StatusExt::get_details_bad_request(&status).expect("a BadRequest");
        assert_eq!(details.field_violations[0].field, "position.fen");
    }
}
