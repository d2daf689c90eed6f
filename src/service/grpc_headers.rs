//! What the gRPC headers of a call say: the client's `grpc-timeout`, and a response's
//! `grpc-status` read back (trailers-only answers) and mapped to the codes the gRPC
//! conventions give a fault of the request.

use std::time::Duration;

use http::{HeaderMap, HeaderValue, Request};

use crate::api::undecodable::{UNDECODABLE, field_of_report};

/// The `grpc-status` of headers or trailers, first given the code the gRPC convention
/// names for what the framework rejects: a message over the size limit is
/// RESOURCE_EXHAUSTED (the framework says OUT_OF_RANGE), a message that does not decode
/// or a malformed frame is INVALID_ARGUMENT (the framework says INTERNAL).
pub(super) fn status_of(headers: &mut HeaderMap) -> Option<tonic::Code> {
    let code = tonic::Code::from_bytes(headers.get("grpc-status")?.as_bytes());
    let message = headers.get("grpc-message").map_or_else(Vec::new, |m| percent_decoded(m.as_bytes()));
    let public = public_code(code, &message);
    if let Some(report) = message.strip_prefix(UNDECODABLE.as_bytes())
        && public == tonic::Code::InvalidArgument
    {
        let (field, reason) =
            located_field(headers).unwrap_or_else(|| field_of_report(&String::from_utf8_lossy(report)));
        // A message that does not decode is a bad field like any other.
        super::errors::bad_request(field, reason).add_header(headers).ok();
    } else if public != code {
        headers.insert("grpc-status", HeaderValue::from(public as i32));
    }
    Some(public)
}

/// The field and reason the API's decoder found in the request's bytes, from the
/// status's `google.rpc.BadRequest` ([`super::codec::NamingDecoder`]); none from the
/// decoder of another service (health, reflection), whose report alone names them.
fn located_field(headers: &HeaderMap) -> Option<(String, String)> {
    headers.get("grpc-status-details-bin")?;
    let status = tonic::Status::from_header_map(headers)?;
    let violation = tonic_types::StatusExt::get_details_bad_request(&status)?.field_violations.into_iter().next()?;
    Some((violation.field, violation.description))
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
        let mut headers = HeaderMap::new();
        Status::internal(format!("{UNDECODABLE}{report}")).add_header(&mut headers).unwrap();
        assert_eq!(status_of(&mut headers), Some(tonic::Code::InvalidArgument));
        let status = Status::from_header_map(&headers).unwrap();
        let details = tonic_types::StatusExt::get_details_bad_request(&status).expect("a BadRequest");
        assert_eq!(details.field_violations[0].field, "position.fen");
        assert_eq!(status.message(), "position.fen: invalid string value: data is not UTF-8 encoded");

        // The field the API's decoder located in the bytes is the one named.
        let report = "Position.moves: ValidateMoveRequest.position: invalid string value: data is not UTF-8 encoded";
        let located =
            tonic_types::ErrorDetails::with_bad_request_violation("position.moves[1]", "invalid string value");
        let mut headers = HeaderMap::new();
        <Status as tonic_types::StatusExt>::with_error_details(
            tonic::Code::Internal,
            format!("{UNDECODABLE}{report}"),
            located,
        )
        .add_header(&mut headers)
        .unwrap();
        assert_eq!(status_of(&mut headers), Some(tonic::Code::InvalidArgument));
        let status = Status::from_header_map(&headers).unwrap();
        assert_eq!(status.message(), "position.moves[1]: invalid string value");
    }
}
