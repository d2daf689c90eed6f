//! The gRPC service: tonic adapters around the API's functions ([`crate::api`]) and
//! the engine ([`crate::engine`]): the servers, errors as statuses, admission, limits,
//! metrics per call, connections, TLS, API keys and shutdown. Front ends other than
//! the server use the library below it, never this module (except to start the
//! server).

pub mod analysis;
pub mod auth;
mod blocking;
mod codec;
mod connection;
pub mod connections;
pub mod errors;
pub mod middleware;
pub mod notation;
pub mod rules;
pub mod server;
pub mod tls;
