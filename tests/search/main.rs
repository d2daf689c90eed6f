//! The search: its answers in Xiangqi, Janggi and Three Kingdoms, mates proven by a
//! brute-force solver, and the transposition table.
//!
//! One test binary for the layer, one module per concern or variant; the helpers shared
//! by the layers are in `tests/common/`.

#[path = "../common/mod.rs"]
mod common;

mod api_clock;
mod cycles;
mod exchange;
mod janggi;
mod limits;
mod mate_set;
mod mates;
mod nnue;
mod partial_depth;
mod ruled_scores;
mod three_kingdoms;
mod tk_draw;
mod tk_table;
mod tt;
mod xiangqi;
