//! Static evaluation of Janggi positions, in centipawns from the side to move's view.
//!
//! Material starts from the counting values of the tournament rules times 100 (chariot
//! 1300, cannon 700, horse 500, elephant 300, guard 300, soldier 200); simple
//! piece-square tables add placement (soldiers forward and central, horses and chariots
//! towards the centre and the enemy camp, the general and guards on the palace centre).
//! Both are kept incrementally move by move; a pass changes nothing but the side.

use crate::rules::janggi::Position;
use crate::rules::types::{Color, Move};

/// Material by piece kind (general, guard, elephant, horse, chariot, cannon, soldier).
pub const MATERIAL: [i32; 7] = [0, 300, 300, 500, 1300, 700, 200];

// Piece-square tables from Cho's side, rank 0 (the own back rank) first, files a..i.
#[rustfmt::skip]
const SOLDIER_PST: [[i32; 9]; 10] = [
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 5, 5, 5, 0, 0, 0],
    [5, 5, 10, 15, 15, 15, 10, 5, 5],
    [10, 15, 20, 25, 25, 25, 20, 15, 10],
    [15, 20, 30, 35, 40, 35, 30, 20, 15],
    [20, 25, 35, 50, 55, 50, 35, 25, 20],
    [20, 25, 35, 60, 70, 60, 35, 25, 20],
    [0, 10, 20, 40, 50, 40, 20, 10, 0],
];
#[rustfmt::skip]
const HORSE_PST: [[i32; 9]; 10] = [
    [-20, -10, -5, -5, -10, -5, -5, -10, -20],
    [-10, 0, 5, 5, 0, 5, 5, 0, -10],
    [-5, 5, 10, 10, 10, 10, 10, 5, -5],
    [0, 5, 10, 15, 15, 15, 10, 5, 0],
    [0, 10, 15, 20, 20, 20, 15, 10, 0],
    [0, 10, 15, 20, 20, 20, 15, 10, 0],
    [0, 10, 20, 25, 25, 25, 20, 10, 0],
    [0, 10, 20, 25, 25, 25, 20, 10, 0],
    [-5, 5, 10, 20, 15, 20, 10, 5, -5],
    [-10, 0, 5, 5, 0, 5, 5, 0, -10],
];
#[rustfmt::skip]
const CHARIOT_PST: [[i32; 9]; 10] = [
    [-5, 0, 0, 5, 5, 5, 0, 0, -5],
    [0, 0, 0, 5, 10, 5, 0, 0, 0],
    [0, 0, 0, 5, 5, 5, 0, 0, 0],
    [0, 5, 5, 10, 10, 10, 5, 5, 0],
    [5, 5, 5, 10, 10, 10, 5, 5, 5],
    [5, 5, 5, 10, 10, 10, 5, 5, 5],
    [5, 10, 10, 15, 15, 15, 10, 10, 5],
    [10, 10, 10, 20, 25, 20, 10, 10, 10],
    [10, 15, 15, 25, 20, 25, 15, 15, 10],
    [5, 10, 10, 15, 15, 15, 10, 10, 5],
];
#[rustfmt::skip]
const CANNON_PST: [[i32; 9]; 10] = [
    [0, 0, 0, 5, 5, 5, 0, 0, 0],
    [0, 0, 0, 5, 10, 5, 0, 0, 0],
    [0, 5, 0, 5, 10, 5, 0, 5, 0],
    [0, 0, 0, 0, 5, 0, 0, 0, 0],
    [0, 0, 0, 0, 5, 0, 0, 0, 0],
    [0, 0, 0, 0, 5, 0, 0, 0, 0],
    [0, 0, 0, 5, 5, 5, 0, 0, 0],
    [0, 0, 0, 5, 10, 5, 0, 0, 0],
    [0, 0, 0, 5, 5, 5, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
];
#[rustfmt::skip]
const PALACE_PST: [[i32; 9]; 10] = [
    [0, 0, 0, 0, 5, 0, 0, 0, 0],
    [0, 0, 0, 5, 15, 5, 0, 0, 0],
    [0, 0, 0, -5, 0, -5, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
];
const ZERO_PST: [[i32; 9]; 10] = [[0; 9]; 10];

const fn pst_of(kind: usize) -> &'static [[i32; 9]; 10] {
    match kind {
        0 | 1 => &PALACE_PST,
        3 => &HORSE_PST,
        4 => &CHARIOT_PST,
        5 => &CANNON_PST,
        6 => &SOLDIER_PST,
        _ => &ZERO_PST,
    }
}

/// Material plus placement of one piece on one point, signed (positive for Cho).
/// Indexed `[piece][square]`.
const fn piece_square_table() -> [[i32; 90]; 14] {
    let mut t = [[0; 90]; 14];
    let mut p = 0;
    while p < 14 {
        let (black, kind) = (p >= 7, p % 7);
        let mut sq = 0;
        while sq < 90 {
            let (file, rank) = (sq % 9, sq / 9);
            let own_rank = if black { 9 - rank } else { rank };
            let v = MATERIAL[kind] + pst_of(kind)[own_rank][file];
            t[p][sq] = if black { -v } else { v };
            sq += 1;
        }
        p += 1;
    }
    t
}

/// Signed material-and-placement values, see `piece_square_table`.
pub static PIECE_SQUARE: [[i32; 90]; 14] = piece_square_table();

/// Cho minus Han material and placement, kept move by move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Material {
    /// Cho minus Han, in centipawns.
    pub score: i32,
}

impl Material {
    /// Computed from scratch.
    pub fn of(pos: &Position) -> Material {
        Material { score: pos.board().iter().map(|(sq, p)| PIECE_SQUARE[p.index()][sq.index()]).sum() }
    }

    /// The change a move makes (call before playing it). A pass changes nothing.
    #[inline]
    pub fn after(self, pos: &Position, m: Move) -> Material {
        if m.is_pass() {
            return self;
        }
        let b = pos.board();
        let Some(p) = b.piece_at(m.from()) else { return self };
        let table = &PIECE_SQUARE[p.index()];
        let mut score = self.score - table[m.from().index()] + table[m.to().index()];
        if let Some(c) = b.piece_at(m.to()) {
            score -= PIECE_SQUARE[c.index()][m.to().index()];
        }
        Material { score }
    }
}

/// The evaluation from the side to move's view.
pub fn evaluate(pos: &Position) -> i32 {
    evaluate_with(pos, Material::of(pos))
}

/// The evaluation given the incrementally kept material (which must match `pos`).
#[inline]
pub fn evaluate_with(pos: &Position, material: Material) -> i32 {
    if pos.turn() == Color::Red { material.score } else { -material.score }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::types::MoveList;

    #[test]
    fn incremental_material_matches_from_scratch() {
        let mut pos = Position::startpos();
        let mut m = Material::of(&pos);
        assert_eq!(evaluate(&pos), 0, "the start is symmetric");
        for i in 0..300 {
            let mut list = MoveList::new();
            pos.legal_moves(&mut list);
            if list.is_empty() {
                break;
            }
            let mv = list.as_slice()[(i * 7 + 3) % list.len()];
            m = m.after(&pos, mv);
            pos.play_unchecked(mv);
            assert_eq!(m, Material::of(&pos));
        }
    }
}
