//! What the Xiangqi and Janggi evaluations count the same way: the sink their terms go
//! to, the weighted sum the search takes of them and its taper between the opening and
//! the endgame score, the attackers a side's guards are charged for, the pressure of
//! the pieces that attack a side's palace, and soldiers side by side.

use crate::rules::board::{Bitboard, Board, FILE_MASKS, file_bits_to_board, rank_bits_to_board};
use crate::rules::types::{Color, PieceKind, Square};

/// Material plus placement of each piece on each point, `(opening, endgame)`, signed:
/// positive for Red's or Cho's pieces, negative for Black's or Han's. Indexed
/// `[piece][point]`.
pub type PieceSquareTable = [[(i32, i32); 90]; 14];

/// The incrementally kept part of an evaluation: Red (Cho) minus Black (Han) material
/// and placement in both game phases, and the phase itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Material {
    /// Middlegame score.
    pub mg: i32,
    /// Endgame score.
    pub eg: i32,
    /// Game phase, counted from the pieces on the board that weigh it: it weighs the
    /// two scores.
    pub phase: i32,
}

impl Material {
    /// The change moving the piece on `from` to `to` (and taking what stands there)
    /// makes, called before the move is played: each piece's values are in `table`,
    /// each kind's weight in the phase in `phase`.
    #[inline(always)]
    pub fn after(self, b: &Board, from: Square, to: Square, table: &PieceSquareTable, phase: &[i32; 7]) -> Material {
        let Some(p) = b.piece_at(from) else { return self };
        let values = &table[p.index()];
        let (a, z) = (values[from.index()], values[to.index()]);
        let mut next = Material { mg: self.mg - a.0 + z.0, eg: self.eg - a.1 + z.1, phase: self.phase };
        if let Some(c) = b.piece_at(to) {
            let v = table[c.index()][to.index()];
            next.mg -= v.0;
            next.eg -= v.1;
            next.phase -= phase[c.kind().index()];
        }
        next
    }
}

/// What tells one evaluation's material and placement terms from another's: its
/// weights, where its material and placement terms start, the phase each kind adds and
/// that of a full board, and whether a soldier across the river is valued by its
/// placement alone (Xiangqi's, whose placement there holds its whole worth).
pub struct PieceTerms<const N: usize> {
    /// The weights of every term, `[opening, endgame]`.
    pub weights: &'static [[i32; 2]; N],
    /// The first material term (one per kind, by [`PieceKind::index`]).
    pub material: usize,
    /// The first placement term: `placement + kind * 90 + own_rank * 9 + file`, ranks
    /// counted from the piece's own back rank.
    pub placement: usize,
    /// The phase each kind adds.
    pub phase: [i32; 7],
    /// The phase of a full board: the opening weights count fully from here up.
    pub full_phase: i32,
    /// Is a soldier across the river valued by its placement alone?
    pub soldier_placement_alone_across: bool,
}

impl<const N: usize> PieceTerms<N> {
    /// The placement term of `kind` on `sq` for Black's (Han's) piece if `black`, and
    /// whether its material term counts too.
    #[inline(always)]
    pub const fn placement_term(&self, kind: usize, black: bool, sq: usize) -> (usize, bool) {
        let (file, rank) = (sq % 9, sq / 9);
        let own_rank = if black { 9 - rank } else { rank };
        let alone = self.soldier_placement_alone_across && kind == PieceKind::Soldier as usize && own_rank >= 5;
        (self.placement + kind * 90 + own_rank * 9 + file, !alone)
    }

    /// Material plus placement of one piece on one point, `(opening, endgame)`,
    /// signed: positive for Red's (Cho's) pieces. Indexed `[piece][point]`.
    pub const fn piece_square_table(&self) -> PieceSquareTable {
        let mut t = [[(0, 0); 90]; 14];
        let mut p = 0;
        while p < 14 {
            let (black, kind) = (p >= 7, p % 7);
            let mut sq = 0;
            while sq < 90 {
                let (place, with_material) = self.placement_term(kind, black, sq);
                let (mut mg, mut eg) = (self.weights[place][0], self.weights[place][1]);
                if with_material {
                    mg += self.weights[self.material + kind][0];
                    eg += self.weights[self.material + kind][1];
                }
                t[p][sq] = if black { (-mg, -eg) } else { (mg, eg) };
                sq += 1;
            }
            p += 1;
        }
        t
    }

    /// Counts the material and placement terms of every piece of `board` into `sink`;
    /// returns the game phase.
    pub fn count(&self, board: &Board, sink: &mut impl TermSink) -> i32 {
        let mut phase = 0;
        for (sq, piece) in board.iter() {
            let black = piece.color() == Color::Black;
            let sign = if black { -1 } else { 1 };
            let kind = piece.kind().index();
            let (place, with_material) = self.placement_term(kind, black, sq.index());
            sink.add(place, sign);
            if with_material {
                sink.add(self.material + kind, sign);
            }
            phase += self.phase[kind];
        }
        phase
    }

    /// The material and placement of every piece of `board`, and the phase, computed
    /// from scratch.
    pub fn material(&self, board: &Board) -> Material {
        let mut sum = WeightedSum::new(self.weights, 0, 0);
        let phase = self.count(board, &mut sum);
        Material { mg: sum.mg, eg: sum.eg, phase }
    }

    /// The evaluation from `turn`'s view: `material` (kept move by move) plus the
    /// terms `positional` counts, tapered by the phase.
    #[inline(always)]
    pub fn evaluate(&self, material: Material, turn: Color, positional: impl FnOnce(&mut WeightedSum<N>)) -> i32 {
        let mut sum = WeightedSum::new(self.weights, material.mg, material.eg);
        positional(&mut sum);
        sum.tapered(material.phase, self.full_phase, turn)
    }
}

/// Where the terms of an evaluation go: summed with their weights, or recorded.
pub trait TermSink {
    /// `count` times term `term`, counted for Red or Cho (positive) or for Black or Han
    /// (negative).
    fn add(&mut self, term: usize, count: i32);

    /// Can any of the `n` terms from `first` on change what the sink holds? A sink
    /// that records every term says yes; a weighted sum says no when all their
    /// weights are zero, and the evaluation then need not count them.
    #[inline(always)]
    fn counts_any(&self, first: usize, n: usize) -> bool {
        let _ = (first, n);
        true
    }
}

/// Sums terms with a table of `[opening, endgame]` weights: the two scores.
#[derive(Clone, Copy, Debug)]
pub struct WeightedSum<const N: usize> {
    /// The opening (middlegame) score.
    pub mg: i32,
    /// The endgame score.
    pub eg: i32,
    weights: &'static [[i32; 2]; N],
}

impl<const N: usize> WeightedSum<N> {
    /// A sum over `weights` that starts at `(mg, eg)`.
    #[inline(always)]
    pub const fn new(weights: &'static [[i32; 2]; N], mg: i32, eg: i32) -> Self {
        WeightedSum { mg, eg, weights }
    }

    /// The two scores tapered by the game phase (`phase` of `full_phase`; a fuller board
    /// counts as full), from `turn`'s view. The division rounds toward zero once.
    #[inline(always)]
    pub fn tapered(self, phase: i32, full_phase: i32, turn: Color) -> i32 {
        let phase = phase.min(full_phase);
        let score = (self.mg * phase + self.eg * (full_phase - phase)) / full_phase;
        if turn == Color::Red { score } else { -score }
    }
}

impl<const N: usize> TermSink for WeightedSum<N> {
    #[inline(always)]
    fn add(&mut self, term: usize, count: i32) {
        self.mg += self.weights[term][0] * count;
        self.eg += self.weights[term][1] * count;
    }

    #[inline(always)]
    fn counts_any(&self, first: usize, n: usize) -> bool {
        self.weights[first..first + n].iter().any(|w| *w != [0, 0])
    }
}

/// The sign of `color`'s terms in a sum counted for Red (Cho) minus Black (Han).
#[inline(always)]
pub fn for_red(color: Color) -> i32 {
    if color == Color::Red { 1 } else { -1 }
}

/// The soldiers among `soldiers` with another on the next file of the same rank: one
/// per pair side by side (the i-file has no next file, so no pair wraps to the next
/// rank).
#[inline(always)]
pub fn side_by_side(soldiers: Bitboard) -> i32 {
    (soldiers & (soldiers >> 1) & !FILE_MASKS[8]).count_ones() as i32
}

/// `ACROSS_THE_RIVER[color]`: the other side's half of the board, ranks 5-9 for Red
/// (Cho) and 0-4 for Black (Han).
pub const ACROSS_THE_RIVER: [Bitboard; 2] = [((1u128 << 90) - 1) & !((1u128 << 45) - 1), (1u128 << 45) - 1];

/// `color`'s attackers by kind, as the other side's missing guards are charged for
/// them: chariots, horses, cannons, and soldiers in the other side's half.
#[inline(always)]
pub fn attackers(b: &Board, color: Color) -> [i32; 4] {
    let other_half = ACROSS_THE_RIVER[color.index()];
    [
        b.pieces(color, PieceKind::Chariot).count_ones() as i32,
        b.pieces(color, PieceKind::Horse).count_ones() as i32,
        b.pieces(color, PieceKind::Cannon).count_ones() as i32,
        (b.pieces(color, PieceKind::Soldier) & other_half).count_ones() as i32,
    ]
}

/// The points a chariot on `sq` reaches along its rank and file: the empty points and
/// the first piece in the way on each side, whatever its colour.
#[inline(always)]
pub fn line_reach(b: &Board, sq: Square) -> Bitboard {
    let (rv, fv) = (b.rank_view(sq), b.file_view(sq));
    rank_bits_to_board(rv.quiet | rv.first, sq.rank()) | file_bits_to_board(fv.quiet | fv.first, sq.file())
}

/// Counts the enemy pieces attacking one side's palace into `sink`, `sign` for that
/// side: each of `by_kind` under its own term from `attacker_term` on, and two, three,
/// or four and more at once under one of the three terms from `pressure_term` on (an
/// attack grows faster than its pieces).
#[inline(always)]
pub fn palace_pressure(
    sink: &mut impl TermSink,
    attacker_term: usize,
    pressure_term: usize,
    sign: i32,
    by_kind: &[i32],
) {
    let mut total = 0;
    for (kind, &count) in by_kind.iter().enumerate() {
        sink.add(attacker_term + kind, sign * count);
        total += count;
    }
    if total >= 2 {
        sink.add(pressure_term + (total.min(4) - 2) as usize, sign);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static WEIGHTS: [[i32; 2]; 3] = [[0, 0], [0, 5], [0, 0]];

    #[test]
    fn a_weighted_sum_passes_over_only_terms_whose_weights_are_all_zero() {
        let sum = WeightedSum::new(&WEIGHTS, 0, 0);
        assert!(!sum.counts_any(0, 1));
        assert!(sum.counts_any(0, 2), "the endgame weight of term 1 counts");
        assert!(sum.counts_any(1, 2));
        assert!(!sum.counts_any(2, 1));
    }

    #[test]
    fn pressure_counts_each_attacker_and_how_many_at_once() {
        let mut sum = WeightedSum::new(&PRESSURE, 0, 0);
        // Attacker weights 1, 10 (two kinds); pressure weights 100, 1000, 10000.
        palace_pressure(&mut sum, 0, 2, -1, &[1, 0]);
        assert_eq!(sum.mg, -1, "one attacker is no pressure");
        let mut sum = WeightedSum::new(&PRESSURE, 0, 0);
        palace_pressure(&mut sum, 0, 2, 1, &[2, 1]);
        assert_eq!(sum.mg, 2 + 10 + 1000, "three at once");
        let mut sum = WeightedSum::new(&PRESSURE, 0, 0);
        palace_pressure(&mut sum, 0, 2, 1, &[3, 3]);
        assert_eq!(sum.mg, 3 + 30 + 10000, "six count as four or more");
    }

    static PRESSURE: [[i32; 2]; 5] = [[1, 0], [10, 0], [100, 0], [1000, 0], [10000, 0]];
}
