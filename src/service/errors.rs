//! The API's errors as gRPC statuses: a bad field is INVALID_ARGUMENT with a
//! `google.rpc.BadRequest` naming the field and the reason.

use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

use crate::api::Error;
use crate::engine::EngineError;

/// INVALID_ARGUMENT with one field violation.
pub fn bad_request(field: impl Into<String>, reason: impl Into<String>) -> Status {
    let (field, reason) = (field.into(), reason.into());
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
