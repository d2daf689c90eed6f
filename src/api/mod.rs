//! The API (`chuhe.v1`) without its transport: the generated messages, their mapping to
//! and from the domain types of the variant layer, and each RPC as a plain function of
//! its request. The gRPC service ([`crate::service`]) wraps these functions in tonic;
//! the command line's `--json` prints their answers; neither repeats them.

/// AnalysisService: searches, hints and draw offers.
pub mod analysis;
/// AuditGame: the engine's evidence for every ply of a game.
pub mod audit;
/// The codec of the generated servers and clients: a request that does not decode names
/// its field as the proto does.
pub mod codec;
/// Messages to and from the domain for the 9x10 games.
pub mod convert;
/// The API's errors, independent of any transport.
pub mod error;
/// AssessPlayer and the server's fair-play models.
pub mod fairplay;
/// A request's game of any variant, the one place a request is routed by its variant.
pub mod game;
/// Jobs: requests done in the background through the queue, and their results.
pub mod jobs;
/// NotationService: move conversion and game records.
pub mod notation;
/// A search answered on its time, from its last depth when its thread is late.
pub mod on_time;
/// The generated `chuhe.v1` messages (documented in `proto/`).
pub mod proto;
/// RulesService: legal moves, validation and adjudication.
pub mod rules;
/// What the search RPCs of every variant share: limits, lines, progress.
pub mod searching;
/// The RPCs in a Three Kingdoms game (its rules, notation and analysis answers).
pub mod three_kingdoms;
/// A request that does not decode, its field named as the proto names it.
pub mod undecodable;
/// What each RPC asks of a game, one trait per service, and the one hand-off by variant.
pub mod variant;
/// Protobuf bytes written by hand where building messages would cost too much.
pub mod wire;
/// Protobuf bytes read one message's level at a time, to where they break.
pub mod wire_fields;
/// A worker: jobs taken from the queue and done under their leases.
pub mod worker;

pub use error::{Error, Result};
