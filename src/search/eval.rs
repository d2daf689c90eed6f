//! Static evaluation of Xiangqi positions, in centipawns from the side to move's view.
//!
//! Material starts from the values of the rules text (chariot 9, cannon 4.5 falling in
//! endgames, horse 4 rising in endgames, elephant 2, advisor 2, pawn 1 before the river
//! and 2 after), tapered by a game phase counted from the attacking pieces on the board;
//! piece-square tables add placement; a small term rewards chariot and horse mobility;
//! king safety charges missing defenders when the enemy keeps attackers.

use crate::rules::board::{HORSE_MOVES, file_bits_to_board, rank_bits_to_board, squares};
use crate::rules::types::{Color, PieceKind, Square};
use crate::rules::xiangqi::Position;

/// Material in the opening and in the endgame, by piece kind.
const MATERIAL_MG: [i32; 7] = [0, 200, 200, 400, 900, 450, 100];
const MATERIAL_EG: [i32; 7] = [0, 200, 200, 450, 900, 400, 100];
/// Phase weight of each kind (attacking pieces only); full board = 24.
const PHASE: [i32; 7] = [0, 0, 0, 2, 4, 2, 0];
const FULL_PHASE: i32 = 24;

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

const fn pst_of(kind: PieceKind) -> &'static [[i32; 9]; 10] {
    match kind {
        PieceKind::General => &GENERAL_PST,
        PieceKind::Advisor | PieceKind::Elephant => &DEFENDER_PST,
        PieceKind::Horse => &HORSE_PST,
        PieceKind::Chariot => &CHARIOT_PST,
        PieceKind::Cannon => &CANNON_PST,
        PieceKind::Pawn => &PAWN_PST,
    }
}

/// Placement value of a piece of `color` on `sq`, from that side's own view.
#[inline(always)]
fn placement(color: Color, kind: PieceKind, sq: Square) -> i32 {
    let rank = if color == Color::Red { sq.rank() } else { 9 - sq.rank() } as usize;
    pst_of(kind)[rank][sq.file() as usize]
}

/// The evaluation from the side to move's view.
pub fn evaluate(pos: &Position) -> i32 {
    let b = pos.board();
    let mut phase = 0;
    for kind in [PieceKind::Horse, PieceKind::Chariot, PieceKind::Cannon] {
        phase += PHASE[kind.index()] * (b.pieces(Color::Red, kind) | b.pieces(Color::Black, kind)).count_ones() as i32;
    }
    let phase = phase.min(FULL_PHASE);
    let mut side = [0i32; 2];
    let mut attackers = [0i32; 2];
    for color in Color::ALL {
        let c = color.index();
        let mut mg = 0;
        let mut eg = 0;
        for kind in PieceKind::ALL {
            for sq in squares(b.pieces(color, kind)) {
                let p = placement(color, kind, sq);
                // The pawn table holds the whole value once across the river.
                let own_rank = if color == Color::Red { sq.rank() } else { 9 - sq.rank() };
                let crossed_pawn = kind == PieceKind::Pawn && own_rank >= 5;
                let (m, e) = if crossed_pawn { (0, 0) } else { (MATERIAL_MG[kind.index()], MATERIAL_EG[kind.index()]) };
                mg += m + p;
                eg += e + p;
                match kind {
                    PieceKind::Chariot => {
                        let (rv, fv) = (b.rank_view(sq), b.file_view(sq));
                        let reach = rank_bits_to_board(rv.quiet, sq.rank()) | file_bits_to_board(fv.quiet, sq.file());
                        mg += 2 * reach.count_ones() as i32;
                        eg += 3 * reach.count_ones() as i32;
                        attackers[c] += 2;
                    }
                    PieceKind::Horse => {
                        let free = HORSE_MOVES[sq.index()]
                            .as_slice()
                            .iter()
                            .filter(|s| b.code_at(s.block as usize) == 0)
                            .count();
                        mg += 4 * free as i32 - 8;
                        eg += 4 * free as i32 - 8;
                        attackers[c] += 1;
                    }
                    PieceKind::Cannon => attackers[c] += 1,
                    PieceKind::Pawn if crossed_pawn => attackers[c] += 1,
                    _ => {}
                }
            }
        }
        side[c] = (mg * phase + eg * (FULL_PHASE - phase)) / FULL_PHASE;
    }
    // Missing advisors and elephants cost more the more the enemy can attack.
    for color in Color::ALL {
        let c = color.index();
        let defenders = (b.pieces(color, PieceKind::Advisor).count_ones()
            + b.pieces(color, PieceKind::Elephant).count_ones()) as i32;
        side[c] -= (4 - defenders) * attackers[color.other().index()] * 6;
    }
    let score = side[0] - side[1];
    if pos.turn() == Color::Red { score } else { -score }
}
