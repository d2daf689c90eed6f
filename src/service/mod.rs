//! Thin tonic adapters: proto <-> domain, errors, limits.

pub mod analysis;
pub mod auth;
mod blocking;
mod connection;
pub mod connections;
pub mod convert;
pub mod engine;
pub mod errors;
pub mod middleware;
pub mod notation;
pub mod proto;
pub mod rules;
pub mod server;
pub mod three_kingdoms;
pub mod three_kingdoms_analysis;
pub mod tls;
pub mod wire;
