//! Static evaluation of Xiangqi positions, in centipawns from the side to move's view.
//!
//! The evaluation is a sum of terms, each counted for Red minus Black and weighted by a
//! pair of weights `[opening, endgame]` from [`WEIGHTS`] (tuned on game records by
//! `chuhe tune`, see [`crate::search::tune`]); the two sums are tapered by a game phase
//! counted from the attacking pieces on the board. The terms: material by piece kind (a
//! soldier across the river is valued by its placement alone), placement of each kind on
//! each point, chariot mobility (points reached), horse mobility (moves whose leg is
//! free), king safety (a missing advisor or elephant, charged per enemy chariot, horse,
//! cannon and soldier across the river), a cannon aimed down the enemy general's file
//! (the hollow cannon with nothing between, or two screens, one of which can step aside
//! with a discovered check), and the side to move.
//!
//! Material and placement are kept incrementally ([`Material`]); the other terms are
//! counted by [`positional_terms`], which the tuner calls with a sink that records the
//! counts instead of summing weights, so both see one evaluation.

pub use super::eval_weights::WEIGHTS;
pub use super::terms::Material;
pub use super::terms::TermSink;
use super::terms::{PieceSquareTable, WeightedSum, attackers, chariot_reach, horse_freedom};
use crate::rules::board::squares;
use crate::rules::types::{Color, PieceKind, Square};
use crate::rules::xiangqi::Position;

/// Index of the first material term (one per piece kind, by [`PieceKind::index`]).
pub const MATERIAL: usize = 0;
/// Index of the first placement term: `PLACEMENT + kind * 90 + own_rank * 9 + file`,
/// ranks counted from the piece's own back rank.
pub const PLACEMENT: usize = 7;
/// Chariot mobility, per point a chariot reaches.
pub const CHARIOT_MOBILITY: usize = PLACEMENT + 7 * 90;
/// Horse mobility, per move whose leg is free.
pub const HORSE_MOBILITY: usize = CHARIOT_MOBILITY + 1;
/// A missing advisor, per enemy attacker: chariot, horse, cannon, soldier across the
/// river (four terms).
pub const MISSING_ADVISOR: usize = HORSE_MOBILITY + 1;
/// A missing elephant, per enemy attacker (four terms, as [`MISSING_ADVISOR`]).
pub const MISSING_ELEPHANT: usize = MISSING_ADVISOR + 4;
/// A cannon on the enemy general's file with nothing between.
pub const HOLLOW_CANNON: usize = MISSING_ELEPHANT + 4;
/// A cannon on the enemy general's file behind two screens.
pub const CANNON_BEHIND_SCREENS: usize = HOLLOW_CANNON + 1;
/// The side to move.
pub const TEMPO: usize = CANNON_BEHIND_SCREENS + 1;
/// The number of terms.
pub const TERMS: usize = TEMPO + 1;

/// Phase weight of each kind (attacking pieces only); full board = 24.
const PHASE: [i32; 7] = [0, 0, 0, 2, 4, 2, 0];
/// The phase of a full board: the opening weights count fully from here up.
pub const FULL_PHASE: i32 = 24;

/// The placement term of `kind` on `sq`, and whether its material term counts too (a
/// soldier across the river is valued by its placement alone).
#[inline(always)]
pub const fn placement_term(kind: usize, black: bool, sq: usize) -> (usize, bool) {
    let (file, rank) = (sq % 9, sq / 9);
    let own_rank = if black { 9 - rank } else { rank };
    (PLACEMENT + kind * 90 + own_rank * 9 + file, !(kind == PieceKind::Pawn as usize && own_rank >= 5))
}

/// Material plus placement of one piece on one point, `(opening, endgame)`, signed:
/// positive for Red's pieces, negative for Black's. Indexed `[piece][square]`.
const fn piece_square_table() -> PieceSquareTable {
    let mut t = [[(0, 0); 90]; 14];
    let mut p = 0;
    while p < 14 {
        let (black, kind) = (p >= 7, p % 7);
        let mut sq = 0;
        while sq < 90 {
            let (place, with_material) = placement_term(kind, black, sq);
            let (mut mg, mut eg) = (WEIGHTS[place][0], WEIGHTS[place][1]);
            if with_material {
                mg += WEIGHTS[MATERIAL + kind][0];
                eg += WEIGHTS[MATERIAL + kind][1];
            }
            t[p][sq] = if black { (-mg, -eg) } else { (mg, eg) };
            sq += 1;
        }
        p += 1;
    }
    t
}

/// Signed material-and-placement values, see `piece_square_table`.
pub static PIECE_SQUARE: PieceSquareTable = piece_square_table();

/// Counts the material and placement terms of every piece into `sink`; returns the
/// game phase.
pub fn material_terms(pos: &Position, sink: &mut impl TermSink) -> i32 {
    let mut phase = 0;
    for (sq, piece) in pos.board().iter() {
        let black = piece.color() == Color::Black;
        let sign = if black { -1 } else { 1 };
        let kind = piece.kind().index();
        let (place, with_material) = placement_term(kind, black, sq.index());
        sink.add(place, sign);
        if with_material {
            sink.add(MATERIAL + kind, sign);
        }
        phase += PHASE[kind];
    }
    phase
}

/// The material and placement of every piece, and the phase, computed from scratch.
pub fn material(pos: &Position) -> Material {
    let mut sum = WeightedSum::new(&WEIGHTS, 0, 0);
    let phase = material_terms(pos, &mut sum);
    Material { mg: sum.mg, eg: sum.eg, phase }
}

/// The material after moving the piece on `from` to `to` (call before playing it).
#[inline(always)]
pub fn material_after(material: Material, pos: &Position, from: Square, to: Square) -> Material {
    material.after(pos.board(), from, to, &PIECE_SQUARE, &PHASE)
}

/// The evaluation from the side to move's view.
pub fn evaluate(pos: &Position) -> i32 {
    evaluate_with(pos, material(pos))
}

/// The evaluation given the incrementally kept material (which must match `pos`).
#[inline]
pub fn evaluate_with(pos: &Position, material: Material) -> i32 {
    let mut sum = WeightedSum::new(&WEIGHTS, material.mg, material.eg);
    positional_terms(pos, &mut sum);
    sum.tapered(material.phase, FULL_PHASE, pos.turn())
}

/// Counts every term but material and placement into `sink`: mobility, king safety,
/// aimed cannons and the side to move.
#[inline(always)]
pub fn positional_terms(pos: &Position, sink: &mut impl TermSink) {
    let b = pos.board();
    for color in Color::ALL {
        let sign = if color == Color::Red { 1 } else { -1 };
        sink.add(CHARIOT_MOBILITY, sign * chariot_reach(b, color));
        sink.add(HORSE_MOBILITY, sign * horse_freedom(b, color));
    }
    for color in Color::ALL {
        let sign = if color == Color::Red { 1 } else { -1 };
        // Missing advisors and elephants cost more the more the enemy can attack:
        // chariots, horses, cannons, soldiers across the river.
        let missing_advisors = 2 - b.pieces(color, PieceKind::Advisor).count_ones() as i32;
        let missing_elephants = 2 - b.pieces(color, PieceKind::Elephant).count_ones() as i32;
        let enemy = &attackers(b, color.other());
        for (kind, &count) in enemy.iter().enumerate() {
            sink.add(MISSING_ADVISOR + kind, sign * missing_advisors * count);
            sink.add(MISSING_ELEPHANT + kind, sign * missing_elephants * count);
        }
        let (hollow, screened) = cannon_aim(pos, color);
        sink.add(HOLLOW_CANNON, sign * hollow);
        sink.add(CANNON_BEHIND_SCREENS, sign * screened);
    }
    sink.add(TEMPO, if pos.turn() == Color::Red { 1 } else { -1 });
}

/// `color`'s cannons aimed down the enemy general's file: with nothing between, and
/// behind two screens.
fn cannon_aim(pos: &Position, color: Color) -> (i32, i32) {
    let b = pos.board();
    let Some(general) = b.general(color.other()) else { return (0, 0) };
    let file = general.file();
    let occupancy = b.file_occupancy(file);
    let (mut hollow, mut screened) = (0, 0);
    for sq in squares(b.pieces(color, PieceKind::Cannon)) {
        if sq.file() != file {
            continue;
        }
        let (low, high) = (sq.rank().min(general.rank()), sq.rank().max(general.rank()));
        let between = occupancy & ((1u16 << high) - 1) & !((1u16 << (low + 1)) - 1);
        match between.count_ones() {
            0 => hollow += 1,
            2 => screened += 1,
            _ => {}
        }
    }
    (hollow, screened)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::types::MoveList;

    #[test]
    fn incremental_material_matches_from_scratch() {
        let mut pos = Position::startpos();
        let mut m = material(&pos);
        assert_eq!(evaluate(&pos), WEIGHTS[TEMPO][0], "the start is symmetric but for the move");
        for i in 0..200 {
            let mut list = MoveList::new();
            pos.legal_moves(&mut list);
            if list.is_empty() {
                break;
            }
            // Prefer captures now and then so that material changes.
            let mv = list.as_slice()[(i * 7 + 3) % list.len()];
            m = material_after(m, &pos, mv.from(), mv.to());
            pos.play_unchecked(mv);
            assert_eq!(m, material(&pos));
        }
    }

    #[test]
    fn a_hollow_cannon_is_worth_more_than_a_screened_one() {
        let hollow = crate::notation::fen::xiangqi("3k5/9/9/9/9/9/9/3C5/9/4K4 b - - 0 1").unwrap();
        let off_file = crate::notation::fen::xiangqi("3k5/9/9/9/9/9/9/2C6/9/4K4 b - - 0 1").unwrap();
        assert!(evaluate(&hollow) < evaluate(&off_file), "Black suffers the hollow cannon");
        let screens = crate::notation::fen::xiangqi("3k5/3n5/9/9/3P5/9/9/3C5/9/4K4 b - - 0 1").unwrap();
        assert_eq!(cannon_aim(&screens, Color::Red), (0, 1));
        assert_eq!(cannon_aim(&hollow, Color::Red), (1, 0));
    }
}
