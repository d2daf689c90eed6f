//! An unchecked arrangement of a 9x10 game: what a FEN says, before any rule has looked
//! at it. It becomes a playable position only through a variant's validation.

use super::board::Board;
use super::types::Color;

/// Pieces, side to move and counters, as written, not yet validated.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Setup {
    /// The pieces.
    pub board: Board,
    /// The side to move.
    pub turn: Color,
    /// Plies since the last capture (FEN's halfmove clock).
    pub halfmove_clock: u32,
    /// Move number, starting at 1 and growing after Black's (Han's) move.
    pub fullmove_number: u32,
}
