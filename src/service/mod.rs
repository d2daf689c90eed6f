//! The gRPC service: tonic adapters around the API's functions ([`crate::api`]) and
//! the engine ([`crate::engine`]): the servers, errors as statuses, admission, limits,
//! metrics per call, connections, TLS, API keys and shutdown. Front ends other than
//! the server use the library below it, never this module (except to start the
//! server).

/// AnalysisService over tonic.
pub mod analysis;
/// API keys, tenants and their quotas.
pub mod auth;
mod blocking;
mod codec;
mod connection;
/// The accept loop: connections under limits, TLS and shutdown.
pub mod connections;
/// The API's errors as gRPC statuses.
pub mod errors;
/// The API keys file, read again when it changes.
pub mod keys_file;
/// Admission, deadlines, metrics and the audit line of every call.
pub mod middleware;
/// NotationService over tonic.
pub mod notation;
/// RulesService over tonic.
pub mod rules;
/// The server: every service behind its layers, and its shutdown.
pub mod server;
/// TLS and mutual TLS, with certificates loaded again when they change.
pub mod tls;
mod unread;
