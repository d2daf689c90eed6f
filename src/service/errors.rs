//! gRPC errors with `google.rpc.BadRequest` details naming the field and the reason.

use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

/// INVALID_ARGUMENT with one field violation.
pub fn bad_request(field: impl Into<String>, reason: impl Into<String>) -> Status {
    let (field, reason) = (field.into(), reason.into());
    let message = format!("{field}: {reason}");
    Status::with_error_details(Code::InvalidArgument, message, ErrorDetails::with_bad_request_violation(field, reason))
}

/// UNIMPLEMENTED for a feature that is announced in the API but not served yet.
pub fn unimplemented(what: impl Into<String>) -> Status {
    Status::unimplemented(what.into())
}
