//! The command line: the `chuhe` binary run as a process, its commands, UCI and self-play.
//!
//! One test binary for the layer, one module per concern or variant; the helpers shared
//! by the layers are in `tests/common/`.

#[path = "../common/mod.rs"]
mod common;

mod adjudicate;
mod commands;
mod janggi;
mod janggi_match;
mod selfplay;
mod three_kingdoms;
mod tune;
mod uci;
