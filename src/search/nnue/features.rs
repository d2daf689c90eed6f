//! The inputs: every piece on the board, general included, seen from each side.
//!
//! For the perspective of colour `c`, a piece of `c` is "ours" (0), any other
//! "theirs" (1); its point is `rank * 9 + file` for Red and the rank mirrored
//! (`(9 - rank) * 9 + file`) for Black, so that each side sees its own back rank as
//! rank 0; the feature is `(rel * 7 + kind) * 90 + point`.

use crate::rules::board::Board;
use crate::rules::types::{Color, Piece, Square};

/// The feature of `piece` on `sq` from `perspective`'s side.
#[inline(always)]
pub fn index(perspective: Color, piece: Piece, sq: Square) -> usize {
    let rel = (piece.color() != perspective) as usize;
    let point = match perspective {
        Color::Red => sq.index(),
        Color::Black => sq.flip_rank().index(),
    };
    (rel * 7 + piece.kind().index()) * Square::COUNT + point
}

/// Every active feature of `board` from `perspective`'s side.
pub fn active(board: &Board, perspective: Color) -> impl Iterator<Item = usize> + '_ {
    board.iter().map(move |(sq, piece)| index(perspective, piece, sq))
}

/// What a move changes on the board: the pieces it puts and the pieces it lifts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Change {
    added: Option<(Piece, Square)>,
    removed: [Option<(Piece, Square)>; 2],
}

impl Change {
    /// `piece` moving from `from` to `to`, taking `captured` there.
    #[inline(always)]
    pub fn of_move(piece: Piece, from: Square, to: Square, captured: Option<Piece>) -> Change {
        Change { added: Some((piece, to)), removed: [Some((piece, from)), captured.map(|c| (c, to))] }
    }

    /// A pass, or a null move: nothing changes.
    pub const NONE: Change = Change { added: None, removed: [None, None] };

    /// The features it adds and removes from `perspective`'s side.
    #[inline(always)]
    pub fn features(&self, perspective: Color) -> (impl Iterator<Item = usize>, impl Iterator<Item = usize>) {
        let f = move |&(p, sq): &(Piece, Square)| index(perspective, p, sq);
        (self.added.iter().map(f), self.removed.iter().flatten().map(f))
    }

    /// The number of rows it touches per perspective.
    #[inline(always)]
    pub fn rows(&self) -> usize {
        self.added.is_some() as usize + self.removed.iter().flatten().count()
    }
}
