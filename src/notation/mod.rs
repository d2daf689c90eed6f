//! Text forms: FEN positions and move notations, parse and format.

pub mod fen;
