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
//! with a discovered check), the side to move, the enemy pieces that attack a point of
//! the own palace (by kind, and how many at once), and soldiers across the river side by
//! side. (A weighted sum does not count terms whose weights are all zero: a term can
//! be in the tree for the tuner before a retune that wins gives it weights.)
//!
//! Material and placement are kept incrementally ([`Material`]); the other terms are
//! counted by [`positional_terms`], which the tuner calls with a sink that records the
//! counts instead of summing weights, so both see one evaluation.

pub use super::eval_weights::WEIGHTS;
pub use super::terms::Material;
pub use super::terms::TermSink;
use super::terms::{ACROSS_THE_RIVER, PieceSquareTable, PieceTerms, attackers, for_red, palace_pressure, side_by_side};
use crate::rules::board::{Board, PALACE, horse_targets, squares};
use crate::rules::janggi::tables::{FILE_JUMPS, RANK_JUMPS};
use crate::rules::types::{Color, PieceKind, Square};
use crate::rules::xiangqi::Position;
use crate::rules::xiangqi::tables::PAWNS_INTO_PALACE;

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
/// An enemy piece that attacks a point of the own palace, per kind: chariot, horse,
/// cannon, soldier (four terms).
pub const PALACE_ATTACKER: usize = TEMPO + 1;
/// Two, three, and four or more enemy pieces attacking the own palace (three terms, one
/// of which counts).
pub const PALACE_PRESSURE: usize = PALACE_ATTACKER + 4;
/// A pair of soldiers across the river side by side on one rank.
pub const CONNECTED_SOLDIERS: usize = PALACE_PRESSURE + 3;
/// The number of terms.
pub const TERMS: usize = CONNECTED_SOLDIERS + 1;
// The weights file (written by the tuner) holds one pair per term.
const _: () = assert!(WEIGHTS.len() == TERMS);

/// The phase of a full board: the opening weights count fully from here up.
pub const FULL_PHASE: i32 = 24;

/// The material and placement terms: phase weight of each kind (attacking pieces only;
/// full board = 24), and a soldier across the river valued by its placement alone.
const PIECES: PieceTerms<TERMS> = PieceTerms {
    weights: &WEIGHTS,
    material: MATERIAL,
    placement: PLACEMENT,
    phase: [0, 0, 0, 2, 4, 2, 0],
    full_phase: FULL_PHASE,
    soldier_placement_alone_across: true,
};

/// The placement term of `kind` on `sq`, and whether its material term counts too (a
/// soldier across the river is valued by its placement alone).
#[inline(always)]
pub const fn placement_term(kind: usize, black: bool, sq: usize) -> (usize, bool) {
    PIECES.placement_term(kind, black, sq)
}

/// Signed material-and-placement values: positive for Red's pieces, negative for
/// Black's. Indexed `[piece][square]`.
pub static PIECE_SQUARE: PieceSquareTable = PIECES.piece_square_table();

/// Counts the material and placement terms of every piece into `sink`; returns the
/// game phase.
pub fn material_terms(pos: &Position, sink: &mut impl TermSink) -> i32 {
    PIECES.count(pos.board(), sink)
}

/// The material and placement of every piece, and the phase, computed from scratch.
pub fn material(pos: &Position) -> Material {
    PIECES.material(pos.board())
}

/// The material after moving the piece on `from` to `to` (call before playing it).
#[inline(always)]
pub fn material_after(material: Material, pos: &Position, from: Square, to: Square) -> Material {
    material.after(pos.board(), from, to, &PIECE_SQUARE, &PIECES.phase)
}

/// The evaluation from the side to move's view.
pub fn evaluate(pos: &Position) -> i32 {
    evaluate_with(pos, material(pos))
}

/// The evaluation given the incrementally kept material (which must match `pos`).
#[inline]
pub fn evaluate_with(pos: &Position, material: Material) -> i32 {
    PIECES.evaluate(material, pos.turn(), |sum| positional_terms(pos, sum))
}

/// Counts every term but material and placement into `sink`: mobility, king safety,
/// aimed cannons, the side to move, attacks on each palace and connected soldiers.
#[inline(always)]
pub fn positional_terms(pos: &Position, sink: &mut impl TermSink) {
    let b = pos.board();
    // Each side's reach, against the other side's palace.
    let reach = Color::ALL.map(|color| Reach::of(b, color));
    for color in Color::ALL {
        let sign = for_red(color);
        sink.add(CHARIOT_MOBILITY, sign * reach[color.index()].chariot_mobility);
        sink.add(HORSE_MOBILITY, sign * reach[color.index()].horse_mobility);
    }
    for color in Color::ALL {
        let sign = for_red(color);
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
    sink.add(TEMPO, for_red(pos.turn()));
    // Terms whose weights are all zero cost nothing in the search (the tuner counts them).
    let (palace, connected) = (sink.counts_any(PALACE_ATTACKER, 7), sink.counts_any(CONNECTED_SOLDIERS, 1));
    for color in Color::ALL {
        let sign = for_red(color);
        if palace {
            let by_kind = reach[color.other().index()].palace_attackers;
            palace_pressure(sink, PALACE_ATTACKER, PALACE_PRESSURE, sign, &by_kind);
        }
        if connected {
            sink.add(CONNECTED_SOLDIERS, sign * connected_soldiers(b, color));
        }
    }
}

/// What one side's pieces reach, counted in one pass over them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reach {
    /// The empty points the chariots reach along their ranks and files.
    pub chariot_mobility: i32,
    /// The horse moves whose leg is free.
    pub horse_mobility: i32,
    /// The pieces that attack a point of the other side's palace, by kind: chariots and
    /// cannons along ranks and files (a chariot onto an empty point or the first piece,
    /// a cannon over its screen, onto an empty point or a piece), horses whose leg is
    /// free, soldiers one step away.
    pub palace_attackers: [i32; 4],
}

impl Reach {
    /// The reach of `by`'s pieces.
    #[inline(always)]
    pub fn of(b: &Board, by: Color) -> Reach {
        let palace = PALACE[by.other().index()];
        let lines = PalaceLines::of(by.other());
        let mut reach = Reach::default();
        // Chariots and cannons are read on their two lines, as bits along a rank and a
        // file, without spreading them over the board.
        for sq in squares(b.pieces(by, PieceKind::Chariot)) {
            let (rv, fv) = (b.rank_view(sq), b.file_view(sq));
            reach.chariot_mobility += (rv.quiet.count_ones() + fv.quiet.count_ones()) as i32;
            reach.palace_attackers[0] += lines.met(sq, rv.quiet | rv.first, fv.quiet | fv.first) as i32;
        }
        let empty = !b.occupied();
        for sq in squares(b.pieces(by, PieceKind::Horse)) {
            let targets = horse_targets(sq.index(), empty);
            reach.horse_mobility += targets.count_ones() as i32;
            reach.palace_attackers[1] += (targets & palace != 0) as i32;
        }
        for sq in squares(b.pieces(by, PieceKind::Cannon)) {
            let (f, r) = (sq.file(), sq.rank());
            let (rv, fv) = (b.rank_view(sq), b.file_view(sq));
            let [rank_below, rank_above] = RANK_JUMPS[f as usize][b.rank_occupancy(r) as usize];
            let [file_below, file_above] = FILE_JUMPS[r as usize][b.file_occupancy(f) as usize];
            let (along_rank, along_file) = (rank_below | rank_above | rv.second, file_below | file_above | fv.second);
            reach.palace_attackers[2] += lines.met(sq, along_rank, along_file) as i32;
        }
        reach.palace_attackers[3] =
            (b.pieces(by, PieceKind::Soldier) & PAWNS_INTO_PALACE[by.index()]).count_ones() as i32;
        reach
    }
}

/// One palace as bits of the lines through it: its files along a rank, its ranks along
/// a file.
#[derive(Clone, Copy)]
struct PalaceLines {
    files: u16,
    ranks: u16,
}

impl PalaceLines {
    /// `color`'s palace.
    #[inline(always)]
    fn of(color: Color) -> PalaceLines {
        PalaceLines { files: 0b111 << 3, ranks: if color == Color::Red { 0b111 } else { 0b111 << 7 } }
    }

    /// Do the points `along_rank` (bits by file) of the rank through `sq`, or
    /// `along_file` (bits by rank) of its file, meet the palace?
    #[inline(always)]
    fn met(self, sq: Square, along_rank: u16, along_file: u16) -> bool {
        (self.ranks >> sq.rank() & 1 != 0 && along_rank & self.files != 0)
            || (self.files >> sq.file() & 1 != 0 && along_file & self.ranks != 0)
    }
}

/// The pairs of `color`'s soldiers across the river that stand side by side on a rank.
#[inline(always)]
fn connected_soldiers(b: &Board, color: Color) -> i32 {
    let across = b.pieces(color, PieceKind::Soldier) & ACROSS_THE_RIVER[color.index()];
    side_by_side(across)
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

    /// Black's pieces attacking Red's palace (d0-f2) in the Xiangqi position `fen_text`.
    fn attacking_red(fen_text: &str) -> [i32; 4] {
        let pos = crate::notation::fen::xiangqi(fen_text).unwrap();
        Reach::of(pos.board(), Color::Black).palace_attackers
    }

    /// The reach of both sides on every position of a game, against a count piece by
    /// piece from other look-ups: a chariot's line reach less its pieces, each horse
    /// move over a free leg, each soldier's steps. (The cannons have their own test.)
    #[test]
    fn one_pass_reach_counts_piece_by_piece() {
        use crate::rules::board::HORSE_MOVES;
        let mut pos = Position::startpos();
        for i in 0..300 {
            let b = pos.board();
            for by in Color::ALL {
                let palace = PALACE[by.other().index()];
                let (mut chariot_mobility, mut chariots) = (0, 0);
                for sq in squares(b.pieces(by, PieceKind::Chariot)) {
                    let line = super::super::terms::line_reach(b, sq);
                    chariot_mobility += (line & !b.occupied()).count_ones() as i32;
                    chariots += (line & palace != 0) as i32;
                }
                let (mut horse_mobility, mut horses) = (0, 0);
                for sq in squares(b.pieces(by, PieceKind::Horse)) {
                    let free: Vec<_> = HORSE_MOVES[sq.index()]
                        .as_slice()
                        .iter()
                        .filter(|s| b.code_at(s.block as usize) == 0)
                        .collect();
                    horse_mobility += free.len() as i32;
                    horses += free.iter().any(|s| palace & (1u128 << s.to) != 0) as i32;
                }
                let reach = Reach::of(b, by);
                let soldiers = squares(b.pieces(by, PieceKind::Soldier))
                    .filter(|sq| crate::rules::xiangqi::tables::SOLDIER_STEPS[by.index()][sq.index()] & palace != 0)
                    .count() as i32;
                assert_eq!((reach.chariot_mobility, reach.horse_mobility), (chariot_mobility, horse_mobility));
                let [by_chariots, by_horses, _, by_soldiers] = reach.palace_attackers;
                assert_eq!([by_chariots, by_horses, by_soldiers], [chariots, horses, soldiers], "{by:?} at ply {i}");
            }
            let mut list = MoveList::new();
            pos.legal_moves(&mut list);
            if list.is_empty() {
                break;
            }
            pos.play_unchecked(list.as_slice()[(i * 13 + 5) % list.len()]);
        }
    }

    #[test]
    fn palace_attackers_need_a_way_in() {
        assert_eq!(attacking_red("5k3/9/9/9/9/9/9/9/9/3K5 w - - 0 1"), [0; 4]);
        // A chariot down the open e-file; blocked by a soldier on e4.
        assert_eq!(attacking_red("5k3/9/9/9/4r4/9/9/9/9/3K5 w - - 0 1"), [1, 0, 0, 0]);
        assert_eq!(attacking_red("5k3/9/9/9/4r4/4P4/9/9/9/3K5 w - - 0 1"), [0; 4]);
        // A cannon needs that soldier as its screen: without one it only moves there.
        assert_eq!(attacking_red("5k3/9/9/9/4c4/4P4/9/9/9/3K5 w - - 0 1"), [0, 0, 1, 0]);
        assert_eq!(attacking_red("5k3/9/9/9/4c4/9/9/9/9/3K5 w - - 0 1"), [0; 4]);
        // A cannon on a2 over the red cannon on b2 takes the advisor on d2.
        assert_eq!(attacking_red("5k3/9/9/9/9/9/9/cC1A5/9/3K5 w - - 0 1"), [0, 0, 1, 0]);
        // A horse on d3 reaches e1 over its leg d2 and f2 over e3, unless both are taken.
        assert_eq!(attacking_red("5k3/9/9/9/9/9/3n5/9/9/3K5 w - - 0 1"), [0, 1, 0, 0]);
        assert_eq!(attacking_red("5k3/9/9/9/9/9/3nP4/3A5/9/3K5 w - - 0 1"), [0; 4]);
        // A soldier on e3 steps to e2; one on a3 goes nowhere near.
        assert_eq!(attacking_red("5k3/9/9/9/9/9/4p4/9/9/3K5 w - - 0 1"), [0, 0, 0, 1]);
        assert_eq!(attacking_red("5k3/9/9/9/9/9/p8/9/9/3K5 w - - 0 1"), [0; 4]);
    }

    /// The total count of each term of `fen_text`'s positional terms.
    fn positional_totals(fen_text: &str) -> Vec<i32> {
        struct Totals(Vec<i32>);
        impl TermSink for Totals {
            fn add(&mut self, term: usize, count: i32) {
                self.0[term] += count;
            }
        }
        let mut totals = Totals(vec![0; TERMS]);
        positional_terms(&crate::notation::fen::xiangqi(fen_text).unwrap(), &mut totals);
        totals.0
    }

    #[test]
    fn attackers_together_press_the_palace() {
        // A black chariot along rank 2 and a soldier on e3: two attack Red's palace.
        let totals = positional_totals("5k3/9/9/9/9/9/4p4/r8/9/3K5 w - - 0 1");
        assert_eq!(totals[PALACE_ATTACKER..PALACE_ATTACKER + 4], [1, 0, 0, 1]);
        assert_eq!(totals[PALACE_PRESSURE..PALACE_PRESSURE + 3], [1, 0, 0]);
        // A horse on f3 makes three: it reaches e1 over its free leg f2.
        let totals = positional_totals("5k3/9/9/9/9/9/4pn3/r8/9/3K5 w - - 0 1");
        assert_eq!(totals[PALACE_ATTACKER..PALACE_ATTACKER + 4], [1, 1, 0, 1]);
        assert_eq!(totals[PALACE_PRESSURE..PALACE_PRESSURE + 3], [0, 1, 0]);
        // Counted against Black when Red attacks: one red chariot up the d-file.
        let totals = positional_totals("5k3/9/9/9/3R5/9/9/9/9/3K5 b - - 0 1");
        assert_eq!(totals[PALACE_ATTACKER..PALACE_ATTACKER + 4], [-1, 0, 0, 0]);
        assert_eq!(totals[PALACE_PRESSURE..PALACE_PRESSURE + 3], [0, 0, 0]);
    }

    #[test]
    fn soldiers_across_the_river_side_by_side_are_connected() {
        assert_eq!(positional_totals("5k3/9/9/3PP4/9/9/9/9/9/3K5 w - - 0 1")[CONNECTED_SOLDIERS], 1);
        assert_eq!(positional_totals("5k3/9/9/3PPP3/9/9/9/9/9/3K5 w - - 0 1")[CONNECTED_SOLDIERS], 2);
        // Not side by side.
        assert_eq!(positional_totals("5k3/9/9/2P1P4/9/9/9/9/9/3K5 w - - 0 1")[CONNECTED_SOLDIERS], 0);
        // i5 and a6 are neighbours in the board's numbering, not on the board.
        assert_eq!(positional_totals("5k3/9/9/P8/8P/9/9/9/9/3K5 w - - 0 1")[CONNECTED_SOLDIERS], 0);
        // Black's pair on d3 and e3, counted for Black.
        assert_eq!(positional_totals("5k3/9/9/9/9/9/3pp4/9/9/3K5 w - - 0 1")[CONNECTED_SOLDIERS], -1);
    }
}
