//! The commands of `chuhe`, one module each (the arguments they share in [`args`]).
//! Each calls the library: the API's functions for what the API answers too (so
//! `--json` prints the very response of the RPC), the engine and the variant layer.

#![warn(missing_docs)]

/// `chuhe analyze`, `hint` and draw offers.
pub mod analysis;
/// Arguments several commands share: the position, the variant, rule sets, notations.
pub mod args;
/// `chuhe audit`: a game's per-ply evidence.
pub mod audit;
/// `chuhe datagen`: self-play training data for the learned evaluation.
pub mod datagen;
/// `chuhe fairplay`: calibrate a fair-play model, assess players.
pub mod fairplay;
/// `chuhe jobs` and `chuhe worker`: the job queue.
pub mod jobs;
/// `chuhe match`: engines against each other.
pub mod matches;
/// `chuhe moves`, `convert`, `adjudicate` and the other rules commands.
pub mod rules;
/// `chuhe serve`: the gRPC server and its metrics.
pub mod serve;
/// `chuhe train`: data files to a net file for the learned evaluation.
pub mod train;
/// `chuhe tune`: the evaluation's weights fitted to game records.
pub mod tune;
