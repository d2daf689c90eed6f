//! Pure game logic: positions, moves, move generation, outcomes. No I/O, no async.
//!
//! # Design
//!
//! The variants share what is truly the same and nothing more:
//!
//! - [`types`]: colours, piece kinds, points, moves and a fixed-capacity move list for
//!   the two-player 9x10 games. A [`types::Move`] is 16 bits; a pass (Janggi) is the
//!   move whose two points coincide.
//! - [`board`]: the 9x10 board of Xiangqi and Janggi, a padded mailbox plus per-rank and
//!   per-file occupancy words and per-piece bitboards (`u128`), kept consistent by every
//!   mutation together with an incremental Zobrist key. Sliders look up what they see
//!   along a line in tables built at compile time (`RANK_LINES`, `FILE_LINES`), so a
//!   chariot's or a cannon's moves cost two loads; horse tables are shared too. The
//!   board knows no rule.
//! - [`setup`]: the unchecked arrangement a FEN describes. A variant turns it into its
//!   own position type only through validation with typed errors.
//! - One module per variant over that geometry ([`xiangqi`], [`janggi`]: palace
//!   diagonals, another elephant, a cannon that never jumps or takes a cannon, and the
//!   pass, on the same board and line tables). Each variant owns its step tables, its
//!   legality filter and its position type, so no variant pays for another's rules in
//!   its hot loop.
//! - Three Kingdoms is not a rectangle and has three players: it gets its own point
//!   graph (135 points, branching lines) and position type ([`three_kingdoms`]), and
//!   meets the others at the [`GamePosition`] trait and at the variant layer, where a
//!   variant is an enum and a player is not assumed to be one of two.
//! - [`position`]: what every position answers, as one trait ([`GamePosition`]: legal
//!   moves and captures, legality and its reason, make and unmake, check, key, side to
//!   move, status), with the two-player 9x10 games' [`BoardPosition`] on top. Perft,
//!   the notations and the search are written over them.
//!
//! Outcomes that need history (repetition, move limits) live above the position, in
//! [`game`], one game record for the two-player 9x10 variants, which keeps the keys
//! and check flags of every ply.

pub mod board;
pub mod board_position;
pub mod game;
pub mod illegal;
pub mod janggi;
pub mod outcome;
pub mod perft;
pub mod position;
pub mod repetition;
pub mod setup;
pub mod three_kingdoms;
pub mod types;
pub mod xiangqi;

pub use position::{BoardPosition, GamePosition};

/// The state of a position on its own (no history): still playable, or lost for the
/// side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// The side to move has a legal move.
    Ongoing,
    /// In check with no legal move: the side to move loses.
    Checkmate,
    /// Not in check but no legal move (困毙): the side to move loses in Xiangqi.
    Stalemate,
    /// Over with no loser on the board: Janggi after two passes in a row (a rule set
    /// decides the result, on points for instance).
    Ended,
}

impl Status {
    /// The status in words (`ongoing`, `checkmate`, `stalemate`, `ended`).
    pub const fn name(self) -> &'static str {
        match self {
            Status::Ongoing => "ongoing",
            Status::Checkmate => "checkmate",
            Status::Stalemate => "stalemate",
            Status::Ended => "ended",
        }
    }
}
