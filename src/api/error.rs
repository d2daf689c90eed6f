//! What goes wrong with a request, in the API's terms but without a transport: the
//! gRPC service turns each kind into its status code (a bad field into
//! INVALID_ARGUMENT with a `google.rpc.BadRequest` naming it), the command line into a
//! message on stderr.

use std::fmt;

use crate::engine::EngineError;

/// Why a request was not answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// A field of the request is wrong: its path (`position.moves[3]`) and the reason.
    BadField {
        /// The field's path in the request.
        field: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A feature the API announces but does not serve yet.
    Unimplemented(String),
    /// The request is well formed but cannot be answered in this state (a search of a
    /// game that is over).
    FailedPrecondition(String),
    /// The engine could not take the work (busy, or shutting down).
    Engine(EngineError),
    /// A fault of this program, never of the request.
    Internal(String),
}

/// The API's result type.
pub type Result<T> = std::result::Result<T, Error>;

/// A bad field: its path and the reason (INVALID_ARGUMENT over gRPC).
pub fn bad_request(field: impl Into<String>, reason: impl Into<String>) -> Error {
    Error::BadField { field: field.into(), reason: reason.into() }
}

/// A message field the request must set: its value, or the error that names it.
pub fn required<'a, T>(value: Option<&'a T>, field: &str) -> Result<&'a T> {
    value.ok_or_else(|| bad_request(field, format!("{field} is required")))
}

/// A feature that is announced in the API but not served yet.
pub fn unimplemented(what: impl Into<String>) -> Error {
    Error::Unimplemented(what.into())
}

impl Error {
    /// The error of a message found at `path` inside a larger request: a bad field's
    /// path is prefixed with it (`jobs[2].work.audit` and `position` make
    /// `jobs[2].work.audit.position`).
    pub fn within(self, path: &str) -> Error {
        match self {
            Error::BadField { field, reason } => Error::BadField { field: format!("{path}.{field}"), reason },
            other => other,
        }
    }
}

impl From<EngineError> for Error {
    fn from(e: EngineError) -> Self {
        Error::Engine(e)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::BadField { field, reason } => write!(f, "{field}: {reason}"),
            Error::Unimplemented(what) | Error::FailedPrecondition(what) | Error::Internal(what) => f.write_str(what),
            Error::Engine(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Error {}
