//! Three Kingdoms Xiangqi: three players (Shu, Wu, Wei) on 135 points, with defeat and
//! army takeover. The conventions are those of `spec/three-kingdoms.md`.
//!
//! - [`geometry`]: points, edges (grid, river arms, central triangle), straight lines
//!   that branch at the triangle, cells and diagonals, and the step tables of every
//!   piece, built once.
//! - `piece`: piece kinds, and a piece as a kind with its original kingdom.
//! - `moves`: moves (a point left and a point reached) and the move list.
//! - [`position`]: one controller per original army, side to move, counters, Zobrist
//!   key (`zobrist`), and what a position answers about itself.
//! - `setup`: setups and their validation into positions.
//! - `make`: make and unmake, with captures of generals, takeovers and defeats for want
//!   of a legal move.
//! - `movegen`: legal moves, the attack and facing test.
//! - [`text`]: the position text (documented there) and move names (`Rh3-Re3`).
//! - [`outcome`]: a game with its history, and the ruling: last general, repetition,
//!   the 180-ply rule, resignation, timeout and leaving.
//!
//! ```
//! use chuhe::rules::three_kingdoms::{MoveList, Position, Status};
//!
//! let mut pos = Position::startpos(false); // without flag bearers
//! let mut moves = MoveList::new();
//! pos.legal_moves(&mut moves);
//! assert_eq!(moves.len(), 44);
//! let m = pos.parse_move("Rh3-Re3").unwrap(); // Shu's central cannon
//! let undo = pos.play(m).unwrap();
//! assert_eq!(pos.side_to_move().name(), "Wu");
//! pos.undo(m, undo);
//! assert_eq!(pos, Position::startpos(false));
//! assert_eq!(pos.status(), Status::Ongoing);
//! ```

mod explain;
pub mod geometry;
mod make;
mod movegen;
mod moves;
pub mod outcome;
mod piece;
pub mod position;
mod setup;
pub mod text;
mod zobrist;

pub use geometry::{Kingdom, Point, PointError};
pub use make::Undo;
pub use moves::{Move, MoveList, MoveTextError};
pub use outcome::Game;
pub use piece::{Kind, Piece};
pub use position::{Position, Status};
pub use setup::{PositionError, Setup};
pub use text::{MoveError, ParseError, TextError};
