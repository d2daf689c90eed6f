//! The API (`chuhe.v1`) without its transport: the generated messages, their mapping to
//! and from the domain types of the variant layer, and each RPC as a plain function of
//! its request. The gRPC service ([`crate::service`]) wraps these functions in tonic;
//! the command line's `--json` prints their answers; neither repeats them.

pub mod analysis;
pub mod audit;
pub mod convert;
pub mod error;
pub mod notation;
pub mod proto;
pub mod rules;
pub mod three_kingdoms;
pub mod three_kingdoms_analysis;
pub mod wire;

pub use error::{Error, Result};
