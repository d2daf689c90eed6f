//! The commands of `chuhe`, one module each (the arguments they share in [`args`]).
//! Each calls the library: the API's functions for what the API answers too (so
//! `--json` prints the very response of the RPC), the engine and the variant layer.

pub mod analysis;
pub mod args;
pub mod audit;
pub mod matches;
pub mod rules;
pub mod serve;
