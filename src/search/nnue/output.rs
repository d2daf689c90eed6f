//! The output layer: the material bucket, the squared clipped ReLU of both
//! accumulators (the side to move's first), and the scaled result.

use super::accumulator::Accumulator;
use super::net::{Network, QA, QB};
use crate::rules::board::Board;
use crate::rules::types::{Color, PieceKind};

/// The pieces on the board other than the two generals.
#[inline(always)]
pub fn pieces_besides_generals(board: &Board) -> usize {
    let generals = board.pieces(Color::Red, PieceKind::General) | board.pieces(Color::Black, PieceKind::General);
    (board.occupied() & !generals).count_ones() as usize
}

impl Network {
    /// The output bucket of a position with `pieces` pieces besides the generals.
    #[inline(always)]
    pub fn bucket(&self, pieces: usize) -> usize {
        (pieces * self.buckets / 30).min(self.buckets - 1)
    }

    /// The evaluation of the position `acc` holds, from `turn`'s point of view, with
    /// `pieces` pieces besides the generals, in the search's units (centipawn-like: a
    /// soldier about 100). The last product is taken in i64 and saturated to i32, so
    /// that no net can wrap it.
    #[inline]
    pub fn evaluate(&self, acc: &Accumulator, turn: Color, pieces: usize) -> i32 {
        let b = self.bucket(pieces);
        let h = self.hidden;
        let weights = &self.output_weights[b * 2 * h..(b + 1) * 2 * h];
        let us = acc.perspective(turn);
        let them = acc.perspective(turn.other());
        let sum = self.kernel.output(us, them, weights, self.output_fits_i16);
        let out = (sum / QA).wrapping_add(self.output_bias[b]) as i64 * self.scale as i64 / (QA * QB) as i64;
        out.clamp(i32::MIN as i64, i32::MAX as i64) as i32
    }

    /// The evaluation of `board` with `turn` to move, from scratch.
    pub fn evaluate_board(&self, board: &Board, turn: Color) -> i32 {
        self.evaluate(&Accumulator::refresh(self, board), turn, pieces_besides_generals(board))
    }
}
