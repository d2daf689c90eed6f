//! The gRPC service: tonic adapters around the API's functions ([`crate::api`]) and
//! the engine ([`crate::engine`]): the servers, errors as statuses, admission, limits,
//! metrics per call, connections, TLS, API keys and shutdown. Front ends other than
//! the server use the library below it, never this module (except to start the
//! server).

/// The share of the server's places of one client address.
pub mod address_share;
/// AnalysisService over tonic.
pub mod analysis;
/// API keys and tenants.
pub mod auth;
mod blocking;
/// What a call carries from one layer to the next: its tenant and its place.
pub mod call;
/// The codecs of the API's calls: the generated servers' and clients', and ListLegalMoves'.
pub mod codec;
mod connection;
/// The accept loop: connections under limits, TLS and shutdown.
pub mod connections;
/// The API's errors as gRPC statuses.
pub mod errors;
mod grpc_headers;
/// JobService over tonic.
pub mod jobs;
/// The API keys file, read again when it changes.
pub mod keys_file;
/// Admission, deadlines, metrics and the audit line of every call.
pub mod middleware;
/// NotationService over tonic.
pub mod notation;
/// A tenant's quotas, and refusals held back.
pub mod quota;
mod record;
mod request_body;
mod response_body;
/// RulesService over tonic.
pub mod rules;
/// The server: every service behind its layers, and its shutdown.
pub mod server;
/// TLS and mutual TLS, with certificates loaded again when they change.
pub mod tls;
mod unread;
mod write_watch;

/// Calls `look` every `interval` (the first time at once) until the returned task is
/// aborted: how the TLS and API key files are watched.
fn every(interval: std::time::Duration, mut look: impl FnMut() + Send + 'static) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(interval);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            look();
        }
    })
}
