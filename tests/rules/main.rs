//! The rules layer: move generation and perft against the reference tables, FEN and
//! move notations, game records, chases, repetition and adjudication, handicaps,
//! properties of random games, and the Janggi and Three Kingdoms rules.
//!
//! One test binary for the layer, one module per concern or variant; the helpers shared
//! by the layers are in `tests/common/`.

#[path = "../common/mod.rs"]
mod common;

mod adjudication;
mod board_geometry;
mod chase;
mod fen;
mod game_record;
mod handicap;
mod handicap_rules;
mod illegal_words;
mod janggi;
mod janggi_adjudication;
mod janggi_explain;
mod janggi_perft;
mod janggi_pins;
mod janggi_soldiers;
mod legality;
mod notation;
mod perft;
mod position_basics;
mod properties;
mod records;
mod rule_names;
mod rulings;
mod three_kingdoms;
mod three_kingdoms_answers;
mod types_values;
mod xiangqi_answers;
mod xiangqi_explain;
