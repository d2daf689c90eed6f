//! Static evaluation of Xiangqi positions, in centipawns from the side to move's view.
//!
//! Material starts from the values of the rules text (chariot 9, cannon 4.5 falling in
//! endgames, horse 4 rising in endgames, elephant 2, advisor 2, pawn 1 before the river
//! and 2 after), tapered by a game phase counted from the attacking pieces on the board;
//! piece-square tables add placement; a small term rewards chariot and horse mobility;
//! king safety charges missing defenders when the enemy keeps attackers, and rewards a
//! cannon aimed down the enemy general's file (the hollow cannon with nothing between,
//! or two screens, one of which can step aside with a discovered check); the side to
//! move gets a small tempo bonus.

use crate::rules::board::{HORSE_MOVES, file_bits_to_board, rank_bits_to_board, squares};
use crate::rules::types::{Color, PieceKind, Square};
use crate::rules::xiangqi::Position;

/// Material in the opening and in the endgame, by piece kind.
const MATERIAL_MG: [i32; 7] = [0, 200, 200, 400, 900, 450, 100];
const MATERIAL_EG: [i32; 7] = [0, 200, 200, 450, 900, 400, 100];
/// Phase weight of each kind (attacking pieces only); full board = 24.
const PHASE: [i32; 7] = [0, 0, 0, 2, 4, 2, 0];
const FULL_PHASE: i32 = 24;
/// A cannon on the enemy general's file with nothing between (in the opening; it fades
/// with the attacking pieces).
const HOLLOW_CANNON: i32 = 60;
/// A cannon on the enemy general's file behind two screens.
const CANNON_BEHIND_SCREENS: i32 = 15;
/// The side to move's advantage of moving.
const TEMPO: i32 = 10;

// Piece-square tables from Red's side, rank 0 (Red's back rank) first, files a..i.
#[rustfmt::skip]
const PAWN_PST: [[i32; 9]; 10] = [
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, -5, 0, 10, 0, -5, 0, 0],
    [0, 0, 5, 0, 15, 0, 5, 0, 0],
    [100, 110, 120, 130, 135, 130, 120, 110, 100],
    [110, 125, 140, 160, 170, 160, 140, 125, 110],
    [110, 130, 150, 180, 190, 180, 150, 130, 110],
    [100, 120, 140, 160, 170, 160, 140, 120, 100],
    [60, 80, 90, 100, 100, 100, 90, 80, 60],
];
#[rustfmt::skip]
const HORSE_PST: [[i32; 9]; 10] = [
    [-20, -10, 0, -10, -20, -10, 0, -10, -20],
    [-10, 0, 0, 5, -10, 5, 0, 0, -10],
    [-5, 0, 10, 5, 10, 5, 10, 0, -5],
    [0, 5, 10, 15, 10, 15, 10, 5, 0],
    [0, 10, 15, 20, 20, 20, 15, 10, 0],
    [5, 15, 20, 25, 25, 25, 20, 15, 5],
    [5, 20, 25, 30, 30, 30, 25, 20, 5],
    [5, 20, 30, 35, 30, 35, 30, 20, 5],
    [0, 15, 25, 35, 20, 35, 25, 15, 0],
    [0, 0, 10, 15, 0, 15, 10, 0, 0],
];
#[rustfmt::skip]
const CHARIOT_PST: [[i32; 9]; 10] = [
    [-10, 5, 0, 10, 0, 10, 0, 5, -10],
    [0, 10, 5, 15, 0, 15, 5, 10, 0],
    [0, 5, 0, 10, 5, 10, 0, 5, 0],
    [0, 10, 5, 15, 10, 15, 5, 10, 0],
    [5, 15, 10, 20, 15, 20, 10, 15, 5],
    [5, 15, 10, 20, 15, 20, 10, 15, 5],
    [5, 15, 15, 20, 20, 20, 15, 15, 5],
    [5, 15, 10, 20, 15, 20, 10, 15, 5],
    [10, 20, 15, 25, 20, 25, 15, 20, 10],
    [5, 10, 10, 20, 15, 20, 10, 10, 5],
];
#[rustfmt::skip]
const CANNON_PST: [[i32; 9]; 10] = [
    [0, 0, 5, 10, 10, 10, 5, 0, 0],
    [0, 5, 5, 5, 5, 5, 5, 5, 0],
    [5, 5, 5, 10, 20, 10, 5, 5, 5],
    [0, 0, 0, 5, 10, 5, 0, 0, 0],
    [0, 0, 0, 5, 10, 5, 0, 0, 0],
    [0, 5, 0, 5, 10, 5, 0, 5, 0],
    [0, 0, 0, 0, 10, 0, 0, 0, 0],
    [5, 5, 0, -5, 5, -5, 0, 5, 5],
    [5, 5, 0, -5, 0, -5, 0, 5, 5],
    [10, 10, 0, -5, -10, -5, 0, 10, 10],
];
#[rustfmt::skip]
const DEFENDER_PST: [[i32; 9]; 10] = [
    [0, 0, 5, 5, 0, 5, 5, 0, 0],
    [0, 0, 0, 0, 10, 0, 0, 0, 0],
    [0, 0, 0, 0, 10, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
];
#[rustfmt::skip]
const GENERAL_PST: [[i32; 9]; 10] = [
    [0, 0, 0, 5, 10, 5, 0, 0, 0],
    [0, 0, 0, -10, -5, -10, 0, 0, 0],
    [0, 0, 0, -20, -15, -20, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
];

const fn pst_of(kind: usize) -> &'static [[i32; 9]; 10] {
    match kind {
        0 => &GENERAL_PST,
        1 | 2 => &DEFENDER_PST,
        3 => &HORSE_PST,
        4 => &CHARIOT_PST,
        5 => &CANNON_PST,
        _ => &PAWN_PST,
    }
}

/// Material plus placement of one piece on one point, `(opening, endgame)`, signed:
/// positive for Red's pieces, negative for Black's. Indexed `[piece][square]`.
const fn piece_square_table() -> [[(i32, i32); 90]; 14] {
    let mut t = [[(0, 0); 90]; 14];
    let mut p = 0;
    while p < 14 {
        let (black, kind) = (p >= 7, p % 7);
        let mut sq = 0;
        while sq < 90 {
            let (file, rank) = (sq % 9, sq / 9);
            let own_rank = if black { 9 - rank } else { rank };
            let place = pst_of(kind)[own_rank][file];
            // The pawn table holds the whole value once across the river.
            let crossed_pawn = kind == 6 && own_rank >= 5;
            let (mg, eg) =
                if crossed_pawn { (place, place) } else { (MATERIAL_MG[kind] + place, MATERIAL_EG[kind] + place) };
            t[p][sq] = if black { (-mg, -eg) } else { (mg, eg) };
            sq += 1;
        }
        p += 1;
    }
    t
}

/// Signed material-and-placement values, see `piece_square_table`.
pub static PIECE_SQUARE: [[(i32, i32); 90]; 14] = piece_square_table();

/// The incrementally kept part of the evaluation: Red minus Black material and
/// placement in both game phases, and the phase itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Material {
    /// Middlegame score.
    pub mg: i32,
    /// Endgame score.
    pub eg: i32,
    /// Game phase, counted from the horses, chariots and cannons on the board: it
    /// weighs the two scores.
    pub phase: i32,
}

impl Material {
    /// Computed from scratch.
    pub fn of(pos: &Position) -> Material {
        let mut m = Material::default();
        for (sq, piece) in pos.board().iter() {
            let (mg, eg) = PIECE_SQUARE[piece.index()][sq.index()];
            m.mg += mg;
            m.eg += eg;
            m.phase += PHASE[piece.kind().index()];
        }
        m
    }

    /// The change a move makes (call before playing it).
    #[inline]
    pub fn after(self, pos: &Position, from: Square, to: Square) -> Material {
        let b = pos.board();
        let Some(p) = b.piece_at(from) else { return self };
        let (a, z) = (PIECE_SQUARE[p.index()][from.index()], PIECE_SQUARE[p.index()][to.index()]);
        let mut m = Material { mg: self.mg - a.0 + z.0, eg: self.eg - a.1 + z.1, phase: self.phase };
        if let Some(c) = b.piece_at(to) {
            let v = PIECE_SQUARE[c.index()][to.index()];
            m.mg -= v.0;
            m.eg -= v.1;
            m.phase -= PHASE[c.kind().index()];
        }
        m
    }
}

/// The evaluation from the side to move's view.
pub fn evaluate(pos: &Position) -> i32 {
    evaluate_with(pos, Material::of(pos))
}

/// The evaluation given the incrementally kept material (which must match `pos`).
pub fn evaluate_with(pos: &Position, material: Material) -> i32 {
    let b = pos.board();
    let phase = material.phase.min(FULL_PHASE);
    let mut score = (material.mg * phase + material.eg * (FULL_PHASE - phase)) / FULL_PHASE;
    let mut attackers = [0i32; 2];
    for color in Color::ALL {
        let c = color.index();
        let sign = if color == Color::Red { 1 } else { -1 };
        let mut mobility = 0;
        for sq in squares(b.pieces(color, PieceKind::Chariot)) {
            let (rv, fv) = (b.rank_view(sq), b.file_view(sq));
            let reach = rank_bits_to_board(rv.quiet, sq.rank()) | file_bits_to_board(fv.quiet, sq.file());
            mobility += (2 * phase + 3 * (FULL_PHASE - phase)) * reach.count_ones() as i32 / FULL_PHASE;
            attackers[c] += 2;
        }
        for sq in squares(b.pieces(color, PieceKind::Horse)) {
            let free = HORSE_MOVES[sq.index()].as_slice().iter().filter(|s| b.code_at(s.block as usize) == 0).count();
            mobility += 4 * free as i32 - 8;
            attackers[c] += 1;
        }
        attackers[c] += b.pieces(color, PieceKind::Cannon).count_ones() as i32;
        let across = if color == Color::Red { !((1u128 << 45) - 1) } else { (1u128 << 45) - 1 };
        attackers[c] += (b.pieces(color, PieceKind::Pawn) & across).count_ones() as i32;
        score += sign * mobility;
    }
    // Missing advisors and elephants cost more the more the enemy can attack.
    for color in Color::ALL {
        let sign = if color == Color::Red { 1 } else { -1 };
        let defenders = (b.pieces(color, PieceKind::Advisor).count_ones()
            + b.pieces(color, PieceKind::Elephant).count_ones()) as i32;
        score -= sign * (4 - defenders) * attackers[color.other().index()] * 6;
        score += sign * cannon_aim(pos, color) * phase / FULL_PHASE;
    }
    TEMPO + if pos.turn() == Color::Red { score } else { -score }
}

/// The bonus of `color`'s cannons aimed down the enemy general's file.
fn cannon_aim(pos: &Position, color: Color) -> i32 {
    let b = pos.board();
    let Some(general) = b.general(color.other()) else { return 0 };
    let file = general.file();
    let occupancy = b.file_occupancy(file);
    let mut bonus = 0;
    for sq in squares(b.pieces(color, PieceKind::Cannon)) {
        if sq.file() != file {
            continue;
        }
        let (low, high) = (sq.rank().min(general.rank()), sq.rank().max(general.rank()));
        let between = occupancy & ((1u16 << high) - 1) & !((1u16 << (low + 1)) - 1);
        bonus += match between.count_ones() {
            0 => HOLLOW_CANNON,
            2 => CANNON_BEHIND_SCREENS,
            _ => 0,
        };
    }
    bonus
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::types::MoveList;

    #[test]
    fn incremental_material_matches_from_scratch() {
        let mut pos = Position::startpos();
        let mut m = Material::of(&pos);
        assert_eq!(evaluate(&pos), TEMPO, "the start is symmetric but for the move");
        for i in 0..200 {
            let mut list = MoveList::new();
            pos.legal_moves(&mut list);
            if list.is_empty() {
                break;
            }
            // Prefer captures now and then so that material changes.
            let mv = list.as_slice()[(i * 7 + 3) % list.len()];
            m = m.after(&pos, mv.from(), mv.to());
            pos.play_unchecked(mv);
            assert_eq!(m, Material::of(&pos));
        }
    }

    #[test]
    fn a_hollow_cannon_is_worth_more_than_a_screened_one() {
        let hollow = crate::notation::fen::xiangqi("3k5/9/9/9/9/9/9/3C5/9/4K4 b - - 0 1").unwrap();
        let off_file = crate::notation::fen::xiangqi("3k5/9/9/9/9/9/9/2C6/9/4K4 b - - 0 1").unwrap();
        assert!(evaluate(&hollow) < evaluate(&off_file), "Black suffers the hollow cannon");
        let screens = crate::notation::fen::xiangqi("3k5/3n5/9/9/3P5/9/9/3C5/9/4K4 b - - 0 1").unwrap();
        assert_eq!(cannon_aim(&screens, Color::Red), CANNON_BEHIND_SCREENS);
        assert_eq!(cannon_aim(&hollow, Color::Red), HOLLOW_CANNON);
    }
}
