//! The API and the gRPC service: every test that starts the real server on an
//! ephemeral port (or calls the API layer below it), per variant and per concern, and
//! the files of the repository that show calls to it (README, ghz, deploy).
//!
//! One test binary for the layer, one module per concern or variant; the helpers shared
//! by the layers are in `tests/common/`.

#[path = "../common/mod.rs"]
mod common;

mod analysis;
mod analysis_store;
mod api_keys;
mod audit;
mod deploy;
mod evaluation;
mod fairplay;
mod game_length_limits;
mod ghz_configs;
mod hardening;
mod janggi;
mod jobs;
mod move_list;
mod notation;
mod notation_variants;
mod probe;
mod readme_examples;
mod request_caps;
mod rules;
mod search_deadlines;
mod search_priority;
mod server;
mod slow_clients;
mod tenant_fairness;
mod three_kingdoms;
mod tls;
mod undecodable;
