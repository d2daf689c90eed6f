//! chuhe (楚河): the rules of Xiangqi, Janggi and Three Kingdoms Xiangqi, adjudication
//! and analysis, served over gRPC.

#![warn(missing_docs)]

pub mod api;
pub mod engine;
pub mod fairplay;
pub mod fixed_list;
pub mod game;
pub mod notation;
pub mod report;
pub mod rules;
pub mod search;
pub mod selfplay;
pub mod service;
pub mod telemetry;
pub mod train;
pub mod uci;
